"""The rows an encounter's export is built from, and an import's checked rows stored as a new encounter (the
format, its validation and the encoding of an import's rows live in ``storage.export``)."""

from __future__ import annotations

from typing import Any

from ..model import (
    ENCOUNTER_IMPORTED,
    ChannelBusyError,
    EncounterNotFoundError,
    ExportRows,
    ImportRows,
    InvalidExportError,
)
from .codec import timestamp
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
        async with self._read(encounter_id, bulk=True) as db:
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

    async def import_prepared(self, rows: ImportRows, guild_id: int, channel_id: int) -> int:
        # one bulk transaction, off the loop's thread: an import writes megabytes
        now = timestamp(self._clock())
        imported_seq = rows.last_seq + 1
        async with self._write(bulk=True) as db:
            try:
                (row,) = await db.fetch(
                    INSERT_ENCOUNTER + "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
                    (
                        guild_id,
                        channel_id,
                        rows.ruleset,
                        rows.name,
                        rows.created_by,
                        rows.status,
                        rows.settings,
                        rows.phase_no,
                        rows.snapshot_seq,
                        rows.opened_seq,
                        imported_seq,
                        rows.created_at,
                        now,
                    ),
                )
            except self._driver.integrity_errors as error:
                raise ChannelBusyError(guild_id, channel_id) from error
            encounter_id: int = row["id"]
            imported = (imported_seq, ENCOUNTER_IMPORTED, rows.source, rows.phase_no, now)
            try:
                for sql, values in (
                    (INSERT_EVENT, [*rows.events, imported]),
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
