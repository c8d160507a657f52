"""The event log: loading an encounter (latest snapshot + later events), reading and appending events, and the
snapshot chain a replay walks."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Mapping
from typing import Any

from ..model import (
    ORDER_ACCEPTED,
    RESERVED_EVENT_TYPES,
    UNDONE,
    EncounterNotFoundError,
    HistoryStep,
    Loaded,
    StoredEvent,
    UndoneStep,
)
from .codec import check_event_specs, loads, parse_time, timestamp
from .core import SqlCore
from .driver import Row
from .rows import (
    SELECT_ENCOUNTER,
    SELECT_EVENTS,
    SELECT_PARTICIPANTS,
    encounter_from,
    events_from,
    participant_from,
)


class EventLog(SqlCore):
    async def load(self, encounter_id: int) -> Loaded:
        async with self._read(encounter_id) as db:
            row = await db.fetch_row(SELECT_ENCOUNTER, (encounter_id,))
            if row is None:
                raise EncounterNotFoundError(encounter_id)
            meta = encounter_from(row)
            snapshot_seq: int = row["snapshot_seq"]
            (snapshot,) = await db.fetch(
                "SELECT phase_no, state FROM snapshots WHERE encounter_id = ? AND seq = ?",
                (encounter_id, snapshot_seq),
            )
            event_rows = await db.fetch(
                SELECT_EVENTS + " AND seq > ? ORDER BY seq", (encounter_id, snapshot_seq)
            )
            part_rows = await db.fetch(SELECT_PARTICIPANTS, (encounter_id,))
        events = tuple(events_from(encounter_id, event_rows))
        parts = tuple(participant_from(encounter_id, part) for part in part_rows)
        return Loaded(meta, snapshot["phase_no"], loads(snapshot["state"]), snapshot_seq, events, parts)

    async def last_seq(self, encounter_id: int) -> int:
        # asked on every click: kept in memory where this process is the database's one writer
        known = self._known_seq(encounter_id)
        if known is not None:
            return known
        writes_begun = self._writes_begun
        async with self._read(encounter_id) as db:
            row = await db.fetch_row("SELECT last_seq FROM encounters WHERE id = ?", (encounter_id,))
        if row is None:
            raise EncounterNotFoundError(encounter_id)
        seq = int(row["last_seq"])
        self._keep_seq(encounter_id, seq, writes_begun)
        return seq

    async def events(
        self,
        encounter_id: int,
        since_seq: int = 0,
        types: Iterable[str] | None = None,
        limit: int | None = None,
    ) -> list[StoredEvent]:
        sql = SELECT_EVENTS + " AND seq > ?"
        params: list[Any] = [encounter_id, since_seq]
        if types is not None:
            wanted = sorted(set(types))
            sql += f" AND type IN ({', '.join('?' * len(wanted))})"
            params.extend(wanted)
        sql += " ORDER BY seq"
        if limit is not None:
            sql += " LIMIT ?"
            params.append(limit)
        async with self._read(encounter_id) as db:
            await self._head(db, encounter_id)
            rows = await db.fetch(sql, params)
        return events_from(encounter_id, rows)

    async def append_event(self, encounter_id: int, type: str, payload: Mapping[str, Any]) -> StoredEvent:
        ((event_type, text),) = check_event_specs([(type, payload)])
        moment = self._clock()
        now = timestamp(moment)
        async with self._write(encounter_id) as db:
            head = await self._head(db, encounter_id)
            last = await self._log(db, encounter_id, head, [(event_type, text)], now)
        return StoredEvent(encounter_id, last, event_type, loads(text), head.phase_no, parse_time(now))

    async def snapshot_chain(self, encounter_id: int) -> list[HistoryStep]:
        async with self._read(encounter_id, bulk=True) as db:
            head = await self._head(db, encounter_id)
            snapshots = await db.fetch(
                "SELECT seq, phase_no, parent_seq, state FROM snapshots WHERE encounter_id = ? ORDER BY seq",
                (encounter_id,),
            )
            # orders are many and never part of a step; leaving them out also ends every batch (seqs skip)
            rows = await db.fetch(
                SELECT_EVENTS + " AND type <> ? ORDER BY seq", (encounter_id, ORDER_ACCEPTED)
            )
        # every event's payload is decoded: a large encounter's are megabytes, so in a worker thread
        return await asyncio.to_thread(
            lambda: _snapshot_chain(head.snapshot_seq, snapshots, events_from(encounter_id, rows))
        )

    async def _all_steps(self, encounter_id: int) -> tuple[list[Row], list[Row]]:
        """Every snapshot (no state is read twice) and every event but the orders, as stored."""
        async with self._read(encounter_id, bulk=True) as db:
            await self._head(db, encounter_id)
            snapshots = await db.fetch(
                "SELECT seq, phase_no, parent_seq, state FROM snapshots WHERE encounter_id = ? ORDER BY seq",
                (encounter_id,),
            )
            rows = await db.fetch(
                SELECT_EVENTS + " AND type <> ? ORDER BY seq", (encounter_id, ORDER_ACCEPTED)
            )
        return list(snapshots), list(rows)

    async def undone_steps(self, encounter_id: int, after_seq: int = 0) -> list[UndoneStep]:
        # most encounters see no undo after ``after_seq``: one look at that end of the log spares reading every
        # snapshot and event of a game, which grows with it
        async with self._read(encounter_id) as db:
            await self._head(db, encounter_id)
            undo = await db.fetch_row(
                "SELECT seq FROM events WHERE encounter_id = ? AND seq > ? AND type = ? LIMIT 1",
                (encounter_id, after_seq, UNDONE),
            )
        if undo is None:
            return []
        snapshots, rows = await self._all_steps(encounter_id)

        def decoded() -> list[UndoneStep]:  # every payload of the log: off the event loop
            steps = _undone_steps(snapshots, events_from(encounter_id, rows))
            return [u for u in steps if u.undo.seq > after_seq]

        return await asyncio.to_thread(decoded)

    async def last_order_seq(self, encounter_id: int, user_id: int) -> int:
        # an order's row carries its OrderAccepted event's seq: read from the newest back, nothing decoded
        async with self._read(encounter_id) as db:
            await self._head(db, encounter_id)
            row = await db.fetch_row(
                "SELECT seq FROM orders WHERE encounter_id = ? AND user_id = ? ORDER BY seq DESC LIMIT 1",
                (encounter_id, user_id),
            )
        return 0 if row is None else int(row["seq"])


def _undone_steps(snapshots: Iterable[Row], events: Iterable[StoredEvent]) -> list[UndoneStep]:
    rows = {int(row["seq"]): row for row in snapshots}
    by_seq = {e.seq: e for e in events}
    out: list[UndoneStep] = []
    for undo in by_seq.values():
        if undo.type != UNDONE:
            continue
        undone, restored = (
            int(undo.payload["undone_snapshot_seq"]),
            int(undo.payload["restored_snapshot_seq"]),
        )
        if undone not in rows or restored not in rows:
            continue
        source = undone
        # an undo's snapshot is a copy of the one it restored: undoing the copy takes back that one's step
        while (event := by_seq.get(source)) is not None and event.type == UNDONE:
            source = int(event.payload["restored_snapshot_seq"])
        row = rows[undone]
        step = HistoryStep(
            undone, int(row["phase_no"]), str(row["state"]), _step_events(source, by_seq, rows)
        )
        out.append(UndoneStep(undo, step, str(rows[restored]["state"])))
    return out


def _snapshot_chain(
    current_seq: int, snapshots: Iterable[Row], events: Iterable[StoredEvent]
) -> list[HistoryStep]:
    """Follow ``parent_seq`` back from the current snapshot (undone ones are off this chain), oldest first."""
    rows = {int(row["seq"]): row for row in snapshots}
    by_seq = {e.seq: e for e in events}
    chain: list[Row] = []
    seq: int | None = current_seq
    while seq is not None:
        chain.append(rows[seq])
        seq = rows[seq]["parent_seq"]
    steps: list[HistoryStep] = []
    for row in reversed(chain):
        source = int(row["seq"])
        # an undo's snapshot is a copy of the one it restored: that one's events made this state
        while (event := by_seq.get(source)) is not None and event.type == UNDONE:
            source = int(event.payload["restored_snapshot_seq"])
        steps.append(
            HistoryStep(
                int(row["seq"]), int(row["phase_no"]), str(row["state"]), _step_events(source, by_seq, rows)
            )
        )
    return steps


def _step_events(
    seq: int, by_seq: Mapping[int, StoredEvent], snapshot_seqs: Mapping[int, object]
) -> tuple[StoredEvent, ...]:
    """The event that wrote snapshot ``seq`` and the batch committed with it: the unbroken run of seqs before it
    that are neither storage's own events nor another snapshot's."""
    if seq not in by_seq:
        return ()
    first = seq
    while (
        (event := by_seq.get(first - 1)) is not None
        and event.type not in RESERVED_EVENT_TYPES
        and first - 1 not in snapshot_seqs
    ):
        first -= 1
    return tuple(by_seq[s] for s in range(first, seq + 1))
