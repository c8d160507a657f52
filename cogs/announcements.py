"""The announcements extension: installs the bot's :class:`~cogs.announcer.Announcer` (phases opened, boards and
accounts posted, panels sent) while it is loaded, resumes every running encounter once the bot is connected, and
drains it when it is unloaded."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import TYPE_CHECKING

from discord.ext import commands

from cogs.announcer import Announcer

if TYPE_CHECKING:
    from bot.process.client import HexBotCore

log = logging.getLogger(__name__)


class AnnouncerCog(commands.Cog):
    """Owns the announcer: installed for the whole bot while this extension is loaded."""

    def __init__(self, bot: HexBotCore) -> None:
        self.bot = bot
        self.announcer = Announcer(bot)
        self._resuming: asyncio.Task[None] | None = None

    async def cog_load(self) -> None:
        self.bot.announcer = self.announcer
        self._resuming = asyncio.create_task(self._resume_when_ready(), name="hexd-resume")

    async def _resume_when_ready(self) -> None:
        await self.bot.wait_until_ready()
        try:
            count = await self.announcer.resume_all()
        except Exception:
            log.exception("resuming the running encounters failed")
        else:
            log.info("resuming running encounters count=%d", count)
        finally:
            self.announcer.resumed.set()

    async def cog_unload(self) -> None:
        if self._resuming is not None:
            self._resuming.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._resuming
        await self.announcer.drain()
        self.bot.announcer = None


async def setup(bot: HexBotCore) -> None:
    await bot.add_cog(AnnouncerCog(bot))
