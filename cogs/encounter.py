"""``/encounter new|join|leave|start|status|reminders|replay|end`` (DESIGN §4); ``board|log|export|verify|import``,
commands that read the encounter back, are in cogs/encounter_records.py, ``catchup`` in cogs/encounter_catchup.py, ``watch|unwatch`` in cogs/spectators.py,
and what the commands offer while typing in cogs/encounter_choices.py."""

from __future__ import annotations

import contextlib
import functools
import io
import logging
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.alt_text import replay_alt
from bot.imaging import replay_file
from bot.names import shown_name
from bot.process.client import HexBotCore
from bot.results import refuse
from bot.seating import private_line, public_line
from bot.service import Reading
from bot.service.replay import check_replayable, encounter_to_replay, replay_steps, viewer_for
from bot.translator import tr
from cogs.common import (
    actor_of,
    channel_language,
    clip,
    encounter_here,
    lang,
    remember_locale,
    reply,
)
from cogs.director_phase import resolve_now_button
from cogs.encounter_catchup import EncounterCatchUp
from cogs.encounter_choices import free_unit_autocomplete, scenario_autocomplete, side_autocomplete
from cogs.encounter_records import VIEW_CHOICES, EncounterRecords
from cogs.help import tutorial_embed
from cogs.idle import IdleResolveItem, notify_idle
from cogs.seating import SeatItem, hand_over, send_seating
from cogs.spectators import ITEMS as WATCH_ITEMS
from cogs.spectators import Watching
from cogs.status_post import status_lines_of
from data.i18n import language_of, t
from rules.registry import discord_ruleset_ids
from rules.ruleset import DIRECTOR, PUBLIC

log = logging.getLogger(__name__)

MAX_SCENARIO_BYTES = 256 * 1024

# each ruleset's label is its own plug-in's words (data/locales/<lang>/<id>.toml); English is the default text
RULESET_CHOICES = [
    app_commands.Choice(name=tr(t(f"choice.ruleset.{rid}", "en"), f"choice.ruleset.{rid}"), value=rid)
    for rid in discord_ruleset_ids()
]


