"""Export of a whole encounter as a versioned JSON document, and its import as a new encounter (the format and
its validation live in ``storage.export``)."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .. import export as export_format
from ..base import (
    ENCOUNTER_IMPORTED,
    ChannelBusyError,
    EncounterNotFoundError,
    ExportRows,
    InvalidExportError,
)
from .codec import dumps, timestamp
from .core import SqlCore
from .driver import Row
from .rows import (
    INSERT_ENCOUNTER,
    INSERT_EVENT,
    INSERT_ORDER,
    INSERT_SNAPSHOT,
    SELECT_ENCOUNTER,
    SELECT_EVENTS,
)


class Records(SqlCore):
    async def export_rows(self, encounter_id: int) -> ExportRows:
        async with self._read(bulk=True) as db:
            row = await db.fetch_row(SELECT_ENCOUNTER, (encounter_id,))
            if row is None:
                raise EncounterNotFoundError(encounter_id)
            participants = await db.fetch(
                "SELECT user_id, role, side, unit, joined_at FROM participants WHERE encounter_id = ? "
                "ORDER BY joined_at, user_id, role, unit",
                (encounter_id,),
            )
            events = await db.fetch(SELECT_EVENTS + " ORDER BY seq", (encounter_id,))
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
        return ExportRows(
            exported_at=timestamp(self._clock()),
            encounter=_plain(row, _ENCOUNTER_COLUMNS),
            participants=[_plain(p, ("user_id", "role", "side", "unit", "joined_at")) for p in participants],
            events=[_plain(e, ("seq", "type", "payload", "phase_no", "created_at")) for e in events],
            orders=[
                _plain(o, ("seq", "phase_no", "unit_id", "user_id", "body", "accepted_at")) for o in orders
            ],
            snapshots=[
                _plain(s, ("seq", "phase_no", "opened_seq", "parent_seq", "state", "created_at"))
                for s in snapshots
            ],
        )

    async def import_encounter(self, data: Mapping[str, Any], guild_id: int, channel_id: int) -> int:
        # checking the file and encoding every row is CPU work over megabytes: in a worker thread, then one bulk
        # transaction (issue 15 item 3: an import must not hold the event loop)
        rows = await asyncio.to_thread(_import_rows, data, timestamp(self._clock()))
        meta = rows.archive.encounter
        async with self._write(bulk=True) as db:
            try:
                (row,) = await db.fetch(
                    INSERT_ENCOUNTER + "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
                    (
                        guild_id,
                        channel_id,
                        meta.ruleset,
                        meta.name,
                        meta.created_by,
                        meta.status,
                        dumps(meta.settings),
                        meta.phase_no,
                        meta.snapshot_seq,
                        meta.opened_seq,
                        rows.imported_seq,
                        meta.created_at,
                        rows.now,
                    ),
                )
            except self._driver.integrity_errors as error:
                raise ChannelBusyError(guild_id, channel_id) from error
            encounter_id: int = row["id"]
            try:
                for sql, values in (
                    (INSERT_EVENT, rows.events),
                    (INSERT_ORDER, rows.orders),
                    (INSERT_SNAPSHOT, rows.snapshots),
                    (
                        "INSERT INTO participants (encounter_id, user_id, role, side, unit, joined_at) "
                        "VALUES (?, ?, ?, ?, ?, ?)",
                        rows.participants,
                    ),
                ):
                    await db.executemany(sql, [(encounter_id, *v) for v in values])
            except self._driver.integrity_errors as error:
                raise InvalidExportError(
                    f"this encounter file cannot be imported: it contradicts itself ({error})"
                ) from error
        return encounter_id


@dataclass(frozen=True, slots=True)
class _ImportRows:
    """An import's rows ready to insert, each without its leading encounter id (known only once inserted)."""

    archive: export_format.Archive
    now: str
    imported_seq: int
    events: list[tuple[Any, ...]]
    orders: list[tuple[Any, ...]]
    snapshots: list[tuple[Any, ...]]
    participants: list[tuple[Any, ...]]


def _import_rows(data: Mapping[str, Any], now: str) -> _ImportRows:
    archive = export_format.parse_export(data)
    meta = archive.encounter
    imported_seq = meta.last_seq + 1
    imported = dumps(
        {
            "format_version": export_format.EXPORT_VERSION,
            "source": {
                "encounter_id": meta.source_id,
                "guild_id": meta.source_guild_id,
                "channel_id": meta.source_channel_id,
            },
        }
    )
    return _ImportRows(
        archive=archive,
        now=now,
        imported_seq=imported_seq,
        events=[
            *((e.seq, e.type, dumps(e.payload), e.phase_no, e.created_at) for e in archive.events),
            (imported_seq, ENCOUNTER_IMPORTED, imported, meta.phase_no, now),
        ],
        orders=[
            (o.seq, o.phase_no, o.unit_id, o.user_id, dumps(o.order), o.accepted_at) for o in archive.orders
        ],
        snapshots=[
            (s.seq, s.phase_no, s.opened_seq, s.parent_seq, dumps(s.state), s.created_at)
            for s in archive.snapshots
        ],
        participants=[(p.user_id, p.role, p.side, p.unit, p.joined_at) for p in archive.participants],
    )


_ENCOUNTER_COLUMNS = (
    "id",
    "guild_id",
    "channel_id",
    "ruleset",
    "name",
    "created_by",
    "status",
    "phase_no",
    "settings",
    "last_seq",
    "created_at",
    "snapshot_seq",
    "opened_seq",
)


def _plain(row: Row, columns: tuple[str, ...]) -> dict[str, Any]:
    return {column: row[column] for column in columns}
