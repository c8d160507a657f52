"""The pbw data tables (``data/pbw/*.toml``): weapons, range bands, terrain and cover, hit locations, the turn.

Every [HOUSE] number of RULES.md §3.2 lives in these files, so a director can replace them with the book's; each
table is checked once when first used and a bad value names its file and key.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any, cast

from data.loader import TableError, load_table

#: PBW-4 locations, in the order of the seed's table (head, right arm, left arm, torso, right leg, left leg)
LOCATIONS = ("head", "ra", "la", "torso", "rl", "ll")
ARMS = ("ra", "la")
LEGS = ("rl", "ll")
SKILLS = ("ranged", "melee", "fight", "athletics", "medicine")  # medicine: PBW-6
#: the items a character may carry (``items = [...]``): a medical kit lets one with Medicine treat (PBW-6)
ITEMS = ("medkit",)
MEDKIT = "medkit"
ATTRIBUTES = ("agility", "strength", "perception")
BANDS = ("short", "medium", "long", "extreme")

_DAMAGE = re.compile(r"^(\d+)d(\d+)([+-]\d+)?$")

_WEAPON_SCHEMA: dict[str, Any] = {
    "weapons": {
        "*": {
            "skill": str,
            "attribute": str,
            "damage": str,
            "accuracy": int,
            "hands": int,
            "capacity?": int,
            "ranges?": [int],
        }
    }
}
_RANGES_SCHEMA: dict[str, Any] = {"difficulty": {b: int for b in BANDS}}
_TERRAIN_SCHEMA: dict[str, Any] = {
    "kinds": {"*": {"blocks_move": bool, "blocks_sight": bool, "cover": int}},
    "cover": {"reach": int},
}
_LOCATIONS_SCHEMA: dict[str, Any] = {"ranged": {"*": str}, "melee": {"*": str}}
_TURN_SCHEMA: dict[str, Any] = {
    "actions": {"normal": int, "tired": int, "exhausted": int, "exhausted_at": int},
    "fatigue": {"athletics": int, "melee_attack": int, "melee_defence": int, "rest": int},
    "movement": {"crawl": int, "athletics_difficulty": int, "athletics_attribute": str},
    "modifiers": {"attacker_moved": int, "target_moved": int, "aim": int},
    "melee": {"difficulty": int, "tie": str, "opposed_skill_zero": int},
}


@dataclass(frozen=True, slots=True)
class Damage:
    """Weapon damage dice ``NdS+K`` (PBW-4)."""

    count: int
    sides: int
    bonus: int

    @property
    def text(self) -> str:
        bonus = f"{self.bonus:+d}" if self.bonus else ""
        return f"{self.count}d{self.sides}{bonus}"


@dataclass(frozen=True, slots=True)
class WeaponType:
    """One row of ``weapons.toml``."""

    key: str
    skill: str
    attribute: str
    damage: Damage
    accuracy: int
    hands: int
    capacity: int = 0
    ranges: tuple[int, ...] = ()  # farthest hex of each band, short → extreme (ranged only)

    @property
    def ranged(self) -> bool:
        return self.skill == "ranged"

    @property
    def fists(self) -> bool:
        """Never held, never drawn: an unarmed attack needs only one working arm."""
        return self.hands == 0

    def band(self, distance: int) -> str | None:
        """The range band of ``distance`` hexes, or None beyond extreme (the shot is illegal)."""
        for name, last in zip(BANDS, self.ranges, strict=True):
            if distance <= last:
                return name
        return None


@dataclass(frozen=True, slots=True)
class TerrainKind:
    blocks_move: bool
    blocks_sight: bool
    cover: int


@dataclass(frozen=True, slots=True)
class PbwTables:
    weapons: Mapping[str, WeaponType]
    band_difficulty: Mapping[str, int]
    terrain: Mapping[str, TerrainKind]
    cover_reach: int
    locations: Mapping[str, Mapping[int, str]]  # "ranged" | "melee" → d10 face → location
    actions_normal: int
    actions_tired: int
    actions_exhausted: int
    exhausted_at: int
    fatigue_athletics: int
    fatigue_melee_attack: int
    fatigue_melee_defence: int
    fatigue_rest: int
    crawl: int
    athletics_difficulty: int
    athletics_attribute: str
    mod_attacker_moved: int
    mod_target_moved: int
    mod_aim: int
    melee_difficulty: int
    melee_tie_defender: bool
    opposed_skill_zero: int

    def weapon(self, key: str) -> WeaponType:
        return self.weapons[key]

    def kind(self, name: str | None) -> TerrainKind | None:
        return self.terrain.get(name) if name else None


def parse_damage(text: str) -> Damage | None:
    m = _DAMAGE.match(text.replace(" ", ""))
    if m is None or int(m.group(1)) < 1 or int(m.group(2)) < 2:
        return None
    return Damage(int(m.group(1)), int(m.group(2)), int(m.group(3) or 0))


def _weapons() -> dict[str, WeaponType]:
    raw = load_table("pbw/weapons", _WEAPON_SCHEMA)
    out: dict[str, WeaponType] = {}
    problems: list[str] = []
    for key, row in cast(dict[str, dict[str, Any]], raw["weapons"]).items():
        where = f"weapons.{key}"
        damage = parse_damage(str(row["damage"]))
        if damage is None:
            problems.append(f"{where}.damage: {row['damage']!r} is not dice like '2d6+2'")
        if row["skill"] not in ("ranged", "melee", "fight"):
            problems.append(f"{where}.skill: {row['skill']!r} is not ranged, melee or fight")
        if row["attribute"] not in ATTRIBUTES:
            problems.append(f"{where}.attribute: {row['attribute']!r} is not one of {', '.join(ATTRIBUTES)}")
        if row["hands"] not in (0, 1, 2):
            problems.append(f"{where}.hands: must be 0 (fists), 1 or 2")
        ranges = tuple(int(x) for x in row.get("ranges", []))
        ranged = row["skill"] == "ranged"
        if ranged and (len(ranges) != len(BANDS) or list(ranges) != sorted(ranges) or ranges[0] < 1):
            problems.append(f"{where}.ranges: four increasing distances (short, medium, long, extreme)")
        if ranged and int(row.get("capacity", 0)) < 1:
            problems.append(f"{where}.capacity: a ranged weapon holds at least one round")
        if not ranged and ("ranges" in row or "capacity" in row):
            problems.append(f"{where}: only ranged weapons have ranges and capacity")
        if damage is not None:
            out[key] = WeaponType(
                key=key,
                skill=str(row["skill"]),
                attribute=str(row["attribute"]),
                damage=damage,
                accuracy=int(row["accuracy"]),
                hands=int(row["hands"]),
                capacity=int(row.get("capacity", 0)),
                ranges=ranges,
            )
    if "fists" not in out or not out["fists"].fists:
        problems.append("weapons.fists: the unarmed attack (hands = 0) is required")
    if problems:
        raise TableError("data/pbw/weapons.toml", problems)
    return out


def _locations() -> dict[str, dict[int, str]]:
    raw = load_table("pbw/locations", _LOCATIONS_SCHEMA)
    out: dict[str, dict[int, str]] = {}
    problems: list[str] = []
    for column in ("ranged", "melee"):
        table = cast(dict[str, str], raw[column])
        out[column] = {}
        for face in range(1, 11):
            value = table.get(str(face))
            if value not in LOCATIONS:
                problems.append(f"{column}.{face}: {value!r} is not one of {', '.join(LOCATIONS)}")
            else:
                out[column][face] = value
    if problems:
        raise TableError("data/pbw/locations.toml", problems)
    return out


@cache
def tables() -> PbwTables:
    """Load and check every pbw table once per process."""
    ranges = load_table("pbw/ranges", _RANGES_SCHEMA)
    terrain = load_table("pbw/terrain", _TERRAIN_SCHEMA)
    turn = load_table("pbw/turn", _TURN_SCHEMA)
    if turn["melee"]["tie"] not in ("defender", "attacker"):
        raise TableError("data/pbw/turn.toml", ["melee.tie: 'defender' or 'attacker'"])
    if turn["movement"]["athletics_attribute"] not in ATTRIBUTES:
        raise TableError(
            "data/pbw/turn.toml", [f"movement.athletics_attribute: one of {', '.join(ATTRIBUTES)}"]
        )
    a, f, mv, md, me = turn["actions"], turn["fatigue"], turn["movement"], turn["modifiers"], turn["melee"]
    return PbwTables(
        weapons=_weapons(),
        band_difficulty=dict(cast(dict[str, int], ranges["difficulty"])),
        terrain={
            name: TerrainKind(bool(k["blocks_move"]), bool(k["blocks_sight"]), int(k["cover"]))
            for name, k in cast(dict[str, dict[str, Any]], terrain["kinds"]).items()
        },
        cover_reach=int(terrain["cover"]["reach"]),
        locations=_locations(),
        actions_normal=int(a["normal"]),
        actions_tired=int(a["tired"]),
        actions_exhausted=int(a["exhausted"]),
        exhausted_at=int(a["exhausted_at"]),
        fatigue_athletics=int(f["athletics"]),
        fatigue_melee_attack=int(f["melee_attack"]),
        fatigue_melee_defence=int(f["melee_defence"]),
        fatigue_rest=int(f["rest"]),
        crawl=int(mv["crawl"]),
        athletics_difficulty=int(mv["athletics_difficulty"]),
        athletics_attribute=str(mv["athletics_attribute"]),
        mod_attacker_moved=int(md["attacker_moved"]),
        mod_target_moved=int(md["target_moved"]),
        mod_aim=int(md["aim"]),
        melee_difficulty=int(me["difficulty"]),
        melee_tie_defender=me["tie"] == "defender",
        opposed_skill_zero=int(me["opposed_skill_zero"]),
    )