class EncounterCog(
    EncounterRecords,
    Watching,
    EncounterCatchUp,
    commands.GroupCog,
    group_name=tr("encounter", "cmd.encounter.name"),
    group_description=tr("Run an encounter in this channel", "cmd.encounter.desc"),
):
    def __init__(self, bot: HexBotCore) -> None:
        self.bot = bot
        super().__init__()

    @app_commands.command(
        name=tr("new", "cmd.encounter.new.name"),
        description=tr("Create an encounter from a scenario", "cmd.encounter.new.desc"),
    )
    @app_commands.describe(
        ruleset=tr("The rules to play", "cmd.encounter.new.ruleset"),
        scenario=tr("A bundled scenario", "cmd.encounter.new.scenario"),
        file=tr("Or your own scenario file (TOML)", "cmd.encounter.new.file"),
        name=tr("A name for the encounter", "cmd.encounter.new.name_opt"),
        thread=tr("Run it in a thread of its own, so the channel stays readable", "cmd.encounter.new.thread"),
    )
    @app_commands.choices(ruleset=RULESET_CHOICES)
    @app_commands.autocomplete(scenario=scenario_autocomplete)
    @app_commands.guild_only()
    async def new(
        self,
        interaction: discord.Interaction,
        ruleset: str,
        scenario: str | None = None,
        file: discord.Attachment | None = None,
        name: str | None = None,
        thread: bool = False,
    ) -> None:
        if interaction.guild_id is None or interaction.channel_id is None:
            raise refuse("encounter.guild_only", "Use this in a server channel.")
        parent = interaction.channel
        if thread:  # before deferring: a refusal stays private
            if not isinstance(parent, discord.TextChannel):
                raise refuse(
                    "encounter.thread_here", "A thread of its own starts from a text channel, not a thread."
                )
            perms = interaction.app_permissions
            if not (perms.create_public_threads and perms.send_messages_in_threads):
                raise refuse(
                    "encounter.thread_permission",
                    "I need the Create Public Threads and Send Messages in Threads permissions here.",
                )
        if scenario is None and file is None:
            raise refuse("scenario.missing", "Pick a bundled scenario or attach a scenario file.")
        if ruleset not in discord_ruleset_ids():  # before deferring: a refusal stays private
            raise refuse(
                "ruleset.unavailable", f"The {ruleset} ruleset is not available yet.", ruleset=ruleset
            )
        # What can be refused without reading a scenario is refused before answering, in private; a file the
        # director wrote is then read in private too: its problems (a refusal after a public defer would fill the
        # channel's "thinking…" message) reach the director alone, in the director's language.
        await self.bot.service.check_create(
            interaction.guild_id,
            interaction.channel_id,
            ruleset=ruleset,
            scenario=scenario if file is None else None,
            channel_free=not thread,  # an encounter in a thread of its own leaves this channel as it is
            actor=actor_of(interaction),
        )
        await interaction.response.defer(thinking=True, ephemeral=file is not None)
        text: str | None = None
        if file is not None:
            if file.size > MAX_SCENARIO_BYTES:
                raise refuse(
                    "scenario.too_big", "That scenario file is too big.", limit=MAX_SCENARIO_BYTES // 1024
                )
            try:
                text = (await file.read()).decode("utf-8")
            except UnicodeDecodeError:
                raise refuse("scenario.not_text", "The scenario file must be UTF-8 text (TOML).") from None
        service = self.bot.service
        threads: list[discord.Thread] = []

        async def in_thread(title: str) -> int:
            """The encounter's own public thread (every public post of the encounter goes there)."""
            assert isinstance(parent, discord.TextChannel)
            try:
                made = await parent.create_thread(
                    name=clip(title, 100),
                    type=discord.ChannelType.public_thread,
                    auto_archive_duration=10080,  # a week: a play-by-post table may rest for days
                )
            except discord.HTTPException:
                raise refuse(
                    "encounter.thread_failed", "I could not create a thread here; try without thread."
                ) from None
            threads.append(made)
            return made.id

        created = await service.create(
            interaction.guild_id,
            interaction.channel_id,
            interaction.user.id,
            ruleset=ruleset,
            scenario=scenario if text is None else None,
            toml_text=text,
            name=name,
            # the channel's language when the server sets none: the director's, fixed for the encounter
            channel_lang=language_of(str(interaction.locale)),
            place=in_thread if thread else None,
            actor=actor_of(interaction),
        )
        await remember_locale(interaction, created.encounter_id)
        locale = lang(interaction)
        units = (
            "\n".join(
                f"• {shown_name(uname)} ({shown_name(created.side_in(side, locale))})"
                for _, uname, side in created.units
            )
            or "—"
        )
        opened = clip(
            t(
                "encounter.created",
                locale,
                name=shown_name(created.name),
                ruleset=created.ruleset,
                units=units,
                director=interaction.user.mention,
            )
        )
        if file is not None:  # the private "checked" line first; the announcement below is public
            await interaction.followup.send(t("encounter.file_checked", locale, file=file.filename[:100]))
        if threads:  # the thread opens with the encounter's card; the channel is told where it runs
            await threads[0].send(opened, allowed_mentions=discord.AllowedMentions.none())
            opened = t(
                "encounter.created_thread", locale, name=shown_name(created.name), thread=threads[0].mention
            )
        await interaction.followup.send(clip(opened), allowed_mentions=discord.AllowedMentions.none())
        settings = await service.storage.get_guild_settings(interaction.guild_id)
        if not settings.tutorial_shown:  # once per server, to the director alone: the table needs it not
            try:
                await interaction.followup.send(embed=tutorial_embed(locale), ephemeral=True)
            except discord.HTTPException:  # a nicety: the encounter was made and said so
                log.warning("tutorial refused guild=%s", interaction.guild_id)
                return
            await service.storage.set_guild_settings(interaction.guild_id, tutorial_shown=True)

    @app_commands.command(
        name=tr("join", "cmd.encounter.join.name"),
        description=tr("Take a unit in this channel's encounter", "cmd.encounter.join.desc"),
    )
    @app_commands.describe(
        side=tr("The side you want", "cmd.encounter.join.side"),
        unit=tr("The unit you want", "cmd.encounter.join.unit"),
    )
    @app_commands.autocomplete(side=side_autocomplete, unit=free_unit_autocomplete)
    @app_commands.guild_only()
    async def join(
        self, interaction: discord.Interaction, side: str | None = None, unit: str | None = None
    ) -> None:
        # no public defer: a refusal (no encounter, unit taken) stays private to the one who asked; a join is
        # one short write, well inside the acknowledgement window
        meta = await encounter_here(interaction)
        seated = await self.bot.service.join(meta.id, interaction.user.id, side, unit)
        await interaction.response.send_message(
            public_line(seated, interaction.user.mention, await channel_language(self.bot, meta)),
            allowed_mentions=discord.AllowedMentions.none(),
        )
        hidden = private_line(seated, lang(interaction))
        if hidden is not None:  # units only their side may see: named to them alone (FOG-1)
            await interaction.followup.send(hidden, ephemeral=True)
        # after the answer: a second durable write on the way to it made a burst of joins wait twice;
        # before the panels, which speak the player's language
        await remember_locale(interaction, meta.id)
        if self.bot.announcer is not None and meta.status == "running":
            # what the director was playing now acts through its new player
            await hand_over(self.bot, meta.id, [u for u, _, _ in seated.units])

    @app_commands.command(
        name=tr("leave", "cmd.encounter.leave.name"),
        description=tr("Give up your units", "cmd.encounter.leave.desc"),
    )
    @app_commands.guild_only()
    async def leave(self, interaction: discord.Interaction) -> None:
        meta = await encounter_here(interaction)
        units = await self.bot.service.my_units(meta.id, interaction.user.id)
        removed = await self.bot.service.leave(meta.id, interaction.user.id)
        if not removed:
            raise refuse("encounter.not_playing", "You have no unit in this encounter.")
        # the table hears of it; the units pass to the director, who gets the open step's panels
        await interaction.response.send_message(
            t("encounter.left_public", await channel_language(self.bot, meta), user=interaction.user.mention),
            allowed_mentions=discord.AllowedMentions.none(),
        )
        if meta.status == "running":
            await self.bot.resolve_and_announce(meta.id, expected_phase_no=meta.phase_no)
            if self.bot.announcer is not None:
                self.bot.announcer.status_changed(meta.id)  # queued, retried if refused
            await hand_over(self.bot, meta.id, units)  # the director plays them now: their open panels

    @app_commands.command(
        name=tr("start", "cmd.encounter.start.name"),
        description=tr("Start the encounter (director)", "cmd.encounter.start.desc"),
    )
    @app_commands.guild_only()
    async def start(self, interaction: discord.Interaction) -> None:
        meta = await encounter_here(interaction)
        unplayed = await self.bot.service.check_start(meta.id, actor_of(interaction))  # refusals stay private
        await interaction.response.defer()
        announcer = self.bot.announcer

        async def opening(reading: Reading) -> None:
            # the field as it starts, queued ahead of any step the start resolves by itself (exo's crew rolls),
            # so the table sees the board before the first order in every ruleset
            if announcer is not None:
                announcer.post_opening_board(meta.id, reading=reading)

        result = await self.bot.service.start(
            meta.id, actor_of(interaction), on_step=self.bot.step_done, on_started=opening
        )
        locale = await channel_language(self.bot, meta)
        text = t("encounter.started", locale, name=shown_name(meta.name))
        if unplayed:
            text += "\n" + t("encounter.unplayed", locale, units=", ".join(shown_name(u) for u in unplayed))
        try:
            await interaction.followup.send(clip(text), allowed_mentions=discord.AllowedMentions.none())
        except discord.HTTPException:
            # the game has started whatever Discord did with the reply: the opening board, the status and the
            # panels below tell the table, and "Something went wrong" would tell the director the opposite; the
            # "thinking…" left behind goes (best effort)
            log.warning("start reply refused encounter=%s", meta.id, exc_info=True)
            with contextlib.suppress(discord.HTTPException):
                await interaction.delete_original_response()
        finally:  # a failed reply never skips the status and the panels
            await self.bot.announce(result)
        # the units nobody plays: the director's one-click choices, privately (hidden ones included)
        await send_seating(self.bot, interaction, meta)

    @app_commands.command(
        name=tr("status", "cmd.encounter.status.name"),
        description=tr("Round, phase and who is still missing", "cmd.encounter.status.desc"),
    )
    @app_commands.guild_only()
    async def status(self, interaction: discord.Interaction) -> None:
        meta = await encounter_here(interaction)
        view = await self.bot.service.status(meta.id)
        locale = lang(interaction)
        text = self.bot.announcer.status_text(view, locale) if self.bot.announcer else shown_name(meta.name)
        extra: dict[str, Any] = {}
        if view.status == "running" and not view.over:
            text = "\n".join((text, *status_lines_of((await self.bot.service.read(meta.id)).state, locale)))
            if await self.bot.service.is_director(meta, actor_of(interaction)):
                # the director's private status: resolve the phase it shows, named by number in the button
                extra["view"] = resolve_now_button(meta.id, view.phase_no, locale)
        await reply(interaction, text, allowed_mentions=discord.AllowedMentions.none(), **extra)

    @app_commands.command(
        name=tr("reminders", "cmd.encounter.reminders.name"),
        description=tr("Reminder DMs before a deadline, for this encounter", "cmd.encounter.reminders.desc"),
    )
    @app_commands.describe(on=tr("On or off", "cmd.encounter.reminders.on"))
    @app_commands.guild_only()
    async def reminders(self, interaction: discord.Interaction, on: bool) -> None:
        """A player's own choice, answered privately."""
        meta = await encounter_here(interaction)
        await self.bot.service.mute_reminders(meta.id, interaction.user.id, muted=not on)
        key = "channel.reminders_on" if on else "channel.reminders_off"
        await interaction.response.send_message(t(key, lang(interaction)), ephemeral=True)

    @app_commands.command(
        name=tr("replay", "cmd.encounter.replay.name"),
        description=tr("An animation of the whole encounter", "cmd.encounter.replay.desc"),
    )
    @app_commands.describe(view=tr("Whose view of the board", "cmd.encounter.replay.view"))
    @app_commands.choices(view=VIEW_CHOICES)
    @app_commands.guild_only()
    async def replay(self, interaction: discord.Interaction, view: str = "public") -> None:
        """Public: posted in the channel. A side's or the director's view: only to the one who asked (FOG-1)."""
        if interaction.guild_id is None or interaction.channel_id is None:
            raise refuse("encounter.guild_only", "Use this in the encounter's channel.")
        service = self.bot.service
        meta = await encounter_to_replay(service, interaction.guild_id, interaction.channel_id)
        viewer = await viewer_for(service, meta, actor_of(interaction), view, replay=True)
        await check_replayable(service, meta.id)  # refusals before the defer stay private
        private = viewer != PUBLIC
        own = await service.is_director(meta, actor_of(interaction))  # never held up by someone else's
        with self.bot.heavy.slot(interaction.guild_id, interaction.user.id, own=own):
            await interaction.response.defer(ephemeral=private, thinking=True)
            # reading and decoding every snapshot happens after the acknowledgement, off the event loop
            steps = await replay_steps(service, meta.id)
            locale = lang(interaction)
            drawn = await replay_file(
                [(s.state_json, s.events) for s in steps], viewer=viewer, locale=locale, title=meta.name
            )
        who = t("render.viewer.director", locale) if viewer == DIRECTOR else t("choice.view.mine", locale)
        view_name = who if private else t("render.viewer.public", locale)
        if drawn.reduced:
            text = t(
                "replay.reduced", locale, name=shown_name(meta.name), frames=drawn.frames, steps=drawn.steps
            )
        elif private:
            text = t("replay.private", locale, name=shown_name(meta.name), frames=drawn.frames, view=who)
        else:
            text = t("replay.posted", locale, name=shown_name(meta.name), frames=drawn.frames)
        await interaction.followup.send(
            clip(text),
            file=discord.File(
                io.BytesIO(drawn.data),
                filename=drawn.filename,
                description=replay_alt(meta.name, view_name, drawn.frames, locale),
            ),
            ephemeral=private,
            allowed_mentions=discord.AllowedMentions.none(),
        )

    @app_commands.command(
        name=tr("end", "cmd.encounter.end.name"),
        description=tr("End the encounter (director)", "cmd.encounter.end.desc"),
    )
    @app_commands.guild_only()
    async def end(self, interaction: discord.Interaction) -> None:
        meta = await encounter_here(interaction)
        await self.bot.service.end(meta.id, actor_of(interaction))
        await interaction.response.send_message(t("encounter.ended", lang(interaction), name=meta.name))


async def setup(bot: HexBotCore) -> None:
    bot.add_dynamic_items(SeatItem, IdleResolveItem, *WATCH_ITEMS)
    bot.idle_notifier = functools.partial(notify_idle, bot)
    await bot.add_cog(EncounterCog(bot))


async def teardown(bot: HexBotCore) -> None:
    bot.remove_dynamic_items(SeatItem, IdleResolveItem, *WATCH_ITEMS)
    bot.idle_notifier = None
