"""Pure questions the order panel asks while a player drafts a declaration (no Discord, no formatting).

Every answer is data a panel can show and a player can check with a pencil: MP per mode, what a path costs hex
by hex, the end facings left, the weapons that reach a target with the number they need and each modifier's
reason, the physical attacks open from an end hex, and the heat a declaration leads to. Texts for them are in
the locale catalogs (``mech.modifier.<code>``, ``mech.heat_projection`` …).

All of them read the board the declarer sees (``legality.placements``): units that declared before it where
their declarations leave them, the others where they stand.
"""

from __future__ import annotations

import heapq
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator
from contextlib import suppress
from dataclasses import dataclass, replace

from rules.errors import IllegalOrderError
from rules.hexgrid import TURN_DISTANCES, Hex, neighbors_of
from rules.mech.geometry import elevation
from rules.mech.heat import HeatProjection, project_heat
from rules.mech.legality import (
    Placement,
    check_declaration,
    check_physical,
    check_shot,
    odds_at,
    placements,
    straight_run,
)
from rules.mech.model import VEHICLE, Mech
from rules.mech.movement import (
    FAST_MODES,
    PathCost,
    legal_facings,
    mp_available,
    path_cost,
    step_problem,
    turn_surcharge,
)
from rules.mech.orders import JUMP, RUN, STAND, WALK, MechOrder, PhysicalEntry
from rules.mech.tables import tables
from rules.mech.tohit import Modifier, Motion, physical_damage, physical_odds
from rules.state import Board, EncounterState


def _unit(state: EncounterState, unit_id: str) -> Mech:
    return state.unit_as(unit_id, Mech)


def mp_by_mode(state: EncounterState, unit_id: str) -> dict[str, int]:
    """MP available per movement mode this turn, after heat (MECH-3.2) and damage (MECH-2.3)."""
    return mp_available(_unit(state, unit_id))


def cost_of_path(
    state: EncounterState, unit_id: str, mode: str, path: tuple[Hex, ...], facing: int | None = None
) -> PathCost:
    """What ``path`` then turning to ``facing`` costs, hex by hex (MECH-1.2, DESIGN §7.1). Raises
    ``IllegalOrderError`` for a path that is not a chain of neighbours."""
    unit = _unit(state, unit_id)
    return path_cost(state.board, unit, mode, path, facing, per_turn=turn_surcharge(state, unit))


def end_facings(state: EncounterState, unit_id: str, mode: str, path: tuple[Hex, ...]) -> tuple[int, ...]:
    """The end facings the unit can still afford after ``path`` (jump: any; standing still: its own)."""
    try:
        unit = _unit(state, unit_id)
        return legal_facings(state.board, unit, mode, path, turn_surcharge(state, unit))
    except IllegalOrderError:
        return ()


def declaration_problem(state: EncounterState, order: MechOrder) -> IllegalOrderError | None:
    """The first rule a draft breaks, or None when it can be locked as it is."""
    try:
        check_declaration(state, order)
    except IllegalOrderError as exc:
        return exc
    return None


@dataclass(frozen=True, slots=True)
class WeaponOption:
    """One weapon against one target from a given end position. ``legal`` False: ``problem`` says why
    (out of arc, out of range, no line of sight, lost). ``need``: what 2d6 must reach (DICE-3 still applies:
    double 1 misses, double 6 hits)."""

    weapon: int  # 1-based
    type: str
    loc: str
    rear: bool
    legal: bool
    problem: IllegalOrderError | None
    distance: int
    band: str | None
    target_number: int
    need: int
    modifiers: tuple[Modifier, ...]
    heat: int
    target_known: bool  # False: the target has not declared, its movement modifier is not counted yet


def fire_options(
    state: EncounterState,
    unit_id: str,
    target_id: str,
    *,
    mode: str = STAND,
    at: Hex | None = None,
    facing: int | None = None,
    twist: int = 0,
    primary: bool = True,
) -> tuple[WeaponOption, ...]:
    """Every weapon of ``unit_id`` against ``target_id`` from end hex ``at`` (legs ``facing``, torso ``twist``)
    after moving in ``mode``: in arc and range or not, with the target number and each modifier's reason
    (MECH-1.3, MECH-2.1)."""
    unit = _unit(state, unit_id)
    at = at if at is not None else unit.at
    facing = facing if facing is not None else unit.facing
    assert at is not None
    seen = _seen(state, unit_id)
    place = seen.get(target_id)
    out: list[WeaponOption] = []
    for index, w in enumerate(unit.weapons, start=1):
        problem: IllegalOrderError | None = None
        odds = None
        try:
            odds = check_shot(state, unit, mode, at, facing, twist, index, target_id, seen, primary=primary)
        except IllegalOrderError as exc:
            problem = exc
        if odds is None and place is not None and isinstance(state.units.get(target_id), Mech):
            target = state.unit_as(target_id, Mech)
            odds = odds_at(state, unit, at, mode, w.spec, target, place, primary=primary)
        distance = odds.distance if odds else 0
        number = odds.target_number if odds else 0
        out.append(
            WeaponOption(
                weapon=index,
                type=w.type,
                loc=w.loc,
                rear=w.rear,
                legal=problem is None,
                problem=problem,
                distance=distance,
                band=odds.band if odds else None,
                target_number=number,
                need=number - unit.gunnery,
                modifiers=odds.modifiers if odds else (),
                heat=w.spec.heat if unit.keeps_heat else 0,
                target_known=place.motion.known if place is not None else True,
            )
        )
    return tuple(out)


