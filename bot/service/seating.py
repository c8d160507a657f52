"""Who plays the units nobody took, so the table never waits on nobody.

At the start the director is told, privately, which units have no player, and picks for each, in one click: a
member plays it, the director plays it (the default: nothing to do), or it follows the ruleset's stand-in order
every time it is awaited (``Ruleset.stand_in_order``; SK-1.1: a skirmish character ends its activation).
"""

from __future__ import annotations

from bot.permissions import STAND_INS, Actor, holder_of, stand_ins
from bot.results import refuse
from bot.service.base import ServiceBase, orderable
from rules.state import Unit

#: the choices for a unit nobody plays, as the director's menu sends them
SEAT_DIRECTOR = "director"
SEAT_STAND_IN = "stand_in"
SEAT_PLAYER = "player:"  # followed by the member's id


class SeatingActions(ServiceBase):
    async def unplayed(self, encounter_id: int) -> list[Unit]:
        """The units no player holds (hidden ones included: only the director is shown them)."""
        reading = await self.read(encounter_id)
        held = {p.unit for p in reading.parts if p.role == "player" and p.unit}
        return [u for u in reading.state.units.values() if orderable(u) and u.id not in held]

    async def seat_choice(self, encounter_id: int, unit_id: str) -> str:
        """The unit's choice as it stands: its player's, the stand-in order, or the director."""
        reading = await self.read(encounter_id)
        holder = holder_of(unit_id, reading.parts)
        if holder is not None:
            return f"{SEAT_PLAYER}{holder}"
        return SEAT_STAND_IN if unit_id in stand_ins(reading.meta.settings) else SEAT_DIRECTOR

    async def seat(self, encounter_id: int, actor: Actor, unit_id: str, choice: str) -> None:
        """The director's choice for ``unit_id`` (one of the ``SEAT_*``): a player's row for the unit is replaced
        (a member) or removed (the director, the stand-in order); the stand-in list follows."""
        reading = await self.read(encounter_id)
        meta, state = reading.meta, reading.state
        await self.require_director(meta, actor)
        if meta.status == "ended":
            raise refuse("encounter.ended", "This encounter has ended.")
        unit = state.units.get(unit_id)
        if unit is None or not orderable(unit):
            raise refuse("unit.unknown", f"There is no unit called {unit_id!r}.", unit=unit_id[:40])
        ins = set(stand_ins(meta.settings))
        holder = holder_of(unit_id, reading.parts)
        if choice.startswith(SEAT_PLAYER):
            member = choice.removeprefix(SEAT_PLAYER)
            if not member.isdigit():
                raise refuse("seat.bad_choice", "That choice is not on the menu.")
            await self.storage.add_participant(
                encounter_id, int(member), "player", unit.side, unit.id, reassign=True
            )
            ins.discard(unit_id)
        elif choice in (SEAT_DIRECTOR, SEAT_STAND_IN):
            if holder is not None:
                await self.storage.remove_participant(encounter_id, holder, role="player", unit=unit_id)
            if choice == SEAT_STAND_IN:
                ins.add(unit_id)
            else:
                ins.discard(unit_id)
        else:
            raise refuse("seat.bad_choice", "That choice is not on the menu.")
        if ins != set(stand_ins(meta.settings)):
            await self.storage.update_settings(encounter_id, **{STAND_INS: sorted(ins)})
