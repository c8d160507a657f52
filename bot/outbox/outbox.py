"""What the channel and the players are owed, and getting it to them once (DESIGN §4 flow).

Sent panels and status messages are recorded as message refs, and the newest step shown in the channel as the
encounter's :data:`ANNOUNCED`, so a restart neither loses nor repeats them: on start-up every running encounter is
resumed (steps committed but never shown are posted, complete or automatic phases resolved, the open phase's
status and panels sent). A post that Discord refuses is retried (bot/outbox/retries.py) from what storage holds.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import weakref
from typing import TYPE_CHECKING, Protocol

from bot.bounded import Bounded
from bot.offloop import behind_clicks
from bot.orders_reply import picks_for
from bot.outbox.claims import Claims
from bot.outbox.queue import PostQueue, Queued, StatusShown, StepPost
from bot.outbox.records import LAST_POST, POST, status_phase, status_ref
from bot.outbox.retries import Retries
from bot.outbox.sender import APART, ChannelUnavailable, Sender, Sent
from bot.permissions import Actor
from bot.results import Resolution, StatusView, StepReport
from bot.service import Reading
from bot.storage import Encounter, MessageRef
from rules.order_modes import OrderPolicy, policy_for, policy_for_mode
from rules.registry import get_ruleset, ruleset_for
from rules.ruleset import DIRECTOR, OrderMode
from rules.state import EncounterState

if TYPE_CHECKING:
    from bot.service import EncounterService

log = logging.getLogger(__name__)

#: encounter setting: the snapshot of the newest step shown in the channel (absent on encounters from before it)
ANNOUNCED = "announced_seq"
#: running encounters resumed at the same time after a start
RESUME_AT_ONCE = 8
#: encounters whose row and announced step are kept between posts (the busy ones; idle ones are read again)
OUTBOX_CACHE_SIZE = 2048
#: the message id recorded for a step that was claimed and had nothing public to post
NOTHING_POSTED = 1


class Host(Protocol):
    """What the outbox needs of the bot process."""

    @property
    def service(self) -> EncounterService: ...

    @property
    def claimant(self) -> int: ...

    def owns_guild(self, guild_id: int) -> bool: ...


class Outbox:
    """The encounter's posts, in order, each once: steps, the phase's status and panels, the winner."""

    def __init__(self, host: Host, sender: Sender) -> None:
        self.host, self.sender = host, sender
        self.queue = PostQueue(self._post)
        self.retries = Retries(lambda eid: self.enqueue(eid, lambda: self._retry(eid)))
        self.claims = Claims(
            lambda: host.service.storage,
            lambda: host.service.clock(),
            lambda: host.claimant,
            lambda: sender.shared,
            self.retries.later,
        )
        self._queued: set[int] = set()  # ids of StepReports already queued through step_done
        # the rows of the encounters posted to lately, and ANNOUNCED per encounter as last read or written: both
        # are read again from storage once an idle encounter has fallen out
        self._metas: Bounded[int, Encounter] = Bounded(OUTBOX_CACHE_SIZE)
        self._announced: Bounded[int, int | None] = Bounded(OUTBOX_CACHE_SIZE)
        self._openings_owed: dict[int, int] = {}  # encounter → the phase its refused opening board showed
        # one status writer (and one winner announcement) at a time per encounter in this process
        self._status_locks: weakref.WeakValueDictionary[int, asyncio.Lock] = weakref.WeakValueDictionary()
        self.resumed = asyncio.Event()  # set once the running encounters are queued for resuming

    @property
    def _service(self) -> EncounterService:
        return self.host.service

    def enqueue(self, encounter_id: int, job: Queued) -> None:
        self.queue.enqueue(encounter_id, job)

    async def drain(self) -> None:
        """Wait for every queued post (tests, shutdown); retries waiting for their time are dropped (the record of
        what was shown makes the next start post them)."""
        self.retries.cancel()
        await self.queue.drain()

    async def meta(self, encounter_id: int) -> Encounter:
        """The encounter row as far as posting goes (name, guild, channel, creator: fixed for its lifetime). Its
        settings may be stale (another process may have changed them): what depends on them reads them again."""
        meta = self._metas.get(encounter_id)
        if meta is None:
            meta = self._metas[encounter_id] = await self._service.storage.get_encounter(encounter_id)
        return meta

    # --- steps ----------------------------------------------------------------------------------------------
    async def step_done(self, step: StepReport) -> None:
        self._queued.add(id(step))
        self.enqueue(step.encounter_id, StepPost(step))

    async def after_resolution(self, result: Resolution) -> None:
        if result.already:
            return
        for step in result.steps:
            if id(step) not in self._queued:
                self.enqueue(step.encounter_id, StepPost(step))
            self._queued.discard(id(step))
        conclude = functools.partial(self._conclude, result)
        # a phase opened or the game ended: the conclusion shows the status, so a refresh queued before it is dropped
        shows_status = result.over or result.opened_phase_no is not None
        self.enqueue(
            result.encounter_id, StatusShown(conclude, refresh_only=False) if shows_status else conclude
        )

    async def _post(self, steps: list[StepReport]) -> None:
        """Post steps of one encounter, queued in order."""
        meta = await self.meta(steps[0].encounter_id)
        try:
            if self.retries.failing(meta.id):  # an earlier post was refused: it goes first, from storage
                await self.catch_up(meta.id, before=steps[0].snapshot_seq)
            shown = await self.announced_seq(meta.id) or 0
            owed = [s for s in steps if s.snapshot_seq > shown]
            if len(owed) > 1 and not self.sender.shared:
                await self.sender.post_steps(meta, owed, lambda seq: self.mark(meta.id, seq))
            else:  # each step is claimed in storage on its own when processes share the encounters
                for step in owed:
                    await self._post_and_mark(meta, step)
        except self.sender.refused:
            log.warning("step post failed, retrying later encounter=%s", meta.id, exc_info=True)
            self.retries.later(meta.id)

    async def _post_and_mark(self, meta: Encounter, step: StepReport) -> None:
        """Post one step (claimed first, so no other process posts it too) and record it as shown."""
        key = str(step.snapshot_seq)
        # one process alone: ANNOUNCED says what was shown; shared: each step is claimed and recorded
        claimed = bool(step.snapshot_seq) and self.sender.shared
        if claimed and not await self.claims.claim(meta.id, "step", key):
            ref = await self._service.storage.get_message_ref(meta.id, "step", key)
            if ref is not None and ref.message_id:
                await self.mark(meta.id, step.snapshot_seq)  # another process posted it
            return  # else being posted now, here or by another process (then checked again later)
        try:
            sent = await self.sender.post_step(meta, step)
        except Exception:
            if claimed:
                await self.claims.release(meta.id, "step", key)
            raise
        if claimed:
            await self.claims.record(meta.id, "step", key, meta.channel_id, sent or NOTHING_POSTED)
        if step.snapshot_seq:
            await self.mark(meta.id, step.snapshot_seq)

    # --- what the channel has been shown, and catching up after a crash or a refused post -----------------
    async def announced_seq(self, encounter_id: int) -> int | None:
        if encounter_id not in self._announced:
            settings = (await self._service.storage.get_encounter(encounter_id)).settings
            value = settings.get(ANNOUNCED)
            self._announced[encounter_id] = value if isinstance(value, int) else None
        return self._announced[encounter_id]

    async def mark(self, encounter_id: int, seq: int) -> None:
        """Snapshot ``seq`` was shown in the channel."""
        if seq > (await self.announced_seq(encounter_id) or 0):
            # a note, not an event: one post must not make every cached read of the encounter stale
            await self._service.storage.note_settings(encounter_id, **{ANNOUNCED: seq})
            self._announced[encounter_id] = seq

    async def catch_up(self, encounter_id: int, *, before: int | None = None) -> int:
        """Post, in order, the committed steps the channel has not been shown (those before snapshot ``before``
        only, when given). An encounter from before the record starts it at its current snapshot, posting
        nothing. Returns how many steps were posted; raises if Discord refuses one (the rest wait)."""
        announced = await self.announced_seq(encounter_id)
        if announced is None:
            loaded = await self._service.storage.load(encounter_id)
            await self.mark(encounter_id, loaded.snapshot_seq)
            return 0
        owed = await self._service.steps_after(encounter_id, announced)
        owed = [s for s in owed if before is None or s.snapshot_seq < before]
        if not owed:
            return 0
        meta = await self.meta(encounter_id)
        for step in owed:
            await self._post_and_mark(meta, step)
        log.info("caught up encounter=%s steps=%d", encounter_id, len(owed))
        return len(owed)

    async def _retry(self, encounter_id: int) -> None:
        try:
            owed = self._openings_owed.get(encounter_id)
            if owed is not None:  # the opening board, while the encounter is still where it started
                reading = await self._service.read(encounter_id)
                if reading.phase_no == owed:
                    await self.sender.post_opening(reading, private=False)
                self._openings_owed.pop(encounter_id, None)
            await self.catch_up(encounter_id)
            await self._reopen(encounter_id)
        except self.sender.refused:
            log.warning("repost failed encounter=%s", encounter_id, exc_info=True)
            self.retries.later(encounter_id)
        else:
            self.retries.succeeded(encounter_id)

    # --- resuming after a start -----------------------------------------------------------------------------
    async def resume(self, encounter_id: int) -> None:
        """After a start-up: show what was committed but never shown, resolve what is complete or automatic,
        and make sure the open phase's status and panels went out (each is recorded, so nothing repeats)."""
        try:
            await self.catch_up(encounter_id)
        except self.sender.refused:
            self.retries.later(encounter_id)
            return
        result = await self._service.advance(encounter_id, on_step=self.step_done)
        if result.steps or result.over:
            await self.after_resolution(result)
            return
        try:
            await self._reopen(encounter_id)
        except self.sender.refused:
            self.retries.later(encounter_id)

    async def _reopen(self, encounter_id: int) -> None:
        """The open phase's status message (sent, or brought up to date) and panels, if they never went out (a
        crash, a refused post); or the end of the game, if it was never told."""
        status = await self._service.status(encounter_id)
        if status.over:
            await self.announce_end(encounter_id)
            await self.sender.refresh_status(encounter_id, status=status)  # the status says it is over
            return
        if status.status != "running":
            return
        storage = self._service.storage
        shown = await status_ref(storage, encounter_id)
        last = await storage.get_message_ref(encounter_id, POST, LAST_POST)
        if (
            shown is None
            or status_phase(shown) != status.phase_no
            or (last is not None and last.message_id > shown.message_id)
        ):
            await self.open_phase(encounter_id)
            return
        await self.sender.refresh_status(encounter_id, status=status)  # a refused edit
        # panels are recorded: only the ones never sent go out
        await self._send_panels(await self._service.read(encounter_id), status, set())

    async def resume_all(self) -> int:
        """Resume every running encounter (one queue each, so their posts keep their order). Each resume is queued
        at once, ahead of anything else for its encounter, but only :data:`RESUME_AT_ONCE` run at a time: with
        thousands of running encounters the clicks that come meanwhile wait behind a few resumes, not all of
        them, and only those few encounters' rows and states are in memory at once.

        With several processes (shards) on one database, each process resumes every running encounter, those of
        the guilds on its own shards first: a process that died may have been posting for any guild (DM clicks
        all arrive on shard 0), and the claims in storage make sure each post still goes out once."""
        running = await self._service.storage.running_encounters()
        running.sort(key=lambda meta: not self.host.owns_guild(meta.guild_id))  # stable: own guilds first
        gate = asyncio.Semaphore(RESUME_AT_ONCE)

        async def resume(encounter_id: int) -> None:
            async with gate:
                await self.resume(encounter_id)

        for meta in running:
            self.enqueue(meta.id, lambda eid=meta.id: resume(eid))
        return len(running)

    # --- the end of a resolution, and opening a phase -------------------------------------------------------
    async def _conclude(self, result: Resolution) -> None:
        try:
            await self._conclude_now(result)
        except self.sender.refused:
            log.warning(
                "phase opening refused, retrying later encounter=%s", result.encounter_id, exc_info=True
            )
            self.retries.later(result.encounter_id)

    async def _conclude_now(self, result: Resolution) -> None:
        self.sender.close_post(result.encounter_id)
        meta = await self.meta(result.encounter_id)
        if result.over:
            await self.announce_end(meta.id)
            await self.sender.refresh_status(meta.id)  # the one status says it is over, not who is missing
        if result.held is not None:
            await self.sender.send_held(meta, result.held)
        if result.opened_phase_no is not None and not result.over:
            await self.open_phase(meta.id)  # panels for whoever owes orders, the pilot's decision included
        elif result.decision_user is not None and result.decision_unit is not None:
            await self.send_panel(meta, result.decision_user, result.decision_unit)

    async def announce_end(self, encounter_id: int) -> None:
        """The winner (or a draw) in the channel, once, whichever process sends it (claimed and recorded): a
        refused post is retried (:meth:`_reopen`), a second resolution reporting the end sends nothing."""
        meta = await self.meta(encounter_id)
        if not await self.claims.claim(encounter_id, "over", ""):
            return
        try:
            sent = await self.sender.send_end(meta)
        except Exception:
            await self.claims.release(encounter_id, "over", "")
            raise
        await self.claims.record(encounter_id, "over", "", sent.channel_id, sent.message_id)

    async def open_phase(self, encounter_id: int) -> None:
        """The phase's status, and a panel to each player who owes orders (and the director, in a director-run
        mode). Their builds wait behind any click's (bot/offloop.py): nobody is looking at them yet."""
        self.sender.close_post(encounter_id)
        reading = await self._service.read(encounter_id)
        status = await self._service.status(encounter_id, reading=reading)
        await self.sender.refresh_status(encounter_id, status=status)
        used: set[int] = set()  # the panel messages sent or edited for this step: each shows one panel
        await self._send_panels(reading, status, used)
        if (
            policy_of(status.ruleset).director_orders
            and status.status == "running"
            and not status.over
            and not reading.state.over
        ):
            # a director-run mode (ocs): the director's procedure panel for this step, by DM
            with behind_clicks():
                await self.send_panel(
                    reading.meta, reading.meta.created_by, DIRECTOR, reading=reading, used=used
                )

    async def _send_panels(self, reading: Reading, status: StatusView, used: set[int]) -> None:
        """The panels of the units missing from the open phase: one message per player for their units that may
        act now (a unit picker switches between them), else, where the picker has no room or one unit acts, a
        message per unit. Built behind any click's work (bot/offloop.py)."""
        by_user: dict[int, list[str]] = {}
        for missing in status.missing:
            if missing.user_id is not None:
                by_user.setdefault(missing.user_id, []).append(missing.unit)
        with behind_clicks():
            for user_id, units in by_user.items():
                covered = await self.send_panels(reading, user_id, used)
                for unit in units:
                    if unit not in covered:
                        await self.send_panel(reading.meta, user_id, unit, reading=reading, used=used)

    async def send_panels(self, reading: Reading, user_id: int, used: set[int]) -> tuple[str, ...]:
        """DM one panel message for the player's units that may act now, once per player and phase; the units it
        stands for (none when they get a message each: one unit acts, or a panel leaves no room for the picker).

        The message is claimed under the player's key, then recorded under it and under each of its units' keys:
        the player's key says the message went out (a restart sends it again only while that is not recorded),
        the units' keys let the next step edit it in place (:meth:`send_panel`). A unit handed to the player
        during the phase has that key given back (cogs/seating.py), so the message with it goes out anew.
        ``used``: the panel messages already sent or edited for this step (none is edited into a second panel)."""
        meta = reading.meta
        picks = await picks_for(self._service, reading, Actor(user_id))
        if not picks:
            return ()
        units = tuple(p.unit_id for p in picks)
        key = player_key(reading.phase_no, user_id)
        if not await self.claims.claim(meta.id, "panel", key):
            return units  # sent already, or being sent now (here or by another process)
        try:
            before = await self._before(meta.id, reading.phase_no, user_id, units, used)
            sent = await self.sender.send_panels(meta, reading, user_id, picks, before)
        except Exception:
            await self.claims.release(meta.id, "panel", key)
            raise
        if sent == APART:
            await self.claims.release(meta.id, "panel", key)
            return ()
        if sent is None:
            await self.claims.release(meta.id, "panel", key)  # sent once the player opens their DMs
            await self._dms_closed(meta, user_id)
            return units
        # the player's key first: once it is recorded the message is never sent again, whatever came after
        await self.claims.record(meta.id, "panel", key, sent.channel_id, sent.message_id)
        for unit in units:
            await self.claims.record(
                meta.id, "panel", f"{reading.phase_no}:{unit}", sent.channel_id, sent.message_id
            )
        await self._newest(meta.id, reading.phase_no, user_id, sent)
        used.add(sent.message_id)
        return units

    async def send_panel(
        self,
        meta: Encounter,
        user_id: int,
        unit_id: str,
        *,
        reading: Reading | None = None,
        used: set[int] | None = None,
    ) -> bool:
        """DM the unit's panel for the current phase once; on closed DMs tell the channel (mention only, once per
        player and encounter: the status names who is missing from then on). False when the DMs are closed.

        When the player had a panel in the step just before (the unit acts again at once: a skirmish activation's
        next action; another of their units acts right after: mech declarations, pbw segments, the next activation
        of their side), that panel is edited into this one rather than a new DM sent: they are at the table, the
        message they just used shows what is asked now. Its controls then carry the new phase, so a click made for
        the old one is refused. A new turn after others acted gets a new DM, which notifies the player. A message
        is edited into one panel per step: none of ``used`` (the step's panel messages so far), nor the player's
        newest of this step, is taken again."""
        if reading is None or reading.meta.id != meta.id:
            reading = await self._service.read(meta.id)
        key = f"{reading.phase_no}:{unit_id}"
        if not await self.claims.claim(meta.id, "panel", key):
            return True  # sent already, or being sent now (here or by another process)
        try:
            before = await self._before(meta.id, reading.phase_no, user_id, (unit_id,), used or set())
            sent = await self.sender.send_panel(meta, reading, user_id, unit_id, before)
        except Exception:
            await self.claims.release(meta.id, "panel", key)
            raise
        if sent is None:
            await self.claims.release(meta.id, "panel", key)  # sent once the player opens their DMs
            await self._dms_closed(meta, user_id)
            return False
        await self.claims.record(meta.id, "panel", key, sent.channel_id, sent.message_id)
        await self._newest(meta.id, reading.phase_no, user_id, sent)
        if used is not None:
            used.add(sent.message_id)
        return True

    async def _before(
        self, encounter_id: int, phase_no: int, user_id: int, units: tuple[str, ...], used: set[int]
    ) -> MessageRef | None:
        """The panel message to edit into the one of step ``phase_no``: the one of these units in the step just
        before, else the player's newest of that step (the sender edits it only when it is in their DM); never a
        message that already shows a panel of this step (``used``, or the player's newest of it: two units whose
        message of the step before was one, each given a message of their own now, would take it in turn)."""
        storage = self._service.storage
        now = await storage.get_message_ref(encounter_id, "panel", newest_key(phase_no, user_id))
        taken = set(used)
        if now is not None:
            taken.add(now.message_id)
        keys = [f"{phase_no - 1}:{unit}" for unit in units] + [newest_key(phase_no - 1, user_id)]
        for key in keys:
            ref = await storage.get_message_ref(encounter_id, "panel", key)
            if ref is not None and ref.message_id not in taken:
                return ref
        return None

    async def _newest(self, encounter_id: int, phase_no: int, user_id: int, sent: Sent) -> None:
        """The player's newest panel message of the step: the next step edits it when it is theirs too. Only a
        pointer (the units' and the player's keys say what went out), so it is written without a claim."""
        key = newest_key(phase_no, user_id)
        await self._service.storage.set_message_ref(
            encounter_id, "panel", key, sent.channel_id, sent.message_id
        )

    async def _dms_closed(self, meta: Encounter, user_id: int) -> None:
        """The channel is told once per player that their DMs are closed (however many units they play)."""
        key = f"player:{user_id}"
        if not await self.claims.claim(meta.id, "dm_closed", key):
            return
        try:
            sent = await self.sender.send_dms_closed(meta, user_id)
        except Exception:
            await self.claims.release(meta.id, "dm_closed", key)
            raise
        if sent is None:
            await self.claims.release(meta.id, "dm_closed", key)
            return
        await self.claims.record(meta.id, "dm_closed", key, sent.channel_id, sent.message_id)

    # --- the status and the opening board -------------------------------------------------------------------
    def status_lock(self, encounter_id: int) -> asyncio.Lock:
        """The lock held while reading, sending or editing and recording the encounter's status (or its winner)."""
        lock = self._status_locks.get(encounter_id)
        if lock is None:
            lock = self._status_locks[encounter_id] = asyncio.Lock()
        return lock

    def status_changed(self, encounter_id: int) -> None:
        """An order came in: edit the phase's status message, in turn with the encounter's other posts (a
        refused edit is retried like any refused post). The refresh reads the status when it runs and is dropped
        when a later queued job shows the status anyway (bot/outbox/queue.py)."""
        self.enqueue(
            encounter_id, StatusShown(lambda: self._refresh_or_retry(encounter_id), refresh_only=True)
        )

    async def _refresh_or_retry(self, encounter_id: int) -> None:
        try:
            await self.sender.refresh_status(encounter_id)
        except self.sender.refused:
            log.warning("status refresh refused, retrying later encounter=%s", encounter_id, exc_info=True)
            self.retries.later(encounter_id)

    def post_opening_board(self, encounter_id: int, *, reading: Reading | None = None) -> None:
        """The board as the encounter starts, queued with the encounter's posts, ahead of the first phase's status
        and panels; a refused post is retried while the encounter is still at the phase it started in."""
        self.enqueue(encounter_id, lambda: self._opening(encounter_id, reading))

    async def _opening(self, encounter_id: int, reading: Reading | None = None) -> None:
        reading = reading or await self._service.read(encounter_id)
        try:
            await self.sender.post_opening(reading, private=True)
        except self.sender.refused:
            log.warning("opening board refused, retrying later encounter=%s", encounter_id, exc_info=True)
            self._openings_owed[encounter_id] = reading.phase_no
            self.retries.later(encounter_id)


def player_key(phase_no: int, user_id: int) -> str:
    """The key of the one panel message a player gets for their units acting in phase ``phase_no``."""
    return f"{phase_no}:player:{user_id}"


def newest_key(phase_no: int, user_id: int) -> str:
    """The key that points at the player's newest panel message of phase ``phase_no``."""
    return f"{phase_no}:to:{user_id}"


def policy_of(ruleset_id: str, state: EncounterState | None = None) -> OrderPolicy:
    """How the encounter's ruleset collects orders (rules/order_modes.py), in the step ``state`` is at when given;
    an encounter whose ruleset is no longer installed is shown as a simultaneous one (its status still lists who
    is missing)."""
    try:
        if state is not None and state.ruleset == ruleset_id:
            return policy_for(ruleset_for(state), state)
        return policy_for(get_ruleset(ruleset_id))
    except KeyError:
        return policy_for_mode(OrderMode.SIMULTANEOUS)


__all__ = [
    "ANNOUNCED",
    "NOTHING_POSTED",
    "RESUME_AT_ONCE",
    "ChannelUnavailable",
    "Host",
    "Outbox",
    "player_key",
    "policy_of",
]
