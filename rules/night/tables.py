"""The night layer's data table (``data/night/night.toml``): every [HOUSE] number of RULES.md §5, checked once."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any, cast

from data.loader import load_table

_SCHEMA: dict[str, Any] = {
    "visibility": {
        "default_nvr": int,
        "min_nvr": int,
        "max_nvr": int,
        "moving_vehicle_factor": float,
        "tracked_vehicle_factor": float,
        "vehicle_kinds": [str],
    },
    "wind": {"change": {"*": int}},
    "light": {"flare_radius": int, "illumination_radius": int, "drift_hexes": int},
    "stray": {
        "colored": int,
        "white_at_least": {"lax": int, "normal": int, "stealthy": int},
        "default_discipline": str,
        "exempt_terrain": [str],
    },
    "jitter": {"mover_fires_on": [int]},
    "costs": {"conceal": int, "per_turn": int, "concealing": {"*": [str]}},
    "ambush": {"night_margin": int, "day_margin": int},
}

DISCIPLINES = ("lax", "normal", "stealthy")
FLARE = "flare"
ILLUMINATION = "illumination"
GUNFLASH = "gunflash"
TI = "ti"
LIGHTS = (FLARE, ILLUMINATION)
NIGHT_MARKERS = (FLARE, ILLUMINATION, GUNFLASH, TI)  # NGT-3: all removed at the end of the round


@dataclass(frozen=True, slots=True)
class NightTables:
    default_nvr: int
    min_nvr: int
    max_nvr: int
    moving_vehicle_factor: float
    tracked_vehicle_factor: float
    vehicle_kinds: tuple[str, ...]
    wind_change: Mapping[int, int]
    flare_radius: int
    illumination_radius: int
    drift_hexes: int
    stray_colored: int
    white_at_least: Mapping[str, int]
    default_discipline: str
    exempt_terrain: tuple[str, ...]
    mover_fires_on: tuple[int, ...]
    night_margin: int
    day_margin: int
    conceal_cost: int
    turn_cost: int
    concealing: Mapping[str, tuple[str, ...]]

    def radius(self, kind: str) -> int:
        """NGT-3: the lit radius of a flare or an illuminating round."""
        return self.flare_radius if kind == FLARE else self.illumination_radius


@cache
def tables() -> NightTables:
    raw = load_table("night/night", _SCHEMA)
    vis = cast(dict[str, Any], raw["visibility"])
    light = cast(dict[str, Any], raw["light"])
    stray = cast(dict[str, Any], raw["stray"])
    return NightTables(
        default_nvr=vis["default_nvr"],
        min_nvr=vis["min_nvr"],
        max_nvr=vis["max_nvr"],
        moving_vehicle_factor=float(vis["moving_vehicle_factor"]),
        tracked_vehicle_factor=float(vis["tracked_vehicle_factor"]),
        vehicle_kinds=tuple(vis["vehicle_kinds"]),
        wind_change={int(k): int(v) for k, v in cast(dict[str, int], raw["wind"]["change"]).items()},
        flare_radius=light["flare_radius"],
        illumination_radius=light["illumination_radius"],
        drift_hexes=light["drift_hexes"],
        stray_colored=stray["colored"],
        white_at_least=dict(cast(dict[str, int], stray["white_at_least"])),
        default_discipline=stray["default_discipline"],
        exempt_terrain=tuple(stray["exempt_terrain"]),
        mover_fires_on=tuple(raw["jitter"]["mover_fires_on"]),
        night_margin=raw["ambush"]["night_margin"],
        day_margin=raw["ambush"]["day_margin"],
        conceal_cost=raw["costs"]["conceal"],
        turn_cost=raw["costs"]["per_turn"],
        concealing={k: tuple(v) for k, v in cast(dict[str, list[str]], raw["costs"]["concealing"]).items()},
    )
