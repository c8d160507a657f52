"""The tables of the ``mech`` ruleset (RULES.md §3.1), read from ``data/mech/*.toml`` and checked once.

Code holds no [HOUSE] number: weapons, terrain costs, the to-hit base 15, heat scale, hit locations and default
armour all come from here, so a director can put in the book's tables without touching code.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any, cast

from data.loader import TableError, load_table

MECH_LOCATIONS = ("head", "ct", "lt", "rt", "la", "ra", "ll", "rl")
VEHICLE_LOCATIONS = ("front", "left", "right", "rear", "turret")
ARMS = ("la", "ra")
LEGS = ("ll", "rl")
TORSO = ("head", "ct", "lt", "rt")
ARCS = ("front", "left", "right", "rear")

WEAPON_SCHEMA: dict[str, Any] = {
    "types": {
        "*": {
            "damage": int,
            "heat": int,
            "short": int,
            "medium": int,
            "long": int,
            "min": int,
            "missiles": int,
            "group": int,
            "ammo": bool,
        }
    }
}
TERRAIN_SCHEMA: dict[str, Any] = {
    "kinds": {"*": {"mp": int, "woods": bool, "cover": bool, "vehicles": bool}},
    "elevation": {
        "mp_per_level": int,
        "max_step": {"mech": int, "vehicle": int, "helicopter": int, "fighter": int},
        "height": {"mech": int, "vehicle": int, "helicopter": int, "fighter": int},
    },
}
_FRACTION = {"num": int, "den": int}
RULES_SCHEMA: dict[str, Any] = {
    "to_hit": {
        "base": int,
        "range": {"short": int, "medium": int, "long": int},
        "shooter": {"*": int},
        "immobile": int,
        "jumped": int,
        "woods": int,
        "partial_cover": int,
        "secondary_target": int,
        "air": {"helicopter": int, "front": int, "side": int, "fighter_flank": int},
        "target_moved": [{"from": int, "to": int, "modifier": int}],
    },
    "physical": {
        k: _FRACTION for k in ("punch", "kick", "melee", "charge", "charge_self", "dfa", "dfa_self")
    },
    "fall": {"difficulty": int, "damage": _FRACTION, "stand_up_mp": int},
}
HEAT_SCHEMA: dict[str, Any] = {
    "movement": {"walk": int, "run": int, "jump_per_hex": int, "jump_min": int, "stand_up": int},
    "scale": {
        "levels": [
            {"level": int, "mp?": int, "to_hit?": int, "shutdown?": int, "ammo?": int, "out_of_control?": int}
        ],
        "automatic_shutdown": int,
    },
    "ammo_explosion": {"damage": int},
}
LOCATION_SCHEMA: dict[str, Any] = {
    "mech": {
        "standard": {"*": str},
        "punch": {"*": str},
        "kick": {"*": str},
        "inward": {"*": str},
        "carries": {"*": str},
    },
    "vehicle": {arc: {"*": str} for arc in ARCS},
}
ARMOR_SCHEMA: dict[str, Any] = {
    "mech": {"*": {"structure": {"*": int}, "armor": {"*": int}}},
    "vehicle": {"*": {"structure": {"*": int}, "armor": {"*": int}}},
}


@dataclass(frozen=True, slots=True)
class WeaponType:
    """One row of the MECH-2.3 weapon table."""

    key: str
    damage: int
    heat: int
    short: int
    medium: int
    long: int
    minimum: int
    missiles: int
    group: int
    ammo: bool

    def band(self, distance: int) -> str | None:
        """``short``/``medium``/``long`` by DESIGN §7.1, or None beyond long (the declaration is illegal)."""
        if distance <= self.short:
            return "short"
        if distance <= self.medium:
            return "medium"
        if distance <= self.long:
            return "long"
        return None

    def minimum_penalty(self, distance: int) -> int:
        """At distance <= minimum range the difficulty rises by (minimum − distance + 1) [HOUSE, as BattleTech]."""
        return self.minimum - distance + 1 if self.minimum and distance <= self.minimum else 0


@dataclass(frozen=True, slots=True)
class TerrainKind:
    key: str
    mp: int
    woods: bool
    cover: bool
    vehicles: bool


@dataclass(frozen=True, slots=True)
class HeatLevel:
    level: int
    mp: int = 0
    to_hit: int = 0
    shutdown: int = 0  # avoid on N+ (0: no roll at this level)
    ammo: int = 0
    out_of_control: int = 0  # a fighter's avoid on N+ (MECH-5)


@dataclass(frozen=True, slots=True)
class Fraction:
    num: int
    den: int


@dataclass(frozen=True, slots=True)
class MechTables:
    weapons: dict[str, WeaponType]
    terrain: dict[str, TerrainKind]
    mp_per_level: int
    max_step: dict[str, int]
    height: dict[str, int]
    base: int
    range_modifier: dict[str, int]
    shooter_modifier: dict[str, int]
    immobile: int
    jumped: int
    woods: int
    partial_cover: int
    secondary_target: int
    air: dict[str, int]  # MECH-5: helicopter, front, side, fighter_flank
    target_moved: tuple[tuple[int, int, int], ...]
    physical: dict[str, Fraction]
    fall_difficulty: int
    fall_damage: Fraction
    stand_up_mp: int
    movement_heat: dict[str, int]
    heat_levels: tuple[HeatLevel, ...]
    automatic_shutdown: int
    ammo_explosion_damage: int
    mech_locations: dict[str, dict[int, str]]  # standard (2d6), punch (1d6), kick (1d6)
    inward: dict[str, str]
    carries: dict[str, str]
    vehicle_locations: dict[str, dict[int, str]]  # by arc
    mech_defaults: dict[int, tuple[dict[str, int], dict[str, int]]]  # tonnage → (armor, structure)
    vehicle_defaults: dict[int, tuple[dict[str, int], dict[str, int]]]

    def terrain_kind(self, kind: str | None) -> TerrainKind:
        return self.terrain.get(kind or "clear") or self.terrain["clear"]

    def target_moved_modifier(self, hexes: int) -> int:
        for low, high, modifier in self.target_moved:
            if low <= hexes <= high:
                return modifier
        return 0


def _die_table(raw: dict[str, str], faces: range, allowed: tuple[str, ...], where: str) -> dict[int, str]:
    out: dict[int, str] = {}
    problems: list[str] = []
    for face in faces:
        value = raw.get(str(face))
        if value is None:
            problems.append(f"{where}.{face}: missing")
        elif value not in allowed:
            problems.append(f"{where}.{face}: {value!r} is not one of {', '.join(allowed)}")
        else:
            out[face] = value
    if problems:
        raise TableError("data/mech/locations.toml", problems)
    return out


def _defaults(
    raw: dict[str, Any], kind: str, locations: tuple[str, ...]
) -> dict[int, tuple[dict[str, int], dict[str, int]]]:
    out: dict[int, tuple[dict[str, int], dict[str, int]]] = {}
    problems: list[str] = []
    for tonnage, row in cast(dict[str, dict[str, dict[str, int]]], raw[kind]).items():
        if not tonnage.isdigit():
            problems.append(f"{kind}.{tonnage}: a tonnage is a whole number")
            continue
        for part in ("armor", "structure"):
            if set(row[part]) != set(locations):
                problems.append(f"{kind}.{tonnage}.{part}: give exactly {', '.join(locations)}")
        out[int(tonnage)] = (dict(row["armor"]), dict(row["structure"]))
    if problems:
        raise TableError("data/mech/armor.toml", problems)
    return out


@cache
def tables() -> MechTables:
    """Every mech table, loaded and validated once per process."""
    w = load_table("mech/weapons", WEAPON_SCHEMA)
    weapons: dict[str, WeaponType] = {}
    for key, row in cast(dict[str, dict[str, Any]], w["types"]).items():
        weapons[key] = WeaponType(
            key=key,
            damage=int(row["damage"]),
            heat=int(row["heat"]),
            short=int(row["short"]),
            medium=int(row["medium"]),
            long=int(row["long"]),
            minimum=int(row["min"]),
            missiles=int(row["missiles"]),
            group=int(row["group"]),
            ammo=bool(row["ammo"]),
        )
    bad = [
        f"types.{k}: short <= medium <= long, and a missile weapon needs group >= 1"
        for k, v in weapons.items()
        if not (1 <= v.short <= v.medium <= v.long) or (v.missiles and v.group < 1)
    ]
    if bad:
        raise TableError("data/mech/weapons.toml", bad)
    t = load_table("mech/terrain", TERRAIN_SCHEMA)
    terrain = {
        k: TerrainKind(k, int(v["mp"]), bool(v["woods"]), bool(v["cover"]), bool(v["vehicles"]))
        for k, v in cast(dict[str, dict[str, Any]], t["kinds"]).items()
    }
    if "clear" not in terrain:
        raise TableError("data/mech/terrain.toml", ["kinds.clear: missing (a hex with no terrain is clear)"])
    elev = cast(dict[str, Any], t["elevation"])
    r = load_table("mech/rules", RULES_SCHEMA)
    to_hit = cast(dict[str, Any], r["to_hit"])
    physical = {k: Fraction(int(v["num"]), int(v["den"])) for k, v in r["physical"].items()}
    fall = cast(dict[str, Any], r["fall"])
    h = load_table("mech/heat", HEAT_SCHEMA)
    levels = tuple(
        sorted(
            (
                HeatLevel(
                    level=int(row["level"]),
                    mp=int(row.get("mp", 0)),
                    to_hit=int(row.get("to_hit", 0)),
                    shutdown=int(row.get("shutdown", 0)),
                    ammo=int(row.get("ammo", 0)),
                    out_of_control=int(row.get("out_of_control", 0)),
                )
                for row in cast(list[dict[str, int]], h["scale"]["levels"])
            ),
            key=lambda lv: lv.level,
        )
    )
    loc = load_table("mech/locations", LOCATION_SCHEMA)
    m = cast(dict[str, dict[str, str]], loc["mech"])
    mech_locations = {
        "standard": _die_table(m["standard"], range(2, 13), MECH_LOCATIONS, "mech.standard"),
        "punch": _die_table(m["punch"], range(1, 7), MECH_LOCATIONS, "mech.punch"),
        "kick": _die_table(m["kick"], range(1, 7), MECH_LOCATIONS, "mech.kick"),
    }
    v = cast(dict[str, dict[str, str]], loc["vehicle"])
    vehicle_locations = {
        arc: _die_table(v[arc], range(2, 13), VEHICLE_LOCATIONS, f"vehicle.{arc}") for arc in ARCS
    }
    a = load_table("mech/armor", ARMOR_SCHEMA)
    return MechTables(
        weapons=weapons,
        terrain=terrain,
        mp_per_level=int(elev["mp_per_level"]),
        max_step=dict(cast(dict[str, int], elev["max_step"])),
        height=dict(cast(dict[str, int], elev["height"])),
        base=int(to_hit["base"]),
        range_modifier=dict(cast(dict[str, int], to_hit["range"])),
        shooter_modifier=dict(cast(dict[str, int], to_hit["shooter"])),
        immobile=int(to_hit["immobile"]),
        jumped=int(to_hit["jumped"]),
        woods=int(to_hit["woods"]),
        partial_cover=int(to_hit["partial_cover"]),
        secondary_target=int(to_hit["secondary_target"]),
        air=dict(cast(dict[str, int], to_hit["air"])),
        target_moved=tuple(
            (int(b["from"]), int(b["to"]), int(b["modifier"]))
            for b in cast(list[dict[str, int]], to_hit["target_moved"])
        ),
        physical=physical,
        fall_difficulty=int(fall["difficulty"]),
        fall_damage=Fraction(int(fall["damage"]["num"]), int(fall["damage"]["den"])),
        stand_up_mp=int(fall["stand_up_mp"]),
        movement_heat=dict(cast(dict[str, int], h["movement"])),
        heat_levels=levels,
        automatic_shutdown=int(h["scale"]["automatic_shutdown"]),
        ammo_explosion_damage=int(h["ammo_explosion"]["damage"]),
        mech_locations=mech_locations,
        inward=dict(m["inward"]),
        carries=dict(m["carries"]),
        vehicle_locations=vehicle_locations,
        mech_defaults=_defaults(a, "mech", MECH_LOCATIONS),
        vehicle_defaults=_defaults(a, "vehicle", VEHICLE_LOCATIONS),
    )