@dataclass(frozen=True, slots=True)
class PhysicalOption:
    """A physical attack open from the end position (MECH-2.2), with its odds and damage."""

    kind: str
    limb: str
    target: str
    target_number: int
    need: int
    damage: int
    self_damage: int
    modifiers: tuple[Modifier, ...]


PHYSICAL_CHOICES: tuple[tuple[str, str], ...] = (
    ("punch", "la"),
    ("punch", "ra"),
    ("kick", "ll"),
    ("kick", "rl"),
    ("push", ""),
    ("melee", ""),
    ("charge", ""),
    ("dfa", ""),
)


def physical_options(
    state: EncounterState,
    unit_id: str,
    *,
    mode: str = STAND,
    path: tuple[Hex, ...] = (),
    facing: int | None = None,
    twist: int = 0,
) -> tuple[PhysicalOption, ...]:
    """Every physical attack the unit could declare after this movement: which limb at which enemy, with the
    number it needs and the damage it would do (charge: by the hexes of its last straight run)."""
    unit = _unit(state, unit_id)
    assert unit.at is not None
    seen = _seen(state, unit_id)
    try:
        cost: PathCost | None = (
            None
            if mode == STAND
            else path_cost(state.board, unit, mode, path, facing, per_turn=turn_surcharge(state, unit))
        )
    except IllegalOrderError:
        return ()
    end = cost.end if cost is not None else unit.at
    end_facing = cost.end_facing if cost is not None else unit.facing
    draft = MechOrder(unit=unit_id, mode=mode, path=path, facing=facing, twist=twist)
    out: list[PhysicalOption] = []
    for target_id, place in seen.items():
        target = state.units[target_id]
        if not isinstance(target, Mech) or target.side == unit.side or end.distance(place.at) != 1:
            continue
        for kind, limb in PHYSICAL_CHOICES:
            entry = PhysicalEntry(kind=kind, limb=limb, target=target_id)
            try:
                check_physical(state, unit, _with(draft, entry), end, end_facing, cost, seen)
            except IllegalOrderError:
                continue
            mods, number = physical_odds(mode, target, place.motion)
            straight, _ = straight_run(cost)
            damage, self_damage = physical_damage(kind, unit, target, straight)
            out.append(
                PhysicalOption(
                    kind=kind,
                    limb=limb,
                    target=target_id,
                    target_number=number,
                    need=number - unit.piloting,
                    damage=damage,
                    self_damage=self_damage,
                    modifiers=mods,
                )
            )
    return tuple(out)


def heat_after(state: EncounterState, order: MechOrder) -> HeatProjection:
    """The heat a declaration would leave (MECH-3.1) and what it brings next turn (MECH-3.2):
    ``calor 12 → +2 para impactar el próximo turno``."""
    return project_heat(_unit(state, order.unit), order)


def _seen(state: EncounterState, unit_id: str) -> dict[str, Placement]:
    seen = placements(state, unit_id)
    seen.pop(unit_id, None)
    return seen


def _with(order: MechOrder, entry: PhysicalEntry) -> MechOrder:
    return replace(order, physical=(entry,))


def target_motion(state: EncounterState, viewer: str, target_id: str) -> Motion:
    """How ``target_id``'s movement this turn looks to ``viewer`` while it declares."""
    place = _seen(state, viewer).get(target_id)
    return place.motion if place is not None else Motion()


# --- destinations: a move picked as its end hex ---------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Destination:
    """A hex the unit can end its movement in (MECH-1.2): the mode it needs, the cheapest path there the rules
    accept as declared, what that path costs keeping the facing it leaves, and that facing."""

    to: Hex
    mode: str
    path: tuple[Hex, ...]
    cost: int
    facing: int


