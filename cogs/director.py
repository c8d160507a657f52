"""``/director …``: the director's overrides and controls (DESIGN §4).

Every command is refused to anyone who is not a director of this channel's encounter, before anything else
happens. Every override is recorded as an event (undoable) and shown in the channel.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.process.client import HexBotCore, Refusal
from bot.results import OverrideDone, refuse
from bot.storage import Encounter
from bot.text.account import describe
from bot.transforms import overrides
from bot.translator import tr
from bot.undo_text import undone_text
from cogs import director_phase
from cogs.common import (
    HexTransformer,
    actor_of,
    channel_language,
    clip,
    encounter_here,
    lang,
    reply,
)
from cogs.director_choices import (
    CLEAR_TERRAIN,
    director_unit_autocomplete,
    location_autocomplete,
    ruling_autocomplete,
    switch_autocomplete,
    terrain_autocomplete,
)
from cogs.spectators import SpectatorDelay
from data.i18n import t
from rules.errors import GameError
from rules.hexgrid import Hex, HexSide
from rules.registry import ruleset_for
from rules.state import EncounterState

HexArg = app_commands.Transform[Hex, HexTransformer]


def minutes_text(minutes: float) -> str:
    """Minutes as a confirmation button carries them: plain digits, never an exponent."""
    return f"{minutes:.4f}".rstrip("0").rstrip(".") or "0"


Change = Callable[
    [EncounterState], tuple[EncounterState, Any]
]  # a pure edit from bot/transforms/overrides.py


class DirectorCog(
    SpectatorDelay,
    commands.GroupCog,
    group_name=tr("director", "cmd.director.name"),
    group_description=tr("Director tools for this channel's encounter", "cmd.director.desc"),
):
    def __init__(self, bot: HexBotCore) -> None:
        self.bot = bot
        super().__init__()

    async def interaction_check(self, interaction: discord.Interaction) -> bool:  # type: ignore[override]
        """Refuse non-directors up front, for every subcommand."""
        try:
            meta = await encounter_here(interaction)
            await self.bot.service.require_director(meta, actor_of(interaction))
        except GameError as exc:
            raise Refusal(exc) from None
        return True

    async def _override(
        self, interaction: discord.Interaction, action: str, target: str, change: Change
    ) -> None:
        """Every state override: applied by the service as an undoable event, then told to the channel."""
        meta = await encounter_here(interaction)
        done = await self.bot.service.override(meta.id, actor_of(interaction), action, target, change)
        if self.bot.announcer is not None:
            # queued before the answer goes out: whoever has read the answer finds the boards already in line
            # with the encounter's posts (its announcer is settled only once they are sent)
            self.bot.announcer.override_done(meta, done)
        await self._announce(interaction, meta, done)

    async def _announce(self, interaction: discord.Interaction, meta: Encounter, done: OverrideDone) -> None:
        locale = lang(interaction)
        line = describe(done.event, done.state, locale)
        if not done.public:  # a unit the public cannot see: the director alone hears of it (FOG-1)
            await interaction.response.send_message(
                clip(t("director.override_private", locale, line=line)), ephemeral=True
            )
            return
        channel_locale = await channel_language(self.bot, meta)
        await interaction.response.send_message(
            clip(
                t(
                    "director.override_done",
                    channel_locale,
                    line=describe(done.event, done.state, channel_locale),
                )
            ),
            allowed_mentions=discord.AllowedMentions.none(),
        )
        if self.bot.announcer is not None:
            self.bot.announcer.status_changed(meta.id)  # queued, retried if refused

    @app_commands.command(
        name=tr("move", "cmd.director.move.name"),
        description=tr("Place a unit on a hex", "cmd.director.move.desc"),
    )
    @app_commands.autocomplete(unit=director_unit_autocomplete)
    async def move(
        self, interaction: discord.Interaction, unit: str, hex: HexArg, facing: str | None = None
    ) -> None:
        side = None
        if facing is not None:
            try:
                side = int(HexSide.parse(facing.upper() if not facing.isdigit() else int(facing)))
            except ValueError:
                raise refuse(
                    "hex.bad_facing", "Facing is N, NE, SE, S, SW, NW or 0-5.", value=facing[:10]
                ) from None
        await self._override(interaction, "move", unit, lambda s: overrides.move(s, unit, hex, side))

    @app_commands.command(
        name=tr("set", "cmd.director.set.name"), description=tr("Set a unit's stat", "cmd.director.set.desc")
    )
    @app_commands.autocomplete(unit=director_unit_autocomplete)
    async def set_(self, interaction: discord.Interaction, unit: str, stat: str, value: str) -> None:
        await self._override(interaction, "set", unit, lambda s: overrides.set_stat(s, unit, stat, value))

    @app_commands.command(
        name=tr("damage", "cmd.director.damage.name"),
        description=tr("Damage a unit by hand", "cmd.director.damage.desc"),
    )
    @app_commands.autocomplete(unit=director_unit_autocomplete, location=location_autocomplete)
    async def damage(
        self,
        interaction: discord.Interaction,
        unit: str,
        amount: app_commands.Range[str, 1, 20],
        location: app_commands.Range[str, 1, 20] | None = None,
    ) -> None:
        # as the ruleset takes it: a number (exo, skirmish), or a location and a number (mech: "ct 5"); a location
        # chosen from the ruleset's list (Ruleset.damage_locations) is written before the amount
        typed = f"{location} {amount}" if location else amount
        await self._override(interaction, "damage", unit, lambda s: overrides.damage(s, unit, typed))

    @app_commands.command(
        name=tr("option", "cmd.director.option.name"),
        description=tr("Turn an encounter option on or off", "cmd.director.option.desc"),
    )
    @app_commands.autocomplete(name=switch_autocomplete)
    async def option(self, interaction: discord.Interaction, name: str, value: bool) -> None:
        # the ruleset lists the options a director may switch (Ruleset.director_switches)
        await self._override(interaction, "option", "", lambda s: overrides.set_option(s, name, value))

    @app_commands.command(
        name=tr("add-unit", "cmd.director.add_unit.name"),
        description=tr("Add a unit copied from another", "cmd.director.add_unit.desc"),
    )
    @app_commands.autocomplete(like=director_unit_autocomplete)
    async def add_unit(
        self,
        interaction: discord.Interaction,
        id: str,
        side: str,
        hex: HexArg,
        like: str,
        name: str | None = None,
    ) -> None:
        await self._override(
            interaction, "add-unit", id, lambda s: overrides.add_unit(s, id, side, hex, like, name)
        )

    @app_commands.command(
        name=tr("remove-unit", "cmd.director.remove_unit.name"),
        description=tr("Remove a unit", "cmd.director.remove_unit.desc"),
    )
    @app_commands.autocomplete(unit=director_unit_autocomplete)
    async def remove_unit(self, interaction: discord.Interaction, unit: str) -> None:
        await self._override(interaction, "remove-unit", unit, lambda s: overrides.remove_unit(s, unit))

    @app_commands.command(
        name=tr("reveal", "cmd.director.reveal.name"),
        description=tr("Reveal a hidden unit", "cmd.director.reveal.desc"),
    )
    @app_commands.autocomplete(unit=director_unit_autocomplete)
    async def reveal(self, interaction: discord.Interaction, unit: str) -> None:
        await self._override(interaction, "reveal", unit, lambda s: overrides.reveal(s, unit))

    @app_commands.command(
        name=tr("terrain", "cmd.director.terrain.name"),
        description=tr("Set or clear the terrain of a hex", "cmd.director.terrain.desc"),
    )
    @app_commands.autocomplete(terrain=terrain_autocomplete)
    async def terrain(self, interaction: discord.Interaction, hex: HexArg, terrain: str) -> None:
        kind = None if terrain.strip().lower() == CLEAR_TERRAIN else terrain.strip()
        await self._override(interaction, "terrain", hex.label, lambda s: overrides.set_terrain(s, hex, kind))

    @app_commands.command(
        name=tr("ruling", "cmd.director.ruling.name"),
        description=tr(
            "Rule what the rules leave to you (collision, docking, boarding…)", "cmd.director.ruling.desc"
        ),
    )
    @app_commands.describe(
        kind=tr("Which ruling", "cmd.director.ruling.kind"),
        details=tr("The units and numbers, as the ruling's help says", "cmd.director.ruling.details"),
    )
    @app_commands.autocomplete(kind=ruling_autocomplete)
    async def ruling(
        self, interaction: discord.Interaction, kind: str, details: app_commands.Range[str, 1, 200]
    ) -> None:
        meta = await encounter_here(interaction)
        _, state, _ = await self.bot.service.load(meta.id)
        found = ruleset_for(state).rulings().get(kind)
        if found is None:
            raise refuse("director.no_ruling", f"There is no ruling called {kind!r} here.", kind=kind[:30])
        words = tuple(details.split())
        unit = next((w.partition("=")[0] for w in words if w.partition("=")[0] in state.units), "")
        await self._override(interaction, f"ruling-{found.id}", unit, lambda s: found.apply(s, words))

    @app_commands.command(
        name=tr("assign", "cmd.director.assign.name"),
        description=tr("Give a unit to a player", "cmd.director.assign.desc"),
    )
    @app_commands.autocomplete(unit=director_unit_autocomplete)
    async def assign(self, interaction: discord.Interaction, unit: str, user: discord.User) -> None:
        meta = await encounter_here(interaction)
        joined = await self.bot.service.assign(meta.id, actor_of(interaction), unit, user.id)
        _, state, _ = await self.bot.service.load(meta.id)
        private = not self.bot.service.is_public(state, joined.unit)  # a hidden unit: never in public
        locale = lang(interaction) if private else await channel_language(self.bot, meta)
        await interaction.response.send_message(
            t(
                "encounter.joined",
                locale,
                user=user.mention,
                units=joined.unit_name,
                side=joined.side_in(locale),
            ),
            ephemeral=private,
            allowed_mentions=discord.AllowedMentions.none(),
        )
        if meta.status == "running" and self.bot.announcer is not None:
            await self.bot.announcer.open_phase(meta.id)

    @app_commands.command(
        name=tr("kick", "cmd.director.kick.name"),
        description=tr("Remove a player from the encounter", "cmd.director.kick.desc"),
    )
    async def kick(self, interaction: discord.Interaction, user: discord.User) -> None:
        meta = await encounter_here(interaction)
        await self.bot.service.kick(meta.id, actor_of(interaction), user.id)
        await interaction.response.send_message(
            t("director.kicked", lang(interaction), user=user.mention),
            allowed_mentions=discord.AllowedMentions.none(),
        )

    @app_commands.command(
        name=tr("cohost", "cmd.director.cohost.name"),
        description=tr("Make someone a co-director", "cmd.director.cohost.desc"),
    )
    async def cohost(self, interaction: discord.Interaction, user: discord.User) -> None:
        meta = await encounter_here(interaction)
        await self.bot.service.cohost(meta.id, actor_of(interaction), user.id)
        await interaction.response.send_message(
            t("director.cohosted", lang(interaction), user=user.mention),
            allowed_mentions=discord.AllowedMentions.none(),
        )

    @app_commands.command(
        name=tr("resolve", "cmd.director.resolve.name"),
        description=tr("Resolve the phase now", "cmd.director.resolve.desc"),
    )
    async def resolve(self, interaction: discord.Interaction) -> None:
        # the phase the director saw (cogs/director_phase.py): a resolve given before the phase it would force
        # was shown (the last order came in, or a co-director or a double click got there first) forces nothing
        await director_phase.run(interaction, await encounter_here(interaction), "resolve")

    @app_commands.command(
        name=tr("deadline", "cmd.director.deadline.name"),
        description=tr("Resolve the phase after N minutes (0 clears)", "cmd.director.deadline.desc"),
    )
    async def deadline(
        self, interaction: discord.Interaction, minutes: app_commands.Range[float, 0, 10080]
    ) -> None:
        # the deadline of the phase the director saw, not of one shown after the command was given
        await director_phase.run(
            interaction, await encounter_here(interaction), "deadline", minutes_text(minutes)
        )

    @app_commands.command(
        name=tr("pause", "cmd.director.pause.name"),
        description=tr("Pause the encounter", "cmd.director.pause.desc"),
    )
    async def pause(self, interaction: discord.Interaction) -> None:
        await director_phase.run(interaction, await encounter_here(interaction), "pause")

    @app_commands.command(
        name=tr("resume", "cmd.director.resume.name"),
        description=tr("Resume the encounter", "cmd.director.resume.desc"),
    )
    async def resume(self, interaction: discord.Interaction) -> None:
        meta = await encounter_here(interaction)
        await self.bot.service.set_status(meta.id, actor_of(interaction), "running")
        await interaction.response.send_message(t("director.resumed", lang(interaction)))
        if self.bot.announcer is not None:
            await self.bot.announcer.open_phase(meta.id)

    @app_commands.command(
        name=tr("undo", "cmd.director.undo.name"),
        description=tr("Go back to the previous phase's state", "cmd.director.undo.desc"),
    )
    async def undo(self, interaction: discord.Interaction) -> None:
        meta = await encounter_here(interaction)
        # refused before the public "thinking…" (which "nothing to undo" used to fill, for the table to read); the
        # undo itself may take a while (0.6 s for a resolution at 800 ships), so it is deferred
        seen = await self.bot.service.check_undo(meta.id, actor_of(interaction))
        # a step the channel was never told of is undone out of its sight too (FOG-1): even a "thinking…" says
        # that something happened
        await interaction.response.defer(ephemeral=not seen)
        done = await self.bot.service.undo_step(meta.id, actor_of(interaction), seen=seen)
        if not done.seen:
            if self.bot.announcer is not None:  # queued before the answer, as an override's boards are
                self.bot.announcer.undone_unseen(meta, done)
            await interaction.followup.send(
                clip(undone_text(done, lang(interaction), detail=True)), ephemeral=True
            )
            return
        # a hidden unit's override is named to the director alone; the channel hears only that a step was undone
        await interaction.followup.send(
            clip(undone_text(done, lang(interaction), detail=done.public)),
            allowed_mentions=discord.AllowedMentions.none(),
        )
        if not done.public:
            await interaction.followup.send(
                clip(undone_text(done, lang(interaction), detail=True)), ephemeral=True
            )
        if self.bot.announcer is not None:
            await self.bot.announcer.open_phase(meta.id)

    @app_commands.command(
        name=tr("reveal-at-end", "cmd.director.reveal_at_end.name"),
        description=tr("Replays of the ended encounter show everything", "cmd.director.reveal_at_end.desc"),
    )
    async def reveal_at_end(self, interaction: discord.Interaction, on: bool) -> None:
        meta = await encounter_here(interaction)
        await self.bot.service.set_reveal_at_end(meta.id, actor_of(interaction), on)
        key = "director.reveal_at_end_on" if on else "director.reveal_at_end_off"
        await reply(interaction, t(key, lang(interaction)))

    @app_commands.command(
        name=tr("review", "cmd.director.review.name"),
        description=tr("Director reviews rolls before they apply", "cmd.director.review.desc"),
    )
    async def review(self, interaction: discord.Interaction, on: bool) -> None:
        await director_phase.run(
            interaction, await encounter_here(interaction), "review", "on" if on else "off"
        )

    @app_commands.command(
        name=tr("override-roll", "cmd.director.override_roll.name"),
        description=tr("Replace a held roll (review mode)", "cmd.director.override_roll.desc"),
    )
    async def override_roll(
        self, interaction: discord.Interaction, index: app_commands.Range[int, 0, 999], dice: str
    ) -> None:
        meta = await encounter_here(interaction)
        try:
            values = tuple(int(x) for x in dice.replace(" ", "").split(",") if x)
        except ValueError:
            raise refuse("director.bad_dice", "Dice are numbers separated by commas, like 6,6,6.") from None
        if not values or any(not 1 <= d <= 100 for d in values):  # before the phase check: its message
            raise refuse("director.bad_dice", "Dice are numbers separated by commas, like 6,6,6.")
        await director_phase.run(interaction, meta, "roll", f"{index}_{','.join(map(str, values))}")


async def setup(bot: HexBotCore) -> None:
    bot.add_dynamic_items(director_phase.PhaseButton)
    await bot.add_cog(DirectorCog(bot))


async def teardown(bot: HexBotCore) -> None:
    bot.remove_dynamic_items(director_phase.PhaseButton)
