"""What ``/encounter`` offers while typing: the bundled scenarios of the chosen ruleset, the units the person may
take (a hidden one only to those who play its side, FOG-1) and the sides."""

from __future__ import annotations

import discord
from discord import app_commands

from bot.service import bundled_scenarios
from cogs.common import bot_of, encounter_here, lang
from rules.registry import discord_ruleset_ids


async def scenario_autocomplete(
    interaction: discord.Interaction, current: str
) -> list[app_commands.Choice[str]]:
    ruleset = getattr(interaction.namespace, "ruleset", None)
    out: list[app_commands.Choice[str]] = []
    for sid, name, rid in bundled_scenarios(ruleset if isinstance(ruleset, str) else None, lang(interaction)):
        if rid not in discord_ruleset_ids():
            continue  # a ruleset the bot does not offer yet (the CLI plays it)
        if current.lower() in sid.lower() or current.lower() in name.lower():
            out.append(app_commands.Choice(name=f"{name} ({rid})"[:100], value=sid))
    return out[:25]


async def free_unit_autocomplete(
    interaction: discord.Interaction, current: str
) -> list[app_commands.Choice[str]]:
    """Units the person may take: a hidden one only to those who play its side (FOG-1)."""
    try:
        meta = await encounter_here(interaction)
        units = await bot_of(interaction).service.free_units(meta.id, interaction.user.id)
    except Exception:
        return []
    side = getattr(interaction.namespace, "side", None)
    return [
        app_commands.Choice(name=f"{u.name} ({u.side})"[:100], value=u.id)
        for u in units
        if (not side or u.side == side) and current.lower() in f"{u.id} {u.name}".lower()
    ][:25]


async def side_autocomplete(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
    try:
        meta = await encounter_here(interaction)
        _, state, _ = await bot_of(interaction).service.load(meta.id)
    except Exception:
        return []
    locale = lang(interaction)
    return [
        app_commands.Choice(name=s.name_in(locale)[:100], value=s.id)
        for s in state.sides
        if current.lower() in f"{s.id} {s.name_in(locale)}".lower()
    ][:25]
