"""The phase machine: orders of the current phase, committing a resolution exactly once, a director's override,
and undo. Each decides under the encounter's write lock, against the phase number the database holds."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from ..model import (
    ORDER_ACCEPTED,
    PHASE_RESOLVED,
    UNDONE,
    Ack,
    AlreadyResolved,
    CommitOutcome,
    EncounterNotFoundError,
    EventSpec,
    InputsChanged,
    NothingToUndoError,
    OrdersForResolution,
    PendingOrder,
    Resolved,
    StalePhaseError,
    StoredEvent,
)
from .codec import check_event_specs, dumps, loads, parse_time, timestamp
from .core import Head, SqlCore
from .driver import Session
from .rows import INSERT_ORDER, INSERT_SNAPSHOT, MOVE_TO_SNAPSHOT


class Phases(SqlCore):
    async def submit_order(
        self, encounter_id: int, phase_no: int, unit_id: str, user_id: int, order: Mapping[str, Any]
    ) -> Ack:
        if not unit_id:
            raise ValueError("an order needs a unit id")
        body = dumps(order)
        now = timestamp(self._clock())
        async with self._write(encounter_id) as db:
            head = await self._live_head(db, encounter_id)
            if phase_no != head.phase_no:
                raise StalePhaseError(encounter_id, phase_no, head.phase_no)
            row = await db.fetch_row(
                "SELECT seq, user_id, body, accepted_at FROM orders "
                "WHERE encounter_id = ? AND phase_no = ? AND unit_id = ? AND seq > ? ORDER BY seq DESC LIMIT 1",
                (encounter_id, phase_no, unit_id, head.opened_seq),
            )
            previous: int | None = None if row is None else row["seq"]
            if row is not None and row["body"] == body and row["user_id"] == user_id:
                # the same order again (a burst of Submits): stored already, nothing is written
                accepted = parse_time(row["accepted_at"])
                return Ack(
                    encounter_id, phase_no, unit_id, user_id, row["seq"], True, accepted, unchanged=True
                )
            # the log records that an order arrived, never what it says (secret until the resolver reads it)
            payload = dumps(
                {"phase_no": phase_no, "unit_id": unit_id, "user_id": user_id, "amends": previous}
            )
            seq = await self._append(db, encounter_id, head, [(ORDER_ACCEPTED, payload)], phase_no, now)
            await db.execute(INSERT_ORDER, (encounter_id, seq, phase_no, unit_id, user_id, body, now))
            await self._touch(db, encounter_id, seq, now)
        return Ack(encounter_id, phase_no, unit_id, user_id, seq, previous is not None, parse_time(now))

    async def _pending(self, db: Session, encounter_id: int, head: Head) -> dict[str, PendingOrder]:
        rows = await db.fetch(
            "SELECT seq, unit_id, user_id, body, accepted_at FROM orders "
            "WHERE encounter_id = ? AND phase_no = ? AND seq > ? ORDER BY seq",
            (encounter_id, head.phase_no, head.opened_seq),
        )
        pending: dict[str, PendingOrder] = {}
        for row in rows:
            # a later submission for the same unit is an amendment: it replaces the earlier one
            pending[row["unit_id"]] = PendingOrder(
                head.phase_no,
                row["unit_id"],
                row["user_id"],
                loads(row["body"]),
                row["seq"],
                parse_time(row["accepted_at"]),
            )
        return pending

    async def _current_pending(self, encounter_id: int, phase_no: int) -> dict[str, PendingOrder] | None:
        async with self._read(encounter_id) as db:
            head = await self._head(db, encounter_id)
            if head.phase_no != phase_no:
                return None
            return await self._pending(db, encounter_id, head)

    async def orders_of(self, encounter_id: int, phase_no: int, user_id: int) -> list[PendingOrder]:
        pending = await self._current_pending(encounter_id, phase_no) or {}
        return [order for order in pending.values() if order.user_id == user_id]

    async def submitted_units(self, encounter_id: int, phase_no: int) -> list[str]:
        return sorted(await self._current_pending(encounter_id, phase_no) or {})

    async def orders_for_resolution(self, encounter_id: int, phase_no: int) -> OrdersForResolution:
        async with self._read(encounter_id) as db:
            head = await self._head(db, encounter_id)
            if head.phase_no != phase_no:
                raise StalePhaseError(encounter_id, phase_no, head.phase_no)
            pending = await self._pending(db, encounter_id, head)
            (snapshot,) = await db.fetch(
                "SELECT state FROM snapshots WHERE encounter_id = ? AND seq = ?",
                (encounter_id, head.snapshot_seq),
            )
        return OrdersForResolution(
            encounter_id, phase_no, head.snapshot_seq, loads(snapshot["state"]), pending
        )

    async def commit_resolution(
        self,
        encounter_id: int,
        expected_phase_no: int,
        events: Sequence[EventSpec],
        new_state: Mapping[str, Any],
        *,
        based_on: OrdersForResolution | None = None,
        next_deadline: tuple[datetime, datetime | None] | None = None,
    ) -> CommitOutcome:
        encoded = check_event_specs(events)
        state_text = dumps(new_state)
        now = timestamp(self._clock())
        deadline = None
        if next_deadline is not None:  # checked before anything is written (a naive time is refused)
            due, remind = next_deadline
            deadline = (timestamp(due), None if remind is None else timestamp(remind))
        async with self._write(encounter_id) as db:
            head = await self._live_head(db, encounter_id)
            if head.phase_no > expected_phase_no:
                return AlreadyResolved(encounter_id, expected_phase_no, head.phase_no)
            if head.phase_no < expected_phase_no:
                raise StalePhaseError(encounter_id, expected_phase_no, head.phase_no)
            used = {unit: order.seq for unit, order in (await self._pending(db, encounter_id, head)).items()}
            if based_on is not None and (
                based_on.phase_no != expected_phase_no
                or based_on.snapshot_seq != head.snapshot_seq
                or based_on.order_seqs != used
            ):
                return InputsChanged(encounter_id, expected_phase_no)
            next_phase = expected_phase_no + 1
            resolved = {
                "phase_no": expected_phase_no,
                "next_phase_no": next_phase,
                "orders": used,  # which submissions the resolution consumed, so a replay uses exactly those
            }
            last = await self._append(
                db,
                encounter_id,
                head,
                [*encoded, (PHASE_RESOLVED, dumps(resolved))],
                expected_phase_no,
                now,
            )
            await db.execute(
                INSERT_SNAPSHOT, (encounter_id, last, next_phase, last, head.snapshot_seq, state_text, now)
            )
            await db.execute(MOVE_TO_SNAPSHOT, (next_phase, last, last, last, now, encounter_id))
            if deadline is not None:
                await self._put_deadline(db, encounter_id, next_phase, *deadline)
        return Resolved(encounter_id, expected_phase_no, next_phase, head.last_seq + 1, last)

    async def record_override(
        self,
        encounter_id: int,
        expected_phase_no: int,
        event: EventSpec,
        new_state: Mapping[str, Any],
    ) -> StoredEvent:
        ((event_type, payload),) = check_event_specs([event])
        state_text = dumps(new_state)
        now = timestamp(self._clock())
        async with self._write(encounter_id) as db:
            head = await self._live_head(db, encounter_id)
            if head.phase_no != expected_phase_no:
                raise StalePhaseError(encounter_id, expected_phase_no, head.phase_no)
            seq = await self._append(db, encounter_id, head, [(event_type, payload)], head.phase_no, now)
            # same phase, same opened_seq: orders already given stay pending after a director's change
            await db.execute(
                INSERT_SNAPSHOT,
                (encounter_id, seq, head.phase_no, head.opened_seq, head.snapshot_seq, state_text, now),
            )
            await db.execute(
                "UPDATE encounters SET snapshot_seq = ?, last_seq = ?, updated_at = ? WHERE id = ?",
                (seq, seq, now, encounter_id),
            )
        return StoredEvent(encounter_id, seq, event_type, loads(payload), head.phase_no, parse_time(now))

    async def can_undo(self, encounter_id: int) -> bool:
        async with self._read(encounter_id) as db:
            row = await db.fetch_row(
                "SELECT s.parent_seq FROM encounters e JOIN snapshots s "
                "ON s.encounter_id = e.id AND s.seq = e.snapshot_seq WHERE e.id = ?",
                (encounter_id,),
            )
        if row is None:
            raise EncounterNotFoundError(encounter_id)
        return row["parent_seq"] is not None

    async def undo(
        self, encounter_id: int, *, expected_phase_no: int | None = None, by: int | None = None
    ) -> int:
        now = timestamp(self._clock())
        async with self._write(encounter_id) as db:
            head = await self._live_head(db, encounter_id)
            if expected_phase_no is not None and expected_phase_no != head.phase_no:
                raise StalePhaseError(encounter_id, expected_phase_no, head.phase_no)
            (current,) = await db.fetch(
                "SELECT parent_seq FROM snapshots WHERE encounter_id = ? AND seq = ?",
                (encounter_id, head.snapshot_seq),
            )
            parent_seq: int | None = current["parent_seq"]
            if parent_seq is None:
                raise NothingToUndoError(encounter_id)
            (restored,) = await db.fetch(
                "SELECT phase_no, opened_seq, parent_seq, state FROM snapshots WHERE encounter_id = ? AND seq = ?",
                (encounter_id, parent_seq),
            )
            phase_no: int = restored["phase_no"]
            opened_seq: int = restored["opened_seq"]
            undone: dict[str, int] = {
                "undone_snapshot_seq": head.snapshot_seq,
                "restored_snapshot_seq": parent_seq,
                "from_phase_no": head.phase_no,
                "to_phase_no": phase_no,
            }
            if by is not None:
                undone["by"] = by
            seq = await self._append(db, encounter_id, head, [(UNDONE, dumps(undone))], phase_no, now)
            # a new snapshot row, a copy of the restored one: nothing is deleted and the newest row stays current;
            # its parent is the restored one's parent, so a second undo walks further back
            await db.execute(
                INSERT_SNAPSHOT,
                (encounter_id, seq, phase_no, opened_seq, restored["parent_seq"], restored["state"], now),
            )
            await db.execute(MOVE_TO_SNAPSHOT, (phase_no, seq, opened_seq, seq, now, encounter_id))
        return phase_no
