"""A move of several hexes in one order, taken step by step (SK-2.2 forward, SK-2.3 backward, SK-2.4 costs).

A path is written as the hexes it enters (``move 0306 0307 0308 facing NE-SE``); every step is a move action of
its own in cost, legality and the overwatch it draws (SK-4.1). The facing between steps is not written: it is
the one that makes the whole path cheapest (ties: the fewest vertices turned, then the lower vertex), so the same
hexes always give the same steps. :func:`reach` finds, for every hex a character can get to with its AP, the
cheapest path there for each end facing; both count costs with the same functions as a single step, a layer's
surcharge included (NGT-5.1).
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence

from rules.hexgrid import Hex, Vertex, turn_distance, vertex_ahead, vertex_behind
from rules.skirmish.geometry import blocks_move, step_cost
from rules.skirmish.halfhex import occupants
from rules.skirmish.model import Character, SkMove
from rules.skirmish.tables import tables
from rules.state import EncounterState

#: the cheapest way to one hex and end facing: AP, then vertices turned (the tie-break), then the hexes entered
Way = tuple[int, int, tuple[Hex, ...]]


def _cells(h: Hex, facing: int, backward: bool) -> tuple[Hex, Hex]:
    return vertex_behind(h, facing) if backward else vertex_ahead(h, facing)


def steps_along(
    state: EncounterState, ch: Character, hexes: Sequence[Hex], facing: int | None
) -> tuple[SkMove, ...] | None:
    """The single steps entering ``hexes`` in order, ending with ``facing`` (None: the facing is kept on the last
    step), at the least AP; None when consecutive hexes cannot be stepped between at any facing."""
    assert ch.at is not None
    extra = tables().facing_extra
    # by facing at the hex reached so far: (AP, vertices turned, steps)
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
                    key = (cost + step_cost(state, to, backward=backward) + extra[turn], turned + turn)
                    if f2 not in found or key < found[f2][:2]:
                        step = SkMove(unit=ch.id, to=to, facing=f2, backward=backward)
                        found[f2] = (*key, (*steps, step))
        if not found:
            return None
        best, here = found, to
    return min(best.values(), key=lambda b: b[:2])[2]


def reach(state: EncounterState, ch: Character) -> dict[tuple[Hex, int], Way]:
    """Every (hex, end facing) ``ch`` can move to with the AP it has left, each with its cheapest path: whole
    hexes on the board, never into blocking terrain or fire nor through a hex someone holds (SK-2.4)."""
    if ch.at is None or ch.astride is not None:
        return {}
    extra = tables().facing_extra
    costs: dict[tuple[Hex, bool], int | None] = {}

    def cost_into(h: Hex, backward: bool) -> int | None:
        if (h, backward) not in costs:
            free = (
                state.board.contains(h)
                and not blocks_move(state, h)
                and not occupants(state, h, besides=ch.id)
            )
            costs[h, backward] = step_cost(state, h, backward=backward) if free else None
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


def path_text(start_facing: int, hexes: Sequence[Hex], facing: int, *, backward: bool = False) -> str:
    """The action text of a path: ``move <hex> … facing <vertex>``. A single step is written as SK-2.2/2.3's own
    ``move <hex>`` or ``back <hex>`` (a one-hex ``move`` is a forward step), its facing only when it changes."""
    end = Vertex(facing).label
    if len(hexes) == 1:
        verb = "back" if backward else "move"
        return (
            f"{verb} {hexes[0].label}" if facing == start_facing else f"{verb} {hexes[0].label} facing {end}"
        )
    return f"move {' '.join(h.label for h in hexes)} facing {end}"
