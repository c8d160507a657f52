"""The encounter's one status message as Discord text: who is still missing (names only, never what was ordered),
the deadline, the ruleset's own lines; and where it is shown (DESIGN §4 flow).

The status rides on the encounter's newest post (the account and board of the last step, or the opening board) as
its text, so it always sits under the latest board without a message of its own; when a newer post goes out, the
status moves onto it and the previous post loses its status text. A post of steps carries the status from the
start (:meth:`StatusPoster.riding`): the request that shows the steps shows the status too, not an edit after
it, since each channel request counts against Discord's global limit. Only when there is no post to ride on (or
it was deleted) does the status go out as a message of its own (deleted once it moves onto a post). The refs it
is recorded in are described in bot/outbox/records.py.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncGenerator, Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

import discord

from bot.bounded import Bounded
from bot.dice_seal import commitment_line
from bot.names import shown_name
from bot.outbox import LAST_POST, POST, STATUS, STATUS_ON_POST, STATUS_OWN, Outbox, status_kind
from bot.outbox.outbox import policy_of
from bot.panels import panel_for, status_lines
from bot.phase_gate import note_shown
from bot.request_plan import Kind, as_kind
from bot.results import StatusView
from bot.status_names import waiting_text
from bot.storage import Encounter, MessageRef
from cogs.common import clip
from data.i18n import t
from rules.state import EncounterState

if TYPE_CHECKING:
    from bot.process.client import HexBotCore

log = logging.getLogger(__name__)

#: status messages whose last text is remembered (one per running encounter is what matters)
SHOWN_KEPT = 4096

Partial = Callable[[discord.abc.Messageable, int, int], discord.PartialMessage]


def status_text(status: StatusView, locale: str, acting: str = "") -> str:
    head = t("status.head", locale, name=shown_name(status.name), when=status.when_text(locale))
    if status.deadline and not status.over and status.status == "running":
        when = discord.utils.format_dt(datetime.fromisoformat(status.deadline), "R")
        head += "\n" + t("status.deadline", locale, when=when)
    if status.over:
        return head + "\n" + t("status.over", locale)
    if status.status == "paused":
        return head + "\n" + t("status.paused", locale)
    if status.dice:
        head += "\n" + commitment_line(status.dice, locale)
    if acting:  # activation mode: whose turn it is, held or not (SK-1.1)
        return head + "\n" + acting
    if not status.missing:
        if policy_of(
            status.ruleset
        ).director_orders:  # the director's turn: the ruleset's lines say what is open
            return head
        return head + "\n" + t("status.all_in", locale)
    # always someone named; a unit hidden from the public (unit_name "") only by who acts for it (FOG-1)
    return head + "\n" + waiting_text(status.missing, locale, acting=False)


def status_lines_of(state: EncounterState, locale: str) -> tuple[str, ...]:
    """The ruleset's own lines under the status (ocs: the open combats and what each waits for)."""
    try:
        plugin = panel_for(state.ruleset)
    except KeyError:
        return ()
    return tuple(line.render(locale, markdown=True) for line in status_lines(plugin, state))


@dataclass(slots=True)
class Ride:
    """The status a post about to go out carries as its text: the phase it was written for, the text, and the
    message that went out with it (None until it has)."""

    phase_no: int
    text: str
    message: discord.Message | None = None


@dataclass(slots=True)
class Leave:
    """The post showing the status, when steps are about to be added to it and a newer post that shows the status
    follows them: the edit that adds them takes the status text off (``left`` once it has), rather than an edit
    of its own after the newer post."""

    message_id: int
    left: bool = False


