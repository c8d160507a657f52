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

from rules.hexgrid import TURN_DISTANCES, Hex, Vertex, vertex_ahead, vertex_behind
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
        # what entering ``to`` costs depends on the hex and the direction only: priced once each, not per facing
        entering: dict[bool, int] = {}
        for f, (cost, turned, steps) in sorted(best.items()):
            for backward in (False, True):
                if to not in _cells(here, f, backward):
                    continue
                if backward not in entering:
                    entering[backward] = step_cost(state, to, backward=backward)
                ends = (f if facing is None else facing,) if last else tuple(range(6))
                for f2 in ends:
                    turn = TURN_DISTANCES[f % 6][f2 % 6]
                    key = (cost + entering[backward] + extra[turn], turned + turn)
                    if f2 not in found or key < found[f2][:2]:
                        step = SkMove(unit=ch.id, to=to, facing=f2, backward=backward)
                        found[f2] = (*key, (*steps, step))
        if not found:
            return None
        best, here = found, to
    return min(best.values(), key=lambda b: b[:2])[2]


def reach(state: EncounterState, ch: Character) -> dict[tuple[Hex, int], Way]:
    """Every (hex, end facing) ``ch`` can move to with the AP it has left, each with its cheapest path: whole
    hexes on the board, never into blocking terrain or fire nor through a hex someone holds (SK-2.4).

    Dijkstra over (hex, facing) by (AP, vertices turned); the search keys its states by coordinates rather than
    by hex objects (a panel runs it at every click), and hands them back as hexes in the order it found them."""
    if ch.at is None or ch.astride is not None:
        return {}
    extra = tables().facing_extra
    costs: dict[tuple[int, int, bool], int | None] = {}

    def cost_into(h: Hex, backward: bool) -> int | None:
        key = (h.q, h.r, backward)
        if key not in costs:
            free = (
                state.board.contains(h)
                and not blocks_move(state, h)
                and not occupants(state, h, besides=ch.id)
            )
            costs[key] = step_cost(state, h, backward=backward) if free else None
        return costs[key]

    sq, sr, ap = ch.at.q, ch.at.r, ch.ap_left
    start = (sq, sr, ch.facing)
    ways: dict[tuple[int, int, int], Way] = {start: (0, 0, ())}
    hexes_at: dict[tuple[int, int], Hex] = {(sq, sr): ch.at}
    queue: list[tuple[int, int, int, int, int]] = [(0, 0, sq, sr, ch.facing)]
    while queue:
        cost, turned, q, r, f = heapq.heappop(queue)
        cost_so_far, turned_so_far, hexes = ways[q, r, f]
        if cost_so_far != cost or turned_so_far != turned:
            continue
        here = hexes_at[q, r]
        turns = TURN_DISTANCES[f % 6]
        for backward in (False, True):
            for to in _cells(here, f, backward):
                entering = cost_into(to, backward)
                tq, tr = to.q, to.r
                if entering is None or (tq == sq and tr == sr):
                    continue
                for f2 in range(6):
                    turn = turns[f2]
                    key = (cost + entering + extra[turn], turned + turn)
                    if key[0] > ap:
                        continue
                    old = ways.get((tq, tr, f2))
                    if old is None or key < old[:2]:
                        ways[tq, tr, f2] = (*key, (*hexes, to))
                        hexes_at[tq, tr] = to
                        heapq.heappush(queue, (*key, tq, tr, f2))
    del ways[start]
    return {(hexes_at[q, r], f): way for (q, r, f), way in ways.items()}


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
