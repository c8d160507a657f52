"""The movement searches the panels run give exactly what they gave before they were made cheaper.

Three checks:

- every panel of every unit, at every state reached by playing the bundled mech, skirmish, night skirmish and
  pbw scenarios (``tests/movement_corpus.py``), is the panel recorded from the searches as they were
  (``tests/golden/panel-fingerprints.json``);
- at those states, ``rules.mech.queries.destinations`` (MECH-1.2 costs, MECH-5 air movement) for every mode and
  ``rules.skirmish.paths.reach`` / ``steps_along`` (SK-2.2..2.4) for every character equal the algorithms as
  they were, kept below as the reference;
- hypothesis: the same on boards of random terrain, elevation and fire, with units anywhere facing anywhere, hot
  mechs (MECH-3.2) and characters with a few AP left (SK-1.2).
"""

from __future__ import annotations

import heapq
import json
from collections.abc import Sequence
from dataclasses import replace
from functools import cache

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules.errors import IllegalOrderError
from rules.hexgrid import Hex, turn_distance
from rules.mech.legality import check_declaration, placements
from rules.mech.model import Mech
from rules.mech.movement import FAST_MODES, PathCost, mp_available, path_cost, step_problem, turn_surcharge
from rules.mech.orders import JUMP, STAND, MechOrder
from rules.mech.queries import Destination, destinations
from rules.registry import ruleset_for
from rules.ruleset import surcharge
from rules.skirmish.geometry import FIRE, blocks_move
from rules.skirmish.halfhex import occupants
from rules.skirmish.model import Character, SkMove
from rules.skirmish.paths import Way, reach, steps_along
from rules.skirmish.tables import tables as sk_tables
from rules.state import Board, EncounterState
from tests.mech_fixtures import build, unit, with_unit
from tests.movement_corpus import GAMES, fingerprints, states
from tests.paths import GOLDEN
from tests.skirmish_fixtures import char, make

RECORDED: dict[str, list[list[str]]] = json.loads(
    (GOLDEN / "panel-fingerprints.json").read_text(encoding="utf-8")
)


@cache
def played(game: str) -> tuple[EncounterState, ...]:
    """The states of ``game`` (played once per test session, for both tests that read them)."""
    return tuple(states(game))


# --- the reference: the searches as they were -----------------------------------------------------------------


def reference_destinations(state: EncounterState, unit_id: str, mode: str) -> tuple[Destination, ...]:
    """MECH-1.2 / MECH-5: every step's cost by ``path_cost`` of that step, every end by ``check_declaration``."""
    unit = state.unit_as(unit_id, Mech)
    mp = mp_available(unit).get(mode)
    if unit.at is None or mp is None or mode == STAND or unit.prone:
        return ()
    per_turn = turn_surcharge(state, unit)
    start = unit.at
    seen = placements(state, unit_id)
    seen.pop(unit_id, None)
    enemies = {p.at for uid, p in seen.items() if state.units[uid].side != unit.side}
    best: dict[tuple[Hex, int, int], tuple[int, tuple[Hex, ...]]] = {}
    frontier: list[tuple[int, int, tuple[Hex, ...], tuple[Hex, int, int]]] = [
        (0, 0, (), (start, unit.facing, 0))
    ]
    pushed = 0
    while frontier:
        cost, _, path, key = heapq.heappop(frontier)
        if key in best:
            continue
        best[key] = (cost, path)
        here, heading, straight = key
        if not state.board.contains(here):
            continue
        for side in range(6):
            trial = (*path, here.neighbor(side))
            try:
                one = path_cost(
                    state.board, unit, mode, trial[-1:], start=here, start_facing=heading, per_turn=per_turn
                )
            except IllegalOrderError:
                continue
            last = one.steps[0]
            total = cost + one.total
            if last.hex == start or total > mp:
                continue
            if unit.is_fighter:
                if step_problem(state.board, unit, mode, path_cost(state.board, unit, mode, trial), start):
                    continue
            elif _reference_refused(state, unit, mode, one, here, enemies):
                continue
            ahead = (straight + 1 if last.turns == 0 else 1) if unit.is_fighter else 0
            nxt = (last.hex, heading if mode == JUMP else last.facing, ahead)
            if nxt not in best:
                pushed += 1
                heapq.heappush(frontier, (total, pushed, trial, nxt))
    cheapest: dict[Hex, tuple[int, tuple[Hex, ...]]] = {}
    for (at, _, _), (cost, path) in best.items():
        if path and (at not in cheapest or cost < cheapest[at][0]):
            cheapest[at] = (cost, path)
    out: list[Destination] = []
    for at, (_, path) in cheapest.items():
        try:
            found = check_declaration(state, MechOrder(unit=unit.id, mode=mode, path=path))
        except IllegalOrderError:
            found = None
        if found is not None:
            out.append(Destination(at, mode, path, found.total, found.end_facing))
    return tuple(sorted(out, key=lambda d: (start.distance(d.to), d.cost, d.to.label)))


