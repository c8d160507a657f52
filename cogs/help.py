"""``/help`` and the short tutorial shown with a server's first encounter, in the reader's language."""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands

from bot.process.client import HexBotCore
from bot.results import refuse
from bot.text.rules_reference import lookup, matching
from bot.translator import tr
from cogs.common import lang
from data.i18n import t

HELP_SECTIONS = ("encounter", "orders", "unit", "roll", "rule", "director", "settings")
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


async def rule_autocomplete(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
    """Rule ids with their titles in the reader's language (a Discord choice name holds 100 characters)."""
    return [
        app_commands.Choice(name=f"{r.id} — {r.title}"[:100], value=r.id)
        for r in matching(current, lang(interaction))
    ]


class RuleCog(commands.Cog):
    """``/rule id``: the project's rules reference, looked up by the ids the accounts cite."""

    def __init__(self, bot: HexBotCore) -> None:
        self.bot = bot

    @app_commands.command(
        name=tr("rule", "cmd.rule.name"),
        description=tr("Read a rule by its id (EXO-3.4, SK-1.1…)", "cmd.rule.desc"),
    )
    @app_commands.describe(id=tr("The rule id, as the account cites it", "cmd.rule.id"))
    @app_commands.autocomplete(id=rule_autocomplete)
    async def rule(self, interaction: discord.Interaction, id: app_commands.Range[str, 1, 40]) -> None:
        locale = lang(interaction)
        found = lookup(id, locale)
        if found is None:
            raise refuse("rule.unknown", "There is no rule {rule}.", rule=id.strip()[:40])
        embed = discord.Embed(
            title=f"{found.id} — {found.title}"[:256],
            description=found.text[:4000] or "—",
            colour=discord.Colour.dark_teal(),
        )
        embed.set_footer(text=found.ruleset)
        await interaction.response.send_message(embed=embed, ephemeral=True)


async def setup(bot: HexBotCore) -> None:
    await bot.add_cog(HelpCog(bot))
    await bot.add_cog(RuleCog(bot))
