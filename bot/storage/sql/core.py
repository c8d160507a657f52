"""The base every part of ``SqlStorage`` stands on: the driver's transactions, the encounter row read under the
write lock that starts every write, and appending to the event log."""

from __future__ import annotations

from collections.abc import AsyncGenerator, Callable, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass, fields
from datetime import datetime
from typing import Final

from bot.bounded import Bounded

from ..base import Storage
from ..model import EncounterEndedError, EncounterNotFoundError
from .codec import utc_now
from .driver import Driver, Row, Session
from .rows import INSERT_EVENT


@dataclass(slots=True)
class Head:
    """The bookkeeping columns of an encounter row, read under the write lock."""

    status: str
    phase_no: int
    snapshot_seq: int
    opened_seq: int
    last_seq: int
    guild_id: int
    channel_id: int

    @classmethod
    def from_row(cls, row: Row) -> Head:
        return cls(**{name: row[name] for name in HEAD_COLUMNS})


# the fields above are the columns read: one list for the SELECT and the constructor
HEAD_COLUMNS: Final = tuple(field.name for field in fields(Head))
SELECT_HEAD: Final = f"SELECT {', '.join(HEAD_COLUMNS)} FROM encounters WHERE id = ?"
#: the people whose colour scheme is kept in memory (every panel and private picture asks for it)
PALETTE_CACHE_SIZE: Final = 8192
#: the encounters whose newest seq is kept in memory
SEQ_CACHE_SIZE: Final = 8192


class SqlCore(Storage):
    """What every part shares: the driver and the clock, and the helpers each write is made of."""

    def __init__(self, driver: Driver, *, clock: Callable[[], datetime] = utc_now) -> None:
        self._driver = driver
        self._clock = clock
        # a person's colour scheme, read once and replaced by the write that sets it; only where this process
        # is the database's one writer: with several processes a cached one could stay stale, where each read
        # sees another process's change at once (and a PostgreSQL read waits on the network, not the loop)
        self._palettes: Bounded[int, str | None] | None = (
            None if driver.shared else Bounded(PALETTE_CACHE_SIZE)
        )
        # a read that saw a write begin meanwhile may hold the old choice: not kept
        self._palette_writes: int = 0
        # an encounter's newest seq (every click checks its cached read against it), on the same terms: each
        # write to the encounter drops it when it begins and when it is over, and a read is kept only when no
        # write to any encounter began while it ran and none to this one is still going on
        self._seqs: Bounded[int, int] | None = None if driver.shared else Bounded(SEQ_CACHE_SIZE)
        self._writes_begun: int = 0
        self._writing: dict[int, int] = {}  # encounter: its writes under way

    async def close(self) -> None:
        await self._driver.close()

    def _write(
        self, key: int | None = None, *, durable: bool = True, bulk: bool = False
    ) -> AbstractAsyncContextManager[Session]:
        """A write transaction; ``key``: the encounter it changes, if one (every write to an encounter names it)."""
        opened = self._driver.transaction(write=True, durable=durable, bulk=bulk, key=key)
        return opened if key is None or self._seqs is None else self._tracked(opened, key, self._seqs)

    @asynccontextmanager
    async def _tracked(
        self, opened: AbstractAsyncContextManager[Session], key: int, seqs: Bounded[int, int]
    ) -> AsyncGenerator[Session]:
        """A write to encounter ``key``: its kept seq is gone from the start until the write is over (committed
        or not), so a read never answers from before a write whose caller has returned."""
        self._writes_begun += 1
        self._writing[key] = self._writing.get(key, 0) + 1
        seqs.pop(key, None)
        try:
            async with opened as db:
                yield db
        finally:
            left = self._writing.pop(key) - 1
            if left:
                self._writing[key] = left
            seqs.pop(key, None)

    def _known_seq(self, encounter_id: int) -> int | None:
        """The encounter's newest seq if kept (nothing written to it since it was read)."""
        return None if self._seqs is None else self._seqs.get(encounter_id)

    def _keep_seq(self, encounter_id: int, seq: int, writes_begun: int) -> None:
        """Keep a seq read when ``writes_begun`` writes had begun, unless a write began since or one to the
        encounter is under way."""
        if (
            self._seqs is not None
            and writes_begun == self._writes_begun
            and encounter_id not in self._writing
        ):
            self._seqs[encounter_id] = seq

    def _read(self, key: int | None = None, *, bulk: bool = False) -> AbstractAsyncContextManager[Session]:
        """A read transaction; ``key``: the encounter it reads, if one."""
        return self._driver.transaction(write=False, bulk=bulk, key=key)

    async def _put_deadline(
        self, db: Session, encounter_id: int, phase_no: int, due: str, remind: str | None
    ) -> None:
        """The encounter's one deadline, now for ``phase_no`` (timestamps as stored)."""
        await db.execute(
            "INSERT INTO deadlines (encounter_id, phase_no, due_at, remind_at) VALUES (?, ?, ?, ?) "
            "ON CONFLICT (encounter_id) DO UPDATE SET phase_no = excluded.phase_no, "
            "due_at = excluded.due_at, remind_at = excluded.remind_at",
            (encounter_id, phase_no, due, remind),
        )

    async def _head(self, db: Session, encounter_id: int) -> Head:
        row = await db.fetch_row(SELECT_HEAD + db.lock_clause, (encounter_id,))
        if row is None:
            raise EncounterNotFoundError(encounter_id)
        return Head.from_row(row)

    async def _live_head(self, db: Session, encounter_id: int) -> Head:
        head = await self._head(db, encounter_id)
        if head.status == "ended":
            raise EncounterEndedError(encounter_id)
        return head

    async def _append(
        self,
        db: Session,
        encounter_id: int,
        head: Head,
        events: Sequence[tuple[str, str]],
        phase_no: int,
        now: str,
    ) -> int:
        """Append already-encoded events after ``head.last_seq``; returns the new last seq (caller updates the row)."""
        first = head.last_seq + 1
        await db.executemany(
            INSERT_EVENT,
            [
                (encounter_id, first + i, event_type, payload, phase_no, now)
                for i, (event_type, payload) in enumerate(events)
            ],
        )
        return head.last_seq + len(events)

    async def _log(
        self, db: Session, encounter_id: int, head: Head, events: Sequence[tuple[str, str]], now: str
    ) -> int:
        """Append events in the current phase and move the encounter row's ``last_seq`` to the newest."""
        last = await self._append(db, encounter_id, head, events, head.phase_no, now)
        await self._touch(db, encounter_id, last, now)
        return last

    async def _touch(self, db: Session, encounter_id: int, last_seq: int, now: str) -> None:
        await db.execute(
            "UPDATE encounters SET last_seq = ?, updated_at = ? WHERE id = ?", (last_seq, now, encounter_id)
        )
