"""What a director is offered while typing a ``/director`` command: units (hidden ones included), terrain kinds,
rulings, switches, damage locations.

Discord asks for suggestions before any check of the command runs, so each one first makes sure the one typing
directs this channel's encounter; anyone else is offered nothing and learns nothing from it (FOG-1).
"""

from __future__ import annotations

import discord
from discord import app_commands

from bot.transforms import overrides
from cogs.common import actor_of, bot_of, choices, encounter_here, lang
from data.i18n import has, t
from rules.errors import GameError
from rules.registry import ruleset_for
from rules.state import EncounterState

CLEAR_TERRAIN = "clear"  # the /director terrain value that removes a hex's terrain


async def director_state(interaction: discord.Interaction) -> EncounterState | None:
    """The channel's encounter state for a director's autocomplete; None (no suggestions) for anyone else.
    Discord asks for suggestions before any check of the command runs, so a player typing a director's command
    learns nothing from them: not which units, locations or options exist (FOG-1)."""
    try:
        meta = await encounter_here(interaction)
        service = bot_of(interaction).service
        if not await service.is_director(meta, actor_of(interaction)):
            return None
        return (await service.read(meta.id)).state
    except GameError:
        return None


async def director_unit_autocomplete(
    interaction: discord.Interaction, current: str
) -> list[app_commands.Choice[str]]:
    """Every unit, hidden ones included, for a director (who sees them all); nothing for anyone else."""
    if (state := await director_state(interaction)) is None:
        return []
    return choices(((f"{u.name} ({u.side})", u.id) for u in state.units.values()), current)


async def terrain_autocomplete(
    interaction: discord.Interaction, current: str
) -> list[app_commands.Choice[str]]:
    """The terrain kinds of this encounter's ruleset (its data table), named in the reader's language."""
    if (state := await director_state(interaction)) is None:
        return []
    locale = lang(interaction)
    options = [
        (t(f"render.terrain.{k}", locale) if has(f"render.terrain.{k}", "en") else k, k)
        for k in overrides.terrain_kinds(state.ruleset)
    ]
    options.append((t("director.terrain_clear_choice", locale), CLEAR_TERRAIN))
    return choices(((f"{name} ({value})", value) for name, value in options), current)


async def ruling_autocomplete(
    interaction: discord.Interaction, current: str
) -> list[app_commands.Choice[str]]:
    """The rulings this encounter's ruleset leaves to the director (exo: collision, dock, board)."""
    if (state := await director_state(interaction)) is None:
        return []
    locale = lang(interaction)
    return choices(((t(r.usage, locale), r.id) for r in ruleset_for(state).rulings().values()), current)


async def switch_autocomplete(
    interaction: discord.Interaction, current: str
) -> list[app_commands.Choice[str]]:
    """The encounter options this encounter's ruleset lets the director switch (mech: secret declarations)."""
    if (state := await director_state(interaction)) is None:
        return []
    locale = lang(interaction)
    return choices(((t(f"option.{n}", locale), n) for n in ruleset_for(state).director_switches()), current)


async def location_autocomplete(
    interaction: discord.Interaction, current: str
) -> list[app_commands.Choice[str]]:
    """Where the chosen unit takes damage, when its ruleset has locations (mech: head, ct, lt …)."""
    if (state := await director_state(interaction)) is None:
        return []
    unit = str(getattr(interaction.namespace, "unit", "") or "")
    if unit not in state.units:
        return []
    locale = lang(interaction)
    locations = ruleset_for(state).damage_locations(state, unit)
    # named in the reader's words alone; the engine's key is the value sent
    return choices(
        ((t(f"location.{loc}", locale) if has(f"location.{loc}", "en") else loc, loc) for loc in locations),
        current,
    )
