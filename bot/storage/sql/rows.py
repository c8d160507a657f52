"""The statements several parts share, and rows read back into the interface's types (by column name)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Final, cast

from ..model import Encounter, JsonDict, Participant, StoredEvent
from .codec import loads, parse_time
from .driver import Row

ENCOUNTER_COLUMNS: Final = (
    "id, guild_id, channel_id, ruleset, name, created_by, status, phase_no, settings, last_seq, "
    "created_at, updated_at, snapshot_seq, opened_seq"
)
SELECT_ENCOUNTER: Final = f"SELECT {ENCOUNTER_COLUMNS} FROM encounters WHERE id = ?"
SELECT_PARTICIPANTS: Final = "SELECT user_id, role, side, unit FROM participants WHERE encounter_id = ? ORDER BY joined_at, user_id, role, unit"
SELECT_EVENTS: Final = "SELECT seq, type, payload, phase_no, created_at FROM events WHERE encounter_id = ?"
INSERT_ENCOUNTER: Final = (
    "INSERT INTO encounters (guild_id, channel_id, ruleset, name, created_by, status, settings, "
    "phase_no, snapshot_seq, opened_seq, last_seq, created_at, updated_at) "
)
INSERT_EVENT: Final = (
    "INSERT INTO events (encounter_id, seq, type, payload, phase_no, created_at) VALUES (?, ?, ?, ?, ?, ?)"
)
INSERT_ORDER: Final = (
    "INSERT INTO orders (encounter_id, seq, phase_no, unit_id, user_id, body, accepted_at) "
    "VALUES (?, ?, ?, ?, ?, ?, ?)"
)
INSERT_SNAPSHOT: Final = (
    "INSERT INTO snapshots (encounter_id, seq, phase_no, opened_seq, parent_seq, state, created_at) "
    "VALUES (?, ?, ?, ?, ?, ?, ?)"
)
# a phase change moves the encounter to another snapshot and opens the phase's orders anew; the phase it moves
# to has not been shown in the channel yet (``announced_id``)
MOVE_TO_SNAPSHOT: Final = (
    "UPDATE encounters SET phase_no = ?, snapshot_seq = ?, opened_seq = ?, last_seq = ?, updated_at = ?, "
    "announced_id = 0 WHERE id = ?"
)


def encounter_from(row: Row) -> Encounter:
    """A row of ``SELECT {ENCOUNTER_COLUMNS}``."""
    return Encounter(
        id=row["id"],
        guild_id=row["guild_id"],
        channel_id=row["channel_id"],
        ruleset=row["ruleset"],
        name=row["name"],
        created_by=row["created_by"],
        status=row["status"],
        phase_no=row["phase_no"],
        settings=loads(row["settings"]),
        last_seq=row["last_seq"],
        created_at=parse_time(row["created_at"]),
        updated_at=parse_time(row["updated_at"]),
    )


def participant_from(encounter_id: int, row: Row) -> Participant:
    # '' stands for "none" in the table, so that the primary key can cover side and unit
    return Participant(encounter_id, row["user_id"], row["role"], row["side"] or None, row["unit"] or None)


def events_from(encounter_id: int, rows: Sequence[Row]) -> list[StoredEvent]:
    """Rows of ``SELECT_EVENTS``. The payloads are decoded with one ``json.loads`` of a joined array: a third of
    the cost of one call per event, which keeps a 1,000-event load within budget."""
    payloads = cast(list[JsonDict], json.loads("[" + ",".join(row["payload"] for row in rows) + "]"))
    return [
        StoredEvent(
            encounter_id, row["seq"], row["type"], payload, row["phase_no"], parse_time(row["created_at"])
        )
        for row, payload in zip(rows, payloads, strict=True)
    ]
