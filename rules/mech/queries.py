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
from dataclasses import dataclass, replace

from rules.errors import IllegalOrderError
from rules.hexgrid import Hex
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
from rules.mech.model import Mech
from rules.mech.movement import (
    FAST_MODES,
    PathCost,
    legal_facings,
    mp_available,
    path_cost,
    step_problem,
    turn_surcharge,
)
from rules.mech.orders import JUMP, STAND, MechOrder, PhysicalEntry
from rules.mech.tohit import Modifier, Motion, physical_damage, physical_odds
from rules.state import EncounterState


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
    per_turn = turn_surcharge(state, unit)
    start = unit.at
    enemies = {p.at for uid, p in _seen(state, unit_id).items() if state.units[uid].side != unit.side}
    # a search state: the hex, the facing the path leaves there and, for a fighter, the hexes flown straight
    # since its last turn (MECH-5: it turns only after two)
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
            continue  # a fighter leaving the board ends its flight there (MECH-5)
        for side in range(6):
            trial = (*path, here.neighbor(side))
            try:  # this step alone, from where the path stands (the whole path for a fighter's turns)
                one = path_cost(
                    state.board, unit, mode, trial[-1:], start=here, start_facing=heading, per_turn=per_turn
                )
            except IllegalOrderError:
                continue
            last = one.steps[0]
            total = cost + one.total
            if last.hex == start or total > mp:
                continue
            if (
                unit.is_fighter
            ):  # MECH-5: its turns are judged over the whole flight, which may leave the board
                if step_problem(state.board, unit, mode, path_cost(state.board, unit, mode, trial), start):
                    continue
            elif _step_refused(state, unit, mode, one, here, enemies):
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
        found = _accepted_path(state, unit, mode, path)
        if found is not None:
            out.append(Destination(at, mode, path, found.total, found.end_facing))
    return tuple(sorted(out, key=lambda d: (start.distance(d.to), d.cost, d.to.label)))


def _step_refused(
    state: EncounterState, unit: Mech, mode: str, step: PathCost, here: Hex, enemies: set[Hex]
) -> bool:
    """Whether a path cannot take ``step`` from ``here``: the declaration's own board checks (MECH-1.2 edge,
    climbs, terrain; reverse at run) and, but for a jump, an enemy there."""
    last = step.steps[0]
    if mode in FAST_MODES and last.reverse:
        return True
    if step_problem(state.board, unit, mode, step, here) is not None:
        return True
    return mode != JUMP and last.hex in enemies


def _accepted_path(state: EncounterState, unit: Mech, mode: str, path: tuple[Hex, ...]) -> PathCost | None:
    try:
        return check_declaration(state, MechOrder(unit=unit.id, mode=mode, path=path))
    except IllegalOrderError:
        return None
