"""The storage logic shared by the SQL backends (DESIGN §3), written once against a small ``Session`` interface.

A backend supplies a ``Driver``: transactions and three statement calls, with ``?`` placeholders, rows as tuples.
Every write runs in one transaction that first reads the encounter's row under the database's write lock
(SQLite: ``BEGIN IMMEDIATE``; PostgreSQL: ``SELECT … FOR UPDATE``), so phase checks and sequence numbers are
decided by the database, never by process memory: racing tasks or processes give exactly one resolution.
"""

from __future__ import annotations

import abc
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, cast

from . import export as export_format
from .base import (
    ENCOUNTER_CREATED,
    ENCOUNTER_IMPORTED,
    ORDER_ACCEPTED,
    PARTICIPANT_ADDED,
    PARTICIPANT_REMOVED,
    PHASE_RESOLVED,
    RESERVED_EVENT_TYPES,
    ROLES,
    SETTINGS_CHANGED,
    STATUS_CHANGED,
    STATUSES,
    UNDONE,
    UNSET,
    Ack,
    AlreadyResolved,
    ChannelBusyError,
    Deadline,
    Encounter,
    EncounterEndedError,
    EncounterNotFoundError,
    EncounterStatus,
    Event,
    EventSpec,
    GuildSettings,
    HistoryStep,
    InputsChanged,
    InvalidExportError,
    JsonDict,
    Loaded,
    MessageRef,
    NothingToUndoError,
    OrdersForResolution,
    Participant,
    PendingOrder,
    Resolution,
    Resolved,
    Role,
    StalePhaseError,
    Storage,
    UnitTakenError,
    Unset,
)

_ENCOUNTER_COLUMNS = (
    "id, guild_id, channel_id, ruleset, name, created_by, status, phase_no, settings, last_seq, "
    "created_at, updated_at, snapshot_seq, opened_seq"
)
_PARTICIPANTS = "SELECT user_id, role, side, unit FROM participants WHERE encounter_id = ? ORDER BY joined_at, user_id, role, unit"
_EVENT_COLUMNS = "encounter_id, seq, type, payload, phase_no, created_at"
_INSERT_EVENT = f"INSERT INTO events ({_EVENT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?)"
_INSERT_ORDER = (
    "INSERT INTO orders (encounter_id, seq, phase_no, unit_id, user_id, body, accepted_at) "
    "VALUES (?, ?, ?, ?, ?, ?, ?)"
)
_INSERT_SNAPSHOT = (
    "INSERT INTO snapshots (encounter_id, seq, phase_no, opened_seq, parent_seq, state, created_at) "
    "VALUES (?, ?, ?, ?, ?, ?, ?)"
)


def _dumps(value: Mapping[str, Any]) -> str:
    # allow_nan=False: NaN is not JSON, and an export must stay readable by any JSON parser
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def _loads(text: str) -> JsonDict:
    return cast(JsonDict, json.loads(text))


def _timestamp(moment: datetime) -> str:
    if moment.tzinfo is None:
        raise ValueError("storage times must be timezone-aware (UTC)")
    return moment.astimezone(UTC).isoformat(timespec="microseconds")


def _datetime(text: str) -> datetime:
    return datetime.fromisoformat(text)


def utc_now() -> datetime:
    return datetime.now(UTC)


def _check_event_specs(events: Iterable[EventSpec]) -> list[tuple[str, str]]:
    checked: list[tuple[str, str]] = []
    for event_type, payload in events:
        if not isinstance(event_type, str) or not event_type:  # pyright: ignore[reportUnnecessaryIsInstance]
            raise ValueError(f"an event type must be a non-empty string, not {event_type!r}")
        if event_type in RESERVED_EVENT_TYPES:
            raise ValueError(f"event type {event_type!r} is written by storage itself")
        checked.append((event_type, _dumps(payload)))
    return checked


@dataclass(slots=True)
class _Head:
    """The bookkeeping columns of an encounter row, read under the write lock."""

    status: str
    phase_no: int
    snapshot_seq: int
    opened_seq: int
    last_seq: int
    guild_id: int
    channel_id: int


def _encounter(row: Sequence[Any]) -> Encounter:
    return Encounter(
        id=row[0],
        guild_id=row[1],
        channel_id=row[2],
        ruleset=row[3],
        name=row[4],
        created_by=row[5],
        status=row[6],
        phase_no=row[7],
        settings=_loads(row[8]),
        last_seq=row[9],
        created_at=_datetime(row[10]),
        updated_at=_datetime(row[11]),
    )