def destinations(state: EncounterState, unit_id: str, mode: str) -> tuple[Destination, ...]:
    """Every hex ``mode`` can take the unit to this turn, each by its cheapest path (MECH-1.2 costs, a layer's
    turn surcharge, MECH-5 air movement), nearest first. A path is searched step by step with the cost and
    board checks a declaration gets, and each end is kept only if the whole declaration is accepted, so a
    destination offered is one the rules take (no enemy on or in the way, MP enough, no reverse at run …)."""
    unit = _unit(state, unit_id)
    mp = mp_available(unit).get(mode)
    if unit.at is None or mp is None or mode == STAND or unit.prone:
        return ()
    seen = _seen(state, unit_id)
    enemies = {p.at for uid, p in seen.items() if state.units[uid].side != unit.side}
    if unit.is_fighter:
        best = _fighter_search(state, unit, mode, mp)
    else:
        best = _ground_search(state.board, unit, mode, mp, turn_surcharge(state, unit), enemies)
    start = unit.at
    cheapest: dict[Hex, tuple[int, tuple[Hex, ...], int]] = {}
    for (at, heading, _), (cost, path) in best.items():
        if path and (at not in cheapest or cost < cheapest[at][0]):
            cheapest[at] = (cost, path, heading)
    out = _accepted(state, unit, mode, cheapest, {p.at for p in seen.values()})
    return tuple(sorted(out, key=lambda d: (start.distance(d.to), d.cost, d.to.label)))


#: a search state: the hex, the facing the path leaves there and, for a fighter, the hexes flown straight since
#: its last turn (MECH-5: it turns only after two); and what reaching it first cost, by which path
SearchKey = tuple[Hex, int, int]
Searched = dict[SearchKey, tuple[int, tuple[Hex, ...]]]
#: one step of a search: the cost so far, the path and the state it reaches
Step = tuple[int, tuple[Hex, ...], SearchKey]


def _ground_search(
    board: Board, unit: Mech, mode: str, mp: int, per_turn: int, enemies: set[Hex]
) -> Searched:
    """Dijkstra over (hex, facing) for a unit that is not a fighter: each step priced and judged as
    ``path_cost`` and ``step_problem`` price and judge a one-hex path from the hex reached (MECH-1.2: 1 MP, 1 MP
    per hexside turned plus a layer's surcharge, the terrain's MP, 1 MP per level climbed; no reverse at run or
    flank; no step off the board, up or down more levels than the kind climbs, into terrain vehicles cannot
    enter, nor, but for a jump, into an enemy's hex), the cost added to the path's so far instead of pricing
    the whole path again. Ties pop in the order they were pushed, so the paths found are those of the
    step-by-step pricing."""
    assert unit.at is not None
    tb = tables()
    jump, fast = mode == JUMP, mode in FAST_MODES
    air = unit.is_air
    turn_mp = 1 + per_turn
    stand_up = tb.stand_up_mp if unit.prone and mode in (WALK, RUN) else 0
    limit = tb.max_step.get(unit.kind, 99)
    no_vehicles = unit.kind == VEHICLE
    refused = no_vehicles and jump  # step_problem: vehicles cannot jump
    cells = _cells_of(board)
    start = unit.at

    def steps(cost: int, path: tuple[Hex, ...], key: SearchKey) -> Iterator[Step]:
        here, heading, _ = key
        here_cell = cells(here)
        if not here_cell.inside:
            return
        for side, h in enumerate(neighbors_of(here)):
            if jump:
                facing, step, reverse = heading, 1, False
            else:
                turns = TURN_DISTANCES[heading % 6]
                forward, backward = turns[side], turns[(side + 3) % 6]
                reverse = backward < forward
                facing = (side + 3) % 6 if reverse else side
                step = 1 + (backward if reverse else forward) * turn_mp
                if not air:
                    cell = cells(h)
                    step += cell.mp + abs(cell.elevation - here_cell.elevation) * tb.mp_per_level
            total = cost + stand_up + step
            if h == start or total > mp or (fast and reverse) or refused:
                continue
            cell = cells(h)
            if not cell.inside or (no_vehicles and not cell.vehicles):
                continue
            if not jump and (abs(cell.elevation - here_cell.elevation) > limit or h in enemies):
                continue
            yield total, (*path, h), (h, facing, 0)

    return _cheapest_first((start, unit.facing, 0), steps)


