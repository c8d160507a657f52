"""What the bot keeps beside the game: guild settings, a person's own settings and DM channel, phase deadlines and
which Discord message shows what. None of it is on the event log."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from ..model import UNSET, Deadline, EncounterNotFoundError, GuildSettings, MessageRef, PhaseShown, Unset
from .codec import parse_time, timestamp
from .core import SqlCore
from .driver import Row


class Bookkeeping(SqlCore):
    # --- guild settings -------------------------------------------------------------------------------------

    async def get_guild_settings(self, guild_id: int) -> GuildSettings:
        async with self._read() as db:
            row = await db.fetch_row(
                "SELECT language, director_role_id, default_deadline_minutes, tutorial_shown, "
                "max_open_encounters, import_managers_only, idle_reminder_hours, palette FROM guild_settings "
                "WHERE guild_id = ?",
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
            row["max_open_encounters"],
            bool(row["import_managers_only"]),
            row["idle_reminder_hours"],
            row["palette"],
        )

    async def set_guild_settings(
        self,
        guild_id: int,
        *,
        language: str | Unset | None = UNSET,
        director_role_id: int | Unset | None = UNSET,
        default_deadline_minutes: int | Unset | None = UNSET,
        tutorial_shown: bool | Unset = UNSET,
        max_open_encounters: int | Unset | None = UNSET,
        import_managers_only: bool | Unset = UNSET,
        idle_reminder_hours: int | Unset | None = UNSET,
        palette: str | Unset | None = UNSET,
    ) -> GuildSettings:
        if isinstance(default_deadline_minutes, int) and default_deadline_minutes <= 0:
            raise ValueError("the default deadline must be a positive number of minutes")
        if isinstance(max_open_encounters, int) and max_open_encounters < 0:
            raise ValueError("the open encounters limit cannot be negative")
        if isinstance(idle_reminder_hours, int) and idle_reminder_hours <= 0:
            raise ValueError("the idle reminder must be a positive number of hours")
        changes: dict[str, Any] = {
            name: value
            for name, value in (
                ("language", language),
                ("director_role_id", director_role_id),
                ("default_deadline_minutes", default_deadline_minutes),
                ("tutorial_shown", tutorial_shown),
                ("max_open_encounters", max_open_encounters),
                ("import_managers_only", import_managers_only),
                ("idle_reminder_hours", idle_reminder_hours),
                ("palette", palette),
            )
            if not isinstance(value, Unset)
        }
        for flag in ("tutorial_shown", "import_managers_only"):
            if flag in changes:
                changes[flag] = int(bool(changes[flag]))
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

    async def get_user_palette(self, user_id: int) -> str | None:
        cache = self._palettes
        if cache is not None and user_id in cache:
            return cache[user_id]
        writes = self._palette_writes
        async with self._read() as db:
            row = await db.fetch_row("SELECT palette FROM user_settings WHERE user_id = ?", (user_id,))
        palette: str | None = None if row is None else row["palette"]
        if cache is not None and writes == self._palette_writes:  # no choice was written while this read ran
            cache[user_id] = palette
        return palette

    async def set_user_palette(self, user_id: int, palette: str | None) -> None:
        cache = self._palettes
        self._palette_writes += 1
        if cache is not None:  # a failed write leaves the choice unknown: read again next time
            cache.pop(user_id, None)
        async with self._write() as db:
            await db.execute(
                "INSERT INTO user_settings (user_id, palette, updated_at) VALUES (?, ?, ?) "
                "ON CONFLICT (user_id) DO UPDATE SET palette = excluded.palette, updated_at = excluded.updated_at",
                (user_id, palette, timestamp(self._clock())),
            )
        if cache is not None:
            cache[user_id] = palette

    async def dm_channel_of(self, user_id: int) -> int | None:
        async with self._read() as db:
            row = await db.fetch_row("SELECT channel_id FROM dm_channels WHERE user_id = ?", (user_id,))
        return None if row is None else int(row["channel_id"])

    async def set_dm_channel(self, user_id: int, channel_id: int) -> None:
        async with self._write(durable=False) as db:
            await db.execute(
                "INSERT INTO dm_channels (user_id, channel_id) VALUES (?, ?) "
                "ON CONFLICT (user_id) DO UPDATE SET channel_id = excluded.channel_id",
                (user_id, channel_id),
            )

    async def forget_dm_channel(self, user_id: int, channel_id: int) -> None:
        async with self._write(durable=False) as db:
            await db.execute(
                "DELETE FROM dm_channels WHERE user_id = ? AND channel_id = ?", (user_id, channel_id)
            )

    # --- timers ---------------------------------------------------------------------------------------------

    async def set_deadline(
        self,
        encounter_id: int,
        phase_no: int,
        when_utc: datetime | None,
        *,
        remind_at: datetime | None = None,
    ) -> None:
        due = None if when_utc is None else timestamp(when_utc)
        remind = None if remind_at is None or when_utc is None else timestamp(remind_at)
        async with self._write(encounter_id) as db:
            await self._head(db, encounter_id)
            if due is None:
                await db.execute("DELETE FROM deadlines WHERE encounter_id = ?", (encounter_id,))
            else:
                await self._put_deadline(db, encounter_id, phase_no, due, remind)

    async def deadline_of(self, encounter_id: int) -> Deadline | None:
        async with self._read(encounter_id) as db:
            rows = await db.fetch(
                "SELECT encounter_id, phase_no, due_at, remind_at FROM deadlines WHERE encounter_id = ?",
                (encounter_id,),
            )
        return _deadline(rows[0]) if rows else None

    async def due_deadlines(self, now: datetime) -> list[Deadline]:
        async with self._read() as db:
            rows = await db.fetch(
                "SELECT d.encounter_id, d.phase_no, d.due_at, d.remind_at FROM deadlines d "
                "JOIN encounters e ON e.id = d.encounter_id "
                "WHERE d.due_at <= ? AND e.status = 'running' AND e.phase_no = d.phase_no ORDER BY d.due_at",
                (timestamp(now),),
            )
        return [_deadline(row) for row in rows]

    async def claim_deadline(
        self, encounter_id: int, phase_no: int, now: datetime, lease_until: datetime
    ) -> bool:
        async with self._write(encounter_id) as db:
            await self._head(db, encounter_id)  # queued behind a resolution of this encounter being committed
            rows = await db.fetch(
                "UPDATE deadlines SET due_at = ? WHERE encounter_id = ? AND phase_no = ? AND due_at <= ? "
                "RETURNING encounter_id",
                (timestamp(lease_until), encounter_id, phase_no, timestamp(now)),
            )
        return bool(rows)

    async def clear_deadline(self, encounter_id: int, phase_no: int) -> bool:
        async with self._write(encounter_id) as db:
            deleted = await db.execute(
                "DELETE FROM deadlines WHERE encounter_id = ? AND phase_no = ?", (encounter_id, phase_no)
            )
        return deleted > 0

    async def due_reminders(self, now: datetime) -> list[Deadline]:
        async with self._read() as db:
            rows = await db.fetch(
                "SELECT d.encounter_id, d.phase_no, d.due_at, d.remind_at FROM deadlines d "
                "JOIN encounters e ON e.id = d.encounter_id "
                "WHERE d.remind_at IS NOT NULL AND d.remind_at <= ? AND e.status = 'running' "
                "AND e.phase_no = d.phase_no ORDER BY d.remind_at",
                (timestamp(now),),
            )
        return [_deadline(row) for row in rows]

    async def clear_reminder(self, encounter_id: int, phase_no: int) -> bool:
        async with self._write(encounter_id) as db:
            rows = await db.fetch(
                "UPDATE deadlines SET remind_at = NULL WHERE encounter_id = ? AND phase_no = ? "
                "AND remind_at IS NOT NULL RETURNING encounter_id",
                (encounter_id, phase_no),
            )
        return bool(rows)

    # --- message bookkeeping --------------------------------------------------------------------------------

    async def set_message_ref(
        self, encounter_id: int, kind: str, key: str, channel_id: int, message_id: int
    ) -> None:
        now = timestamp(self._clock())
        # which message shows a panel or the status: losing the newest one to a power cut only means it is sent
        # again, so it skips the disk sync that game state and orders get
        async with self._write(encounter_id, durable=False) as db:
            await self._head(db, encounter_id)
            await db.execute(
                "INSERT INTO message_refs (encounter_id, kind, key, channel_id, message_id, updated_at) "
                "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (encounter_id, kind, key) DO UPDATE SET "
                "channel_id = excluded.channel_id, message_id = excluded.message_id, updated_at = excluded.updated_at",
                (encounter_id, kind, key, channel_id, message_id, now),
            )

    async def claim_message_ref(
        self, encounter_id: int, kind: str, key: str, *, holder: int, stale_before: datetime
    ) -> bool:
        now = timestamp(self._clock())
        async with self._write(encounter_id, durable=False) as db:
            await self._head(db, encounter_id)
            rows = await db.fetch(
                "INSERT INTO message_refs (encounter_id, kind, key, channel_id, message_id, updated_at) "
                "VALUES (?, ?, ?, ?, 0, ?) ON CONFLICT (encounter_id, kind, key) DO UPDATE SET "
                "channel_id = excluded.channel_id, updated_at = excluded.updated_at "
                "WHERE message_refs.message_id = 0 "
                "AND (message_refs.updated_at < ? OR message_refs.channel_id = excluded.channel_id) "
                "RETURNING encounter_id",
                (encounter_id, kind, key, holder, now, timestamp(stale_before)),
            )
        return bool(rows)

    async def get_message_ref(self, encounter_id: int, kind: str, key: str) -> MessageRef | None:
        async with self._read(encounter_id) as db:
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
        async with self._read(encounter_id) as db:
            rows = await db.fetch(sql + " ORDER BY kind, key", params)
        return [
            MessageRef(encounter_id, row["kind"], row["key"], row["channel_id"], row["message_id"])
            for row in rows
        ]

    async def delete_message_ref(self, encounter_id: int, kind: str, key: str) -> bool:
        async with self._write(encounter_id) as db:
            deleted = await db.execute(
                "DELETE FROM message_refs WHERE encounter_id = ? AND kind = ? AND key = ?",
                (encounter_id, kind, key),
            )
        return deleted > 0

    # --- what the channel has shown of the current phase ------------------------------------------------------

    async def note_announcement(self, encounter_id: int, phase_no: int, message_id: int) -> bool:
        async with self._write(encounter_id, durable=False) as db:
            await self._head(db, encounter_id)  # the row's lock (PostgreSQL), as every write
            changed = await db.execute(
                "UPDATE encounters SET announced_id = ? WHERE id = ? AND phase_no = ? AND announced_id = 0",
                (message_id, encounter_id, phase_no),
            )
        return changed > 0

    async def announcement(self, encounter_id: int) -> PhaseShown:
        async with self._read(encounter_id) as db:
            row = await db.fetch_row(
                "SELECT phase_no, announced_id FROM encounters WHERE id = ?", (encounter_id,)
            )
        if row is None:
            raise EncounterNotFoundError(encounter_id)
        return PhaseShown(int(row["phase_no"]), int(row["announced_id"]))


def _deadline(row: Row) -> Deadline:
    remind = row["remind_at"]
    return Deadline(
        int(row["encounter_id"]),
        int(row["phase_no"]),
        parse_time(row["due_at"]),
        None if remind is None else parse_time(remind),
    )
