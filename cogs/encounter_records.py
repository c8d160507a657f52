"""``/encounter board|log|export|verify|import``: what the encounter has been and is, read back: the board as one viewer
sees it, the account, and the whole encounter as a file to keep or continue elsewhere.

Commands of the ``/encounter`` group (cogs/encounter.py takes them in); a side's or the director's view is only
ever answered to the one who asked (FOG-1).
"""

from __future__ import annotations

import io

import discord
from discord import app_commands
from discord.ext import commands

from bot.alt_text import board_alt
from bot.imaging import board_png
from bot.log_text import trace_lines
from bot.palettes import private_scheme, public_scheme
from bot.process.client import HexBotCore
from bot.results import refuse
from bot.service.records import Imported
from bot.service.replay import viewer_for
from bot.translator import tr
from cogs.common import (
    ACCOUNT_INLINE_LIMIT,
    actor_of,
    channel_language,
    clip,
    encounter_here,
    lang,
    png_file,
    text_file,
)
from data.i18n import t
from rules.ruleset import PUBLIC

MAX_IMPORT_BYTES = 8 * 1024 * 1024

VIEW_CHOICES = [
    app_commands.Choice(name=tr("public", "choice.view.public"), value="public"),
    app_commands.Choice(name=tr("my side", "choice.view.mine"), value="mine"),
    app_commands.Choice(name=tr("director", "choice.view.director"), value="director"),
]


def imported_text(imported: Imported, name: str, locale: str) -> str:
    """The importer's private answer: how the encounter came back, and the file's players to invite (mentions
    that ping nobody: the answer is private and sent without mentions)."""
    key = {"open": "encounter.imported_open", "ended": "encounter.imported_ended"}.get(
        imported.status, "encounter.imported"
    )
    text = t(key, locale, name=name)
    if imported.seats and imported.status != "ended":
        seats = ", ".join(f"<@{user}> ({unit})" if unit else f"<@{user}>" for user, unit in imported.seats)
        text += "\n" + t("encounter.imported_seats", locale, seats=seats)
    return clip(text)


async def _display_names(bot: HexBotCore, user_ids: set[int]) -> dict[int, str]:
    """The names Discord shows of ``user_ids`` (the log names who undid a step by name, never by id); one it
    cannot find (an account since deleted) is left out, and the log says "the director"."""
    names: dict[int, str] = {}
    for user_id in sorted(user_ids):
        user = bot.get_user(user_id)
        if user is None:
            try:
                user = await bot.fetch_user(user_id)
            except discord.HTTPException:
                continue
        names[user_id] = user.display_name
    return names


