"""Crew members and stations (EXO-1.5): who is station 1, who assists, who fires in which order."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from rules.serial import serializable

STATIONS = ("captain", "pilot", "navigator", "engineer", "gunner", "technician", "medic")
SKILLS = (
    "piloting",
    "gunnery",
    "command",
    "navigation",
    "drives",
    "weapons_tech",
    "auxiliary_tech",
    "first_aid",
)
#: the skill a station rolls (EXO-2.1, EXO-3.4, EXO-4.1, EXO-6.1, EXO-6.4); it also ranks crew sharing a station
STATION_SKILL = {
    "captain": "command",
    "pilot": "piloting",
    "navigator": "navigation",
    "engineer": "drives",
    "gunner": "gunnery",
    "technician": "drives",
    "medic": "first_aid",
}
ACTIVE = "active"


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class Crew:
    """One crew member. ``status`` is ``active`` or an injury (EXO-5.2: out of action until treated)."""

    name: str
    station: str
    skills: Mapping[str, int] = field(default_factory=lambda: dict[str, int]())
    status: str = ACTIVE
    repaired_round: int = 0  # last round this member tried a repair (EXO-6.2 busy the round after)
    turret: int = 0  # gunners: 1-based index of the turret this gunner mans, 0 = none (EXO-1.5, ``turrets``)
    npc: bool = False
    damage: int = (
        0  # EXO-5.3: damage rolled when this member fell (summed over falls), for the character sheet
    )

    def skill(self, key: str) -> int:
        return self.skills.get(key, 0)

    @property
    def down(self) -> bool:
        return self.status != ACTIVE

    def busy(self, round_no: int) -> bool:
        """EXO-6.2: after a repair attempt, nothing but repairs the next round."""
        return self.repaired_round > 0 and self.repaired_round == round_no - 1

    def able(self, round_no: int) -> bool:
        return not self.down and not self.busy(round_no)


MEDIC = "medic"
BOARDING = "boarding"  # EXO-4.8 [HOUSE]: off their station, aboard another ship (not one of STATIONS)
FIRST_AID = "cabin"  # the repair item of first aid: one cabin point, a crew member back (EXO-6.4)


def may_try(member: Crew, item: str) -> bool:
    """Whether ``member``'s station lets it try this repair: first aid only at the medic station (EXO-6.4, seed:
    "El Oficial médico puede…"); engines, weapons and cargo by anyone (EXO-6.1)."""
    return item != FIRST_AID or member.station == MEDIC


def roster(crew: Sequence[Crew], station: str, round_no: int) -> list[Crew]:
    """Able crew at ``station``, station 1 first: highest skill, then the order of the crew list (EXO-1.5)."""
    skill = STATION_SKILL[station]
    at_station = [c for c in crew if c.station == station and c.able(round_no)]
    return sorted(at_station, key=lambda c: -c.skill(skill))


def station_one(crew: Sequence[Crew], station: str, round_no: int) -> Crew | None:
    members = roster(crew, station, round_no)
    return members[0] if members else None


def find_crew(crew: Sequence[Crew], name: str) -> Crew | None:
    folded = name.casefold()
    return next((c for c in crew if c.name.casefold() == folded), None)


def resolve_crew_ref(crew: Sequence[Crew], ref: str, round_no: int) -> Crew | None:
    """A crew member by name, or by station reference: ``pilot``, ``gunner2``, ``captain`` (station 1)."""
    by_name = find_crew(crew, ref)
    if by_name is not None:
        return by_name
    lowered = ref.strip().lower().replace(" ", "")
    for station in STATIONS:
        if lowered == station:
            return station_one(crew, station, round_no)
        if lowered.startswith(station) and lowered[len(station) :].isdigit():
            n = int(lowered[len(station) :])
            members = roster(crew, station, round_no)
            return members[n - 1] if 1 <= n <= len(members) else None
    return None


def npc_crew(cabin: int, stations: Sequence[str], skills: Mapping[str, int]) -> tuple[Crew, ...]:
    """EXO-1.5b: an NPC crew, one per cabin point, stations filled in the table's order."""
    out: list[Crew] = []
    counts: dict[str, int] = {}
    for station in stations[:cabin]:
        counts[station] = counts.get(station, 0) + 1
        name = station if counts[station] == 1 else f"{station}-{counts[station]}"
        out.append(Crew(name=name, station=station, skills=dict(skills), npc=True))
    return tuple(out)
