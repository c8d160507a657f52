"""Posts in order, per encounter: one worker drains a queue of jobs, so the image of phase 2 never overtakes the
one of phase 1 while resolution goes on in parallel.

A resolution's steps go out together: a step at the head of the queue waits until something other than a step is
queued behind it (the resolution's conclusion, queued once its last step is committed) or :data:`GATHER_CAP` has
passed, then it and the steps behind it make one post. Each post counts against Discord's global limit, which
interaction answers do not: one post per resolution rather than a post and an edit per further step is what lets
a process hold many tables.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TypeAlias

from bot.logs import trace_id
from bot.results import StepReport

log = logging.getLogger(__name__)

#: seconds a step at the head of the queue waits for the rest of its resolution: a resolution that runs longer (a
#: fleet's, a slow database) still shows its first steps promptly, and one whose conclusion never comes (it failed
#: halfway) is not held for good
GATHER_CAP = 1.0

Job = Callable[[], Awaitable[None]]


@dataclass(frozen=True, slots=True)
class StepPost:
    """A queued step to post: steps queued one behind the other go out together (one message or edit for a
    resolution's steps, not one each)."""

    step: StepReport


@dataclass(frozen=True, slots=True)
class StatusShown:
    """A queued job that ends by showing the encounter's status as it is when the job runs. A bare status refresh
    (``refresh_only``) with another such job queued behind it is dropped: that one shows a newer status, so a burst
    of orders and steps makes one status edit, not one each."""

    job: Job
    refresh_only: bool


Queued: TypeAlias = Job | StepPost | StatusShown


class PostQueue:
    """One queue and one worker per encounter with something to post; an idle encounter keeps neither."""

    def __init__(self, post_steps: Callable[[list[StepReport]], Awaitable[None]]) -> None:
        self._post_steps = post_steps
        self._queues: dict[int, deque[Queued]] = {}
        self._workers: dict[int, asyncio.Task[None]] = {}
        # set when the rest of a waiting step's resolution is queued
        self._gathering: dict[int, asyncio.Event] = {}
        #: what a step at the head of the queue waits for at most (tests hold it or let it pass when they choose)
        self.cap: Callable[[], Awaitable[object]] = functools.partial(asyncio.sleep, GATHER_CAP)

    def enqueue(self, encounter_id: int, job: Queued) -> None:
        self._queues.setdefault(encounter_id, deque()).append(job)
        if not isinstance(job, StepPost) and (gathering := self._gathering.get(encounter_id)) is not None:
            gathering.set()
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
                if isinstance(job, StatusShown):
                    if job.refresh_only and any(isinstance(later, StatusShown) for later in queue):
                        continue  # a job behind it shows a newer status
                    job = job.job
                elif isinstance(job, StepPost):
                    await self._gather(encounter_id, queue)
                    # the resolution's steps, and those committed while the one before them was being posted
                    steps = [job.step]
                    while queue and isinstance(following := queue[0], StepPost):
                        steps.append(following.step)
                        queue.popleft()
                    job = functools.partial(self._post_steps, steps)
                try:
                    await job()
                except Exception:
                    log.exception("announcement failed trace=%s encounter=%s", trace_id(), encounter_id)
        finally:  # cancelled too (the bot closing): a finished worker never stays listed
            if self._workers.get(encounter_id) is asyncio.current_task():
                self._workers.pop(encounter_id, None)
                if not queue:  # nothing left: an idle encounter keeps no queue
                    self._queues.pop(encounter_id, None)

    async def _gather(self, encounter_id: int, queue: deque[Queued]) -> None:
        """Wait until a job other than a step is queued behind the steps (their resolution is complete: every
        path that queues steps queues its conclusion or another job after them) or :attr:`cap` has passed."""
        if any(not isinstance(later, StepPost) for later in queue):
            return
        gathering = self._gathering[encounter_id] = asyncio.Event()
        waits = [asyncio.ensure_future(gathering.wait()), asyncio.ensure_future(self.cap())]
        try:
            await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for wait in waits:
                wait.cancel()
            if self._gathering.get(encounter_id) is gathering:
                del self._gathering[encounter_id]

    async def drain(self) -> None:
        """Wait for every queued job."""
        while running := [w for w in self._workers.values() if not w.done()]:
            await asyncio.gather(*running, return_exceptions=True)

    def idle(self) -> bool:
        """Whether no encounter has a queue or a worker left."""
        return not self._queues and not self._workers