class EncounterRecords(commands.Cog):
    """The read-back commands of ``/encounter``: discord.py collects a cog's commands from its bases too, so
    the group's cog (cogs/encounter.py) takes them in by deriving from this one; it is never added on its own."""

    bot: HexBotCore

    @app_commands.command(
        name=tr("board", "cmd.encounter.board.name"),
        description=tr("Show the board", "cmd.encounter.board.desc"),
    )
    @app_commands.describe(
        view=tr("Whose view of the board", "cmd.encounter.board.view"),
        post=tr("Post the public board in the channel (director)", "cmd.encounter.board.post"),
    )
    @app_commands.choices(view=VIEW_CHOICES)
    @app_commands.guild_only()
    async def board(self, interaction: discord.Interaction, view: str = "public", post: bool = False) -> None:
        """Private to the one who asks; a director may post the public board for the whole table."""
        meta = await encounter_here(interaction)
        service = self.bot.service
        viewer = await viewer_for(service, meta, actor_of(interaction), view)
        if post:  # checked before the defer: a refusal stays private
            await service.require_director(meta, actor_of(interaction))
            if viewer != PUBLIC:
                raise refuse("board.post_private", "Only the public board can be posted in the channel.")
        _, state, _ = await service.load(meta.id)
        await interaction.response.defer(ephemeral=not post, thinking=True)
        locale = await channel_language(self.bot, meta) if post else lang(interaction)
        storage = service.storage
        scheme = await (
            public_scheme(service, meta.guild_id) if post else private_scheme(storage, interaction.user.id)
        )
        png = await board_png(state, (), viewer=viewer, locale=locale, title=meta.name, scheme=scheme)
        if png is None:
            raise refuse("render.failed", "The board could not be drawn right now.")
        alt = board_alt(state, (), viewer=viewer, locale=locale)
        await interaction.followup.send(file=png_file(png, description=alt), ephemeral=not post)

    @app_commands.command(
        name=tr("log", "cmd.encounter.log.name"),
        description=tr("The account of the encounter", "cmd.encounter.log.desc"),
    )
    @app_commands.describe(round=tr("Only this round", "cmd.encounter.log.round"))
    @app_commands.guild_only()
    async def log(
        self, interaction: discord.Interaction, round: app_commands.Range[int, 1, 10000] | None = None
    ) -> None:
        meta = await encounter_here(interaction)
        await interaction.response.defer(ephemeral=True, thinking=True)
        service = self.bot.service
        _, state, _ = await service.load(meta.id)
        locale = lang(interaction)
        trace = await service.trace(meta.id, round)
        people = await _display_names(self.bot, {s.undone_by for s in trace if s.undone_by is not None})
        lines = trace_lines(trace, state, locale, people)
        text = "\n".join(lines) or t("encounter.log_empty", locale)
        if len(text) <= min(ACCOUNT_INLINE_LIMIT, 1900):
            await interaction.followup.send(text, ephemeral=True)
        else:
            await interaction.followup.send(
                t("channel.account_in_file", locale, count=len(lines)),
                file=text_file(text, "log.txt"),
                ephemeral=True,
            )

    @app_commands.command(
        name=tr("export", "cmd.encounter.export.name"),
        description=tr("Download the encounter as a file (director)", "cmd.encounter.export.desc"),
    )
    @app_commands.guild_only()
    async def export(self, interaction: discord.Interaction) -> None:
        meta = await encounter_here(interaction)
        await self.bot.service.require_director(meta, actor_of(interaction))
        with self.bot.heavy.slot(interaction.guild_id, interaction.user.id, own=True):
            await interaction.response.defer(ephemeral=True, thinking=True)
            blob, filename = await self.bot.service.export_file(meta.id, actor_of(interaction))
        await interaction.followup.send(
            t("encounter.exported", lang(interaction), name=meta.name),
            file=discord.File(io.BytesIO(blob), filename=filename),
            ephemeral=True,
        )

    @app_commands.command(
        name=tr("verify", "cmd.encounter.verify.name"),
        description=tr(
            "Check every roll against its revealed seed (only you see it)", "cmd.encounter.verify.desc"
        ),
    )
    @app_commands.guild_only()
    async def verify(self, interaction: discord.Interaction) -> None:
        """Private: the check names rolls, and a player's leaves out what their side could not see (FOG-1)."""
        meta = await encounter_here(interaction)
        own = await self.bot.service.is_director(meta, actor_of(interaction))
        with self.bot.heavy.slot(interaction.guild_id, interaction.user.id, own=own):
            await interaction.response.defer(ephemeral=True, thinking=True)
            locale = lang(interaction)
            lines = await self.bot.service.verify(meta.id, actor_of(interaction), locale)
        text = "\n".join(lines)
        if len(text) <= min(ACCOUNT_INLINE_LIMIT, 1900):
            await interaction.followup.send(text, ephemeral=True)
        else:
            await interaction.followup.send(lines[-1], file=text_file(text, "verify.txt"), ephemeral=True)

    @app_commands.command(
        name=tr("import", "cmd.encounter.import.name"),
        description=tr("Continue an exported encounter here", "cmd.encounter.import.desc"),
    )
    @app_commands.describe(file=tr("The exported encounter (JSON)", "cmd.encounter.import.file"))
    @app_commands.guild_only()
    async def import_(self, interaction: discord.Interaction, file: discord.Attachment) -> None:
        if interaction.guild_id is None or interaction.channel_id is None:
            raise refuse("encounter.guild_only", "Use this in a server channel.")
        if file.size > MAX_IMPORT_BYTES:
            raise refuse("import.too_big", "That file is too big to import.")
        with self.bot.heavy.slot(interaction.guild_id, interaction.user.id):
            await interaction.response.defer(ephemeral=True, thinking=True)  # a refused file stays private
            imported = await self.bot.service.import_file(
                await file.read(),
                interaction.guild_id,
                interaction.channel_id,
                interaction.user.id,
                actor=actor_of(interaction),
            )
        meta = await self.bot.service.storage.get_encounter(imported.encounter_id)
        await interaction.followup.send(
            imported_text(imported, meta.name, lang(interaction)),
            allowed_mentions=discord.AllowedMentions.none(),
        )