def _reference_refused(
    state: EncounterState, unit: Mech, mode: str, step: PathCost, here: Hex, enemies: set[Hex]
) -> bool:
    last = step.steps[0]
    if mode in FAST_MODES and last.reverse:
        return True
    if step_problem(state.board, unit, mode, step, here) is not None:
        return True
    return mode != JUMP and last.hex in enemies


def _reference_step_cost(state: EncounterState, h: Hex, *, backward: bool) -> int:
    """SK-2.2/2.3/2.4 and NGT-5.1 for a whole hex, reading the terrain and fire markers every time."""
    tab = sk_tables()
    kinds = [k for k in (tab.kind(state.board.terrain_at(h)),) if k is not None]
    fire = tab.kind(FIRE)
    if fire is not None and any(m.kind == FIRE and m.at == h for m in state.markers):
        kinds.append(fire)
    multiplier = max((k.move_multiplier for k in kinds), default=1)
    base = tab.backward_cost if backward else tab.forward_cost
    return base * multiplier + surcharge(state).entering(state.board, h)


def _cells(h: Hex, facing: int, backward: bool) -> tuple[Hex, Hex]:
    if backward:
        return h.neighbor(facing + 3), h.neighbor(facing + 4)
    return h.neighbor(facing), h.neighbor(facing + 1)


def reference_steps_along(
    state: EncounterState, ch: Character, hexes: Sequence[Hex], facing: int | None
) -> tuple[SkMove, ...] | None:
    assert ch.at is not None
    extra = sk_tables().facing_extra
    best: dict[int, tuple[int, int, tuple[SkMove, ...]]] = {ch.facing: (0, 0, ())}
    here = ch.at
    for k, to in enumerate(hexes):
        last = k == len(hexes) - 1
        found: dict[int, tuple[int, int, tuple[SkMove, ...]]] = {}
        for f, (cost, turned, steps) in sorted(best.items()):
            for backward in (False, True):
                if to not in _cells(here, f, backward):
                    continue
                ends = (f if facing is None else facing,) if last else tuple(range(6))
                for f2 in ends:
                    turn = turn_distance(f, f2)
                    key = (
                        cost + _reference_step_cost(state, to, backward=backward) + extra[turn],
                        turned + turn,
                    )
                    if f2 not in found or key < found[f2][:2]:
                        step = SkMove(unit=ch.id, to=to, facing=f2, backward=backward)
                        found[f2] = (*key, (*steps, step))
        if not found:
            return None
        best, here = found, to
    return min(best.values(), key=lambda b: b[:2])[2]


