"""The channel message of a turn of play: a step's embeds are added to it while they fit, else a new message goes
out (bot/turn_posts.py says which steps share one); the newest post is recorded, for the status to ride on it, and
the request that shows steps may carry the status as its text (cogs/status_post.py)."""

from __future__ import annotations

import contextlib
import io
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

import discord

from bot.alt_text import Upload
from bot.outbox import LAST_POST, NOTHING_POSTED, POST
from bot.turn_posts import TURN, OpenPosts, already_shown, fits, recorded
from bot.turn_posts import OpenPost as OpenPostOf
from cogs.status_post import Leave, Ride, StatusPoster

if TYPE_CHECKING:
    from bot.process.client import HexBotCore

log = logging.getLogger(__name__)

#: encounters whose open post is kept between steps (the busy ones)
OPEN_POSTS_KEPT = 2048

OpenPost = OpenPostOf[discord.Message, discord.Embed]
Record = Callable[[int, str, str, int, int], Awaitable[None]]


def partial_message(
    bot: HexBotCore,
    chan: discord.abc.Messageable | discord.PartialMessageable,
    channel_id: int,
    message_id: int,
) -> discord.PartialMessage:
    """A message to edit or delete by id, through ``chan`` when it is that message's channel."""
    if isinstance(chan, discord.TextChannel | discord.Thread) and chan.id == channel_id:
        return chan.get_partial_message(message_id)
    return bot.get_partial_messageable(channel_id).get_partial_message(message_id)


def files_of(uploads: list[Upload]) -> list[discord.File]:
    return [discord.File(io.BytesIO(u.data), filename=u.name, description=u.alt) for u in uploads]


class TurnPosts:
    """The message of the resolution under way, per encounter: its further steps are added to it."""

    def __init__(
        self, bot: HexBotCore, record: Record, shared: Callable[[], bool], status: StatusPoster
    ) -> None:
        self.bot, self._record, self._shared, self._status = bot, record, shared, status
        self.open_posts: OpenPosts[discord.Message, discord.Embed] = OpenPosts(OPEN_POSTS_KEPT)

    async def send_or_append(
        self,
        chan: discord.abc.Messageable,
        encounter_id: int,
        embeds: list[discord.Embed],
        uploads: list[Upload],
        turn: str | None = "",
        *,
        ride: bool = False,
        leave: bool = False,
    ) -> int:
        """Add ``embeds`` to the open message of their turn of play when they fit, else send them as a new one
        (recorded when the turn has a key, bot/turn_posts.py); returns the id of the message that shows them.
        ``ride``: the same request shows the encounter's status as the message's text; ``leave``: a newer post
        that goes out next shows it, so an edit of the message showing it takes its text off
        (cogs/status_post.py)."""
        if self.open_posts.for_turn(encounter_id, turn) is None and recorded(turn) and not self._shared():
            await self._find(chan, encounter_id, turn or "")
        if ride:
            async with self._status.riding(encounter_id) as riding:
                return await self._send_or_append(chan, encounter_id, embeds, uploads, turn, riding)
        async with self._status.leaving(encounter_id) if leave else contextlib.nullcontext() as leaving:
            return await self._send_or_append(chan, encounter_id, embeds, uploads, turn, None, leaving)

    async def _send_or_append(
        self,
        chan: discord.abc.Messageable,
        encounter_id: int,
        embeds: list[discord.Embed],
        uploads: list[Upload],
        turn: str | None,
        ride: Ride | None,
        leave: Leave | None = None,
    ) -> int:
        if await self.append(encounter_id, embeds, uploads, ride, leave):
            open_post = self.open_posts.get(encounter_id)
            return open_post.message.id if open_post is not None else NOTHING_POSTED
        sent = await chan.send(
            ride.text if ride is not None else None,
            embeds=embeds,
            files=files_of(uploads),
            allowed_mentions=discord.AllowedMentions.none(),
        )
        if ride is not None:
            ride.message = sent
        self.open_posts[encounter_id] = OpenPost(sent, embeds, turn)
        if recorded(turn):  # found again after a restart (bot/turn_posts.py)
            await self._record(encounter_id, TURN, turn or "", sent.channel.id, sent.id)
        await self.posted(encounter_id, sent)
        return sent.id

    async def _find(self, chan: discord.abc.Messageable, encounter_id: int, turn: str) -> None:
        """After a restart: the recorded message of ``turn`` is open again (deleted: the turn goes on in a new one)."""
        ref = await self.bot.service.storage.get_message_ref(encounter_id, TURN, turn)
        if ref is not None and ref.message_id:
            with contextlib.suppress(discord.HTTPException):
                message = await partial_message(self.bot, chan, ref.channel_id, ref.message_id).fetch()
                self.open_posts[encounter_id] = OpenPost(message, list(message.embeds), turn, recovered=True)

    async def append(
        self,
        encounter_id: int,
        embeds: list[discord.Embed],
        uploads: list[Upload],
        ride: Ride | None = None,
        leave: Leave | None = None,
    ) -> bool:
        """Add a step to the message of the resolution under way (one message per resolution: an exo round's
        phases, a skirmish action and the chit draw after it), when it fits in one Discord message; False when
        there is none open or it is full (the step goes out as a new message). With ``ride`` the edit shows the
        status as the message's text too; with ``leave``, when the message shows the status, it takes it off."""
        open_post = self.open_posts.get(encounter_id)
        if open_post is None:
            return False
        if open_post.recovered and already_shown(
            (a.filename for a in open_post.message.attachments),
            ((e.title, e.description) for e in open_post.embeds),
            (u.name for u in uploads),
            (embeds[0].title, embeds[0].description) if embeds else None,
        ):
            return True  # the edit went out before a restart, its record did not
        together = [*open_post.embeds, *embeds]
        if not fits([len(e) for e in together], len(open_post.message.attachments) + len(uploads)):
            self.open_posts.pop(encounter_id, None)
            return False
        text: str | None = discord.utils.MISSING  # the text stays as it is
        if ride is not None:
            text = ride.text
        elif leave is not None and leave.message_id == open_post.message.id:
            text = None
        try:
            edited = await open_post.message.edit(
                embeds=together,
                attachments=[*open_post.message.attachments, *files_of(uploads)],
                allowed_mentions=discord.AllowedMentions.none(),
                content=text,
            )
        except discord.HTTPException:
            log.info("could not add a step to the post, sending it apart encounter=%s", encounter_id)
            self.open_posts.pop(encounter_id, None)
            return False
        if ride is not None:
            ride.message = edited
        elif leave is not None and text is None:
            leave.left = True
        self.open_posts[encounter_id] = OpenPost(edited, together, open_post.turn, open_post.recovered)
        return True

    def close(self, encounter_id: int) -> None:
        self.open_posts.end_resolution(encounter_id)  # a post whose turn lasts one resolution is closed

    async def posted(self, encounter_id: int, message: discord.Message) -> None:
        """``message`` is the encounter's newest post (an account, the opening board): the status rides on it."""
        await self.bot.service.storage.set_message_ref(
            encounter_id, POST, LAST_POST, message.channel.id, message.id
        )
