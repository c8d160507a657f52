"""``/unit arcs`` for a character: its vertex arc (SK-3.2) and the reach of its attacks (SK-3.1, SK-3.5, SK-5.1).

Two sections: ``in_sight``, the hexes of the 180° arc ahead of the facing vertex it sees (a clear line), and
``blocked``, those of the arc an obstacle or a fire hides. The weapons are the character's attacks: ``ranged``
(distance 2-12, and from 7 on the long band when the scenario plays SK-3.5) and ``melee`` (adjacent).
"""

from __future__ import annotations

from rules.hexgrid import Hex, hexes_within
from rules.ruleset import RangeBand
from rules.skirmish.geometry import blocks_sight, clear_line, in_front
from rules.skirmish.halfhex import hexes_of, position
from rules.skirmish.model import Character
from rules.skirmish.tables import tables
from rules.state import EncounterState

FRONT, BLOCKED = "in_sight", "blocked"
RANGED, MELEE = "ranged", "melee"


def attacks(ch: Character) -> dict[str, str]:
    """The character's attacks by key: ranged only with the skill (SK-7: 0 = none), melee always."""
    out: dict[str, str] = {}
    if ch.ranged > 0:
        out[RANGED] = RANGED
    out[MELEE] = MELEE
    return out


def bands(state: EncounterState, weapon: str) -> tuple[RangeBand, ...]:
    """SK-3.1 (2-12), split at SK-3.5's long range when the scenario plays it; SK-5.1 melee: adjacent."""
    tab = tables()
    if weapon == MELEE:
        return (RangeBand(MELEE, 1, 1),)
    if state.option("long_range", False) and tab.range_min < tab.long_from <= tab.range_max:
        return (
            RangeBand("range", tab.range_min, tab.long_from - 1),
            RangeBand("long", tab.long_from, tab.range_max),
        )
    return (RangeBand("range", tab.range_min, tab.range_max),)


def vertex_arcs(
    state: EncounterState, ch: Character, reach: int, nearest: int = 1
) -> dict[str, frozenset[Hex]]:
    """SK-3.2: the arc's hexes from ``nearest`` to ``reach`` hexes away, seen (``front``) or hidden (``blocked``)."""
    front: set[Hex] = set()
    blocked: set[Hex] = set()
    mine = hexes_of(ch)
    if ch.at is None:
        return {FRONT: frozenset(), BLOCKED: frozenset()}
    for h in hexes_within(ch.at, reach):
        if h in mine or not state.board.contains(h) or ch.at.distance(h) < nearest or not in_front(ch, h):
            continue
        if blocks_sight(state, h):  # a wall is nobody's place: it stays drawn as a wall
            continue
        (front if clear_line(state, position(ch), h) else blocked).add(h)
    return {FRONT: frozenset(front), BLOCKED: frozenset(blocked)}


def weapon_reach(
    state: EncounterState, ch: Character, weapon: str | None
) -> tuple[dict[str, frozenset[Hex]], tuple[RangeBand, ...]]:
    """The arc out to the weapon's last band (no weapon: out to the ranged maximum) and the weapon's bands."""
    if weapon is None or weapon not in attacks(ch):
        return vertex_arcs(state, ch, tables().range_max), ()
    found = bands(state, weapon)
    return vertex_arcs(state, ch, found[-1].last, found[0].first), found
