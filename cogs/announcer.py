"""What the channel and the players are told as phases open and resolve (DESIGN §4 flow).

* as steps resolve: the board image (public view) and the readable account of each, in the channel's language,
  one message per turn of play, edited as its steps come (bot/turn_posts.py: an embed per step, each with its
  own board; a new message past Discord's limits); long accounts as a text file on it; the winner at the end;
* when a phase opens: the encounter's one status message, edited in place, lists who is still missing (names
  only); it rides on the newest post as its text, so it sits under the latest board without a message of its
  own. A DM panel goes to each missing player's unit, edited in place when the same unit acts again at once
  (closed DMs → one channel notice per unit mentioning the player, who uses ``/orders``);
* a pending decision (pilot critical) is asked by DM; held rolls ("director reviews rolls") go to the director.

Sent panels and status messages are recorded as message refs, and the newest step shown in the channel as the
encounter's ``announced_seq``, so a restart neither loses nor repeats them: on start-up every running encounter is
resumed (steps committed but never shown are posted, complete or automatic phases resolved, the open phase's
status and panels sent). A post that Discord refuses (a 429 without Via, repeated 500s) is retried with backoff
from what storage holds, so it is never dropped (issue 15 item 5).

Several bot processes may share the database (issue 20: a DM click for a guild on another shard is resolved, and
posted, by the process that receives it). Each post that must appear once (a step, a status message of its own, a
panel, the closed-DMs notice, the winner) is claimed in storage before it is sent (``claim_message_ref``), so two
processes never both send it. A process that died mid-send takes its claims back when it starts again (its
claimant id is that of its shards); a claim of a process that never comes back is taken after :data:`CLAIM_STALE`,
by the retries of whoever found it taken.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import io
import logging
import weakref
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

import discord

from bot.bounded import Bounded
from bot.imaging import board_png
from bot.logs import trace_id
from bot.names import shown_name
from bot.panels import panel_for, status_lines, step_cards
from bot.panels.model import Card
from bot.phase_gate import note_shown
from bot.results import HeldRolls, OverrideDone, Resolution, StatusView, StepReport
from bot.service import Reading
from bot.service.base import MUTED
from bot.side_news import news_for, private_title
from bot.status_names import waiting_text
from bot.storage import Deadline, Encounter, MessageRef
from bot.text.account import describe, roll_purpose
from bot.text.rules_reference import cited
from bot.turn_posts import MAX_EMBEDS, TURN, OpenPosts, already_shown, fits, pack, recorded, step_sizes
from bot.turn_posts import OpenPost as OpenPostOf
from cogs.common import ACCOUNT_INLINE_LIMIT, channel_language, clip, png_file, text_file
from cogs.panel.items import panel_message
from cogs.panel.load import load_panel
from data.i18n import language_of, t
from render.phase import phase_title
from rules.events import Event, RollMade
from rules.order_modes import OrderPolicy, policy_for, policy_for_mode
from rules.registry import get_ruleset, ruleset_for
from rules.ruleset import DIRECTOR, OrderMode
from rules.state import EncounterState

if TYPE_CHECKING:
    from bot.process.client import HexBotCore

log = logging.getLogger(__name__)


Job = Callable[[], Awaitable[None]]


@dataclass(frozen=True, slots=True)
class StepPost:
    """A queued step to post: steps queued one behind the other go out together (:meth:`Announcer._work`)."""

    step: StepReport


#: an account with more events than this is written in a worker thread
LONG_ACCOUNT = 200
#: encounter setting: the snapshot of the newest step shown in the channel (absent on encounters from before it)
ANNOUNCED = "announced_seq"
#: seconds before each retry of a post Discord refused; the last one repeats for as long as Discord refuses
RETRY_BACKOFF: tuple[float, ...] = (2.0, 10.0, 30.0, 120.0, 600.0)
#: running encounters resumed at the same time after a start
RESUME_AT_ONCE = 8
#: message refs: the status (one per encounter, key "<own|post>:<message id>:<phase_no>": one key per message, so a
#: status written for a new phase on an old post is never overwritten by the same phase's on the next post, which
#: left the old post's text behind, issue 20) and the newest post it rides on
STATUS = "status"
STATUS_OWN = "own"
STATUS_ON_POST = "post"
POST = "post"
LAST_POST = "last"
#: encounters whose row and announced step are kept between posts (the busy ones; idle ones are read again)
ANNOUNCER_CACHE_SIZE = 2048
#: seconds after which a post claimed but never recorded as sent is taken to be of a process that died mid-send
CLAIM_STALE = 60.0
#: the message id recorded for a step that was claimed and had nothing public to post
NOTHING_POSTED = 1
#: times the status is shown again when the encounter changed while it was being edited
STATUS_RECHECKS = 2


class Announcer:
    """Posts in order, per encounter: one worker drains a queue of jobs, so the image of phase 2 never overtakes
    the one of phase 1 while resolution goes on in parallel."""

    def __init__(self, bot: HexBotCore) -> None:
        self.bot = bot
        self._queues: dict[int, deque[Job | StepPost]] = {}
        self._workers: dict[int, asyncio.Task[None]] = {}
        self._queued: set[int] = set()  # ids of StepReports already queued through step_done
        # the rows of the encounters posted to lately, and ANNOUNCED per encounter as last read or written: both
        # are read again from storage once an idle encounter has fallen out (issue 20)
        self._metas: Bounded[int, Encounter] = Bounded(ANNOUNCER_CACHE_SIZE)
        self._announced: Bounded[int, int | None] = Bounded(ANNOUNCER_CACHE_SIZE)
        # the message of the resolution under way, per encounter: its further steps are added to it
        self._open_posts: OpenPosts[discord.Message, discord.Embed] = OpenPosts(ANNOUNCER_CACHE_SIZE)
        self._retries: dict[int, int] = {}  # failed catch-ups in a row, per encounter
        self._users: Bounded[int, discord.User | discord.Member] = Bounded(ANNOUNCER_CACHE_SIZE)
        self._dms: Bounded[int, discord.DMChannel] = Bounded(ANNOUNCER_CACHE_SIZE)
        self._retry_tasks: set[asyncio.Task[None]] = set()
        self._retry_pending: set[int] = set()  # encounters with a retry waiting for its time
        self._openings_owed: dict[int, int] = {}  # encounter → the phase its refused opening board showed
        self.retry_backoff = RETRY_BACKOFF
        self.resumed = asyncio.Event()  # set once the running encounters are queued for resuming (tests)
        # one status writer (and one winner announcement) at a time per encounter in this process
        self._status_locks: weakref.WeakValueDictionary[int, asyncio.Lock] = weakref.WeakValueDictionary()
        self._sending: set[tuple[int, str, str]] = set()  # this process's claims not yet recorded as sent

    def enqueue(self, encounter_id: int, job: Job | StepPost) -> None:
        self._queues.setdefault(encounter_id, deque()).append(job)
        worker = self._workers.get(encounter_id)
        if worker is None or worker.done():
            self._workers[encounter_id] = asyncio.create_task(
                self._work(encounter_id), name=f"hexd-announce-{encounter_id}"
            )

    async def _work(self, encounter_id: int) -> None:
        queue = self._queues[encounter_id]
        try:
            while queue:
                job = queue.popleft()
                if isinstance(job, StepPost):
                    # the steps committed while the one before them was being posted go out together: one
                    # message or edit for a resolution's steps, not one each (issue 20)
                    steps = [job.step]
                    while queue and isinstance(following := queue[0], StepPost):
                        steps.append(following.step)
                        queue.popleft()
                    job = functools.partial(self._post, steps)
                try:
                    await job()
                except Exception:
                    log.exception("announcement failed trace=%s encounter=%s", trace_id(), encounter_id)
        finally:  # cancelled too (the bot closing): a finished worker never stays listed
            if self._workers.get(encounter_id) is asyncio.current_task():
                self._workers.pop(encounter_id, None)
                if not queue:  # nothing left: an idle encounter keeps no queue (issue 20)
                    self._queues.pop(encounter_id, None)

    def _status_lock(self, encounter_id: int) -> asyncio.Lock:
        """The lock held while reading, sending or editing and recording the encounter's status (or its winner)."""
        lock = self._status_locks.get(encounter_id)
        if lock is None:
            lock = self._status_locks[encounter_id] = asyncio.Lock()
        return lock

    def status_changed(self, encounter_id: int) -> None:
        """An order came in: edit the phase's status message, in turn with the encounter's other posts (a
        refused edit is retried like any refused post)."""
        self.enqueue(encounter_id, lambda: self._refresh_or_retry(encounter_id))

    async def _refresh_or_retry(self, encounter_id: int) -> None:
        try:
            await self.refresh_status(encounter_id)
        except (discord.HTTPException, ChannelUnavailable):
            log.warning("status refresh refused, retrying later encounter=%s", encounter_id, exc_info=True)
            self._retry_later(encounter_id)

    async def drain(self) -> None:
        """Wait for every queued announcement (tests, shutdown); retries waiting for their time are dropped (the
        record of what was shown makes the next start post them)."""
        for task in list(self._retry_tasks):
            task.cancel()
        while running := [w for w in self._workers.values() if not w.done()]:
            await asyncio.gather(*running, return_exceptions=True)

    async def step_done(self, step: StepReport) -> None:
        self._queued.add(id(step))
        self.enqueue(step.encounter_id, StepPost(step))

    async def _meta(self, encounter_id: int) -> Encounter:
        """The encounter row as far as posting goes (name, guild, channel, creator: fixed for its lifetime). Its
        settings may be stale (another process may have changed them): what depends on them reads them again."""
        meta = self._metas.get(encounter_id)
        if meta is None:
            meta = self._metas[encounter_id] = await self.bot.service.storage.get_encounter(encounter_id)
        return meta

    async def _post(self, steps: list[StepReport]) -> None:
        """Post steps of one encounter, queued in order."""
        meta = await self._meta(steps[0].encounter_id)
        try:
            if meta.id in self._retries:  # an earlier post was refused: it goes first, from storage
                await self.catch_up(meta.id, before=steps[0].snapshot_seq)
            shown = await self._announced_seq(meta.id) or 0
            owed = [s for s in steps if s.snapshot_seq > shown]
            if len(owed) > 1 and not self.shared:
                await self._post_together(meta, owed)
            else:  # each step is claimed in storage on its own when processes share the encounters
                for step in owed:
                    await self._post_and_mark(meta, step)
        except (discord.HTTPException, ChannelUnavailable):
            log.warning("step post failed, retrying later encounter=%s", meta.id, exc_info=True)
            self._retry_later(meta.id)

    async def _post_and_mark(self, meta: Encounter, step: StepReport) -> None:
        """Post one step (claimed first, so no other process posts it too) and record it as shown."""
        storage = self.bot.service.storage
        key = str(step.snapshot_seq)
        # one process alone: ``announced_seq`` says what was shown; shared: each step is claimed and recorded
        claimed = bool(step.snapshot_seq) and self.shared
        if claimed and not await self.claim(meta.id, "step", key):
            ref = await storage.get_message_ref(meta.id, "step", key)
            if ref is not None and ref.message_id:
                await self._mark(meta.id, step.snapshot_seq)  # another process posted it
            return  # else being posted now, here or by another process (then checked again later)
        try:
            chan = await self.channel(meta)
            if chan is None:
                raise ChannelUnavailable(meta.channel_id)
            sent = await self.post_step(chan, meta, step, await self.channel_lang(meta))
            await self.post_private_views(
                meta, step
            )  # NGT-9: each side's own board, where the ruleset says so
        except Exception:
            if claimed:
                await self.release(meta.id, "step", key)
            raise
        if claimed:
            await self.record(meta.id, "step", key, meta.channel_id, sent or NOTHING_POSTED)
        if step.snapshot_seq:
            await self._mark(meta.id, step.snapshot_seq)

    async def _post_together(self, meta: Encounter, steps: list[StepReport]) -> None:
        """Post several steps (this process alone posts for the encounter: no claims) in as few messages as
        Discord's limits allow, their boards drawn side by side; the newest step in each message is recorded as
        shown once that message is out, so a refusal halfway repeats nothing that went out."""
        chan = await self.channel(meta)
        if chan is None:
            raise ChannelUnavailable(meta.channel_id)
        locale = await self.channel_lang(meta)
        laid_out = await asyncio.gather(
            *(self.step_content(meta, step, locale) for step in steps), return_exceptions=True
        )
        for failed in (c for c in laid_out if isinstance(c, BaseException)):  # the other steps still go out
            log.error("step not shown trace=%s encounter=%s", trace_id(), meta.id, exc_info=failed)
        shown = [
            (s, None if isinstance(c, BaseException) else c) for s, c in zip(steps, laid_out, strict=True)
        ]
        for turn, group in pack(shown, lambda pair: pair[0].turn, step_sizes):  # bot/turn_posts.py
            embeds = [e for _, content in group if content for e in content[0]]
            uploads = [u for _, content in group if content for u in content[1]]
            await self._show_group(chan, meta, [step for step, _ in group], embeds, uploads, turn)

    async def _show_group(
        self,
        chan: discord.abc.Messageable,
        meta: Encounter,
        steps: list[StepReport],
        embeds: list[discord.Embed],
        uploads: list[tuple[str, bytes]],
        turn: str | None,
    ) -> None:
        if embeds:
            await self._send_or_append(chan, meta, embeds, uploads, turn)
        for step in steps:
            await self.post_private_views(
                meta, step
            )  # NGT-9: each side's own board, where the ruleset says so
        if seq := max(step.snapshot_seq for step in steps):
            await self._mark(meta.id, seq)

    # --- posts that must go out once, whichever process sends them --------------------------------------------
    @property
    def shared(self) -> bool:
        """Whether other bot processes may post for the same encounters (this one runs only some shards)."""
        return self.bot.claimant != 1

    async def claim(self, encounter_id: int, kind: str, key: str) -> bool:
        """Take the sending of one message (True for one process only; see ``Storage.claim_message_ref``). When
        another process holds it unsent, this encounter is checked again later (that process may have died).
        A bot running every shard in one process writes no claim: what it recorded as sent is enough."""
        if (encounter_id, kind, key) in self._sending:
            return False  # this process is sending it now
        storage = self.bot.service.storage
        if not self.shared:
            ref = await storage.get_message_ref(encounter_id, kind, key)
            if ref is not None and ref.message_id:
                return False
            self._sending.add((encounter_id, kind, key))
            return True
        stale = self.bot.service.clock() - timedelta(seconds=CLAIM_STALE)
        if await storage.claim_message_ref(
            encounter_id, kind, key, holder=self.bot.claimant, stale_before=stale
        ):
            self._sending.add((encounter_id, kind, key))
            return True
        ref = await storage.get_message_ref(encounter_id, kind, key)
        if ref is not None and not ref.message_id:
            self._retry_later(encounter_id)
        return False

    async def record(self, encounter_id: int, kind: str, key: str, channel_id: int, message_id: int) -> None:
        """The claimed message was sent: record it (no process sends it again)."""
        await self.bot.service.storage.set_message_ref(encounter_id, kind, key, channel_id, message_id)
        self._sending.discard((encounter_id, kind, key))

    async def release(self, encounter_id: int, kind: str, key: str) -> None:
        """Give a claim back after the send failed (it is retried; a crash leaves it to the restarted process)."""
        self._sending.discard((encounter_id, kind, key))
        with contextlib.suppress(Exception):
            await self.bot.service.storage.delete_message_ref(encounter_id, kind, key)

    # --- what the channel has been shown, and catching up after a crash or a refused post -----------------
    async def _announced_seq(self, encounter_id: int) -> int | None:
        if encounter_id not in self._announced:
            settings = (await self.bot.service.storage.get_encounter(encounter_id)).settings
            value = settings.get(ANNOUNCED)
            self._announced[encounter_id] = value if isinstance(value, int) else None
        return self._announced[encounter_id]

    async def _mark(self, encounter_id: int, seq: int) -> None:
        if seq > (await self._announced_seq(encounter_id) or 0):
            # a note, not an event: one post must not make every cached read of the encounter stale (issue 20)
            await self.bot.service.storage.note_settings(encounter_id, **{ANNOUNCED: seq})
            self._announced[encounter_id] = seq

    async def catch_up(self, encounter_id: int, *, before: int | None = None) -> int:
        """Post, in order, the committed steps the channel has not been shown (those before snapshot ``before``
        only, when given). An encounter from before the record starts it at its current snapshot, posting
        nothing. Returns how many steps were posted; raises if Discord refuses one (the rest wait)."""
        announced = await self._announced_seq(encounter_id)
        if announced is None:
            loaded = await self.bot.service.storage.load(encounter_id)
            await self._mark(encounter_id, loaded.snapshot_seq)
            return 0
        owed = await self.bot.service.steps_after(encounter_id, announced)
        owed = [s for s in owed if before is None or s.snapshot_seq < before]
        if not owed:
            return 0
        meta = await self._meta(encounter_id)
        for step in owed:
            await self._post_and_mark(meta, step)
        log.info("caught up encounter=%s steps=%d", encounter_id, len(owed))
        return len(owed)

    def _retry_later(self, encounter_id: int) -> None:
        """Post what the encounter is owed again after the next delay of :attr:`retry_backoff`, then every last
        delay for as long as Discord refuses: giving up left the table stuck until a restart (issue 20). One retry
        is pending at a time per encounter (it posts everything owed)."""
        if encounter_id in self._retry_pending:
            return
        attempt = self._retries.get(encounter_id, 0)
        if attempt == len(self.retry_backoff):
            log.error(
                "posts still refused, retrying every %s s encounter=%s", self.retry_backoff[-1], encounter_id
            )
        self._retries[encounter_id] = attempt + 1
        delay = self.retry_backoff[min(attempt, len(self.retry_backoff) - 1)]

        async def later() -> None:
            try:
                await asyncio.sleep(delay)
            finally:
                self._retry_pending.discard(encounter_id)
            self.enqueue(encounter_id, lambda: self._retry(encounter_id))

        self._retry_pending.add(encounter_id)
        task = asyncio.create_task(later(), name=f"hexd-repost-{encounter_id}")
        self._retry_tasks.add(task)
        task.add_done_callback(self._retry_tasks.discard)

    async def _retry(self, encounter_id: int) -> None:
        try:
            owed = self._openings_owed.get(encounter_id)
            if owed is not None:  # the opening board, while the encounter is still where it started
                reading = await self.bot.service.read(encounter_id)
                if reading.phase_no == owed:
                    await self._post_opening(reading, private=False)
                self._openings_owed.pop(encounter_id, None)
            await self.catch_up(encounter_id)
            await self._reopen(encounter_id)
        except (discord.HTTPException, ChannelUnavailable):
            log.warning("repost failed encounter=%s", encounter_id, exc_info=True)
            self._retry_later(encounter_id)
        else:
            self._retries.pop(encounter_id, None)

    async def resume(self, encounter_id: int) -> None:
        """After a start-up: show what was committed but never shown, resolve what is complete or automatic,
        and make sure the open phase's status and panels went out (each is recorded, so nothing repeats)."""
        try:
            await self.catch_up(encounter_id)
        except (discord.HTTPException, ChannelUnavailable):
            self._retry_later(encounter_id)
            return
        result = await self.bot.service.advance(encounter_id, on_step=self.step_done)
        if result.steps or result.over:
            await self.after_resolution(result)
            return
        try:
            await self._reopen(encounter_id)
        except (discord.HTTPException, ChannelUnavailable):
            self._retry_later(encounter_id)

    async def _reopen(self, encounter_id: int) -> None:
        """The open phase's status message (sent, or brought up to date) and panels, if they never went out (a
        crash, a refused post); or the end of the game, if it was never told."""
        status = await self.bot.service.status(encounter_id)
        if status.over:
            await self.announce_end(encounter_id)
            await self.refresh_status(encounter_id, status=status)  # the status says it is over
            return
        if status.status != "running":
            return
        shown = await self._status_ref(encounter_id)
        last = await self.bot.service.storage.get_message_ref(encounter_id, POST, LAST_POST)
        if (
            shown is None
            or _status_phase(shown) != status.phase_no
            or (last is not None and last.message_id > shown.message_id)
        ):
            await self.open_phase(encounter_id)
            return
        await self.refresh_status(encounter_id, status=status)  # a refused edit
        meta = await self._meta(encounter_id)
        for missing in status.missing:  # panels are recorded: only the ones never sent go out
            if missing.user_id is not None:
                await self.send_panel(meta, missing.user_id, missing.unit)

    async def resume_all(self) -> int:
        """Resume every running encounter (one queue each, so their posts keep their order). Each resume is queued
        at once, ahead of anything else for its encounter, but only :data:`RESUME_AT_ONCE` run at a time: with
        thousands of running encounters the clicks that come meanwhile wait behind a few resumes, not all of
        them, and only those few encounters' rows and states are in memory at once (issue 20).

        With several processes (shards) on one database, each process resumes every running encounter, those of the
        guilds on its own shards first: a process that died may have been posting for any guild (DM clicks all
        arrive on shard 0), and the claims in storage make sure each post still goes out once."""
        running = await self.bot.service.storage.running_encounters()
        running.sort(key=lambda meta: not self.bot.owns_guild(meta.guild_id))  # stable: own guilds first
        gate = asyncio.Semaphore(RESUME_AT_ONCE)

        async def resume(encounter_id: int) -> None:
            async with gate:
                await self.resume(encounter_id)

        for meta in running:
            self.enqueue(meta.id, lambda eid=meta.id: resume(eid))
        return len(running)

    # --- where and in which language ------------------------------------------------------------------------
    async def channel_lang(self, meta: Encounter) -> str:
        return await channel_language(self.bot, meta)

    async def user_lang(self, meta: Encounter, user_id: int) -> str:
        saved = meta.settings.get(f"locale_{user_id}")
        return language_of(saved) if isinstance(saved, str) else await self.channel_lang(meta)

    async def channel(self, meta: Encounter) -> discord.abc.Messageable | None:
        chan = self.bot.get_channel(meta.channel_id)
        if chan is None:
            try:
                chan = await self.bot.fetch_channel(meta.channel_id)
            except discord.HTTPException:
                log.warning("channel unavailable encounter=%s", meta.id)
                return None
        return chan if isinstance(chan, discord.abc.Messageable) else None

    # --- resolution -----------------------------------------------------------------------------------------
    async def after_resolution(self, result: Resolution) -> None:
        if result.already:
            return
        for step in result.steps:
            if id(step) not in self._queued:
                self.enqueue(step.encounter_id, StepPost(step))
            self._queued.discard(id(step))
        self.enqueue(result.encounter_id, lambda: self._conclude(result))

    async def _conclude(self, result: Resolution) -> None:
        try:
            await self._conclude_now(result)
        except (discord.HTTPException, ChannelUnavailable):
            log.warning(
                "phase opening refused, retrying later encounter=%s", result.encounter_id, exc_info=True
            )
            self._retry_later(result.encounter_id)

    async def _conclude_now(self, result: Resolution) -> None:
        self._close_post(result.encounter_id)
        meta = await self._meta(result.encounter_id)
        if result.over:
            await self.announce_end(meta.id)
            await self.refresh_status(meta.id)  # the one status says it is over, not who is missing
        if result.held is not None:
            await self.send_held(meta, result.held)
        if result.opened_phase_no is not None and not result.over:
            await self.open_phase(meta.id)  # panels for whoever owes orders, the pilot's decision included
        elif result.decision_user is not None and result.decision_unit is not None:
            await self.send_panel(meta, result.decision_user, result.decision_unit)

    async def announce_end(self, encounter_id: int) -> None:
        """The winner (or a draw) in the channel, once, whichever process sends it (claimed and recorded): a
        refused post is retried (:meth:`_reopen`: it was lost, issue 20), a second resolution reporting the end
        sends nothing."""
        meta = await self._meta(encounter_id)
        chan = await self.channel(meta)
        if chan is None:
            raise ChannelUnavailable(meta.channel_id)
        if not await self.claim(encounter_id, "over", ""):
            return
        try:
            state = (await self.bot.service.read(encounter_id)).state
            locale = await self.channel_lang(meta)
            names = {s.id: shown_name(s.name) for s in state.sides}
            winner = state.winner
            text = (
                t("channel.winner", locale, winner=names.get(winner, winner))
                if winner
                else t("channel.draw", locale)
            )
            sent = await chan.send(f"🏁 **{shown_name(meta.name)}** — {text}")
        except Exception:
            await self.release(encounter_id, "over", "")
            raise
        await self.record(encounter_id, "over", "", sent.channel.id, sent.id)

    async def post_step(
        self, chan: discord.abc.Messageable, meta: Encounter, step: StepReport, locale: str
    ) -> int | None:
        """Post the step's board and account (added to the resolution's message when it fits); returns the id of
        the message that shows it (None: nothing public to post)."""
        content = await self.step_content(meta, step, locale)
        if content is None:
            return None
        return await self._send_or_append(chan, meta, *content, step.turn)

    async def step_content(
        self, meta: Encounter, step: StepReport, locale: str
    ) -> tuple[list[discord.Embed], list[tuple[str, bytes]]] | None:
        """The step's embeds (its account and board, then its cards) and the files they show (None: nothing
        happened that the channel may see)."""
        if not step.public_events:
            return None  # nothing happened that the channel may see: no image to repeat
        when = phase_title(
            step.state, step.round, step.phase, locale
        )  # one number for the phase, as players count it
        header = t("channel.step", locale, name=shown_name(meta.name), when=when)
        if len(step.public_events) > LONG_ACCOUNT:  # a fleet's account is CPU work: off the event loop
            lines = await asyncio.to_thread(
                lambda: [describe(e, step.state, locale) for e in step.public_events]
            )
        else:
            lines = [describe(e, step.state, locale) for e in step.public_events]
        account = "\n".join(lines) or t("channel.nothing_happened", locale)
        png = None
        if step.board_changed:  # a phase that moved nothing gets its account without repeating the picture
            png = await board_png(
                step.state,
                step.public_events,
                viewer="public",
                locale=locale,
                title=meta.name,
                step=(step.round, step.phase),
            )
        embed = discord.Embed(title=clip(header, 256), colour=discord.Colour.dark_blue())
        # (file name, bytes), the names unique per step: one message may hold several steps
        uploads: list[tuple[str, bytes]] = []
        if len(account) <= ACCOUNT_INLINE_LIMIT:
            embed.description = account
        else:
            embed.description = t("channel.account_in_file", locale, count=len(lines))
            name = f"round{step.round:02d}-phase{step.phase}-step{step.phase_no}.txt"
            uploads.append((name, account.encode("utf-8")))
        if png is not None:
            name = f"board-{step.phase_no}.png"
            uploads.append((name, png))
            embed.set_image(url=f"attachment://{name}")
        if ids := cited(lines):  # every rule the account cites can be read with /rule (issue 13 item 9)
            embed.set_footer(text=clip(t("channel.rules_footer", locale, ids=" · ".join(ids[:12])), 2048))
        cards = [card_embed(c, locale) for c in _cards(step.state, step.public_events)]
        return [embed, *cards[:MAX_CARDS]], uploads

    async def _send_or_append(
        self,
        chan: discord.abc.Messageable,
        meta: Encounter,
        embeds: list[discord.Embed],
        uploads: list[tuple[str, bytes]],
        turn: str | None = "",
    ) -> int:
        """Add ``embeds`` to the open message of their turn of play when they fit, else send them as a new one
        (recorded when the turn has a key, bot/turn_posts.py); returns the id of the message that shows them."""
        if self._open_posts.for_turn(meta.id, turn) is None and recorded(turn) and not self.shared:
            await self._find_turn_post(chan, meta.id, turn or "")
        if await self._append(meta.id, embeds, uploads):
            open_post = self._open_posts.get(meta.id)
            return open_post.message.id if open_post is not None else NOTHING_POSTED
        sent = await chan.send(
            embeds=embeds, files=_files(uploads), allowed_mentions=discord.AllowedMentions.none()
        )
        self._open_posts[meta.id] = OpenPost(sent, embeds, turn)
        if recorded(turn):  # found again after a restart (bot/turn_posts.py)
            await self.record(meta.id, TURN, turn or "", sent.channel.id, sent.id)
        await self._posted(meta.id, sent)
        return sent.id

    async def _find_turn_post(self, chan: discord.abc.Messageable, encounter_id: int, turn: str) -> None:
        """After a restart: the recorded message of ``turn`` is open again (deleted: the turn goes on in a new one)."""
        ref = await self.bot.service.storage.get_message_ref(encounter_id, TURN, turn)
        if ref is not None and ref.message_id:
            with contextlib.suppress(discord.HTTPException):
                message = await self._partial(chan, ref.channel_id, ref.message_id).fetch()
                self._open_posts[encounter_id] = OpenPost(message, list(message.embeds), turn, recovered=True)

    async def _append(
        self, encounter_id: int, embeds: list[discord.Embed], uploads: list[tuple[str, bytes]]
    ) -> bool:
        """Add a step to the message of the resolution under way (one message per resolution: an exo round's
        phases, a skirmish action and the chit draw after it), when it fits in one Discord message; False when
        there is none open or it is full (the step goes out as a new message)."""
        open_post = self._open_posts.get(encounter_id)
        if open_post is None:
            return False
        if open_post.recovered and already_shown(
            (a.filename for a in open_post.message.attachments),
            ((e.title, e.description) for e in open_post.embeds),
            (name for name, _ in uploads),
            (embeds[0].title, embeds[0].description) if embeds else None,
        ):
            return True  # the edit went out before a restart, its record did not
        together = [*open_post.embeds, *embeds]
        if not fits([len(e) for e in together], len(open_post.message.attachments) + len(uploads)):
            self._open_posts.pop(encounter_id, None)
            return False
        try:
            edited = await open_post.message.edit(
                embeds=together,
                attachments=[*open_post.message.attachments, *_files(uploads)],
                allowed_mentions=discord.AllowedMentions.none(),
            )
        except discord.HTTPException:
            log.info("could not add a step to the post, sending it apart encounter=%s", encounter_id)
            self._open_posts.pop(encounter_id, None)
            return False
        self._open_posts[encounter_id] = OpenPost(edited, together, open_post.turn, open_post.recovered)
        return True

    def _close_post(self, encounter_id: int) -> None:
        self._open_posts.end_resolution(encounter_id)  # a post whose turn lasts one resolution is closed

    async def override_done(self, meta: Encounter, done: OverrideDone) -> None:
        """A director's override changed the board (a flare, a unit moved by hand): the private boards again."""
        events = done.events or (done.event,)
        step = StepReport(meta.id, meta.phase_no, done.state.round, done.state.phase, events, done.state, ())
        await self.post_private_views(meta, step, before=done.before)

    async def post_private_views(
        self, meta: Encounter, step: StepReport, *, before: EncounterState | None = None
    ) -> None:
        """NGT-9 (any ruleset or layer whose ``private_views`` names sides): each of those sides' players gets
        the board as their side sees it and the account their side may read, by DM, when it can see something
        changed (``bot.side_news``; closed DMs: nothing); the director and co-directors get the full board."""
        state = step.state
        try:
            sides = ruleset_for(state).private_views(state)
        except KeyError:
            return
        if not sides:
            return
        people = await self.bot.service.storage.participants(meta.id)
        # each player's language as last recorded (maybe by another bot process): not the cached row's
        meta = await self.bot.service.storage.get_encounter(meta.id)
        directors = {meta.created_by} | {p.user_id for p in people if p.role in ("director", "codirector")}
        viewers: list[tuple[int, str]] = [(user, DIRECTOR) for user in sorted(directors)]
        for side in sides:
            users = sorted(
                {
                    p.user_id
                    for p in people
                    if p.role == "player"
                    and p.user_id not in directors
                    and _side_of(p.side, p.unit, state) == side
                }
            )
            viewers.extend((user, side) for user in users)
        for user, viewer in viewers:
            locale = await self.user_lang(meta, user)
            if (news := await news_for(viewer, step, before, locale, meta.name)) is None:
                continue  # nothing this viewer can see changed: even an unchanged board would say something did
            events, png = news
            header = private_title(state, viewer, (step.round, step.phase), shown_name(meta.name), locale)
            account = "\n".join(describe(e, state, locale) for e in events)
            files: list[discord.File] = []
            embed = discord.Embed(title=clip(header, 256), colour=discord.Colour.dark_purple())
            if len(account) <= ACCOUNT_INLINE_LIMIT:
                embed.description = account or None
            else:
                embed.description = t("channel.account_in_file", locale, count=len(events))
                files.append(text_file(account, f"round{step.round:02d}-phase{step.phase}.txt"))
            if png is not None:
                files.append(png_file(png))
                embed.set_image(url="attachment://board.png")
            await self.dm(user, None, embed=embed, files=files)

    def post_opening_board(self, encounter_id: int, *, reading: Reading | None = None) -> None:
        """The board as the encounter starts (public view), so the table sees the field before any move. Queued
        with the encounter's posts, ahead of the first phase's status and panels; a refused post is retried while
        the encounter is still at the phase it started in (issue 20: it was lost, and the start's announcements
        with it)."""
        self.enqueue(encounter_id, lambda: self._opening(encounter_id, reading))

    async def _opening(self, encounter_id: int, reading: Reading | None = None) -> None:
        reading = reading or await self.bot.service.read(encounter_id)
        try:
            await self._post_opening(reading, private=True)
        except (discord.HTTPException, ChannelUnavailable):
            log.warning("opening board refused, retrying later encounter=%s", encounter_id, exc_info=True)
            self._openings_owed[encounter_id] = reading.phase_no
            self._retry_later(encounter_id)

    async def _post_opening(self, reading: Reading, *, private: bool) -> None:
        meta = await self._meta(reading.meta.id)
        chan = await self.channel(meta)
        if chan is None:
            raise ChannelUnavailable(meta.channel_id)
        state = reading.state
        # NGT-9: each side (and the director) also gets its own opening board, where the ruleset says so (once: not
        # again when the public board is retried)
        if private:
            opening = StepReport(meta.id, reading.phase_no, state.round, state.phase, (), state, (), True)
            await self.post_private_views(meta, opening)
        locale = await self.channel_lang(meta)
        header = t("channel.opening", locale, name=shown_name(meta.name))
        drawn = t("channel.opening", locale, name=meta.name)  # an image draws the name's own letters
        png = await board_png(state, (), viewer="public", locale=locale, title=drawn)
        if png is None:
            return
        embed = discord.Embed(title=clip(header, 256), colour=discord.Colour.dark_blue())
        embed.set_image(url="attachment://board.png")
        sent = await chan.send(
            embed=embed, file=png_file(png), allowed_mentions=discord.AllowedMentions.none()
        )
        await self._posted(meta.id, sent)

    async def send_held(self, meta: Encounter, held: HeldRolls) -> None:
        """'Director reviews rolls': the director sees the rolls before they are applied (never the channel)."""
        meta = await self.bot.service.storage.get_encounter(
            meta.id
        )  # the director's language as last recorded
        locale = await self.user_lang(meta, meta.created_by)
        purposes = {
            e.index: roll_purpose(e, held.state, locale) for e in held.events if isinstance(e, RollMade)
        }
        lines = [
            t(
                "director.held_roll",
                locale,
                index=i,
                rule=rule,
                purpose=purposes.get(i, purpose),
                dice=", ".join(map(str, dice)),
            )
            for i, rule, purpose, dice in held.rolls
        ]
        text = t("director.held", locale, name=shown_name(meta.name)) + "\n" + "\n".join(lines)
        await self.dm(meta.created_by, clip(text))

    # --- opening a phase ------------------------------------------------------------------------------------
    async def open_phase(self, encounter_id: int) -> None:
        self._close_post(encounter_id)
        reading = await self.bot.service.read(encounter_id)
        status = await self.bot.service.status(encounter_id, reading=reading)
        await self.refresh_status(encounter_id, status=status)
        for missing in status.missing:
            if missing.user_id is not None:
                await self.send_panel(reading.meta, missing.user_id, missing.unit, reading=reading)
        if (
            _policy(status.ruleset).director_orders
            and status.status == "running"
            and not status.over
            and not reading.state.over
        ):
            # a director-run mode (ocs): the director's procedure panel for this step, by DM
            await self.send_panel(reading.meta, reading.meta.created_by, DIRECTOR, reading=reading)

    def status_text(self, status: StatusView, locale: str, acting: str = "") -> str:
        head = t("status.head", locale, name=shown_name(status.name), when=status.when_text(locale))
        if status.deadline and not status.over and status.status == "running":
            when = discord.utils.format_dt(datetime.fromisoformat(status.deadline), "R")
            head += "\n" + t("status.deadline", locale, when=when)
        if status.over:
            return head + "\n" + t("status.over", locale)
        if status.status == "paused":
            return head + "\n" + t("status.paused", locale)
        if acting:  # activation mode: whose turn it is, held or not (SK-1.1)
            return head + "\n" + acting
        if not status.missing:
            if _policy(
                status.ruleset
            ).director_orders:  # the director's turn: the ruleset's lines say what is open
                return head
            return head + "\n" + t("status.all_in", locale)
        # always someone named; a unit hidden from the public (unit_name "") only by who acts for it (FOG-1)
        return head + "\n" + waiting_text(status.missing, locale, acting=False)

    async def refresh_status(self, encounter_id: int, *, status: StatusView | None = None) -> None:
        """One status message per encounter, edited as orders come in: who is missing, never what was ordered.

        The status rides on the encounter's newest post (the account and board of the last step, or the opening
        board) as its text, so it always sits under the latest board without a message of its own; when a newer
        post goes out, the status moves onto it and the previous post loses its status text. Only when there is
        no post to ride on (or it was deleted) does the status go out as a message of its own (deleted once it
        moves onto a post). The ref's key names the phase it was written for, so a restart knows whether the
        open phase's status went out (see :meth:`_reopen`).

        Two refreshes may race in two bot processes (two orders at once) and the older read's edit land last: so
        with other processes about, after each edit the encounter's ``last_seq`` is checked again, and a change
        made meanwhile in the same phase is shown from a fresh read (a phase that moved on shows its own status
        when it opens).

        A new message is sent only when there is none to edit or it was deleted (404): an edit Discord refuses
        otherwise (a 429, a 5xx) raises, for the caller to retry (it sent a second status message, issue 20)."""
        service = self.bot.service
        async with self._status_lock(encounter_id):
            if not self.shared:  # one process: its refreshes take turns under this lock
                await self._refresh_status(encounter_id, status)
                return
            for _ in range(STATUS_RECHECKS + 1):
                # from a read made now, never a status computed before the lock was taken
                reading = await service.read(encounter_id)
                status = await service.status(encounter_id, reading=reading)
                await self._refresh_status(encounter_id, status)
                if await service.storage.last_seq(encounter_id) == reading.meta.last_seq:
                    return
                if (await service.read(encounter_id)).phase_no != status.phase_no:
                    return

    async def _refresh_status(self, encounter_id: int, status: StatusView | None) -> None:
        storage = self.bot.service.storage
        meta = await self._meta(encounter_id)
        status = status or await self.bot.service.status(encounter_id)
        locale = await self.channel_lang(meta)
        text = self.status_text(status, locale, await self._acting(encounter_id, status, locale))
        if status.status == "running" and not status.over:
            extra = status_lines_of((await self.bot.service.read(encounter_id)).state, locale)
            text = "\n".join((text, *extra))
        text = clip(text)
        chan = await self.channel(meta)
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
        if where is not None:
            try:
                message = self._partial(chan, where.channel_id, where.message_id)
                edited = await message.edit(content=text, allowed_mentions=mentions)
            except discord.NotFound:  # deleted; any other refusal is not a reason for a second message
                log.info("status message gone, sending a new one encounter=%s", encounter_id)
            else:
                kind = _kind(where) if where is shown else STATUS_ON_POST
                await self._keep_status(encounter_id, shown, kind, where, status.phase_no, chan, leftover)
                await note_shown(storage, encounter_id, status.phase_no, edited.id, edited.edited_at)
                return
        claim = (encounter_id, "status_sent", str(status.phase_no))  # a message of its own goes out once
        if where is not None:  # the one it was shown on is gone: a new one may go out
            await self.release(*claim)
        if not await self.claim(*claim):
            return  # another process is sending it now
        try:
            sent = await chan.send(text, allowed_mentions=mentions)
        except Exception:
            await self.release(*claim)
            raise
        await self.record(*claim, sent.channel.id, sent.id)
        ref = MessageRef(encounter_id, STATUS, "", sent.channel.id, sent.id)
        await self._keep_status(encounter_id, shown, STATUS_OWN, ref, status.phase_no, chan, leftover)
        await note_shown(storage, encounter_id, status.phase_no, sent.id, None)

    async def _status_ref(self, encounter_id: int) -> MessageRef | None:
        """The message showing the status now (None: none yet)."""
        refs = await self.bot.service.storage.message_refs(encounter_id, STATUS)
        return max(refs, key=lambda r: r.message_id) if refs else None

    async def _keep_status(
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
        refuses that (a 429, a 5xx), its record stays and the error is raised: the retry takes it off (it stayed
        for good: two status texts in the channel, issue 20)."""
        storage = self.bot.service.storage
        key = f"{kind}:{now.message_id}:{phase_no}"
        if not leftover and old is not None and old.key == key and old.message_id == now.message_id:
            return  # edited in place, for the same phase
        await storage.set_message_ref(encounter_id, STATUS, key, now.channel_id, now.message_id)
        for ref in await storage.message_refs(encounter_id, STATUS):  # the one before (or older ones: legacy)
            if ref.key == key:
                continue
            if ref.message_id != now.message_id:
                try:
                    gone = self._partial(chan, ref.channel_id, ref.message_id)
                    if _kind(ref) == STATUS_OWN:
                        await gone.delete()
                    else:  # a post keeps its account and board; only the status text goes
                        await gone.edit(content=None, allowed_mentions=discord.AllowedMentions.none())
                except discord.NotFound:
                    log.info("old status message already gone encounter=%s", encounter_id)
            await storage.delete_message_ref(encounter_id, STATUS, ref.key)

    def _partial(
        self, chan: discord.abc.Messageable | discord.PartialMessageable, channel_id: int, message_id: int
    ) -> discord.PartialMessage:
        if isinstance(chan, discord.TextChannel | discord.Thread) and chan.id == channel_id:
            return chan.get_partial_message(message_id)
        return self.bot.get_partial_messageable(channel_id).get_partial_message(message_id)

    async def _posted(self, encounter_id: int, message: discord.Message) -> None:
        """``message`` is the encounter's newest post (an account, the opening board): the status rides on it."""
        await self.bot.service.storage.set_message_ref(
            encounter_id, POST, LAST_POST, message.channel.id, message.id
        )

    async def _acting(self, encounter_id: int, status: StatusView, locale: str) -> str:
        """One-at-a-time modes: the units awaited now, each with who acts for it (bot/status_names.py)."""
        if status.over or status.status != "running":
            return ""
        reading = await self.bot.service.read(encounter_id)
        if not _policy(status.ruleset, reading.state).shows_acting:  # how this step collects orders
            return ""
        return waiting_text(status.acting, locale, acting=True)

    async def remind(self, due: Deadline) -> None:
        """The deadline of ``due``'s phase is near: each player still missing gets one DM, unless they muted
        reminders for this encounter. The DM names their own unit (they may see it even when it is hidden)."""
        service = self.bot.service
        meta = await service.storage.get_encounter(due.encounter_id)  # fresh: the muted list may have changed
        reading = await service.read(due.encounter_id)
        if reading.phase_no != due.phase_no:
            return
        status = await service.status(due.encounter_id, reading=reading)
        when = discord.utils.format_dt(due.due_at, "R")
        muted = _muted(meta)
        for missing in status.missing:
            if missing.user_id is None or missing.user_id in muted:
                continue
            unit = reading.state.units.get(missing.unit)
            locale = await self.user_lang(meta, missing.user_id)
            text = t(
                "channel.reminder",
                locale,
                name=shown_name(meta.name),
                unit=shown_name(unit.name) if unit is not None else missing.unit,
                when=when,
                channel=f"<#{meta.channel_id}>",
            )
            await self.dm(missing.user_id, clip(text))

    def remember_user(self, user: discord.User | discord.Member) -> None:
        """A player seen in an interaction (a join): DMing them later needs no ``GET /users``."""
        self._users[user.id] = user

    async def dm_channel(self, user_id: int) -> discord.DMChannel:
        """The DM channel with a player, kept: without the members intent discord.py caches no user and only its
        newest 128 DM channels, so each DM cost a ``GET /users`` and, past 128 players, a ``POST
        /users/@me/channels`` too (issue 20)."""
        channel = self._dms.get(user_id)
        if channel is None:
            user = self.bot.get_user(user_id) or self._users.get(user_id)
            if user is None:
                user = self._users[user_id] = await self.bot.fetch_user(user_id)
            channel = self._dms[user_id] = user.dm_channel or await user.create_dm()
        return channel

    async def dm(self, user_id: int, text: str | None, **kwargs: object) -> discord.Message | None:
        try:
            channel = await self.dm_channel(user_id)
            return await channel.send(text, **kwargs)  # type: ignore[arg-type]
        except discord.Forbidden:
            return None
        except discord.HTTPException:
            log.warning("DM failed user=%s", user_id)
            return None

    async def send_panel(
        self, meta: Encounter, user_id: int, unit_id: str, *, reading: Reading | None = None
    ) -> bool:
        """DM the unit's panel for the current phase once; on closed DMs tell the channel (mention only, once per
        unit and encounter: the status names who is missing from then on).

        When the unit's panel of the step just before went to the same player (the unit acts again at once: a
        skirmish activation's next action, any one-at-a-time step that follows the unit's own), that panel is edited into this one
        rather than a new DM sent; its controls then carry the new phase (a click made for the old one is
        refused, issue 15 item 2). A new turn after others acted gets a new DM, which notifies the player. A
        panel that cannot be edited (deleted) is sent anew."""
        storage = self.bot.service.storage
        reading = (
            reading
            if reading is not None and reading.meta.id == meta.id
            else await self.bot.service.read(meta.id)
        )
        key = f"{reading.phase_no}:{unit_id}"
        if not await self.claim(meta.id, "panel", key):
            return True  # sent already, or being sent now (here or by another process)
        try:
            locale = await self.user_lang(reading.meta, user_id)
            panel = await load_panel(self.bot, meta.id, user_id, unit_id, None, None, reading=reading)
            kwargs = await panel_message(panel, locale)
            before = await storage.get_message_ref(meta.id, "panel", f"{reading.phase_no - 1}:{unit_id}")
            dm = await self.dm_channel(user_id)
            if before is not None and before.message_id and await self._edit_panel(dm, before, kwargs):
                await self.record(meta.id, "panel", key, before.channel_id, before.message_id)
                return True
            sent = await dm.send(**kwargs)
        except discord.Forbidden:
            await self.release(meta.id, "panel", key)  # sent once the player opens their DMs
            chan = await self.channel(meta)
            notice_key = f"unit:{unit_id}:{user_id}"
            if chan is not None and await self.claim(meta.id, "dm_closed", notice_key):
                channel_locale = await self.channel_lang(meta)
                try:
                    notice = await chan.send(
                        t("channel.dms_closed", channel_locale, user=f"<@{user_id}>"),
                        allowed_mentions=discord.AllowedMentions(users=[discord.Object(user_id)]),
                    )
                except Exception:
                    await self.release(meta.id, "dm_closed", notice_key)
                    raise
                await self.record(meta.id, "dm_closed", notice_key, notice.channel.id, notice.id)
            return False
        except Exception:
            await self.release(meta.id, "panel", key)
            raise
        await self.record(meta.id, "panel", key, sent.channel.id, sent.id)
        return True

    async def _edit_panel(self, dm: discord.DMChannel, before: MessageRef, kwargs: dict[str, object]) -> bool:
        """Edit the panel DM ``before`` into the one ``kwargs`` lays out; False when it is not in this DM (the
        unit changed hands) or cannot be edited (deleted, DMs closed since)."""
        if dm.id != before.channel_id:
            return False
        try:
            edit = dict(kwargs)
            edit["attachments"] = edit.pop("files", [])
            edit["allowed_mentions"] = discord.AllowedMentions.none()
            await dm.get_partial_message(before.message_id).edit(**edit)  # type: ignore[arg-type]
        except discord.HTTPException:
            log.info("panel message gone, sending a new one channel=%s", dm.id)
            return False
        return True


MAX_CARDS = MAX_EMBEDS - 1  # the step's own embed first


OpenPost = OpenPostOf[discord.Message, discord.Embed]


def _files(uploads: list[tuple[str, bytes]]) -> list[discord.File]:
    return [discord.File(io.BytesIO(data), filename=name) for name, data in uploads]


def card_embed(card: Card, locale: str) -> discord.Embed:
    """A plug-in's summary (:class:`bot.panels.model.Card`) as an embed in ``locale``."""
    md = {"markdown": True}  # the names and codes in a card read as themselves (bot/names.py)
    embed = discord.Embed(title=clip(card.title.render(locale, **md), 256), colour=discord.Colour.dark_gold())
    if card.description is not None:
        embed.description = clip(card.description.render(locale, **md), 4096)
    for name, value in card.fields[:25]:
        embed.add_field(
            name=clip(name.render(locale, **md), 256), value=clip(value.render(locale, **md), 1024) or "-"
        )
    return embed


def _cards(state: EncounterState, events: tuple[Event, ...]) -> tuple[Card, ...]:
    try:
        plugin = panel_for(state.ruleset)
    except KeyError:
        return ()
    return step_cards(plugin, state, events)


def status_lines_of(state: EncounterState, locale: str) -> tuple[str, ...]:
    """The ruleset's own lines under the status (ocs: the open combats and what each waits for)."""
    try:
        plugin = panel_for(state.ruleset)
    except KeyError:
        return ()
    return tuple(line.render(locale, markdown=True) for line in status_lines(plugin, state))


def _side_of(side: str | None, unit: str | None, state: EncounterState) -> str | None:
    """A player's side: as joined, else its unit's."""
    if side:
        return side
    found = state.units.get(unit or "")
    return found.side if found is not None else None


class ChannelUnavailable(Exception):
    """The encounter's channel cannot be reached now (deleted, no access, Discord down): posts wait."""


def _kind(ref: MessageRef) -> str:
    """Where a status ref shows the status: its own message, or a post's text (refs from before this record
    were all messages of their own, keyed by phase number alone)."""
    kind = ref.key.split(":", 1)[0]
    return kind if kind == STATUS_ON_POST else STATUS_OWN


def _status_phase(ref: MessageRef) -> int | None:
    """The phase a status ref was written for."""
    tail = ref.key.rsplit(":", 1)[-1]
    return int(tail) if tail.isdigit() else None


def _muted(meta: Encounter) -> set[int]:
    return {int(u) for u in meta.settings.get(MUTED, [])}


def _policy(ruleset_id: str, state: EncounterState | None = None) -> OrderPolicy:
    """How the encounter's ruleset collects orders (rules/order_modes.py), in the step ``state`` is at when given;
    an encounter whose ruleset is no longer installed is shown as a simultaneous one (its status still lists who
    is missing)."""
    try:
        if state is not None and state.ruleset == ruleset_id:
            return policy_for(ruleset_for(state), state)
        return policy_for(get_ruleset(ruleset_id))
    except KeyError:
        return policy_for_mode(OrderMode.SIMULTANEOUS)
