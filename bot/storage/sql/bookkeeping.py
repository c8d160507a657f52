"""What the bot keeps beside the game: guild settings, phase deadlines and which Discord message shows what.
None of it is on the event log."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from ..base import UNSET, Deadline, GuildSettings, MessageRef, Unset
from .codec import parse_time, timestamp
from .core import SqlCore


class Bookkeeping(SqlCore):
    # --- guild settings -------------------------------------------------------------------------------------

    async def get_guild_settings(self, guild_id: int) -> GuildSettings:
        async with self._read() as db:
            row = await db.fetch_row(
                "SELECT language, director_role_id, default_deadline_minutes, tutorial_shown "
                "FROM guild_settings WHERE guild_id = ?",
                (guild_id,),
            )
        if row is None:
            return GuildSettings(guild_id)
        return GuildSettings(
            guild_id,
            row["language"],
            row["director_role_id"],
            row["default_deadline_minutes"],
            bool(row["tutorial_shown"]),
        )

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
        changes["updated_at"] = timestamp(self._clock())
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
        due = None if when_utc is None else timestamp(when_utc)
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
                (timestamp(now),),
            )
        return [Deadline(row["encounter_id"], row["phase_no"], parse_time(row["due_at"])) for row in rows]

    # --- message bookkeeping --------------------------------------------------------------------------------

    async def set_message_ref(
        self, encounter_id: int, kind: str, key: str, channel_id: int, message_id: int
    ) -> None:
        now = timestamp(self._clock())
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
            row = await db.fetch_row(
                "SELECT channel_id, message_id FROM message_refs WHERE encounter_id = ? AND kind = ? AND key = ?",
                (encounter_id, kind, key),
            )
        return (
            MessageRef(encounter_id, kind, key, row["channel_id"], row["message_id"])
            if row is not None
            else None
        )

    async def message_refs(self, encounter_id: int, kind: str | None = None) -> list[MessageRef]:
        sql = "SELECT kind, key, channel_id, message_id FROM message_refs WHERE encounter_id = ?"
        params: list[Any] = [encounter_id]
        if kind is not None:
            sql += " AND kind = ?"
            params.append(kind)
        async with self._read() as db:
            rows = await db.fetch(sql + " ORDER BY kind, key", params)
        return [
            MessageRef(encounter_id, row["kind"], row["key"], row["channel_id"], row["message_id"])
            for row in rows
        ]

    async def delete_message_ref(self, encounter_id: int, kind: str, key: str) -> bool:
        async with self._write() as db:
            deleted = await db.execute(
                "DELETE FROM message_refs WHERE encounter_id = ? AND kind = ? AND key = ?",
                (encounter_id, kind, key),
            )
        return deleted > 0
