"""Participants: who directs and who plays which unit. A unit has one holder (a unique index)."""

from __future__ import annotations

from typing import Any

from ..model import PARTICIPANT_ADDED, PARTICIPANT_REMOVED, ROLES, Participant, Role, UnitTakenError
from .codec import dumps, timestamp
from .core import SqlCore
from .rows import SELECT_PARTICIPANTS, participant_from


class Participants(SqlCore):
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
        now = timestamp(self._clock())
        wanted = (user_id, role, side or "", unit or "")
        async with self._write(encounter_id) as db:
            head = await self._head(db, encounter_id)
            log: list[tuple[str, str]] = []
            if unit:
                holder = await db.fetch_row(
                    "SELECT user_id, role, side, unit FROM participants WHERE encounter_id = ? AND unit = ?",
                    (encounter_id, unit),
                )
                if holder is not None and (
                    (holder["user_id"], holder["role"], holder["side"], holder["unit"]) != wanted
                ):
                    if holder["user_id"] != user_id and not reassign:
                        raise UnitTakenError(encounter_id, unit, holder["user_id"])
                    await db.execute(
                        "DELETE FROM participants WHERE encounter_id = ? AND unit = ?", (encounter_id, unit)
                    )
                    removed = {
                        "user_id": holder["user_id"],
                        "role": holder["role"],
                        "side": holder["side"] or None,
                        "unit": unit,
                    }
                    log.append((PARTICIPANT_REMOVED, dumps(removed)))
            inserted = await db.execute(
                "INSERT INTO participants (encounter_id, user_id, role, side, unit, joined_at) "
                "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                (encounter_id, *wanted, now),
            )
            if inserted:
                added = {"user_id": user_id, "role": role, "side": side or None, "unit": unit or None}
                log.append((PARTICIPANT_ADDED, dumps(added)))
            if log:
                await self._log(db, encounter_id, head, log, now)
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
        now = timestamp(self._clock())
        async with self._write(encounter_id) as db:
            head = await self._head(db, encounter_id)
            rows = await db.fetch(f"SELECT role, side, unit FROM participants WHERE {condition}", params)
            if rows:
                await db.execute(f"DELETE FROM participants WHERE {condition}", params)
                log = [
                    (
                        PARTICIPANT_REMOVED,
                        dumps(
                            {
                                "user_id": user_id,
                                "role": row["role"],
                                "side": row["side"] or None,
                                "unit": row["unit"] or None,
                            }
                        ),
                    )
                    for row in rows
                ]
                await self._log(db, encounter_id, head, log, now)
        return len(rows)

    async def participants(self, encounter_id: int) -> list[Participant]:
        async with self._read(encounter_id) as db:
            await self._head(db, encounter_id)
            rows = await db.fetch(SELECT_PARTICIPANTS, (encounter_id,))
        return [participant_from(encounter_id, row) for row in rows]