def _events(encounter_id: int, rows: Iterable[Sequence[Any]]) -> list[Event]:
    """Rows of (seq, type, payload, phase_no, created_at). The payloads are decoded with one ``json.loads`` of a
    joined array: a third of the cost of one call per event, which keeps a 1,000-event load within budget."""
    rows = list(rows)
    payloads = cast(list[JsonDict], json.loads("[" + ",".join(row[2] for row in rows) + "]"))
    return [
        Event(encounter_id, row[0], row[1], payload, row[3], _datetime(row[4]))
        for row, payload in zip(rows, payloads, strict=True)
    ]


def _snapshot_chain(
    current_seq: int, snapshots: Iterable[Sequence[Any]], events: Iterable[Event]
) -> list[HistoryStep]:
    """Follow ``parent_seq`` back from the current snapshot (undone ones are off this chain), oldest first."""
    rows = {int(row[0]): row for row in snapshots}
    by_seq = {e.seq: e for e in events}
    chain: list[Sequence[Any]] = []
    seq: int | None = current_seq
    while seq is not None:
        chain.append(rows[seq])
        seq = rows[seq][2]
    steps: list[HistoryStep] = []
    for seq, phase_no, _, state in reversed(chain):
        source = int(seq)
        # an undo's snapshot is a copy of the one it restored: that one's events made this state
        while (event := by_seq.get(source)) is not None and event.type == UNDONE:
            source = int(event.payload["restored_snapshot_seq"])
        steps.append(HistoryStep(int(seq), int(phase_no), _loads(state), _step_events(source, by_seq, rows)))
    return steps


def _step_events(
    seq: int, by_seq: Mapping[int, Event], snapshot_seqs: Mapping[int, object]
) -> tuple[Event, ...]:
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


def _participant(encounter_id: int, row: Sequence[Any]) -> Participant:
    return Participant(encounter_id, row[0], row[1], row[2] or None, row[3] or None)


class Session(abc.ABC):
    """One open transaction. SQL uses ``?`` placeholders; rows come back as tuples."""

    #: appended to the encounter-row read that starts a write ("FOR UPDATE" where row locks exist)
    lock_clause: str = ""

    @abc.abstractmethod
    async def fetch(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]: ...

    @abc.abstractmethod
    async def execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        """Run one statement; returns the number of rows it changed."""

    @abc.abstractmethod
    async def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None: ...


class Driver(abc.ABC):
    #: what the driver raises when a unique or foreign-key constraint refuses a row
    integrity_errors: tuple[type[Exception], ...] = ()

    @abc.abstractmethod
    def transaction(self, *, write: bool, durable: bool = True) -> AbstractAsyncContextManager[Session]:
        """Writes take the database's write lock (or row locks); reads see one consistent snapshot.
        ``durable=False`` (bookkeeping only, never game state or orders): the commit survives a crash of the
        bot but may be lost with a power cut, and costs no disk sync."""

    @abc.abstractmethod
    async def close(self) -> None: ...