def reference_reach(state: EncounterState, ch: Character) -> dict[tuple[Hex, int], Way]:
    if ch.at is None or ch.astride is not None:
        return {}
    extra = sk_tables().facing_extra
    costs: dict[tuple[Hex, bool], int | None] = {}

    def cost_into(h: Hex, backward: bool) -> int | None:
        if (h, backward) not in costs:
            free = (
                state.board.contains(h)
                and not blocks_move(state, h)
                and not occupants(state, h, besides=ch.id)
            )
            costs[h, backward] = _reference_step_cost(state, h, backward=backward) if free else None
        return costs[h, backward]

    start = (ch.at, ch.facing)
    ways: dict[tuple[Hex, int], Way] = {start: (0, 0, ())}
    queue: list[tuple[int, int, int, int, int]] = [(0, 0, ch.at.q, ch.at.r, ch.facing)]
    while queue:
        cost, turned, q, r, f = heapq.heappop(queue)
        here = Hex(q, r)
        if ways[here, f][:2] != (cost, turned):
            continue
        hexes = ways[here, f][2]
        for backward in (False, True):
            for to in _cells(here, f, backward):
                entering = cost_into(to, backward)
                if entering is None or to == ch.at:
                    continue
                for f2 in range(6):
                    turn = turn_distance(f, f2)
                    key = (cost + entering + extra[turn], turned + turn)
                    if key[0] > ch.ap_left:
                        continue
                    old = ways.get((to, f2))
                    if old is None or key < old[:2]:
                        ways[to, f2] = (*key, (*hexes, to))
                        heapq.heappush(queue, (*key, to.q, to.r, f2))
    del ways[start]
    return ways


# --- the comparisons --------------------------------------------------------------------------------------------


def assert_mech_same(state: EncounterState) -> int:
    compared = 0
    for mover in state.units_of(Mech):
        if not mover.active or mover.at is None:
            continue
        for mode in mp_available(mover):
            got = destinations(state, mover.id, mode)
            assert got == reference_destinations(state, mover.id, mode), (mover.id, mode)
            compared += len(got)
    return compared


#: one path in this many is also taken step by step (``steps_along``, what validation runs): enough to meet every
#: terrain, turn and backward step of a game while the whole test stays within seconds
STEPS_EVERY = 5


def assert_skirmish_same(state: EncounterState) -> int:
    compared = 0
    for ch in state.units_of(Character):
        if not ch.acting or ch.at is None:
            continue
        ways = reach(state, ch)
        assert ways == reference_reach(state, ch), ch.id
        for (_, facing), (_, _, hexes) in list(ways.items())[::STEPS_EVERY]:
            for end in (facing, None):
                assert steps_along(state, ch, hexes, end) == reference_steps_along(state, ch, hexes, end)
        compared += len(ways)
    return compared


@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_panel_of_a_played_game_is_the_one_recorded_before_the_searches_were_made_cheaper(
    game: str,
) -> None:
    """DESIGN §4: a panel lists what the rules accept; making its searches cheaper changes no panel, cold or
    after a pick in any select (MECH-1.2, MECH-5, SK-2.2..2.4, PBW movement)."""
    got = [fingerprints(state) for state in played(game)]
    assert len(got) == len(RECORDED[game])
    for index, (now, before) in enumerate(zip(got, RECORDED[game], strict=True)):
        assert now == before, f"{game}: a panel changed at state {index}"


@pytest.mark.parametrize("game", sorted(g for g in GAMES if not g.startswith("pbw")))
def test_mech_1_2_and_sk_2_4_searches_equal_the_reference_at_every_played_state(game: str) -> None:
    compared = 0
    for state in played(game):
        if state.ruleset == "mech":
            compared += assert_mech_same(state)
        else:
            compared += assert_skirmish_same(state)
    assert compared > 0


# --- hypothesis: random boards ----------------------------------------------------------------------------------

MECH_TERRAIN = ("light_woods", "heavy_woods", "rough", "water", "stream", "road")
board_cells = st.dictionaries(
    st.tuples(st.integers(1, 9), st.integers(1, 9)), st.sampled_from(MECH_TERRAIN), max_size=25
)
elevations = st.dictionaries(st.tuples(st.integers(1, 9), st.integers(1, 9)), st.integers(-2, 3), max_size=25)
spots = st.tuples(st.integers(1, 9), st.integers(1, 9))


