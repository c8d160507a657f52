"""``/unit info`` and ``/unit arcs``: what a caller may know about a unit, and never more (FOG-1).

Autocomplete offers only units the caller can see: everything for a director, their side's view for a player,
the public view for anyone else; the commands refuse an unseen unit exactly like an unknown one.
"""

from __future__ import annotations

import asyncio
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.alt_text import arcs_alt, doll_alt
from bot.arcs import pictured
from bot.imaging import board_png
from bot.names import shown_name
from bot.palettes import STANDARD, private_scheme
from bot.process.client import HexBotCore
from bot.results import refuse
from bot.rulesets.sheets import doll_png, record_sheet, sheet_fields
from bot.translator import tr
from cogs.common import actor_of, bot_of, choices, encounter_here, lang, png_file
from data.i18n import has, t
from render.board import ArcPicture
from rules.engine import visibility
from rules.hexgrid import Hex
from rules.registry import ruleset_for
from rules.ruleset import DIRECTOR, PUBLIC
from rules.state import EncounterState


async def viewer_of(interaction: discord.Interaction) -> tuple[int, EncounterState, str]:
    """(encounter id, state, viewer) for the caller: ``director``, their side, or ``public``."""
    service = bot_of(interaction).service
    meta = await encounter_here(interaction)
    _, state, _ = await service.load(meta.id)
    if await service.is_director(meta, actor_of(interaction)):
        return meta.id, state, DIRECTOR
    mine = await service.my_units(meta.id, interaction.user.id)
    viewer = state.units[mine[0]].side if mine and mine[0] in state.units else PUBLIC
    return meta.id, state, viewer


def seen_by(state: EncounterState, viewer: str) -> frozenset[str]:
    return visibility(ruleset_for(state), state, viewer).units


async def any_unit_autocomplete(
    interaction: discord.Interaction, current: str
) -> list[app_commands.Choice[str]]:
    try:
        _, state, viewer = await viewer_of(interaction)
    except Exception:
        return []
    seen = seen_by(state, viewer)
    return [
        app_commands.Choice(name=f"{u.name} ({u.side})"[:100], value=u.id)
        for u in state.units.values()
        if u.id in seen and current.lower() in f"{u.id} {u.name}".lower()
    ][:25]


def arc_label(name: str, locale: str) -> str:
    """A firing section by its name in the reader's words (``arc.<name>``), else as the ruleset names it."""
    return t(f"arc.{name}", locale) if has(f"arc.{name}", "en") else name


def weapon_label(key: str, label: str, locale: str) -> str:
    """A weapon for ``/unit arcs`` in the reader's words (``arc.weapon.<key>``), else in the ruleset's notation
    with each word the catalogs name (``term.<word>``: mech's ``medium_laser`` → "Láser Medio") translated."""
    if has(f"arc.weapon.{key}", "en"):
        return t(f"arc.weapon.{key}", locale)
    return " ".join(
        t(f"term.{word}", locale) if has(f"term.{word}", "en") else word for word in label.split()
    )


def band_label(name: str, first: int, last: int, locale: str) -> str:
    """A range band in the legend: ``alcance corto 1-3``."""
    shown = t(f"arc.band.{name}", locale) if has(f"arc.band.{name}", "en") else name
    span = str(first) if first == last else f"{first}-{last}"
    return t("unit.arcs_band", locale, band=shown, span=span)


async def _chosen_unit(interaction: discord.Interaction) -> tuple[EncounterState, str] | None:
    """The state and the unit typed in the ``unit`` option, when the caller may see that unit (else None)."""
    try:
        _, state, viewer = await viewer_of(interaction)
    except Exception:
        return None
    unit = str(getattr(interaction.namespace, "unit", "") or "")
    return (state, unit) if unit in state.units and unit in seen_by(state, viewer) else None


async def weapon_autocomplete(
    interaction: discord.Interaction, current: str
) -> list[app_commands.Choice[str]]:
    """The chosen unit's weapons (exo: ``L#1``; skirmish: ranged, melee), for a caller who sees it."""
    if (chosen := await _chosen_unit(interaction)) is None:
        return []
    state, unit = chosen
    locale = lang(interaction)
    weapons = ruleset_for(state).arc_weapons(state, unit).items()
    return choices(((weapon_label(key, label, locale), key) for key, label in weapons), current)


async def section_autocomplete(
    interaction: discord.Interaction, current: str
) -> list[app_commands.Choice[str]]:
    """The chosen unit's firing sections (mech: front, left arm, right arm, rear), for a caller who sees it."""
    if (chosen := await _chosen_unit(interaction)) is None:
        return []
    state, unit = chosen
    locale = lang(interaction)
    return choices(
        ((arc_label(name, locale), name) for name in ruleset_for(state).firing_arcs(state, unit)), current
    )


def _visible_unit(state: EncounterState, viewer: str, unit_id: str) -> Any:
    if unit_id not in state.units or unit_id not in seen_by(state, viewer):
        # the same answer as for a unit that does not exist: an unseen unit is not confirmed
        raise refuse(
            "unit.unknown", f"There is no unit called {unit_id!r} in this encounter.", unit=unit_id[:40]
        )
    return state.units[unit_id]


