"""The announcements extension: installs the bot's :class:`~cogs.announcer.Announcer` (phases opened, boards and
accounts posted, panels sent) while it is loaded, and drains it when it is unloaded."""

from __future__ import annotations

from typing import TYPE_CHECKING

from discord.ext import commands

from cogs.announcer import Announcer

if TYPE_CHECKING:
    from bot.client import HexBotCore


class AnnouncerCog(commands.Cog):
    """Owns the announcer: installed for the whole bot while this extension is loaded."""

    def __init__(self, bot: HexBotCore) -> None:
        self.bot = bot

    async def cog_load(self) -> None:
        self.bot.announcer = Announcer(self.bot)

    async def cog_unload(self) -> None:
        if self.bot.announcer is not None:
            await self.bot.announcer.drain()
        self.bot.announcer = None


async def setup(bot: HexBotCore) -> None:
    await bot.add_cog(AnnouncerCog(bot))
