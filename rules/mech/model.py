"""Mech pieces: BattleMechs and vehicles with per-location armour and structure, weapons by mount, heat.

One class serves every kind (``kind`` = ``"mech"``, ``"vehicle"``, ``"helicopter"`` or ``"fighter"``, DESIGN
§7.1): what differs is the set of locations, the arcs of the mounts, how it moves and whether heat is kept
(vehicles and helicopters make none; a fighter keeps it like a BattleMech, MECH-5).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from rules.hexgrid import Hex
from rules.mech.tables import ARMS, LEGS, MECH_LOCATIONS, VEHICLE_LOCATIONS, WeaponType, tables
from rules.serial import serializable
from rules.state import Unit

MECH, VEHICLE, HELICOPTER, FIGHTER = "mech", "vehicle", "helicopter", "fighter"
KINDS = (MECH, VEHICLE, HELICOPTER, FIGHTER)
AIR_KINDS = (HELICOPTER, FIGHTER)  # MECH-5


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class MechWeapon:
    """One weapon: its type (a key of ``data/mech/weapons.toml``), its location, and whether it faces rear."""

    type: str
    loc: str
    rear: bool = False

    @property
    def spec(self) -> WeaponType:
        return tables().weapons[self.type]


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class Mech(Unit):
    """A BattleMech or a vehicle (MECH-1.1 … MECH-3.2). ``facing`` is the legs'/hull's hexside; ``twist`` is the
    torso's offset from it (−1 left, +1 right, MECH-1.3), set by the turn's declaration."""

    kind: str = MECH
    tonnage: int = 50
    walk: int = 4
    run: int = 6
    jump: int = 0
    heat_sinks: int = 10
    initiative: int = 0
    tactics: int = 0
    gunnery: int = 0
    piloting: int = 0
    armor: Mapping[str, int] = field(default_factory=lambda: dict[str, int]())
    structure: Mapping[str, int] = field(default_factory=lambda: dict[str, int]())
    max_armor: Mapping[str, int] = field(default_factory=lambda: dict[str, int]())
    max_structure: Mapping[str, int] = field(default_factory=lambda: dict[str, int]())
    weapons: tuple[MechWeapon, ...] = ()
    heat: int = 0
    twist: int = 0
    shutdown: bool = False
    prone: bool = False
    #: MECH-5 [HOUSE]: a fighter that failed an out-of-control roll flies straight at max speed next turn and
    #: fires nothing
    out_of_control: bool = False
    #: MECH-5 [HOUSE]: the last hex of the board a fighter flew off from (``at`` is None meanwhile); it comes back
    #: there at the next turn's initiative
    off_board: Hex | None = None

    # --- derived --------------------------------------------------------------------------------------------
    @property
    def is_mech(self) -> bool:
        return self.kind == MECH

    @property
    def is_air(self) -> bool:
        """MECH-5: a helicopter or a fighter (flies over terrain; never the target of a physical attack)."""
        return self.kind in AIR_KINDS

    @property
    def is_fighter(self) -> bool:
        return self.kind == FIGHTER

    @property
    def keeps_heat(self) -> bool:
        """MECH-3.1: BattleMechs and (MECH-5) fighters make and shed heat; vehicles and helicopters do not."""
        return self.kind in (MECH, FIGHTER)

    @property
    def locations(self) -> tuple[str, ...]:
        if self.is_mech:
            return MECH_LOCATIONS
        return tuple(loc for loc in VEHICLE_LOCATIONS if loc in self.structure)

    @property
    def torso(self) -> int:
        """Facing of the torso after twist (the hull's facing for a vehicle)."""
        return (self.facing + self.twist) % 6

    @property
    def immobile(self) -> bool:
        """MECH-2.3: a destroyed leg makes a mech immobile."""
        return self.is_mech and any(self.structure.get(leg, 1) <= 0 for leg in LEGS)

    @property
    def active(self) -> bool:
        return not self.destroyed and self.at is not None

    def location_destroyed(self, loc: str) -> bool:
        return self.structure.get(loc, 0) <= 0

    def weapon_usable(self, index: int) -> bool:
        """0-based ``index``: the weapon's location still stands."""
        return 0 <= index < len(self.weapons) and not self.location_destroyed(self.weapons[index].loc)

    def limb_usable(self, limb: str) -> bool:
        return limb in (*ARMS, *LEGS) and self.is_mech and not self.location_destroyed(limb)

    @property
    def carries_ammo(self) -> bool:
        """MECH-3.2 / DESIGN §7.1: only units with an ammunition weapon (AC, SRM, LRM, MG) make ammo rolls."""
        return any(w.spec.ammo for w in self.weapons)
