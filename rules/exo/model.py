"""Exo pieces: ships (EXO-1.1, EXO-1.2) and counters without orders (debris, asteroids)."""

from __future__ import annotations

from dataclasses import dataclass

from rules.exo.crew import Crew
from rules.exo.weapons import Weapon
from rules.hexgrid import Hex
from rules.serial import serializable
from rules.state import Unit

CRUISE_FACTOR = 2  # EXO-1.6: cruise speed is twice the maneuverability


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class Ship(Unit):
    """A ship and its vector counter. Current stats and their starting maximums (EXO-1.2)."""

    kind: str = "ship"
    vector: Hex | None = None  # EXO-1.1: where the ship will be next round if nothing changes
    maneuverability: int = 0
    engines: int = 0
    armor: int = 0
    structure: int = 1
    cabin: int = 0
    cargo: int = 0
    max_maneuverability: int = 0
    max_engines: int = 0
    max_armor: int = 0
    max_structure: int = 1
    max_cabin: int = 0
    max_cargo: int = 0
    weapons: tuple[Weapon, ...] = ()
    crew: tuple[Crew, ...] = ()
    manta: int = 0  # EXO-2.2: this round's maneuverability
    engines_beyond_repair: int = 0  # EXO-6.1 repair fumbles
    cargo_beyond_repair: int = 0
    small: bool = False  # EXO-3.7: a lesser target (persons, vehicles): space weapons do ×10 damage

    @property
    def velocity(self) -> Hex:
        if self.at is None or self.vector is None:
            return Hex(0, 0)
        return self.vector - self.at

    @property
    def adrift(self) -> bool:
        """EXO-2.3: without engines the ship can write no orders."""
        return self.engines <= 0

    @property
    def active(self) -> bool:
        return not self.destroyed and self.at is not None

    def weapon_label(self, index: int) -> str:
        """``"L#1"``: a weapon's code and its 1-based place in the expanded list."""
        return f"{self.weapons[index].code}#{index + 1}"


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class SpaceObject(Unit):
    """Debris or an asteroid: a counter without orders (EXO-1.2). Debris may drift (``vector``)."""

    kind: str = "debris"
    vector: Hex | None = None


def cruise_vector(at: Hex, facing: int, maneuverability: int) -> Hex:
    """EXO-1.6: the vector 2×M hexes straight ahead."""
    v = at
    for _ in range(CRUISE_FACTOR * maneuverability):
        v = v.neighbor(facing)
    return v
