"""Where characters stand, see and go (DESIGN §7.4, PBW-2, PBW-5): walls, cover, occupied hexes, melee reach
and the hexes a move can reach."""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Sequence

from rules.hexgrid import Hex, hexes_crossed
from rules.pbw.model import Character
from rules.pbw.tables import TerrainKind, tables
from rules.ruleset import surcharge
from rules.state import EncounterState


def touched(a: Hex, b: Hex) -> frozenset[Hex]:
    """Every hex the line a→b touches, ends included (HEX-3, either ε-trace).

    The one place pbw asks the shared line tracing; when rules/hexgrid.py gets exact geometry, switch here."""
    return frozenset(hexes_crossed(a, b))


def kind_at(state: EncounterState, h: Hex) -> TerrainKind | None:
    return tables().kind(state.board.terrain_at(h))


def blocks_move(state: EncounterState, h: Hex) -> bool:
    k = kind_at(state, h)
    return k is not None and k.blocks_move


def blocks_sight(state: EncounterState, h: Hex) -> bool:
    k = kind_at(state, h)
    return k is not None and k.blocks_sight


def clear_line(state: EncounterState, a: Hex, b: Hex) -> bool:
    """A wall touched anywhere between the two hexes blocks the line of sight (grazing a wall blocks)."""
    return not any(blocks_sight(state, h) for h in touched(a, b) - {a, b})


def cover_between(state: EncounterState, shooter: Hex, target: Hex) -> int:
    """[HOUSE] the best cover the line touches within ``cover.reach`` of the target, never the shooter's hex."""
    reach = tables().cover_reach
    best = 0
    for h in touched(shooter, target) - {shooter}:
        k = kind_at(state, h)
        if k is not None and k.cover > best and h.distance(target) <= reach:
            best = k.cover
    return best


def characters(state: EncounterState) -> list[Character]:
    return state.units_of(Character)


def occupant(state: EncounterState, h: Hex, *, besides: str = "") -> Character | None:
    """The living character in ``h`` (bodies do not block, [HOUSE])."""
    for c in characters(state):
        if c.alive and c.at == h and c.id != besides:
            return c
    return None


def enemies_within_reach(state: EncounterState, side: str, at: Hex) -> tuple[str, ...]:
    """PBW-5: enemies able to fight (ok or prone) within 1 hex — a melee engagement. [HOUSE] An enemy the director
    placed hidden (FOG-1) holds nobody until it is revealed, so no refusal gives it away."""
    return tuple(
        c.id
        for c in characters(state)
        if c.side != side and c.fighting and not c.hidden and c.at is not None and c.at.distance(at) <= 1
    )


def step_limit(ch: Character) -> int:
    """PBW-2: Movement hexes per move; PBW-4: a fallen or incapacitated character crawls."""
    return tables().crawl if ch.crawling else ch.movement


def hexes_used(state: EncounterState, path: Sequence[Hex]) -> int:
    """PBW-2: the hexes of Movement a path uses, one per hex entered, plus a layer's surcharge (night, NGT-5.1:
    one hex more into concealing terrain, characters being infantry-scale)."""
    extra = surcharge(state)
    return len(path) + sum(extra.entering(state.board, h) for h in path)


def within_movement(state: EncounterState, path: Sequence[Hex], limit: int) -> tuple[Hex, ...]:
    """The longest start of ``path`` that ``limit`` hexes of Movement pay for."""
    extra = surcharge(state)
    used = 0
    for i, h in enumerate(path):
        used += 1 + extra.entering(state.board, h)
        if used > limit:
            return tuple(path[:i])
    return tuple(path)


def enterable(state: EncounterState, ch: Character, h: Hex) -> bool:
    return state.board.contains(h) and not blocks_move(state, h) and occupant(state, h, besides=ch.id) is None


def reachable(
    state: EncounterState, ch: Character, start: Hex, limit: int, engaged: Iterable[str]
) -> dict[Hex, tuple[Hex, ...]]:
    """Every hex a move from ``start`` can end in, with a shortest path to it (the hexes entered).

    A path never enters a wall or an occupied hex, and ends at the first hex within 1 hex of an enemy it was not
    already engaged with (PBW-5: "no pueden desplazarse sin abandonar dicha situación")."""
    already = frozenset(engaged)
    extra = surcharge(state)
    paths: dict[Hex, tuple[Hex, ...]] = {start: ()}
    used = {start: 0}
    # cheapest first (a hex costs 1, or 2 into concealing terrain at night); ties in the order found
    queue: list[tuple[int, int, Hex]] = [(0, 0, start)]
    found = 0
    while queue:
        cost, _, h = heapq.heappop(queue)
        if cost > used[h]:
            continue
        if h != start and set(enemies_within_reach(state, ch.side, h)) - already:
            continue  # running into a melee ends the move there
        for n in h.neighbors():
            step = cost + 1 + extra.entering(state.board, n)
            if step > limit or (n in used and used[n] <= step) or not enterable(state, ch, n):
                continue
            used[n] = step
            paths[n] = (*paths[h], n)
            found += 1
            heapq.heappush(queue, (step, found, n))
    del paths[start]
    return paths
