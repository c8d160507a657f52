"""A post Discord refuses (a 429 without Via, repeated 500s) is retried with backoff from what storage holds, so it
is never dropped: giving up would leave the table stuck until a restart."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

log = logging.getLogger(__name__)

#: seconds before each retry of a post Discord refused; the last one repeats for as long as Discord refuses
RETRY_BACKOFF: tuple[float, ...] = (2.0, 10.0, 30.0, 120.0, 600.0)


class Retries:
    """One retry pending at a time per encounter (it posts everything owed), after the next delay of
    :attr:`backoff`, then every last delay for as long as Discord refuses."""

    def __init__(self, retry: Callable[[int], None]) -> None:
        self._retry = retry  # queues the encounter's retry job, in turn with its other posts
        self.backoff = RETRY_BACKOFF
        self._failed: dict[int, int] = {}  # failed catch-ups in a row, per encounter
        self._tasks: set[asyncio.Task[None]] = set()
        self._pending: set[int] = set()  # encounters with a retry waiting for its time

    def failing(self, encounter_id: int) -> bool:
        """Whether an earlier post of the encounter was refused (it goes first, before anything newer)."""
        return encounter_id in self._failed

    def succeeded(self, encounter_id: int) -> None:
        self._failed.pop(encounter_id, None)

    def later(self, encounter_id: int) -> None:
        """Retry the encounter's owed posts after the next delay."""
        if encounter_id in self._pending:
            return
        attempt = self._failed.get(encounter_id, 0)
        if attempt == len(self.backoff):
            log.error("posts still refused, retrying every %s s encounter=%s", self.backoff[-1], encounter_id)
        self._failed[encounter_id] = attempt + 1
        delay = self.backoff[min(attempt, len(self.backoff) - 1)]

        async def wait() -> None:
            try:
                await asyncio.sleep(delay)
            finally:
                self._pending.discard(encounter_id)
            self._retry(encounter_id)

        self._pending.add(encounter_id)
        task = asyncio.create_task(wait(), name=f"hexd-repost-{encounter_id}")
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def cancel(self) -> None:
        """Drop the retries waiting for their time (the record of what was shown makes the next start post them)."""
        for task in list(self._tasks):
            task.cancel()

    def waiting(self) -> set[int]:
        """The encounters with a retry waiting for its time."""
        return set(self._pending)