def _fighter_search(state: EncounterState, unit: Mech, mode: str, mp: int) -> Searched:
    """MECH-5: a fighter's turns are judged over its whole flight (which may leave the board), so each trial
    flight is priced and judged whole."""
    assert unit.at is not None
    per_turn = turn_surcharge(state, unit)
    start = unit.at

    def steps(cost: int, path: tuple[Hex, ...], key: SearchKey) -> Iterator[Step]:
        here, heading, straight = key
        if not state.board.contains(here):
            return  # a fighter leaving the board ends its flight there (MECH-5)
        for side in range(6):
            trial = (*path, here.neighbor(side))
            one = path_cost(
                state.board, unit, mode, trial[-1:], start=here, start_facing=heading, per_turn=per_turn
            )
            last = one.steps[0]
            total = cost + one.total
            if last.hex == start or total > mp:
                continue
            if step_problem(state.board, unit, mode, path_cost(state.board, unit, mode, trial), start):
                continue
            ahead = straight + 1 if last.turns == 0 else 1
            yield total, trial, (last.hex, heading if mode == JUMP else last.facing, ahead)

    return _cheapest_first((start, unit.facing, 0), steps)


def _cheapest_first(
    origin: SearchKey, steps: Callable[[int, tuple[Hex, ...], SearchKey], Iterable[Step]]
) -> Searched:
    """Dijkstra from ``origin``: each search state is reached first by its cheapest path; ``steps`` gives, for a
    state reached at a cost by a path, the states one step on (their cost so far, path and key). Ties pop in the
    order they were pushed, so the same paths are found whatever prices the steps."""
    best: Searched = {}
    frontier: list[tuple[int, int, tuple[Hex, ...], SearchKey]] = [(0, 0, (), origin)]
    pushed = 0
    while frontier:
        cost, _, path, key = heapq.heappop(frontier)
        if key in best:
            continue
        best[key] = (cost, path)
        for total, trial, nxt in steps(cost, path, key):
            if nxt not in best:
                pushed += 1
                heapq.heappush(frontier, (total, pushed, trial, nxt))
    return best


def _accepted(
    state: EncounterState,
    unit: Mech,
    mode: str,
    cheapest: dict[Hex, tuple[int, tuple[Hex, ...], int]],
    occupied: set[Hex],
) -> list[Destination]:
    """The ends whose declaration (this mode, this path, no fire) ``check_declaration`` accepts.

    For a unit that is not a fighter the search already judged every step as the declaration's path checks do
    (MECH-1.2: board, climbs, terrain, no reverse at run, MP, no enemy on the way), so what is left depends on
    the path only through its end (no unit ends where another stands) and otherwise on the unit alone (active,
    not shut down, a mode of its kind, legs whole). One declaration is checked whole; if the rules take it, the
    others are taken exactly when their end is free, at the cost and facing the search found. Otherwise (and
    for a fighter, whose search does not look for enemies on the way) each is checked whole."""
    ends = list(cheapest.items())
    sample = next(((at, found) for at, found in ends if at not in occupied), None)
    if not unit.is_fighter and sample is not None:
        at, (cost, path, heading) = sample
        checked = _accepted_path(state, unit, mode, path)
        if checked is not None and (checked.total, checked.end_facing) == (cost, heading):
            return [
                Destination(at, mode, path, cost, heading)
                for at, (cost, path, heading) in ends
                if at not in occupied
            ]
    out: list[Destination] = []
    for at, (_, path, _) in ends:
        found = _accepted_path(state, unit, mode, path)
        if found is not None:
            out.append(Destination(at, mode, path, found.total, found.end_facing))
    return out


@dataclass(frozen=True, slots=True)
class _Cell:
    """What a step into a hex needs to know of it (MECH-1.2)."""

    inside: bool
    mp: int  # the terrain's movement points
    elevation: int
    vehicles: bool  # whether vehicles may enter its terrain


def _cells_of(board: Board) -> Callable[[Hex], _Cell]:
    """A board's per-hex movement facts, read once per hex; boards are immutable, so they are kept by board."""
    found = _BOARD_CELLS.get(id(board))
    if found is None or found[0] is not board:
        tb = tables()
        memo: dict[Hex, _Cell] = {}

        def cell(h: Hex) -> _Cell:
            got = memo.get(h)
            if got is None:
                kind = tb.terrain_kind(board.terrain_at(h))
                got = memo[h] = _Cell(board.contains(h), kind.mp, elevation(board, h), kind.vehicles)
            return got

        found = (board, cell)
        _BOARD_CELLS[id(board)] = found
        if len(_BOARD_CELLS) > BOARDS_KEPT:
            with suppress(KeyError):  # another thread emptied it first
                _BOARD_CELLS.popitem(last=False)
    return found[1]


#: boards whose cells are kept: one per encounter in play mostly (an encounter's board never changes)
BOARDS_KEPT = 64
_BOARD_CELLS: OrderedDict[int, tuple[Board, Callable[[Hex], _Cell]]] = OrderedDict()


def _accepted_path(state: EncounterState, unit: Mech, mode: str, path: tuple[Hex, ...]) -> PathCost | None:
    try:
        return check_declaration(state, MechOrder(unit=unit.id, mode=mode, path=path))
    except IllegalOrderError:
        return None
