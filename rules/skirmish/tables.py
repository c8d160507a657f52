"""The skirmish data tables (``data/skirmish/*.toml``): every cost and [HOUSE] value, validated once."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

from data.loader import load_table

_COSTS_SCHEMA: dict[str, Any] = {
    "turn": {"by_vertices": [int]},
    "move": {"forward": int, "backward": int, "facing_extra": [int]},
    "actions": {"shoot": int, "melee": int, "act": int, "grenade": int, "overwatch": int},
    "range": {"min": int, "max": int, "long_from": int, "long_penalty": int},
    "melee": {"tie": str},
    "units": {"max_characters": int},
}
_TERRAIN_SCHEMA: dict[str, Any] = {
    "kinds": {"*": {"blocks_sight": bool, "blocks_move": bool, "move_multiplier": int}},
}
_GRENADE_SCHEMA: dict[str, Any] = {
    "center_multiplier": int,
    "ring_multiplier": int,
    "fire_counts_current_round": bool,
    "fire_on_miss": bool,
    "target_hexes": str,
}
_OVERWATCH_SCHEMA: dict[str, Any] = {"default_policy": str, "ap_per_shot": {"*": int}}

POLICIES = ("ask", "always", "never")


@dataclass(frozen=True, slots=True)
class TerrainKind:
    blocks_sight: bool
    blocks_move: bool
    move_multiplier: int


@dataclass(frozen=True, slots=True)
class SkirmishTables:
    turn_cost: tuple[int, ...]  # SK-2.1, by vertices turned 0..3
    forward_cost: int  # SK-2.2
    backward_cost: int  # SK-2.3
    facing_extra: tuple[int, ...]  # SK-2.2/2.3, by vertices turned 0..3
    action_cost: Mapping[str, int]
    range_min: int
    range_max: int
    long_from: int
    long_penalty: int
    melee_tie_clockwise: bool
    max_characters: int
    terrain: Mapping[str, TerrainKind]
    grenade_center: int
    grenade_ring: int
    fire_counts_current_round: bool
    fire_on_miss: bool
    grenade_any_hex: bool  # SK-6.2 [HOUSE]: any hex in sight (True) or only hexes holding an object
    overwatch_default: str
    ap_per_shot: Mapping[str, int]

    def kind(self, name: str | None) -> TerrainKind | None:
        return self.terrain.get(name) if name else None


@cache
def tables() -> SkirmishTables:
    """Load and check the four tables; a bad value raises ``TableError`` naming file and key."""
    costs = load_table("skirmish/costs", _COSTS_SCHEMA)
    terrain = load_table("skirmish/terrain", _TERRAIN_SCHEMA)
    grenade = load_table("skirmish/grenade", _GRENADE_SCHEMA)
    overwatch = load_table("skirmish/overwatch", _OVERWATCH_SCHEMA)
    return SkirmishTables(
        turn_cost=_four(costs["turn"]["by_vertices"], "turn.by_vertices"),
        forward_cost=costs["move"]["forward"],
        backward_cost=costs["move"]["backward"],
        facing_extra=_four(costs["move"]["facing_extra"], "move.facing_extra"),
        action_cost=dict(costs["actions"]),
        range_min=costs["range"]["min"],
        range_max=costs["range"]["max"],
        long_from=costs["range"]["long_from"],
        long_penalty=costs["range"]["long_penalty"],
        melee_tie_clockwise=costs["melee"]["tie"] != "counterclockwise",
        max_characters=costs["units"]["max_characters"],
        terrain={
            name: TerrainKind(spec["blocks_sight"], spec["blocks_move"], spec["move_multiplier"])
            for name, spec in terrain["kinds"].items()
        },
        grenade_center=grenade["center_multiplier"],
        grenade_ring=grenade["ring_multiplier"],
        fire_counts_current_round=grenade["fire_counts_current_round"],
        fire_on_miss=grenade["fire_on_miss"],
        grenade_any_hex=grenade["target_hexes"] != "objects",
        overwatch_default=overwatch["default_policy"] if overwatch["default_policy"] in POLICIES else "ask",
        ap_per_shot=dict(overwatch["ap_per_shot"]),
    )


def _four(values: list[int], where: str) -> tuple[int, ...]:
    if len(values) != 4:
        raise ValueError(
            f"data/skirmish/costs.toml: {where} needs 4 values (0..3 vertices), got {len(values)}"
        )
    return tuple(values)