class SqlStorage(Storage):
    def __init__(self, driver: Driver, *, clock: Callable[[], datetime] = utc_now) -> None:
        self._driver = driver
        self._clock = clock

    async def close(self) -> None:
        await self._driver.close()

    def _write(self, *, durable: bool = True) -> AbstractAsyncContextManager[Session]:
        return self._driver.transaction(write=True, durable=durable)

    def _read(self) -> AbstractAsyncContextManager[Session]:
        return self._driver.transaction(write=False)

    async def _head(self, db: Session, encounter_id: int) -> _Head:
        rows = list(
            await db.fetch(
                "SELECT status, phase_no, snapshot_seq, opened_seq, last_seq, guild_id, channel_id "
                "FROM encounters WHERE id = ?" + db.lock_clause,
                (encounter_id,),
            )
        )
        if not rows:
            raise EncounterNotFoundError(encounter_id)
        return _Head(*rows[0])

    async def _live_head(self, db: Session, encounter_id: int) -> _Head:
        head = await self._head(db, encounter_id)
        if head.status == "ended":
            raise EncounterEndedError(encounter_id)
        return head

    async def _append(
        self,
        db: Session,
        encounter_id: int,
        head: _Head,
        events: Sequence[tuple[str, str]],
        phase_no: int,
        now: str,
    ) -> int:
        """Append already-encoded events after ``head.last_seq``; returns the new last seq (caller updates the row)."""
        first = head.last_seq + 1
        await db.executemany(
            _INSERT_EVENT,
            [
                (encounter_id, first + i, event_type, payload, phase_no, now)
                for i, (event_type, payload) in enumerate(events)
            ],
        )
        return head.last_seq + len(events)

    async def _touch(self, db: Session, encounter_id: int, last_seq: int, now: str) -> None:
        await db.execute(
            "UPDATE encounters SET last_seq = ?, updated_at = ? WHERE id = ?", (last_seq, now, encounter_id)
        )

    # --- encounters -----------------------------------------------------------------------------------------

    async def create_encounter(
        self,
        guild_id: int,
        channel_id: int,
        ruleset: str,
        name: str,
        created_by: int,
        state: Mapping[str, Any],
        settings: Mapping[str, Any] | None = None,
        *,
        phase_no: int = 1,
    ) -> int:
        settings_text = _dumps(settings or {})
        state_text = _dumps(state)
        created = _dumps(
            {
                "guild_id": guild_id,
                "channel_id": channel_id,
                "ruleset": ruleset,
                "name": name,
                "created_by": created_by,
                "settings": dict(settings or {}),
                "state": dict(state),
            }
        )
        now = _timestamp(self._clock())
        async with self._write() as db:
            try:
                ((encounter_id,),) = await db.fetch(
                    "INSERT INTO encounters (guild_id, channel_id, ruleset, name, created_by, status, settings, "
                    "phase_no, snapshot_seq, opened_seq, last_seq, created_at, updated_at) "
                    "VALUES (?, ?, ?, ?, ?, 'open', ?, ?, 1, 1, 1, ?, ?) RETURNING id",
                    (guild_id, channel_id, ruleset, name, created_by, settings_text, phase_no, now, now),
                )
            except self._driver.integrity_errors as error:
                raise ChannelBusyError(guild_id, channel_id) from error
            await db.execute(_INSERT_EVENT, (encounter_id, 1, ENCOUNTER_CREATED, created, phase_no, now))
            await db.execute(_INSERT_SNAPSHOT, (encounter_id, 1, phase_no, 1, None, state_text, now))
        return encounter_id

    async def get_encounter(self, encounter_id: int) -> Encounter:
        async with self._read() as db:
            rows = list(
                await db.fetch(f"SELECT {_ENCOUNTER_COLUMNS} FROM encounters WHERE id = ?", (encounter_id,))
            )
        if not rows:
            raise EncounterNotFoundError(encounter_id)
        return _encounter(rows[0])

    async def active_encounter_in_channel(self, guild_id: int, channel_id: int) -> Encounter | None:
        async with self._read() as db:
            rows = list(
                await db.fetch(
                    f"SELECT {_ENCOUNTER_COLUMNS} FROM encounters "
                    "WHERE guild_id = ? AND channel_id = ? AND status != 'ended'",
                    (guild_id, channel_id),
                )
            )
        return _encounter(rows[0]) if rows else None

    async def list_encounters(self, guild_id: int, active_only: bool = False) -> list[Encounter]:
        condition = " AND status != 'ended'" if active_only else ""
        async with self._read() as db:
            rows = await db.fetch(
                f"SELECT {_ENCOUNTER_COLUMNS} FROM encounters WHERE guild_id = ?{condition} ORDER BY id",
                (guild_id,),
            )
        return [_encounter(row) for row in rows]

    async def set_encounter_status(self, encounter_id: int, status: EncounterStatus) -> Encounter:
        if status not in STATUSES:
            raise ValueError(f"unknown encounter status {status!r}")
        now = _timestamp(self._clock())
        async with self._write() as db:
            head = await self._head(db, encounter_id)
            if head.status != status:
                try:
                    await db.execute("UPDATE encounters SET status = ? WHERE id = ?", (status, encounter_id))
                except self._driver.integrity_errors as error:
                    raise ChannelBusyError(head.guild_id, head.channel_id) from error
                payload = _dumps({"from": head.status, "to": status})
                last = await self._append(
                    db, encounter_id, head, [(STATUS_CHANGED, payload)], head.phase_no, now
                )
                await self._touch(db, encounter_id, last, now)
        return await self.get_encounter(encounter_id)

    async def update_settings(self, encounter_id: int, **changes: Any) -> Encounter:
        now = _timestamp(self._clock())
        async with self._write() as db:
            head = await self._head(db, encounter_id)
            ((settings_text,),) = await db.fetch(
                "SELECT settings FROM encounters WHERE id = ?", (encounter_id,)
            )
            settings = _loads(settings_text)
            for key, value in changes.items():
                if value is None:
                    settings.pop(key, None)
                else:
                    settings[key] = value
            await db.execute(
                "UPDATE encounters SET settings = ? WHERE id = ?", (_dumps(settings), encounter_id)
            )
            payload = _dumps({"changes": changes})
            last = await self._append(
                db, encounter_id, head, [(SETTINGS_CHANGED, payload)], head.phase_no, now
            )
            await self._touch(db, encounter_id, last, now)
        return await self.get_encounter(encounter_id)

    # --- participants ---------------------------------------------------------------------------------------

    async def add_participant(
        self,
        encounter_id: int,
        user_id: int,
        role: Role,
        side: str | None = None,
        unit: str | None = None,
        *,
        reassign: bool = False,
    ) -> Participant:
        if role not in ROLES:
            raise ValueError(f"unknown participant role {role!r}")
        now = _timestamp(self._clock())
        wanted = (user_id, role, side or "", unit or "")
        async with self._write() as db:
            head = await self._head(db, encounter_id)
            log: list[tuple[str, str]] = []
            if unit:
                holders = list(
                    await db.fetch(
                        "SELECT user_id, role, side, unit FROM participants WHERE encounter_id = ? AND unit = ?",
                        (encounter_id, unit),
                    )
                )
                if holders and tuple(holders[0]) != wanted:
                    holder_id, holder_role, holder_side, _ = holders[0]
                    if holder_id != user_id and not reassign:
                        raise UnitTakenError(encounter_id, unit, holder_id)
                    await db.execute(
                        "DELETE FROM participants WHERE encounter_id = ? AND unit = ?", (encounter_id, unit)
                    )
                    removed = {
                        "user_id": holder_id,
                        "role": holder_role,
                        "side": holder_side or None,
                        "unit": unit,
                    }
                    log.append((PARTICIPANT_REMOVED, _dumps(removed)))
            inserted = await db.execute(
                "INSERT INTO participants (encounter_id, user_id, role, side, unit, joined_at) "
                "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                (encounter_id, *wanted, now),
            )
            if inserted:
                added = {"user_id": user_id, "role": role, "side": side or None, "unit": unit or None}
                log.append((PARTICIPANT_ADDED, _dumps(added)))
            if log:
                last = await self._append(db, encounter_id, head, log, head.phase_no, now)
                await self._touch(db, encounter_id, last, now)
        return Participant(encounter_id, user_id, role, side or None, unit or None)

    async def remove_participant(
        self, encounter_id: int, user_id: int, *, role: Role | None = None, unit: str | None = None
    ) -> int:
        condition = "encounter_id = ? AND user_id = ?"
        params: list[Any] = [encounter_id, user_id]
        if role is not None:
            condition += " AND role = ?"
            params.append(role)
        if unit is not None:
            condition += " AND unit = ?"
            params.append(unit)
        now = _timestamp(self._clock())
        async with self._write() as db:
            head = await self._head(db, encounter_id)
            rows = list(
                await db.fetch(f"SELECT role, side, unit FROM participants WHERE {condition}", params)
            )
            if rows:
                await db.execute(f"DELETE FROM participants WHERE {condition}", params)
                log = [
                    (
                        PARTICIPANT_REMOVED,
                        _dumps({"user_id": user_id, "role": r, "side": s or None, "unit": u or None}),
                    )
                    for r, s, u in rows
                ]
                last = await self._append(db, encounter_id, head, log, head.phase_no, now)
                await self._touch(db, encounter_id, last, now)
        return len(rows)

    async def participants(self, encounter_id: int) -> list[Participant]:
        async with self._read() as db:
            await self._head(db, encounter_id)
            rows = await db.fetch(_PARTICIPANTS, (encounter_id,))
        return [_participant(encounter_id, row) for row in rows]

    # --- event log ------------------------------------------------------------------------------------------

    async def load(self, encounter_id: int) -> Loaded:
        async with self._read() as db:
            rows = list(
                await db.fetch(f"SELECT {_ENCOUNTER_COLUMNS} FROM encounters WHERE id = ?", (encounter_id,))
            )
            if not rows:
                raise EncounterNotFoundError(encounter_id)
            meta = _encounter(rows[0])
            snapshot_seq: int = rows[0][12]
            ((phase_no, state_text),) = await db.fetch(
                "SELECT phase_no, state FROM snapshots WHERE encounter_id = ? AND seq = ?",
                (encounter_id, snapshot_seq),
            )
            event_rows = await db.fetch(
                "SELECT seq, type, payload, phase_no, created_at FROM events "
                "WHERE encounter_id = ? AND seq > ? ORDER BY seq",
                (encounter_id, snapshot_seq),
            )
            part_rows = await db.fetch(_PARTICIPANTS, (encounter_id,))
        events = tuple(_events(encounter_id, event_rows))
        parts = tuple(_participant(encounter_id, row) for row in part_rows)
        return Loaded(meta, phase_no, _loads(state_text), snapshot_seq, events, parts)

    async def last_seq(self, encounter_id: int) -> int:
        async with self._read() as db:
            rows = list(await db.fetch("SELECT last_seq FROM encounters WHERE id = ?", (encounter_id,)))
        if not rows:
            raise EncounterNotFoundError(encounter_id)
        return int(rows[0][0])

    async def events(
        self, encounter_id: int, since_seq: int = 0, types: Iterable[str] | None = None
    ) -> list[Event]:
        sql = "SELECT seq, type, payload, phase_no, created_at FROM events WHERE encounter_id = ? AND seq > ?"
        params: list[Any] = [encounter_id, since_seq]
        if types is not None:
            wanted = sorted(set(types))
            sql += f" AND type IN ({', '.join('?' * len(wanted))})"
            params.extend(wanted)
        async with self._read() as db:
            await self._head(db, encounter_id)
            rows = await db.fetch(sql + " ORDER BY seq", params)
        return _events(encounter_id, rows)

    async def append_event(self, encounter_id: int, type: str, payload: Mapping[str, Any]) -> Event:
        ((event_type, text),) = _check_event_specs([(type, payload)])
        moment = self._clock()
        now = _timestamp(moment)
        async with self._write() as db:
            head = await self._head(db, encounter_id)
            last = await self._append(db, encounter_id, head, [(event_type, text)], head.phase_no, now)
            await self._touch(db, encounter_id, last, now)
        return Event(encounter_id, last, event_type, _loads(text), head.phase_no, _datetime(now))

    async def snapshot_chain(self, encounter_id: int) -> list[HistoryStep]:
        async with self._read() as db:
            head = await self._head(db, encounter_id)
            snapshots = await db.fetch(
                "SELECT seq, phase_no, parent_seq, state FROM snapshots WHERE encounter_id = ? ORDER BY seq",
                (encounter_id,),
            )
            # orders are many and never part of a step; leaving them out also ends every batch (seqs skip)
            rows = await db.fetch(
                "SELECT seq, type, payload, phase_no, created_at FROM events "
                "WHERE encounter_id = ? AND type <> ? ORDER BY seq",
                (encounter_id, ORDER_ACCEPTED),
            )
        return _snapshot_chain(head.snapshot_seq, snapshots, _events(encounter_id, rows))

    # --- orders ---------------------------------------------------------------------------------------------

    async def submit_order(
        self, encounter_id: int, phase_no: int, unit_id: str, user_id: int, order: Mapping[str, Any]
    ) -> Ack:
        if not unit_id:
            raise ValueError("an order needs a unit id")
        body = _dumps(order)
        now = _timestamp(self._clock())
        async with self._write() as db:
            head = await self._live_head(db, encounter_id)
            if phase_no != head.phase_no:
                raise StalePhaseError(encounter_id, phase_no, head.phase_no)
            ((previous,),) = await db.fetch(
                "SELECT MAX(seq) FROM orders WHERE encounter_id = ? AND phase_no = ? AND unit_id = ? AND seq > ?",
                (encounter_id, phase_no, unit_id, head.opened_seq),
            )
            # the log records that an order arrived, never what it says (secret until the resolver reads it)
            payload = _dumps(
                {"phase_no": phase_no, "unit_id": unit_id, "user_id": user_id, "amends": previous}
            )
            seq = await self._append(db, encounter_id, head, [(ORDER_ACCEPTED, payload)], phase_no, now)
            await db.execute(_INSERT_ORDER, (encounter_id, seq, phase_no, unit_id, user_id, body, now))
            await self._touch(db, encounter_id, seq, now)
        return Ack(encounter_id, phase_no, unit_id, user_id, seq, previous is not None, _datetime(now))

    async def _pending(self, db: Session, encounter_id: int, head: _Head) -> dict[str, PendingOrder]:
        rows = await db.fetch(
            "SELECT seq, unit_id, user_id, body, accepted_at FROM orders "
            "WHERE encounter_id = ? AND phase_no = ? AND seq > ? ORDER BY seq",
            (encounter_id, head.phase_no, head.opened_seq),
        )
        pending: dict[str, PendingOrder] = {}
        for seq, unit_id, user_id, body, accepted_at in rows:
            # a later submission for the same unit is an amendment: it replaces the earlier one
            pending[unit_id] = PendingOrder(
                head.phase_no, unit_id, user_id, _loads(body), seq, _datetime(accepted_at)
            )
        return pending

    async def _current_pending(self, encounter_id: int, phase_no: int) -> dict[str, PendingOrder] | None:
        async with self._read() as db:
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
        async with self._read() as db:
            head = await self._head(db, encounter_id)
            if head.phase_no != phase_no:
                raise StalePhaseError(encounter_id, phase_no, head.phase_no)
            pending = await self._pending(db, encounter_id, head)
            ((state_text,),) = await db.fetch(
                "SELECT state FROM snapshots WHERE encounter_id = ? AND seq = ?",
                (encounter_id, head.snapshot_seq),
            )
        return OrdersForResolution(encounter_id, phase_no, head.snapshot_seq, _loads(state_text), pending)

    async def commit_resolution(
        self,
        encounter_id: int,
        expected_phase_no: int,
        events: Sequence[EventSpec],
        new_state: Mapping[str, Any],
        *,
        based_on: OrdersForResolution | None = None,
    ) -> Resolution:
        encoded = _check_event_specs(events)
        state_text = _dumps(new_state)
        now = _timestamp(self._clock())
        async with self._write() as db:
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
                [*encoded, (PHASE_RESOLVED, _dumps(resolved))],
                expected_phase_no,
                now,
            )
            await db.execute(
                _INSERT_SNAPSHOT, (encounter_id, last, next_phase, last, head.snapshot_seq, state_text, now)
            )
            await db.execute(
                "UPDATE encounters SET phase_no = ?, snapshot_seq = ?, opened_seq = ?, last_seq = ?, updated_at = ? "
                "WHERE id = ?",
                (next_phase, last, last, last, now, encounter_id),
            )
        return Resolved(encounter_id, expected_phase_no, next_phase, head.last_seq + 1, last)

    async def record_override(
        self,
        encounter_id: int,
        expected_phase_no: int,
        event: EventSpec,
        new_state: Mapping[str, Any],
    ) -> Event:
        ((event_type, payload),) = _check_event_specs([event])
        state_text = _dumps(new_state)
        now = _timestamp(self._clock())
        async with self._write() as db:
            head = await self._live_head(db, encounter_id)
            if head.phase_no != expected_phase_no:
                raise StalePhaseError(encounter_id, expected_phase_no, head.phase_no)
            seq = await self._append(db, encounter_id, head, [(event_type, payload)], head.phase_no, now)
            # same phase, same opened_seq: orders already given stay pending after a director's change
            await db.execute(
                _INSERT_SNAPSHOT,
                (encounter_id, seq, head.phase_no, head.opened_seq, head.snapshot_seq, state_text, now),
            )
            await db.execute(
                "UPDATE encounters SET snapshot_seq = ?, last_seq = ?, updated_at = ? WHERE id = ?",
                (seq, seq, now, encounter_id),
            )
        return Event(encounter_id, seq, event_type, _loads(payload), head.phase_no, _datetime(now))

    async def undo(self, encounter_id: int, *, expected_phase_no: int | None = None) -> int:
        now = _timestamp(self._clock())
        async with self._write() as db:
            head = await self._live_head(db, encounter_id)
            if expected_phase_no is not None and expected_phase_no != head.phase_no:
                raise StalePhaseError(encounter_id, expected_phase_no, head.phase_no)
            ((parent_seq,),) = await db.fetch(
                "SELECT parent_seq FROM snapshots WHERE encounter_id = ? AND seq = ?",
                (encounter_id, head.snapshot_seq),
            )
            if parent_seq is None:
                raise NothingToUndoError(encounter_id)
            ((phase_no, opened_seq, grandparent_seq, state_text),) = await db.fetch(
                "SELECT phase_no, opened_seq, parent_seq, state FROM snapshots WHERE encounter_id = ? AND seq = ?",
                (encounter_id, parent_seq),
            )
            undone = {
                "undone_snapshot_seq": head.snapshot_seq,
                "restored_snapshot_seq": parent_seq,
                "from_phase_no": head.phase_no,
                "to_phase_no": phase_no,
            }
            seq = await self._append(db, encounter_id, head, [(UNDONE, _dumps(undone))], phase_no, now)
            # a new snapshot row, a copy of the restored one: nothing is deleted and the newest row stays current;
            # its parent is the restored one's parent, so a second undo walks further back
            await db.execute(
                _INSERT_SNAPSHOT, (encounter_id, seq, phase_no, opened_seq, grandparent_seq, state_text, now)
            )
            await db.execute(
                "UPDATE encounters SET phase_no = ?, snapshot_seq = ?, opened_seq = ?, last_seq = ?, updated_at = ? "
                "WHERE id = ?",
                (phase_no, seq, opened_seq, seq, now, encounter_id),
            )
        return cast(int, phase_no)

    # --- export / import ------------------------------------------------------------------------------------

    async def export_encounter(self, encounter_id: int) -> JsonDict:
        async with self._read() as db:
            rows = list(
                await db.fetch(f"SELECT {_ENCOUNTER_COLUMNS} FROM encounters WHERE id = ?", (encounter_id,))
            )
            if not rows:
                raise EncounterNotFoundError(encounter_id)
            row = rows[0]
            participants = await db.fetch(
                "SELECT user_id, role, side, unit, joined_at FROM participants WHERE encounter_id = ? "
                "ORDER BY joined_at, user_id, role, unit",
                (encounter_id,),
            )
            events = await db.fetch(
                "SELECT seq, type, payload, phase_no, created_at FROM events WHERE encounter_id = ? ORDER BY seq",
                (encounter_id,),
            )
            orders = await db.fetch(
                "SELECT seq, phase_no, unit_id, user_id, body, accepted_at FROM orders "
                "WHERE encounter_id = ? ORDER BY seq",
                (encounter_id,),
            )
            snapshots = await db.fetch(
                "SELECT seq, phase_no, opened_seq, parent_seq, state, created_at FROM snapshots "
                "WHERE encounter_id = ? ORDER BY seq",
                (encounter_id,),
            )
        return export_format.seal(
            {
                "exported_at": _timestamp(self._clock()),
                "encounter": {
                    "id": row[0],
                    "guild_id": row[1],
                    "channel_id": row[2],
                    "ruleset": row[3],
                    "name": row[4],
                    "created_by": row[5],
                    "status": row[6],
                    "phase_no": row[7],
                    "settings": _loads(row[8]),
                    "last_seq": row[9],
                    "created_at": row[10],
                    "snapshot_seq": row[12],
                    "opened_seq": row[13],
                },
                "participants": [
                    {"user_id": u, "role": r, "side": s or None, "unit": n or None, "joined_at": j}
                    for u, r, s, n, j in participants
                ],
                "events": [
                    {"seq": s, "type": t, "payload": _loads(p), "phase_no": n, "created_at": c}
                    for s, t, p, n, c in events
                ],
                "orders": [
                    {
                        "seq": s,
                        "phase_no": n,
                        "unit_id": u,
                        "user_id": w,
                        "order": _loads(b),
                        "accepted_at": a,
                    }
                    for s, n, u, w, b, a in orders
                ],
                "snapshots": [
                    {
                        "seq": s,
                        "phase_no": n,
                        "opened_seq": o,
                        "parent_seq": p,
                        "state": _loads(t),
                        "created_at": c,
                    }
                    for s, n, o, p, t, c in snapshots
                ],
            }
        )

    async def import_encounter(self, data: Mapping[str, Any], guild_id: int, channel_id: int) -> int:
        archive = export_format.parse_export(data)
        meta = archive.encounter
        now = _timestamp(self._clock())
        imported_seq = meta.last_seq + 1
        imported = _dumps(
            {
                "format_version": export_format.EXPORT_VERSION,
                "source": {
                    "encounter_id": meta.source_id,
                    "guild_id": meta.source_guild_id,
                    "channel_id": meta.source_channel_id,
                },
            }
        )
        async with self._write() as db:
            try:
                ((encounter_id,),) = await db.fetch(
                    "INSERT INTO encounters (guild_id, channel_id, ruleset, name, created_by, status, settings, "
                    "phase_no, snapshot_seq, opened_seq, last_seq, created_at, updated_at) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
                    (
                        guild_id,
                        channel_id,
                        meta.ruleset,
                        meta.name,
                        meta.created_by,
                        meta.status,
                        _dumps(meta.settings),
                        meta.phase_no,
                        meta.snapshot_seq,
                        meta.opened_seq,
                        imported_seq,
                        meta.created_at,
                        now,
                    ),
                )
            except self._driver.integrity_errors as error:
                raise ChannelBusyError(guild_id, channel_id) from error
            try:
                await db.executemany(
                    _INSERT_EVENT,
                    [
                        *(
                            (encounter_id, e.seq, e.type, _dumps(e.payload), e.phase_no, e.created_at)
                            for e in archive.events
                        ),
                        (encounter_id, imported_seq, ENCOUNTER_IMPORTED, imported, meta.phase_no, now),
                    ],
                )
                await db.executemany(
                    _INSERT_ORDER,
                    [
                        (
                            encounter_id,
                            o.seq,
                            o.phase_no,
                            o.unit_id,
                            o.user_id,
                            _dumps(o.order),
                            o.accepted_at,
                        )
                        for o in archive.orders
                    ],
                )
                await db.executemany(
                    _INSERT_SNAPSHOT,
                    [
                        (
                            encounter_id,
                            s.seq,
                            s.phase_no,
                            s.opened_seq,
                            s.parent_seq,
                            _dumps(s.state),
                            s.created_at,
                        )
                        for s in archive.snapshots
                    ],
                )
                await db.executemany(
                    "INSERT INTO participants (encounter_id, user_id, role, side, unit, joined_at) "
                    "VALUES (?, ?, ?, ?, ?, ?)",
                    [
                        (encounter_id, p.user_id, p.role, p.side, p.unit, p.joined_at)
                        for p in archive.participants
                    ],
                )
            except self._driver.integrity_errors as error:
                raise InvalidExportError(
                    f"this encounter file cannot be imported: it contradicts itself ({error})"
                ) from error
        return encounter_id

    # --- guild settings -------------------------------------------------------------------------------------

    async def get_guild_settings(self, guild_id: int) -> GuildSettings:
        async with self._read() as db:
            rows = list(
                await db.fetch(
                    "SELECT language, director_role_id, default_deadline_minutes, tutorial_shown "
                    "FROM guild_settings WHERE guild_id = ?",
                    (guild_id,),
                )
            )
        if not rows:
            return GuildSettings(guild_id)
        language, role_id, minutes, shown = rows[0]
        return GuildSettings(guild_id, language, role_id, minutes, bool(shown))

    async def set_guild_settings(
        self,
        guild_id: int,
        *,
        language: str | Unset | None = UNSET,
        director_role_id: int | Unset | None = UNSET,
        default_deadline_minutes: int | Unset | None = UNSET,
        tutorial_shown: bool | Unset = UNSET,
    ) -> GuildSettings:
        if isinstance(default_deadline_minutes, int) and default_deadline_minutes <= 0:
            raise ValueError("the default deadline must be a positive number of minutes")
        changes: dict[str, Any] = {
            name: value
            for name, value in (
                ("language", language),
                ("director_role_id", director_role_id),
                ("default_deadline_minutes", default_deadline_minutes),
                ("tutorial_shown", tutorial_shown),
            )
            if not isinstance(value, Unset)
        }
        if "tutorial_shown" in changes:
            changes["tutorial_shown"] = int(bool(changes["tutorial_shown"]))
        changes["updated_at"] = _timestamp(self._clock())
        columns = ", ".join(changes)
        # one upsert naming only the given columns: concurrent updates of different settings never undo each other
        async with self._write() as db:
            await db.execute(
                f"INSERT INTO guild_settings (guild_id, {columns}) VALUES (?{', ?' * len(changes)}) "
                f"ON CONFLICT (guild_id) DO UPDATE SET "
                + ", ".join(f"{name} = excluded.{name}" for name in changes),
                (guild_id, *changes.values()),
            )
        return await self.get_guild_settings(guild_id)

    # --- timers ---------------------------------------------------------------------------------------------

    async def set_deadline(self, encounter_id: int, phase_no: int, when_utc: datetime | None) -> None:
        due = None if when_utc is None else _timestamp(when_utc)
        async with self._write() as db:
            await self._head(db, encounter_id)
            if due is None:
                await db.execute("DELETE FROM deadlines WHERE encounter_id = ?", (encounter_id,))
            else:
                await db.execute(
                    "INSERT INTO deadlines (encounter_id, phase_no, due_at) VALUES (?, ?, ?) "
                    "ON CONFLICT (encounter_id) DO UPDATE SET phase_no = excluded.phase_no, due_at = excluded.due_at",
                    (encounter_id, phase_no, due),
                )

    async def due_deadlines(self, now: datetime) -> list[Deadline]:
        async with self._read() as db:
            rows = await db.fetch(
                "SELECT d.encounter_id, d.phase_no, d.due_at FROM deadlines d JOIN encounters e ON e.id = d.encounter_id "
                "WHERE d.due_at <= ? AND e.status = 'running' AND e.phase_no = d.phase_no ORDER BY d.due_at",
                (_timestamp(now),),
            )
        return [Deadline(encounter_id, phase_no, _datetime(due)) for encounter_id, phase_no, due in rows]

    # --- message bookkeeping --------------------------------------------------------------------------------

    async def set_message_ref(
        self, encounter_id: int, kind: str, key: str, channel_id: int, message_id: int
    ) -> None:
        now = _timestamp(self._clock())
        # which message shows a panel or the status: losing the newest one to a power cut only means it is sent
        # again, so it skips the disk sync that game state and orders get
        async with self._write(durable=False) as db:
            await self._head(db, encounter_id)
            await db.execute(
                "INSERT INTO message_refs (encounter_id, kind, key, channel_id, message_id, updated_at) "
                "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (encounter_id, kind, key) DO UPDATE SET "
                "channel_id = excluded.channel_id, message_id = excluded.message_id, updated_at = excluded.updated_at",
                (encounter_id, kind, key, channel_id, message_id, now),
            )

    async def get_message_ref(self, encounter_id: int, kind: str, key: str) -> MessageRef | None:
        async with self._read() as db:
            rows = list(
                await db.fetch(
                    "SELECT channel_id, message_id FROM message_refs WHERE encounter_id = ? AND kind = ? AND key = ?",
                    (encounter_id, kind, key),
                )
            )
        return MessageRef(encounter_id, kind, key, *rows[0]) if rows else None

    async def message_refs(self, encounter_id: int, kind: str | None = None) -> list[MessageRef]:
        sql = "SELECT kind, key, channel_id, message_id FROM message_refs WHERE encounter_id = ?"
        params: list[Any] = [encounter_id]
        if kind is not None:
            sql += " AND kind = ?"
            params.append(kind)
        async with self._read() as db:
            rows = await db.fetch(sql + " ORDER BY kind, key", params)
        return [MessageRef(encounter_id, k, key, channel, message) for k, key, channel, message in rows]

    async def delete_message_ref(self, encounter_id: int, kind: str, key: str) -> bool:
        async with self._write() as db:
            deleted = await db.execute(
                "DELETE FROM message_refs WHERE encounter_id = ? AND kind = ? AND key = ?",
                (encounter_id, kind, key),
            )
        return deleted > 0
