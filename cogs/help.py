"""``/help`` and the short tutorial shown with a server's first encounter, in the reader's language."""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands

from bot.client import HexBotCore
from bot.translator import tr
from cogs.common import lang
from data.i18n import t

HELP_SECTIONS = ("encounter", "orders", "unit", "roll", "director", "settings")
TUTORIAL_STEPS = ("create", "join", "start", "orders", "resolve", "director")


def help_embed(locale: str) -> discord.Embed:
    embed = discord.Embed(
        title=t("help.title", locale), description=t("help.intro", locale), colour=discord.Colour.blurple()
    )
    for section in HELP_SECTIONS:
        embed.add_field(
            name=t(f"help.{section}.name", locale), value=t(f"help.{section}.text", locale), inline=False
        )
    return embed


def tutorial_embed(locale: str) -> discord.Embed:
    embed = discord.Embed(title=t("tutorial.title", locale), colour=discord.Colour.gold())
    embed.description = "\n".join(
        f"**{i}.** {t(f'tutorial.{step}', locale)}" for i, step in enumerate(TUTORIAL_STEPS, start=1)
    )
    return embed


class HelpCog(commands.Cog):
    def __init__(self, bot: HexBotCore) -> None:
        self.bot = bot

    @app_commands.command(
        name=tr("help", "cmd.help.name"), description=tr("How to play with hexdirector", "cmd.help.desc")
    )
    async def help(self, interaction: discord.Interaction) -> None:
        locale = lang(interaction)
        await interaction.response.send_message(
            embeds=[help_embed(locale), tutorial_embed(locale)], ephemeral=True
        )


async def setup(bot: HexBotCore) -> None:
    await bot.add_cog(HelpCog(bot))