class StatusPoster:
    """Writes the status where its refs say, and moves it onto the newest post."""

    def __init__(
        self,
        bot: HexBotCore,
        outbox: Outbox,
        channel: Callable[[Encounter], Awaitable[discord.abc.Messageable | None]],
        channel_lang: Callable[[Encounter], Awaitable[str]],
        partial: Partial,
    ) -> None:
        self.bot, self.outbox = bot, outbox
        self._channel, self._channel_lang, self._partial = channel, channel_lang, partial
        # message id → (phase, text) this process last put there: an edit to the same text carries nothing (kept
        # across the outbox's retries; another process may edit the same message, so then it is always sent)
        self._shown: Bounded[int, tuple[int, str]] = Bounded(SHOWN_KEPT)

    async def show(self, encounter_id: int, status: StatusView | None) -> None:
        """Show the status: edited in place, moved onto a newer post, or sent as a message of its own (once,
        claimed: when there is none to edit or it was deleted). An edit Discord refuses otherwise (a 429, a 5xx)
        raises, for the caller to retry: a second status message would stay in the channel."""
        storage = self.bot.service.storage
        claims = self.outbox.claims
        meta = await self.outbox.meta(encounter_id)
        status = status or await self.bot.service.status(encounter_id)
        text = await self._text(meta, status)
        chan = await self._channel(meta)
        if chan is None:
            return
        mentions = discord.AllowedMentions.none()
        refs = await storage.message_refs(encounter_id, STATUS)
        shown = max(refs, key=lambda r: r.message_id) if refs else None
        leftover = len(refs) > 1  # an earlier status whose removal Discord refused: taken off now
        last = await storage.get_message_ref(encounter_id, POST, LAST_POST)
        where = shown
        if last is not None and (shown is None or last.message_id > shown.message_id):
            where = last  # a newer post went out: the status moves onto it
        if where is not None and where is shown and not leftover and not self.outbox.sender.shared:
            same_phase = where.key == f"{status_kind(where)}:{where.message_id}:{status.phase_no}"
            if same_phase and self._shown.get(where.message_id) == (status.phase_no, text):
                return  # the message shows this very text already
        if where is not None:
            try:
                message = self._partial(chan, where.channel_id, where.message_id)
                with as_kind(Kind.STATUS):  # after the boards and panels when requests queue up
                    edited = await message.edit(content=text, allowed_mentions=mentions)
                self._shown[where.message_id] = (status.phase_no, text)
            except discord.NotFound:  # deleted; any other refusal is not a reason for a second message
                log.info("status message gone, sending a new one encounter=%s", encounter_id)
            else:
                kind = status_kind(where) if where is shown else STATUS_ON_POST
                await self._keep(encounter_id, shown, kind, where, status.phase_no, chan, leftover)
                await note_shown(storage, encounter_id, status.phase_no, edited.id, edited.edited_at)
                return
        claim = (encounter_id, "status_sent", str(status.phase_no))  # a message of its own goes out once
        if where is not None:  # the one it was shown on is gone: a new one may go out
            await claims.release(*claim)
        if not await claims.claim(*claim):
            return  # another process is sending it now
        try:
            with as_kind(Kind.STATUS):
                sent = await chan.send(text, allowed_mentions=mentions)
        except Exception:
            await claims.release(*claim)
            raise
        await claims.record(*claim, sent.channel.id, sent.id)
        self._shown[sent.id] = (status.phase_no, text)
        ref = MessageRef(encounter_id, STATUS, "", sent.channel.id, sent.id)
        await self._keep(encounter_id, shown, STATUS_OWN, ref, status.phase_no, chan, leftover)
        await note_shown(storage, encounter_id, status.phase_no, sent.id, None)

    async def _text(self, meta: Encounter, status: StatusView) -> str:
        """The status as the channel reads it, in the channel's language."""
        locale = await self._channel_lang(meta)
        text = status_text(status, locale, await self._acting(meta.id, status, locale))
        if status.status == "running" and not status.over:
            extra = status_lines_of((await self.bot.service.read(meta.id)).state, locale)
            text = "\n".join((text, *extra))
        return clip(text)

    @contextlib.asynccontextmanager
    async def riding(self, encounter_id: int) -> AsyncGenerator[Ride | None]:
        """The status for a post about to go out to carry as its text, written as :meth:`show` writes it; once the
        post is out (``Ride.message``) it is recorded as shown there, so the refresh that follows finds nothing to
        send, and the previous post loses its status text. None when other processes post for the encounter: their
        refreshes may move the status meanwhile, so it is shown by :meth:`show` alone, which checks again."""
        if self.outbox.sender.shared:
            yield None
            return
        async with self.outbox.status_lock(encounter_id):
            meta = await self.outbox.meta(encounter_id)
            status = await self.bot.service.status(encounter_id)
            ride = Ride(status.phase_no, await self._text(meta, status))
            yield ride
            if ride.message is not None:
                await self._rode(encounter_id, ride, ride.message)

    @contextlib.asynccontextmanager
    async def leaving(self, encounter_id: int) -> AsyncGenerator[Leave | None]:
        """The post showing the status, for the edit that adds steps to it to take the status text off (a newer
        post that goes out next carries the status); once it has, it no longer shows it. None when the status is
        a message of its own or is being moved (an earlier removal refused), or other processes post for the
        encounter. Until the newer post is out the channel shows no status: if Discord refuses that post, the
        phase's opening shows the status again on this one (its newest post)."""
        if self.outbox.sender.shared:
            yield None
            return
        storage = self.bot.service.storage
        async with self.outbox.status_lock(encounter_id):
            refs = await storage.message_refs(encounter_id, STATUS)
            if len(refs) != 1 or status_kind(refs[0]) != STATUS_ON_POST:
                yield None
                return
            leave = Leave(refs[0].message_id)
            yield leave
            if leave.left:
                self._shown.pop(leave.message_id, None)
                await storage.delete_message_ref(encounter_id, STATUS, refs[0].key)

    async def _rode(self, encounter_id: int, ride: Ride, message: discord.Message) -> None:
        """``message`` went out showing the status: recorded as :meth:`show` records it. The post is out, so a
        refused removal of the previous post's text is not raised (that would post the steps again): its record
        stays and the retry takes the text off."""
        storage = self.bot.service.storage
        refs = await storage.message_refs(encounter_id, STATUS)
        shown = max(refs, key=lambda r: r.message_id) if refs else None
        self._shown[message.id] = (ride.phase_no, ride.text)
        now = MessageRef(encounter_id, STATUS, "", message.channel.id, message.id)
        try:
            await self._keep(
                encounter_id, shown, STATUS_ON_POST, now, ride.phase_no, message.channel, len(refs) > 1
            )
        except self.outbox.sender.refused:
            log.warning(
                "old status text not taken off, retrying later encounter=%s", encounter_id, exc_info=True
            )
            self.outbox.retries.later(encounter_id)
        await note_shown(storage, encounter_id, ride.phase_no, message.id, message.edited_at)

    async def _keep(
        self,
        encounter_id: int,
        old: MessageRef | None,
        kind: str,
        now: MessageRef,
        phase_no: int,
        chan: discord.abc.Messageable,
        leftover: bool = True,
    ) -> None:
        """Record where the status is shown now (``kind``: its own message or a post's text) and for which phase;
        the message that showed it before is deleted (its own) or loses its status text (a post). When Discord
        refuses that (a 429, a 5xx), its record stays and the error is raised: the retry takes it off, so two
        status texts never stay in the channel."""
        storage = self.bot.service.storage
        key = f"{kind}:{now.message_id}:{phase_no}"
        if not leftover and old is not None and old.key == key and old.message_id == now.message_id:
            return  # edited in place, for the same phase
        await storage.set_message_ref(encounter_id, STATUS, key, now.channel_id, now.message_id)
        for ref in await storage.message_refs(encounter_id, STATUS):  # the one before (or older ones: legacy)
            if ref.key == key:
                continue
            if ref.message_id != now.message_id:
                self._shown.pop(ref.message_id, None)
                try:
                    gone = self._partial(chan, ref.channel_id, ref.message_id)
                    with as_kind(Kind.STATUS):
                        if status_kind(ref) == STATUS_OWN:
                            await gone.delete()
                        else:  # a post keeps its account and board; only the status text goes
                            await gone.edit(content=None, allowed_mentions=discord.AllowedMentions.none())
                except discord.NotFound:
                    log.info("old status message already gone encounter=%s", encounter_id)
            await storage.delete_message_ref(encounter_id, STATUS, ref.key)

    async def _acting(self, encounter_id: int, status: StatusView, locale: str) -> str:
        """One-at-a-time modes: the units awaited now, each with who acts for it (bot/status_names.py)."""
        if status.over or status.status != "running":
            return ""
        reading = await self.bot.service.read(encounter_id)
        if not policy_of(status.ruleset, reading.state).shows_acting:  # how this step collects orders
            return ""
        return waiting_text(status.acting, locale, acting=True)
