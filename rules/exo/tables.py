"""The [HOUSE] tables of the exo ruleset (RULES.md §1), read from ``data/exo/*.toml`` and checked once.

Code never holds a [HOUSE] number: a director replaces a table file and the rules follow it.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any, cast

from data.loader import TableError, load_table
from rules.dice import Quality

WEAPON_SCHEMA: dict[str, Any] = {
    "types": {
        "*": {
            "name": str,
            "damage_bonus": int,
            "short": [int],
            "medium": [int],
            "long": [int],
            "max": int,
            "modifier": int,
            "shots?": int,
        }
    },
    "aliases": {"*": str},
    "range_modifier": {"short": int, "medium": int, "long": int},
    "small_target_multiplier": int,
}
_QUALITY_KEYS = tuple(q.name.lower() for q in Quality)
CREW_SCHEMA: dict[str, Any] = {
    "crew_effect": {k: int for k in _QUALITY_KEYS},
    "assistants": {k: int for k in _QUALITY_KEYS},
    "piloting": {k: {"drop": int, "drop_all?": bool, "change?": bool, "yaw?": bool} for k in _QUALITY_KEYS},
}
D10_SCHEMA: dict[str, Any] = {"d10": {"*": str}, "overflow?": {"to": str}, "damage?": {"*": int}}
DEFAULTS_SCHEMA: dict[str, Any] = {
    "npc": {"stations": [str], "skills": {"*": int}},
    "movement": {"turns_without_manta": int},
    "debris": {"drifts": bool},
}
LOCATIONS = ("maneuverability", "engines", "weapon", "cabin", "cargo", "structure")
INJURIES = ("stunned", "wounded", "gravely_wounded")


@dataclass(frozen=True, slots=True)
class WeaponType:
    """One row of the EXO-3.4 table."""

    code: str
    name: str
    damage_bonus: int
    bands: tuple[tuple[str, int, int], ...]  # (band, first hex, last hex)
    max_range: int
    modifier: int
    shots: int  # EXO-3.3: shots per round (torpedoes 2, both at one ship)

    def band(self, distance: int) -> str | None:
        """``short``/``medium``/``long``, or None beyond ``max`` (cannot hit). A ship in the same hex is short."""
        if distance > self.max_range:
            return None
        for name, low, high in self.bands:
            if low <= distance <= high:
                return name
        return "short" if distance < self.bands[0][1] else "long"


@dataclass(frozen=True, slots=True)
class PilotingResult:
    drop: int
    drop_all: bool
    change: bool
    yaw: bool


@dataclass(frozen=True, slots=True)
class ExoTables:
    weapon_types: dict[str, WeaponType]
    aliases: dict[str, str]
    range_modifier: dict[str, int]
    crew_effect: dict[Quality, int]
    assistant_effect: dict[Quality, int]
    piloting: dict[Quality, PilotingResult]
    locations: dict[int, str]
    location_overflow: str
    injuries: dict[int, str]
    injury_damage_dice: dict[
        str, int
    ]  # EXO-5.3 [HOUSE]: d10s of a fallen crew member's damage roll, by injury
    small_target_multiplier: int  # EXO-3.7: space weapons against persons or vehicles
    npc_stations: tuple[str, ...]
    npc_skills: dict[str, int]
    turns_without_manta: int
    debris_drifts: bool

    def weapon_type(self, code: str) -> WeaponType:
        return self.weapon_types[self.aliases.get(code, code)]


def _d10(name: str, allowed: tuple[str, ...]) -> tuple[dict[int, str], dict[str, Any]]:
    raw = load_table(name, D10_SCHEMA)
    table = cast(dict[str, str], raw["d10"])
    out: dict[int, str] = {}
    problems: list[str] = []
    for face in range(1, 11):
        value = table.get(str(face))
        if value is None:
            problems.append(f"d10.{face}: missing")
        elif value not in allowed:
            problems.append(f"d10.{face}: {value!r} is not one of {', '.join(allowed)}")
        else:
            out[face] = value
    if problems:
        raise TableError(f"data/{name}.toml", problems)
    return out, raw


@cache
def tables() -> ExoTables:
    """All exo tables, loaded and validated once per process."""
    w = load_table("exo/weapons", WEAPON_SCHEMA)
    types: dict[str, WeaponType] = {}
    for code, row in cast(dict[str, dict[str, Any]], w["types"]).items():
        bands = tuple((b, int(row[b][0]), int(row[b][-1])) for b in ("short", "medium", "long"))
        types[code] = WeaponType(
            code=code,
            name=str(row["name"]),
            damage_bonus=int(row["damage_bonus"]),
            bands=bands,
            max_range=int(row["max"]),
            modifier=int(row["modifier"]),
            shots=int(row.get("shots", 1)),
        )
    aliases = cast(dict[str, str], w["aliases"])
    bad = [f"aliases.{k}: {v!r} is not a weapon type" for k, v in aliases.items() if v not in types]
    if bad:
        raise TableError("data/exo/weapons.toml", bad)
    c = load_table("exo/crew_rolls", CREW_SCHEMA)
    piloting = {
        q: PilotingResult(
            drop=int(row["drop"]),
            drop_all=bool(row.get("drop_all", False)),
            change=bool(row.get("change", False)),
            yaw=bool(row.get("yaw", False)),
        )
        for q in Quality
        for row in [cast(dict[str, Any], c["piloting"][q.name.lower()])]
    }
    locations, loc_raw = _d10("exo/locations", LOCATIONS)
    overflow = str(cast(dict[str, Any], loc_raw.get("overflow", {})).get("to", "none"))
    if overflow not in (*LOCATIONS, "none"):
        raise TableError(
            "data/exo/locations.toml", [f"overflow.to: {overflow!r} is not a location or 'none'"]
        )
    injuries, inj_raw = _d10("exo/injuries", INJURIES)
    injury_dice = cast(dict[str, int], inj_raw.get("damage", {}))
    bad_dice = [f"damage.{k}: {k!r} is not an injury" for k in injury_dice if k not in INJURIES]
    bad_dice += [f"damage.{k}: {v} is not 0-10 dice" for k, v in injury_dice.items() if not 0 <= v <= 10]
    if bad_dice:
        raise TableError("data/exo/injuries.toml", bad_dice)
    d = load_table("exo/defaults", DEFAULTS_SCHEMA)
    return ExoTables(
        weapon_types=types,
        aliases=dict(aliases),
        range_modifier=dict(cast(dict[str, int], w["range_modifier"])),
        crew_effect={q: int(c["crew_effect"][q.name.lower()]) for q in Quality},
        assistant_effect={q: int(c["assistants"][q.name.lower()]) for q in Quality},
        piloting=piloting,
        locations=locations,
        location_overflow=overflow,
        injuries=injuries,
        injury_damage_dice={k: int(injury_dice.get(k, 0)) for k in INJURIES},
        small_target_multiplier=int(w["small_target_multiplier"]),
        npc_stations=tuple(d["npc"]["stations"]),
        npc_skills=dict(cast(dict[str, int], d["npc"]["skills"])),
        turns_without_manta=int(d["movement"]["turns_without_manta"]),
        debris_drifts=bool(d["debris"]["drifts"]),
    )
