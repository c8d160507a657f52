"""Where characters may look and go: terrain and fire (SK-2.4, SK-6.2), sight (SK-3.2), costs (SK-2.1..2.4),
and the melee about-face (SK-5.1)."""

from __future__ import annotations

from rules.hexgrid import (
    Hex,
    Spot,
    bearing_from_vertex,
    line_clear,
    side_toward,
    turn_distance,
    turn_steps,
    vertex_ahead,
    vertex_behind,
    vertices_of_side,
)
from rules.ruleset import surcharge
from rules.skirmish.halfhex import astride_facings, ends_of_side, hexes_of, occupants, position
from rules.skirmish.model import Character
from rules.skirmish.tables import TerrainKind, tables
from rules.state import EncounterState, Marker

FIRE = "fire"
EQUIPMENT = "equipment"


def kinds_at(state: EncounterState, h: Hex) -> list[TerrainKind]:
    """The terrain kind of ``h`` plus a fire marker's effects, if any burns there (SK-6.2)."""
    tab = tables()
    found: list[TerrainKind] = []
    terrain = tab.kind(state.board.terrain_at(h))
    if terrain is not None:
        found.append(terrain)
    fire = tab.kind(FIRE)
    if fire is not None and h in _fires(state.markers):
        found.append(fire)
    return found


def _fires(markers: tuple[Marker, ...]) -> frozenset[Hex]:
    """The hexes a fire marker burns in (SK-6.2). Movement and sight ask it of every hex they look at, on the
    same markers (a state's markers never change), so the last answer is kept with its markers."""
    kept = _FIRES_KEPT[0]
    if kept[0] is not markers:
        kept = (markers, frozenset(m.at for m in markers if m.kind == FIRE))
        _FIRES_KEPT[0] = kept  # the pair is swapped whole: a reader on another thread never sees half of it
    return kept[1]


_FIRES_KEPT: list[tuple[tuple[Marker, ...], frozenset[Hex]]] = [((), frozenset())]


def blocks_sight(state: EncounterState, h: Hex) -> bool:
    return any(k.blocks_sight for k in kinds_at(state, h))


def blocks_move(state: EncounterState, h: Hex) -> bool:
    return any(k.blocks_move for k in kinds_at(state, h))


def move_multiplier(state: EncounterState, h: Hex) -> int:
    """SK-2.4: difficult terrain doubles the cost of entering it ([HOUSE]: the hex entered counts)."""
    return max((k.move_multiplier for k in kinds_at(state, h)), default=1)


def in_front(viewer: Character, target: Spot) -> bool:
    """SK-3.2: the 180° front arc, ±90° from the facing vertex, edges included (from the side midpoint when the
    viewer is astride two half hexes, SK-2.5)."""
    return abs(bearing_from_vertex(position(viewer), viewer.facing, target)) <= 90.0


def clear_line(state: EncounterState, a: Spot, b: Spot) -> bool:
    """SK-3.2: no obstacle (or fire) crossed or touched by the segment between the two places, decided with exact
    geometry: a single corner in common blocks (seed: "tocando" pero no atravesando → no visibility)."""
    return line_clear(a, b, lambda h: blocks_sight(state, h))


def can_see(state: EncounterState, viewer: Character, target: Spot) -> bool:
    """SK-3.2 from the viewer's place to a hex, or to a character's place (``position``)."""
    mine = hexes_of(viewer)
    if target == position(viewer) or (isinstance(target, Hex) and target in mine):
        return False
    return in_front(viewer, target) and clear_line(state, position(viewer), target)


def holds_object(state: EncounterState, h: Hex) -> bool:
    """SK-6.2 (``target_hexes = "objects"``): the hex holds something the engine knows: terrain, a marker
    (fire, equipment) or a character."""
    return (
        state.board.terrain_at(h) is not None
        or any(m.at == h for m in state.markers)
        or bool(occupants(state, h))
    )


def turn_cost(frm: int, to: int) -> int:
    """SK-2.1: 1 vertex 0 AP, 2 vertices 1 AP, 3 vertices 2 AP."""
    return tables().turn_cost[turn_distance(frm, to)]


def step_cost(state: EncounterState, cell: Hex | tuple[Hex, Hex], *, backward: bool) -> int:
    """SK-2.2/2.3/2.4: 1 AP forward or 2 AP backward, doubled into difficult terrain (astride: either hex); a
    layer's surcharge on top (night, NGT-5.1: +1 AP into concealing terrain, characters being infantry-scale)."""
    tab = tables()
    base = tab.backward_cost if backward else tab.forward_cost
    cells = (cell,) if isinstance(cell, Hex) else cell
    extra = surcharge(state)
    return base * max(move_multiplier(state, h) for h in cells) + max(
        extra.entering(state.board, h) for h in cells
    )


def move_cost(
    state: EncounterState, ch: Character, to: Hex | tuple[Hex, Hex], facing: int, *, backward: bool
) -> int:
    """SK-2.2/2.3/2.4: the step's cost plus 1 AP when the facing changes by 3 vertices on the way (up to 2
    vertices is free)."""
    return step_cost(state, to, backward=backward) + tables().facing_extra[turn_distance(ch.facing, facing)]


def move_targets(ch: Character, *, backward: bool) -> tuple[Hex, ...]:
    """SK-2.2: the two hexes sharing the facing vertex; SK-2.3: the two sharing the opposite vertex. Astride two
    half hexes (SK-2.5): the hex beyond the end of the side ahead (or behind)."""
    assert ch.at is not None
    if ch.astride is not None:
        ahead, behind = ends_of_side(ch.at, ch.astride, ch.facing)
        return (behind,) if backward else (ahead,)
    return vertex_behind(ch.at, ch.facing) if backward else vertex_ahead(ch.at, ch.facing)


def melee_facing(defender: Character, attacker: Spot) -> int:
    """SK-5.1: the defender turns the shortest way to the first vertex of the side the attack comes through.

    The two vertices of a side are always an odd and an even number of steps away, so the shorter one is unique;
    the [HOUSE] tie-break of ``costs.toml`` only matters if a director's table makes them equal. A defender astride
    two half hexes (SK-2.5) faces along its side: it turns to the end nearer the attacker.
    """
    assert defender.at is not None
    if defender.astride is not None:
        options = astride_facings(defender.at, defender.astride)
        here = position(defender)
        return min(options, key=lambda f: (abs(bearing_from_vertex(here, f, attacker)), f != defender.facing))
    side = side_toward(defender.at, attacker)
    first, second = vertices_of_side(side)
    d1, d2 = turn_distance(defender.facing, first), turn_distance(defender.facing, second)
    if d1 != d2:
        return first if d1 < d2 else second
    clockwise = tables().melee_tie_clockwise
    return first if (turn_steps(defender.facing, first) > 0) == clockwise else second