def _board(terrain: dict[tuple[int, int], str], elevation: dict[tuple[int, int], int]) -> Board:
    return Board(
        width=9,
        height=9,
        terrain={Hex.from_offset(c, r): t for (c, r), t in terrain.items()},
        features={"elevation": {Hex.from_offset(c, r): e for (c, r), e in elevation.items()}},
    )


MECH_BASE = build(
    unit("a", "red", "0505", walk=5, jump=4, initiative=0),
    unit("b", "blue", "0303", facing="S", walk=4, initiative=9),
    unit("c", "red", "0707", facing="SE", walk=6, initiative=5),
    width=9,
    height=9,
)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    terrain=board_cells,
    elevation=elevations,
    where=st.lists(spots, min_size=3, max_size=3, unique=True),
    facings=st.lists(st.integers(0, 5), min_size=3, max_size=3),
    heat=st.integers(0, 30),
)
def test_mech_1_2_destinations_equal_the_reference_on_random_boards(
    terrain: dict[tuple[int, int], str],
    elevation: dict[tuple[int, int], int],
    where: list[tuple[int, int]],
    facings: list[int],
    heat: int,
) -> None:
    state = MECH_BASE.replace(board=_board(terrain, elevation))
    for uid, (c, r), f in zip(("a", "b", "c"), where, facings, strict=True):
        state = with_unit(state, uid, at=Hex.from_offset(c, r), facing=f)
    state = with_unit(state, "a", heat=heat)
    assert_mech_same(state)


SK_TERRAIN = ("difficult", "obstruction", "obstacle")


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    terrain=st.dictionaries(spots, st.sampled_from(SK_TERRAIN), max_size=20),
    fires=st.lists(spots, max_size=3),
    where=st.lists(spots, min_size=3, max_size=3, unique=True),
    facings=st.lists(st.integers(0, 5), min_size=3, max_size=3),
    ap=st.integers(1, 6),
)
def test_sk_2_4_reach_and_steps_equal_the_reference_on_random_boards(
    terrain: dict[tuple[int, int], str],
    fires: list[tuple[int, int]],
    where: list[tuple[int, int]],
    facings: list[int],
    ap: int,
) -> None:
    units = [
        char(cid, side, group, f"{c:02d}{r:02d}")
        for cid, side, group, (c, r) in zip(
            ("k", "l", "z"), ("rfp", "rfp", "tyr"), ("g1", "g1", "g2"), where, strict=True
        )
    ]
    state = make(units, width=9, height=9)
    board = replace(state.board, terrain={Hex.from_offset(c, r): t for (c, r), t in terrain.items()})
    state = state.replace(board=board)
    chars = {uid: state.unit_as(uid, Character) for uid in ("k", "l", "z")}
    moved = {
        uid: replace(u, facing=f, ap_left=min(ap, u.ap))
        for (uid, u), f in zip(chars.items(), facings, strict=True)
    }
    state = state.replace(units={**state.units, **moved})
    if fires:
        from rules.state import Marker

        state = state.replace(markers=tuple(Marker(kind=FIRE, at=Hex.from_offset(c, r)) for c, r in fires))
    assert ruleset_for(state).id == "skirmish"
    assert_skirmish_same(state)


def test_mech_1_1_placements_kept_per_state_are_each_callers_own_copy() -> None:
    """The board a declarer sees is kept per (state, viewer); a caller that drops the declarer from its copy
    (as ``check_declaration`` does) leaves the next caller's whole, and another state gets its own answer."""
    first = placements(MECH_BASE, "a")
    first.pop("a")
    assert "a" in placements(MECH_BASE, "a")
    moved = with_unit(MECH_BASE, "a", at=Hex.from_offset(2, 2))
    assert placements(moved, "a")["a"].at == Hex.from_offset(2, 2)
    assert placements(MECH_BASE, "a")["a"].at == Hex.from_offset(5, 5)
