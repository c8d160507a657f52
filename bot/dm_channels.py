"""Each person's DM channel with the bot, opened once, whichever process or restart sends to it.

Discord opens a DM channel with ``POST /users/@me/channels``, a bucket of five openings per five seconds for
the whole bot token, which every process behind it shares; discord.py, without the members intent, also caches
no user (a ``GET /users`` before each opening) and only its newest 128 DM channels. A DM channel's id stays the
same for the bot and one person, so it is kept: in memory for the people this process DMs, in storage
(``dm_channels``) for every process and after a restart. It is recorded when the bot opens the channel, and
learnt for free from any interaction in a DM with the bot (a click on a DM panel carries its channel's id). A
DM then goes straight to the channel by its id: no lookup, no opening.

A kept id Discord does not know (Unknown Channel) is dropped and the channel opened again, once per DM. Closed
DMs are the senders' to handle: the channel opens all the same, Discord refuses only what is sent there.

Openings go to Discord one at a time. discord.py's bucket for a route races when a request arrives just as the
bucket's window ends while others wait on it: both the newcomer and the waiting ones take the fresh window, and
Discord refuses the excess with 429s (a trickle of 40 openings met 1–5 of them against the local Discord's five
per five seconds). One opening in flight never meets that race, and the bucket's five a window still go out at
the same pace.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Final, TypeVar

import discord

from bot.bounded import Bounded
from bot.storage import Storage, StorageError

log = logging.getLogger(__name__)

T = TypeVar("T")

#: Discord's error code for a channel it does not know
UNKNOWN_CHANNEL: Final = 10003
#: people whose DM channel id is kept in memory (two integers each): every player of a thousand busy tables; one
#: that falls out is read again from storage, never opened again
DM_CACHE_SIZE: Final = 16_384


class DmChannels:
    """The DM channels of one bot process, by user id, kept in memory before ``storage``. ``on_channel`` is told
    each channel id as it becomes known (the request plan counts what goes there as a DM)."""

    def __init__(
        self,
        client: discord.Client,
        storage: Callable[[], Storage],
        *,
        on_channel: Callable[[int], None] = lambda _: None,
        size: int = DM_CACHE_SIZE,
    ) -> None:
        self._client = client
        self._storage = storage
        self._on_channel = on_channel
        self._known: Bounded[int, int] = Bounded(size)
        self._finding: dict[int, asyncio.Future[int]] = {}
        self._opening = asyncio.Lock()  # one opening in flight (the module's docstring says why)
        #: channels this process asked Discord to open
        self.opened = 0

    async def channel(self, user_id: int) -> discord.PartialMessageable:
        """The DM channel with ``user_id``, opened only when no process ever kept its id."""
        return self._messageable(await self._channel_id(user_id))

    async def send_to(self, user_id: int, act: Callable[[discord.PartialMessageable], Awaitable[T]]) -> T:
        """``act`` (a send, an edit) in the DM channel with ``user_id``; when Discord does not know the kept
        channel, it is opened again and ``act`` done there, once. Any other refusal is the caller's."""
        channel_id = await self._channel_id(user_id)
        try:
            return await act(self._messageable(channel_id))
        except discord.NotFound as error:
            if error.code != UNKNOWN_CHANNEL:
                raise
        log.info(
            "kept DM channel unknown to Discord, opening it again user=%s channel=%s", user_id, channel_id
        )
        await self._forget(user_id, channel_id)
        return await act(self._messageable(await self._channel_id(user_id, stale=channel_id)))

    async def learn(self, user_id: int, channel_id: int) -> None:
        """``channel_id`` is ``user_id``'s DM channel with the bot (an interaction there said so)."""
        if self._known.get(user_id) == channel_id:
            return
        self._remember(user_id, channel_id)
        await self._record(user_id, channel_id)

    async def _channel_id(self, user_id: int, *, stale: int | None = None) -> int:
        known = self._known.get(user_id)
        if known is not None and known != stale:
            return known
        finding = self._finding.get(user_id)
        if (
            finding is None
        ):  # DMs to one player at once (several encounters, a reminder) find the channel once
            finding = self._finding[user_id] = asyncio.ensure_future(self._find(user_id, stale))
            finding.add_done_callback(lambda done: self._done(user_id, done))
        found = await asyncio.shield(finding)
        # a search begun before the stale id was dropped may have read it back from storage
        return await self._open(user_id) if found == stale else found

    def _done(self, user_id: int, finding: asyncio.Future[int]) -> None:
        if self._finding.get(user_id) is finding:
            del self._finding[user_id]

    async def _find(self, user_id: int, stale: int | None) -> int:
        if stale is None:
            try:
                stored = await self._storage().dm_channel_of(user_id)
            except StorageError:  # the DM goes out all the same, through a channel opened now
                log.warning("DM channel not read user=%s", user_id, exc_info=True)
                stored = None
            if stored is not None:
                self._remember(user_id, stored)
                return stored
        return await self._open(user_id)

    async def _open(self, user_id: int) -> int:
        """Ask Discord for the channel: by the user's id, so no ``GET /users`` comes first."""
        async with self._opening:
            data = await self._client.http.start_private_message(user_id)
        channel_id = int(data["id"])
        self.opened += 1
        self._remember(user_id, channel_id)
        await self._record(user_id, channel_id)
        return channel_id

    async def _record(self, user_id: int, channel_id: int) -> None:
        try:
            await self._storage().set_dm_channel(user_id, channel_id)
        except StorageError:  # not kept: the DM goes out all the same, and the channel is only opened again
            log.warning("DM channel not recorded user=%s", user_id, exc_info=True)

    async def _forget(self, user_id: int, channel_id: int) -> None:
        if self._known.get(user_id) == channel_id:
            del self._known[user_id]
        try:
            await self._storage().forget_dm_channel(user_id, channel_id)
        except StorageError:  # the next process to read it meets Unknown Channel too, and drops it then
            log.warning("unknown DM channel not dropped user=%s", user_id, exc_info=True)

    def _remember(self, user_id: int, channel_id: int) -> None:
        self._known[user_id] = channel_id
        self._on_channel(channel_id)

    def _messageable(self, channel_id: int) -> discord.PartialMessageable:
        return self._client.get_partial_messageable(channel_id, type=discord.ChannelType.private)


def in_bot_dm(interaction: discord.Interaction) -> bool:
    """Whether ``interaction`` was made in the person's own DM with the bot (not in a DM between two people, where
    a user-installed app is used)."""
    context = interaction.context
    return interaction.guild_id is None and context.dm_channel and not context.private_channel
