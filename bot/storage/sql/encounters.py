"""Encounter rows: creating an encounter with its first snapshot, finding it, its status and its settings."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..model import (
    ENCOUNTER_CREATED,
    SETTINGS_CHANGED,
    STATUS_CHANGED,
    STATUSES,
    ChannelBusyError,
    Encounter,
    EncounterNotFoundError,
    EncounterStatus,
)
from .codec import dumps, loads, timestamp
from .core import SqlCore
from .rows import (
    ENCOUNTER_COLUMNS,
    INSERT_ENCOUNTER,
    INSERT_EVENT,
    INSERT_SNAPSHOT,
    SELECT_ENCOUNTER,
    encounter_from,
)


class EncounterRows(SqlCore):
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
        settings_text = dumps(settings or {})
        state_text = dumps(state)
        created = dumps(
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
        now = timestamp(self._clock())
        async with self._write() as db:
            try:
                (row,) = await db.fetch(
                    INSERT_ENCOUNTER + "VALUES (?, ?, ?, ?, ?, 'open', ?, ?, 1, 1, 1, ?, ?) RETURNING id",
                    (guild_id, channel_id, ruleset, name, created_by, settings_text, phase_no, now, now),
                )
            except self._driver.integrity_errors as error:
                raise ChannelBusyError(guild_id, channel_id) from error
            encounter_id: int = row["id"]
            await db.execute(INSERT_EVENT, (encounter_id, 1, ENCOUNTER_CREATED, created, phase_no, now))
            await db.execute(INSERT_SNAPSHOT, (encounter_id, 1, phase_no, 1, None, state_text, now))
        return encounter_id

    async def get_encounter(self, encounter_id: int) -> Encounter:
        async with self._read(encounter_id) as db:
            row = await db.fetch_row(SELECT_ENCOUNTER, (encounter_id,))
        if row is None:
            raise EncounterNotFoundError(encounter_id)
        return encounter_from(row)

    async def active_encounter_in_channel(self, guild_id: int, channel_id: int) -> Encounter | None:
        async with self._read() as db:
            row = await db.fetch_row(
                f"SELECT {ENCOUNTER_COLUMNS} FROM encounters "
                "WHERE guild_id = ? AND channel_id = ? AND status != 'ended'",
                (guild_id, channel_id),
            )
        return encounter_from(row) if row is not None else None

    async def list_encounters(self, guild_id: int, active_only: bool = False) -> list[Encounter]:
        condition = " AND status != 'ended'" if active_only else ""
        async with self._read() as db:
            rows = await db.fetch(
                f"SELECT {ENCOUNTER_COLUMNS} FROM encounters WHERE guild_id = ?{condition} ORDER BY id",
                (guild_id,),
            )
        return [encounter_from(row) for row in rows]

    async def count_open_encounters(self, guild_id: int, created_by: int) -> int:
        async with self._read() as db:
            row = await db.fetch_row(
                "SELECT COUNT(*) AS open_count FROM encounters "
                "WHERE guild_id = ? AND created_by = ? AND status != 'ended'",
                (guild_id, created_by),
            )
        return int(row["open_count"]) if row is not None else 0

    async def running_encounters(self) -> list[Encounter]:
        async with self._read() as db:
            rows = await db.fetch(
                f"SELECT {ENCOUNTER_COLUMNS} FROM encounters WHERE status = 'running' ORDER BY id", ()
            )
        return [encounter_from(row) for row in rows]

    async def set_encounter_status(self, encounter_id: int, status: EncounterStatus) -> Encounter:
        if status not in STATUSES:
            raise ValueError(f"unknown encounter status {status!r}")
        now = timestamp(self._clock())
        async with self._write(encounter_id) as db:
            head = await self._head(db, encounter_id)
            if head.status != status:
                try:
                    await db.execute("UPDATE encounters SET status = ? WHERE id = ?", (status, encounter_id))
                except self._driver.integrity_errors as error:
                    raise ChannelBusyError(head.guild_id, head.channel_id) from error
                payload = dumps({"from": head.status, "to": status})
                await self._log(db, encounter_id, head, [(STATUS_CHANGED, payload)], now)
        return await self.get_encounter(encounter_id)

    async def note_settings(self, encounter_id: int, **changes: Any) -> None:
        async with self._write(encounter_id, durable=False) as db:
            await self._head(db, encounter_id)  # locks the row (PostgreSQL): no lost concurrent update
            (row,) = await db.fetch("SELECT settings FROM encounters WHERE id = ?", (encounter_id,))
            await db.execute(
                "UPDATE encounters SET settings = ? WHERE id = ?",
                (dumps(_merged(loads(row["settings"]), changes)), encounter_id),
            )

    async def update_settings(self, encounter_id: int, **changes: Any) -> Encounter:
        await self.swap_settings(encounter_id, **changes)
        return await self.get_encounter(encounter_id)

    async def swap_settings(self, encounter_id: int, **changes: Any) -> tuple[dict[str, Any], dict[str, Any]]:
        now = timestamp(self._clock())
        async with self._write(encounter_id) as db:
            head = await self._head(db, encounter_id)  # locks the encounter until the change is written
            (row,) = await db.fetch("SELECT settings FROM encounters WHERE id = ?", (encounter_id,))
            before: dict[str, Any] = loads(row["settings"])
            settings = _merged(dict(before), changes)
            await db.execute(
                "UPDATE encounters SET settings = ? WHERE id = ?", (dumps(settings), encounter_id)
            )
            payload = dumps({"changes": changes})
            await self._log(db, encounter_id, head, [(SETTINGS_CHANGED, payload)], now)
        return before, settings


def _merged(settings: dict[str, Any], changes: Mapping[str, Any]) -> dict[str, Any]:
    """``settings`` with ``changes`` applied: a value of ``None`` removes the key."""
    for key, value in changes.items():
        if value is None:
            settings.pop(key, None)
        else:
            settings[key] = value
    return settings
