"""``/roll``: dice expressions, the Sombra roll and the 2d6 check (DICE-1..3), rolled in the open, in the
channel's language (the table reads it); refusals stay private, in the roller's."""

from __future__ import annotations

import secrets

import discord
from discord import app_commands
from discord.ext import commands

from bot.process.client import HexBotCore
from bot.results import refuse
from bot.transforms.dice_expr import parse_roll, roll_expression
from bot.translator import tr
from cogs.common import public_language
from data.i18n import t
from rules.dice import Dice


class DiceCog(commands.Cog):
    def __init__(self, bot: HexBotCore) -> None:
        self.bot = bot

    @app_commands.command(
        name=tr("roll", "cmd.roll.name"),
        description=tr("Roll dice: 3d6+2, sombra 17, 2d6+5 vs 15", "cmd.roll.desc"),
    )
    @app_commands.describe(expression=tr("What to roll", "cmd.roll.expression"))
    async def roll(
        self, interaction: discord.Interaction, expression: app_commands.Range[str, 1, 100]
    ) -> None:
        if wait := self.bot.rolls.wait(interaction.user.id):  # private, before anything is posted
            raise refuse("roll.too_fast", "Too many rolls at once; try again in {seconds} s.", seconds=wait)
        expr = parse_roll(expression)
        self.bot.rolls.take(interaction.user.id)  # an expression refused above costs nothing
        outcome = roll_expression(expr, Dice(secrets.randbits(64)))
        locale = await public_language(interaction)
        params = dict(outcome.params)
        if "quality" in params:
            params["quality_text"] = t(f"quality.{params['quality']}", locale)
        text = t(outcome.key, locale, **params)
        await interaction.response.send_message(
            f"{interaction.user.mention} 🎲 {text}"[:2000], allowed_mentions=discord.AllowedMentions.none()
        )


async def setup(bot: HexBotCore) -> None:
    await bot.add_cog(DiceCog(bot))
