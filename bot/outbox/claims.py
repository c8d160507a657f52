"""Posts that must go out once, whichever process sends them (DESIGN §4 flow).

Several bot processes may share the database (a DM click for a guild on another shard is resolved, and posted, by
the process that receives it). Each post that must appear once (a step, a status message of its own, a panel, the
closed-DMs notice, the winner) is claimed in storage before it is sent (``Storage.claim_message_ref``), so two
processes never both send it. A process that died mid-send takes its claims back when it starts again (its
claimant id is that of its shards); a claim of a process that never comes back is taken after :data:`CLAIM_STALE`,
by the retries of whoever found it taken.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from datetime import datetime, timedelta

from bot.storage import Storage

#: seconds after which a post claimed but never recorded as sent is taken to be of a process that died mid-send
CLAIM_STALE = 60.0


class Claims:
    """Who sends each message that must appear once: claimed before the send, recorded after it, given back when
    it failed."""

    def __init__(
        self,
        storage: Callable[[], Storage],
        clock: Callable[[], datetime],
        claimant: Callable[[], int],
        shared: Callable[[], bool],
        taken: Callable[[int], None],
    ) -> None:
        # read when used: the bot's storage and service exist only once it is set up
        self._storage, self._clock, self._claimant, self._shared = storage, clock, claimant, shared
        self._taken = taken  # another process holds a claim unsent: check the encounter again later
        self._sending: set[tuple[int, str, str]] = set()  # this process's claims not yet recorded as sent

    async def claim(self, encounter_id: int, kind: str, key: str) -> bool:
        """Take the sending of one message (True for one process only; see ``Storage.claim_message_ref``). When
        another process holds it unsent, this encounter is checked again later (that process may have died).
        A bot running every shard in one process writes no claim: what it recorded as sent is enough."""
        if (encounter_id, kind, key) in self._sending:
            return False  # this process is sending it now
        storage = self._storage()
        if not self._shared():
            ref = await storage.get_message_ref(encounter_id, kind, key)
            if ref is not None and ref.message_id:
                return False
            self._sending.add((encounter_id, kind, key))
            return True
        stale = self._clock() - timedelta(seconds=CLAIM_STALE)
        if await storage.claim_message_ref(
            encounter_id, kind, key, holder=self._claimant(), stale_before=stale
        ):
            self._sending.add((encounter_id, kind, key))
            return True
        ref = await storage.get_message_ref(encounter_id, kind, key)
        if ref is not None and not ref.message_id:
            self._taken(encounter_id)
        return False

    async def record(self, encounter_id: int, kind: str, key: str, channel_id: int, message_id: int) -> None:
        """The claimed message was sent: record it (no process sends it again)."""
        await self._storage().set_message_ref(encounter_id, kind, key, channel_id, message_id)
        self._sending.discard((encounter_id, kind, key))

    async def release(self, encounter_id: int, kind: str, key: str) -> None:
        """Give a claim back after the send failed (it is retried; a crash leaves it to the restarted process)."""
        self._sending.discard((encounter_id, kind, key))
        with contextlib.suppress(Exception):
            await self._storage().delete_message_ref(encounter_id, kind, key)
