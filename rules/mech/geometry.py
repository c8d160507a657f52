"""Arcs (MECH-1.3), line of sight, intervening woods and partial cover (MECH-2.1) on the hex board.

Bearings follow HEX-3 (exact, rounded angles): front |b| ≤ 60, right side 60 < b ≤ 120, left side −120 ≤ b < −60,
rear |b| > 120.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from rules.hexgrid import Hex, bearing_from_side, line_traces
from rules.mech.model import AIR_KINDS, Mech, MechWeapon
from rules.mech.tables import ARCS, tables
from rules.state import Board

FRONT, LEFT, RIGHT, REAR = "front", "left", "right", "rear"
ELEVATION = "elevation"


def arc_of(origin: Hex, facing: int, target: Hex) -> str:
    """The MECH-1.3 arc of ``target`` seen from ``origin`` facing hexside ``facing``."""
    b = bearing_from_side(origin, facing, target)
    if abs(b) <= 60:
        return FRONT
    if 60 < b <= 120:
        return RIGHT
    if -120 <= b < -60:
        return LEFT
    return REAR


def mount_arcs(unit: Mech, weapon: MechWeapon) -> tuple[tuple[str, ...], bool]:
    """(arcs the weapon covers, whether they are read from the torso rather than the legs) — MECH-1.3.

    Mechs: torso and head weapons front; arm weapons front plus their own side; rear-mounted rear; all from the
    twisted torso. Leg weapons fire ahead of the legs. Vehicles: each mount its own arc of the hull, turret all.
    """
    if unit.is_mech:
        if weapon.rear:
            return (REAR,), True
        if weapon.loc == "la":
            return (FRONT, LEFT), True
        if weapon.loc == "ra":
            return (FRONT, RIGHT), True
        if weapon.loc in ("ll", "rl"):
            return (FRONT,), False
        return (FRONT,), True
    if weapon.loc == "turret":
        return ARCS, False
    return (weapon.loc,), False


def weapon_in_arc(unit: Mech, weapon: MechWeapon, at: Hex, facing: int, twist: int, target: Hex) -> bool:
    """Whether ``target`` lies in the weapon's arc for a unit at ``at`` (legs ``facing``, torso ``twist``)."""
    if at == target:
        return False
    arcs, from_torso = mount_arcs(unit, weapon)
    heading = (facing + twist) % 6 if from_torso and unit.is_mech else facing
    return arc_of(at, heading, target) in arcs


def elevation(board: Board, h: Hex) -> int:
    return board.feature(ELEVATION, h)


@dataclass(frozen=True, slots=True)
class Sight:
    """What the line of fire from a shooter to a target crosses (the better of the two HEX-3 traces)."""

    clear: bool
    woods: int = 0  # intervening woods hexes (+2 each, MECH-2.1)
    cover: bool = False  # the target is partially covered (+2, MECH-2.1)


def sight(board: Board, a: Hex, a_kind: str, b: Hex, b_kind: str) -> Sight:
    """Line of sight and the MECH-2.1 obstacle modifiers from ``a`` to ``b`` [HOUSE rules in terrain.toml].

    A hex strictly between blocks a trace when its elevation reaches the higher of the two units' tops; the line
    is blocked only when both traces are. Of the open traces the shooter gets the one with the smaller penalty.
    """
    tb = tables()
    elev_a, elev_b = elevation(board, a), elevation(board, b)
    top = max(elev_a + tb.height.get(a_kind, 0), elev_b + tb.height.get(b_kind, 0))
    in_cover_terrain = b_kind == "mech" and tb.terrain_kind(board.terrain_at(b)).cover
    best: Sight | None = None
    best_cost = 0
    for between in _between(a, b):
        if any(elevation(board, h) >= top for h in between):
            continue
        # MECH-5: a shot at or from an air unit passes over the trees
        airborne = a_kind in AIR_KINDS or b_kind in AIR_KINDS
        woods = 0 if airborne else sum(1 for h in between if tb.terrain_kind(board.terrain_at(h)).woods)
        cover = in_cover_terrain
        if not cover and b_kind == "mech" and between:
            last = between[-1]
            cover = elevation(board, last) == elev_b + 1 and elev_a <= elevation(board, last)
        cost = woods * tb.woods + (tb.partial_cover if cover else 0)
        if best is None or cost < best_cost:
            best, best_cost = Sight(True, woods, cover), cost
    return best if best is not None else Sight(False)


@lru_cache(maxsize=8192)
def _between(a: Hex, b: Hex) -> tuple[tuple[Hex, ...], tuple[Hex, ...]]:
    """The hexes strictly between ``a`` and ``b`` on each HEX-3 trace (pure geometry, cached)."""
    plus, minus = line_traces(a, b)
    return tuple(plus[1:-1]), tuple(minus[1:-1])


def adjacent_arc_hexes(at: Hex, facing: int, arcs: tuple[str, ...]) -> tuple[Hex, ...]:
    """The neighbours of ``at`` lying in ``arcs`` of ``facing`` (a kick's three front hexes, a punch's four)."""
    return tuple(n for n in at.neighbors() if arc_of(at, facing, n) in arcs)
