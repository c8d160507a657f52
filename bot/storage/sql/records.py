"""Export of a whole encounter as a versioned JSON document, and its import as a new encounter (the format and
its validation live in ``storage.export``)."""

from __future__ import annotations

from collections.abc import Mapping
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
        archive = export_format.parse_export(data)
        meta = archive.encounter
        now = timestamp(self._clock())
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
        async with self._write() as db:
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
                        imported_seq,
                        meta.created_at,
                        now,
                    ),
                )
            except self._driver.integrity_errors as error:
                raise ChannelBusyError(guild_id, channel_id) from error
            encounter_id: int = row["id"]
            try:
                await db.executemany(
                    INSERT_EVENT,
                    [
                        *(
                            (encounter_id, e.seq, e.type, dumps(e.payload), e.phase_no, e.created_at)
                            for e in archive.events
                        ),
                        (encounter_id, imported_seq, ENCOUNTER_IMPORTED, imported, meta.phase_no, now),
                    ],
                )
                await db.executemany(
                    INSERT_ORDER,
                    [
                        (
                            encounter_id,
                            o.seq,
                            o.phase_no,
                            o.unit_id,
                            o.user_id,
                            dumps(o.order),
                            o.accepted_at,
                        )
                        for o in archive.orders
                    ],
                )
                await db.executemany(
                    INSERT_SNAPSHOT,
                    [
                        (
                            encounter_id,
                            s.seq,
                            s.phase_no,
                            s.opened_seq,
                            s.parent_seq,
                            dumps(s.state),
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
