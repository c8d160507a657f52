"""Turret gunners (EXO-1.3, EXO-1.5): each turret gunner mans one fixed turret, kept in ``Crew.turret``.

The assignment is made once at setup (gunner order onto turrets in weapon order) and changes only through a
station change (EXO-6.5). A gunner who is down (EXO-5.2) or busy repairing (EXO-6.2) leaves that turret silent:
nobody else fires it that round.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from rules.exo.crew import STATION_SKILL, Crew
from rules.exo.weapons import Mount, Weapon

GUNNER = "gunner"


def gunner_order(crew: Sequence[Crew]) -> list[Crew]:
    """EXO-1.5: gunner 1, gunner 2, … by skill, then crew-list order, whether able or not."""
    skill = STATION_SKILL[GUNNER]
    return sorted((c for c in crew if c.station == GUNNER), key=lambda c: -c.skill(skill))


def turret_indexes(weapons: Sequence[Weapon]) -> list[int]:
    """0-based indexes of the turret weapons, in weapon order."""
    return [i for i, w in enumerate(weapons) if w.mount is Mount.TURRET]


def assign_turrets(weapons: Sequence[Weapon], crew: Sequence[Crew]) -> tuple[Crew, ...]:
    """EXO-1.5 setup: gunners in gunner order man the turrets in weapon order, one each."""
    turrets = turret_indexes(weapons)
    owner = {g.name: i + 1 for g, i in zip(gunner_order(crew), turrets, strict=False)}
    return tuple(dataclasses.replace(c, turret=owner.get(c.name, 0)) for c in crew)


def turret_handler(weapons: Sequence[Weapon], crew: Sequence[Crew], index: int) -> Crew | None:
    """The gunner assigned to turret ``index`` (0-based), able or not; None for an unmanned turret or non-turret."""
    if not 0 <= index < len(weapons) or weapons[index].mount is not Mount.TURRET:
        return None
    return next((c for c in crew if c.station == GUNNER and c.turret == index + 1), None)


def turret_takeover(weapons: Sequence[Weapon], crew: Sequence[Crew], newcomer: str) -> tuple[Crew, ...]:
    """EXO-6.5: a crew member who moves to the gunner station takes the first turret (weapon order) that has no
    gunner or whose gunner is down; the fallen gunner loses it. With no such turret the newcomer mans none."""
    members = list(crew)
    for index in turret_indexes(weapons):
        handler = turret_handler(weapons, members, index)
        if handler is not None and not handler.down:
            continue
        if handler is not None:
            members[members.index(handler)] = dataclasses.replace(handler, turret=0)
        members = [dataclasses.replace(c, turret=index + 1) if c.name == newcomer else c for c in members]
        break
    return tuple(members)
