"""Phase deadlines: a small loop that resolves every phase whose deadline has passed (DESIGN §4).

Deadlines live in storage, so they survive a restart; the loop only polls. Resolution goes through the same
idempotent service call as everything else, so a deadline racing the last order resolves the phase once. Several
bot processes poll the same database: each due deadline is claimed in storage first (``claim_deadline``), so one
process fires it; a process that dies holding the claim leaves it to fire again after :data:`DEADLINE_LEASE`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from datetime import timedelta

from bot.idle import idle_encounters
from bot.logs import trace_id
from bot.results import Resolution, StepReport
from bot.service import EncounterService
from bot.storage import Deadline, Encounter

log = logging.getLogger(__name__)

#: seconds a process holds a deadline it claimed; if it died meanwhile, the deadline fires again after that
DEADLINE_LEASE = 60.0

OnResolved = Callable[[Resolution], Awaitable[None]]
OnStep = Callable[[StepReport], Awaitable[None]]
OnReminder = Callable[[Deadline], Awaitable[None]]
OnIdle = Callable[[Encounter], Awaitable[None]]

#: seconds between two looks for phases waiting without a deadline (they are reminded after hours)
IDLE_CHECK_EVERY = 300.0


class DeadlineScheduler:
    def __init__(
        self,
        service: EncounterService,
        on_resolved: OnResolved,
        *,
        on_step: OnStep | None = None,
        on_reminder: OnReminder | None = None,
        on_idle: OnIdle | None = None,
        interval: float = 5.0,
    ) -> None:
        self.service = service
        self.on_resolved = on_resolved
        self.on_step = on_step
        self.on_reminder = on_reminder
        self.on_idle = on_idle
        self.interval = interval
        self._task: asyncio.Task[None] | None = None
        self._idle_checked: float | None = None

    async def tick(self) -> int:
        """Send due reminders, then resolve every due phase once; returns how many phases were resolved."""
        await self.remind()
        now = asyncio.get_running_loop().time()
        if self._idle_checked is None or now - self._idle_checked >= IDLE_CHECK_EVERY:
            self._idle_checked = now
            await self.remind_idle()
        done = 0
        storage = self.service.storage
        for due in await storage.due_deadlines(self.service.clock()):
            now = self.service.clock()
            lease = now + timedelta(seconds=DEADLINE_LEASE)
            if not await storage.claim_deadline(due.encounter_id, due.phase_no, now, lease):
                continue  # another process fired it (or the phase moved on meanwhile)
            try:
                result = await self.service.resolve(
                    due.encounter_id, expected_phase_no=due.phase_no, forced=True, on_step=self.on_step
                )
            except Exception:
                log.exception(
                    "deadline resolution failed trace=%s encounter=%s", trace_id(), due.encounter_id
                )
                await self.clear(due)
                continue
            if result.already:  # orders or the director resolved it first: only this phase's deadline goes
                await self.clear(due)
                continue
            done += 1
            log.info("deadline resolved encounter=%s phase_no=%s", due.encounter_id, due.phase_no)
            await self.on_resolved(result)
        return done

    async def clear(self, due: Deadline) -> None:
        """Drop ``due`` if it is still its phase's: never a newer phase's deadline that a resolution in another
        process has set meanwhile (a blind clear would leave that phase waiting forever)."""
        await self.service.storage.clear_deadline(due.encounter_id, due.phase_no)
        self.service.forget_deadline(due.encounter_id)

    async def remind(self) -> int:
        """Each due reminder once (taken off before it is sent: a crash loses a reminder, never doubles one)."""
        sent = 0
        if self.on_reminder is None:
            return sent
        for due in await self.service.storage.due_reminders(self.service.clock()):
            if not await self.service.storage.clear_reminder(due.encounter_id, due.phase_no):
                continue  # another process took it
            try:
                await self.on_reminder(due)
                sent += 1
            except Exception:
                log.exception("reminder failed trace=%s encounter=%s", trace_id(), due.encounter_id)
        return sent

    async def remind_idle(self) -> int:
        """Each phase waiting without a deadline past its server's idle interval: the director's reminder (the
        callee claims it, so it goes out once per phase). Nothing is resolved here."""
        sent = 0
        if self.on_idle is None:
            return sent
        for meta in await idle_encounters(self.service, self.service.clock()):
            try:
                await self.on_idle(meta)
                sent += 1
            except Exception:
                log.exception("idle reminder failed trace=%s encounter=%s", trace_id(), meta.id)
        return sent

    async def _run(self) -> None:
        while True:
            try:
                await self.tick()
            except Exception:
                log.exception("deadline loop error trace=%s", trace_id())
            await asyncio.sleep(self.interval)

    def start(self) -> None:
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self._run(), name="hexd-deadlines")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
