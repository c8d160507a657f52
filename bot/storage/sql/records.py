"""Export of a whole encounter as a versioned JSON document, and its import as a new encounter (the format and
its validation live in ``storage.export``)."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

from .. import export as export_format
from ..base import ENCOUNTER_IMPORTED, ChannelBusyError, EncounterNotFoundError, InvalidExportError, JsonDict
from .codec import dumps, loads, timestamp
from .core import SqlCore
from .rows import (
    INSERT_ENCOUNTER,
    INSERT_EVENT,
    INSERT_ORDER,
    INSERT_SNAPSHOT,
    SELECT_ENCOUNTER,
    SELECT_EVENTS,
)


class Records(SqlCore):
    async def export_encounter(self, encounter_id: int) -> JsonDict:
        async with self._read() as db:
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
        exported_at = timestamp(self._clock())

        def build() -> JsonDict:  # decoding every snapshot and sealing is CPU work: off the event loop
            return export_format.seal(
                {
                    "exported_at": exported_at,
                    "encounter": {
                        "id": row["id"],
                        "guild_id": row["guild_id"],
                        "channel_id": row["channel_id"],
                        "ruleset": row["ruleset"],
                        "name": row["name"],
                        "created_by": row["created_by"],
                        "status": row["status"],
                        "phase_no": row["phase_no"],
                        "settings": loads(row["settings"]),
                        "last_seq": row["last_seq"],
                        "created_at": row["created_at"],
                        "snapshot_seq": row["snapshot_seq"],
                        "opened_seq": row["opened_seq"],
                    },
                    "participants": [
                        {
                            "user_id": p["user_id"],
                            "role": p["role"],
                            "side": p["side"] or None,
                            "unit": p["unit"] or None,
                            "joined_at": p["joined_at"],
                        }
                        for p in participants
                    ],
                    "events": [
                        {
                            "seq": e["seq"],
                            "type": e["type"],
                            "payload": loads(e["payload"]),
                            "phase_no": e["phase_no"],
                            "created_at": e["created_at"],
                        }
                        for e in events
                    ],
                    "orders": [
                        {
                            "seq": o["seq"],
                            "phase_no": o["phase_no"],
                            "unit_id": o["unit_id"],
                            "user_id": o["user_id"],
                            "order": loads(o["body"]),
                            "accepted_at": o["accepted_at"],
                        }
                        for o in orders
                    ],
                    "snapshots": [
                        {
                            "seq": s["seq"],
                            "phase_no": s["phase_no"],
                            "opened_seq": s["opened_seq"],
                            "parent_seq": s["parent_seq"],
                            "state": loads(s["state"]),
                            "created_at": s["created_at"],
                        }
                        for s in snapshots
                    ],
                }
            )

        return await asyncio.to_thread(build)

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