class UnitCog(
    commands.GroupCog,
    group_name=tr("unit", "cmd.unit.name"),
    group_description=tr("Look at a unit", "cmd.unit.desc"),
):
    def __init__(self, bot: HexBotCore) -> None:
        self.bot = bot
        super().__init__()

    @app_commands.command(
        name=tr("info", "cmd.unit.info.name"), description=tr("A unit's stats", "cmd.unit.info.desc")
    )
    @app_commands.autocomplete(unit=any_unit_autocomplete)
    @app_commands.guild_only()
    async def info(self, interaction: discord.Interaction, unit: str) -> None:
        _, state, viewer = await viewer_of(interaction)
        u = _visible_unit(state, viewer, unit)
        locale = lang(interaction)
        sheet = record_sheet(state, u.id, viewer)
        embed = discord.Embed(
            title=f"{shown_name(u.name)} ({shown_name(state.side(u.side).name_in(locale))})"[:256],
            colour=discord.Colour.dark_teal(),
        )
        for name, value, inline in sheet_fields(sheet, locale):
            embed.add_field(name=name, value=value, inline=inline)
        if not sheet.doll:
            await interaction.response.send_message(embed=embed, ephemeral=True)
            return
        await interaction.response.defer(ephemeral=True, thinking=True)
        png = await asyncio.to_thread(doll_png, sheet, locale)
        # attached, not set as the embed's image: Discord shrinks an embed image to about 400 px, an attachment is
        # shown up to 550 px, the width the doll is drawn for
        alt = doll_alt(u.name, locale)
        files = [png_file(png, "armour.png", description=alt)] if png is not None else []
        await interaction.followup.send(embed=embed, files=files, ephemeral=True)

    @app_commands.command(
        name=tr("arcs", "cmd.unit.arcs.name"),
        description=tr("A unit's firing arcs, as far as its weapons reach", "cmd.unit.arcs.desc"),
    )
    @app_commands.autocomplete(
        unit=any_unit_autocomplete, section=section_autocomplete, weapon=weapon_autocomplete
    )
    @app_commands.guild_only()
    async def arcs(
        self,
        interaction: discord.Interaction,
        unit: str,
        section: str | None = None,
        weapon: str | None = None,
    ) -> None:
        _, state, viewer = await viewer_of(interaction)
        _visible_unit(state, viewer, unit)
        ruleset = ruleset_for(state)
        locale = lang(interaction)
        weapons = ruleset.arc_weapons(state, unit)
        key = ruleset.arc_weapon(state, unit, weapon) if weapon is not None else None
        if weapon is not None and key is None:  # before deferring: the refusals stay private
            raise refuse("unit.no_weapon", "The unit has no such weapon.", weapon=weapon[:30])
        sections, bands = ruleset.weapon_reach(state, unit, key)
        if not any(sections.values()):
            raise refuse("unit.no_arcs", "This unit has no firing arcs to show.")
        if section is not None and section not in sections:
            raise refuse("unit.no_section", "The unit has no such firing section.", section=section[:30])
        await interaction.response.defer(ephemeral=True, thinking=True)
        reach = ruleset.reachable(state, unit) if section is None and key is None else frozenset[Hex]()
        order = [*ruleset.firing_arcs(state, unit), *sections]
        pictures = [
            ArcPicture(
                unit,
                tuple((arc_label(name, locale), sections[name]) for name in names),
                tuple((band_label(b.name, b.first, b.last, locale), b.first, b.last) for b in bands),
                (t("unit.arcs_reach", locale), reach),  # where it can move, when the ruleset says
                tuple(order.index(name) for name in names),  # a section keeps its colour in every picture
            )
            for names in pictured(sections, section)
        ]
        scheme = await private_scheme(self.bot.service.storage, interaction.user.id)
        pngs = [await arcs_png(state, viewer, locale, picture, scheme) for picture in pictures]
        if not pngs or any(png is None for png in pngs):
            raise refuse("render.failed", "The board could not be drawn right now.")
        name = state.units[unit].name
        shown = t("unit.arcs", locale, unit=shown_name(name))
        if section is not None:
            shown += f" ({arc_label(section, locale)})"
        if key is not None:
            shown += f" · {weapon_label(key, weapons[key], locale)}"
        await interaction.followup.send(
            shown,
            files=[
                png_file(
                    png, f"arcs-{i + 1}.png", description=arcs_alt(name, [s for s, _ in p.sections], locale)
                )
                for i, (png, p) in enumerate(zip(pngs, pictures, strict=True))
                if png is not None
            ],
            ephemeral=True,
        )


async def arcs_png(
    state: EncounterState, viewer: str, locale: str, picture: ArcPicture, scheme: str = STANDARD
) -> bytes | None:
    """The arcs picture, drawn off the event loop; the plain board if it cannot be drawn."""

    def draw() -> bytes:
        from render import BoardSnapshot, RenderOptions, render_arcs

        return render_arcs(
            BoardSnapshot(state, ()),
            viewer=viewer,
            arcs=picture,
            options=RenderOptions(locale=locale, scheme=scheme),
        )

    try:
        return await asyncio.to_thread(draw)
    except Exception:
        return await board_png(state, (), viewer=viewer, locale=locale, scheme=scheme)


async def setup(bot: HexBotCore) -> None:
    await bot.add_cog(UnitCog(bot))
