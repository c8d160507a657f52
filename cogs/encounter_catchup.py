"""``/encounter catchup``: what changed since the caller last gave an order, as their side saw it, with a board
marking the changes (bot/catchup.py builds it; render/ghosts.py draws where units were). Always private (FOG-1):
nobody else receives anything, not even a "thinking…"."""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands

from bot import catchup as news
from bot.imaging import board_png
from bot.palettes import private_scheme
from bot.process.client import HexBotCore
from bot.translator import tr
from cogs.common import actor_of, encounter_here, lang, png_file

#: Discord's limit on one embed's description
DESCRIPTION = 4096


class EncounterCatchUp(commands.Cog):
    """``/encounter catchup``; taken in by the group's cog (cogs/encounter.py), never added on its own."""

    bot: HexBotCore

    @app_commands.command(
        name=tr("catchup", "cmd.encounter.catchup.name"),
        description=tr("What changed since your last order", "cmd.encounter.catchup.desc"),
    )
    @app_commands.guild_only()
    async def catchup(self, interaction: discord.Interaction) -> None:
        meta = await encounter_here(interaction)
        service = self.bot.service
        viewers = await news.viewers_of(service, meta, actor_of(interaction))  # a refusal before the defer
        await interaction.response.defer(ephemeral=True, thinking=True)
        locale = lang(interaction)
        scheme = await private_scheme(service.storage, interaction.user.id)
        embeds: list[discord.Embed] = []
        files: list[discord.File] = []
        for i, viewer in enumerate(viewers):
            found = await news.catch_up(service, meta.id, interaction.user.id, viewer)
            embed = discord.Embed(
                title=news.title(found, locale),
                description="\n".join(news.lines(found, locale))[:DESCRIPTION],
                colour=discord.Colour.dark_teal(),
            )
            png = await board_png(
                found.state,
                found.marks,
                viewer=viewer,
                locale=locale,
                title=meta.name,
                scheme=scheme,
                ghosts=found.ghosts,
            )
            if png is not None:
                name = f"catchup-{i + 1}.png"
                files.append(png_file(png, name, description=news.alt(found, locale)))
                embed.set_image(url=f"attachment://{name}")
            embeds.append(embed)
        await interaction.followup.send(embeds=embeds, files=files, ephemeral=True)
        await news.note_shown(service, meta.id, interaction.user.id)  # the next panel does not repeat it
