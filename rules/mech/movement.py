"""Movement points and paths (MECH-1.2, DESIGN §7.1), heat and damage limits on them (MECH-3.2, MECH-2.3).

Path cost, exactly as DESIGN §7.1 states it: each hex entered costs 1 MP; before entering it the unit turns to
face it (forward) or to face away from it (reverse), whichever needs fewer hexside turns (ties: forward), 1 MP
per hexside turned; reverse is allowed at walk/cruise only; the hex entered adds its terrain's MP (light or
heavy woods, rough, water: 1) plus 1 per elevation level changed; each hexside turned to reach the end facing
costs 1 MP. Jump: up to ``jump`` hexes, terrain and turns free, end facing free.
"""

from __future__ import annotations

from dataclasses import dataclass

from rules.errors import IllegalOrderError
from rules.hexgrid import SIDE_OF, Hex, turn_distance
from rules.mech.geometry import elevation
from rules.mech.heat import mp_penalty
from rules.mech.model import VEHICLE, Mech
from rules.mech.orders import CRUISE, FLANK, JUMP, RUN, STAND, WALK, MechOrder
from rules.mech.tables import tables
from rules.ruleset import surcharge
from rules.state import Board, EncounterState

MECH_MODES = (STAND, WALK, RUN, JUMP)
VEHICLE_MODES = (STAND, CRUISE, FLANK)
FAST_MODES = (RUN, FLANK)  # no reverse (MECH-1.2)


def modes_for(unit: Mech) -> tuple[str, ...]:
    return MECH_MODES if unit.is_mech else VEHICLE_MODES


def mp_available(unit: Mech) -> dict[str, int]:
    """MP per movement mode after heat (MECH-3.2) and damage (MECH-2.3).

    Shut down, immobile (a destroyed leg) or destroyed: only ``stand``. Heat takes its MP from every mode
    (the seed's "−N Puntos de Movimiento"); a prone mech cannot jump. Vehicles keep no heat.
    """
    if unit.destroyed or unit.shutdown or unit.immobile:
        return {STAND: 0}
    if not unit.is_mech:
        return {STAND: 0, CRUISE: unit.walk, FLANK: unit.run}
    penalty = mp_penalty(unit.heat)
    out = {STAND: 0, WALK: max(0, unit.walk - penalty), RUN: max(0, unit.run - penalty)}
    if unit.jump > 0 and not unit.prone:
        out[JUMP] = max(0, unit.jump - penalty)
    return out


@dataclass(frozen=True, slots=True)
class StepCost:
    """One hex of a path: how the unit entered it and what it cost (a player can check it with a pencil)."""

    hex: Hex
    reverse: bool
    turns: int
    terrain: int
    elevation: int
    cost: int
    facing: int  # the unit's facing once in the hex


@dataclass(frozen=True, slots=True)
class PathCost:
    mode: str
    steps: tuple[StepCost, ...]
    stand_up: int  # MP spent standing up first (a prone mech)
    end: Hex
    end_facing: int
    facing_turns: int  # MP for turning to the end facing
    total: int

    @property
    def reverse(self) -> bool:
        return any(s.reverse for s in self.steps)

    @property
    def hexes(self) -> int:
        return len(self.steps)


def _illegal(
    unit: Mech, message: str, code: str, rule: str = "MECH-1.2", **params: object
) -> IllegalOrderError:
    return IllegalOrderError(
        f"{unit.name}: {message}", code=code, rule=rule, params={"unit": unit.id, "name": unit.name, **params}
    )


def path_cost(
    board: Board,
    unit: Mech,
    mode: str,
    path: tuple[Hex, ...],
    facing: int | None = None,
    *,
    start: Hex | None = None,
    start_facing: int | None = None,
    per_turn: int = 0,
) -> PathCost:
    """The MP cost of ``path`` then turning to ``facing`` (None: keep the facing the path leaves); ``per_turn`` MP
    more for every hexside turned (a layer's surcharge, :func:`turn_surcharge`).

    Raises ``IllegalOrderError`` only for a path that is not a chain of neighbours (MECH-1.2); every other limit
    (MP, reverse at run, climbs, the board edge) is for the caller to judge from the result.
    """
    at = start if start is not None else unit.at
    heading = start_facing if start_facing is not None else unit.facing
    if at is None:
        raise _illegal(unit, "is not on the board", "mech.not_on_board")
    tb = tables()
    steps: list[StepCost] = []
    stand_up = tb.stand_up_mp if unit.prone and mode in (WALK, RUN) else 0
    here = at
    for h in path:
        if here.distance(h) != 1:
            raise _illegal(
                unit,
                f"{h.label} is not next to {here.label}: a path lists every hex entered",
                "mech.path_gap",
                hex=h.label,
                prev=here.label,
            )
        direction = SIDE_OF[h.q - here.q, h.r - here.r]
        if mode == JUMP:
            steps.append(StepCost(h, False, 0, 0, 0, 1, heading))  # a jump keeps the facing
        else:
            forward, backward = turn_distance(heading, direction), turn_distance(heading, (direction + 3) % 6)
            reverse = backward < forward
            turns = backward if reverse else forward
            # MECH-5: an air unit flies over terrain and elevation alike
            terrain = 0 if unit.is_air else tb.terrain_kind(board.terrain_at(h)).mp
            climb = 0 if unit.is_air else abs(elevation(board, h) - elevation(board, here)) * tb.mp_per_level
            new_facing = (direction + 3) % 6 if reverse else direction
            cost = 1 + turns * (1 + per_turn) + terrain + climb
            steps.append(StepCost(h, reverse, turns, terrain, climb, cost, new_facing))
            heading = new_facing
        here = h
    if mode == JUMP:
        end_facing = facing if facing is not None else heading
        facing_turns = 0
    else:
        end_facing = facing if facing is not None else heading
        facing_turns = turn_distance(heading, end_facing) * (1 + per_turn)
    total = stand_up + sum(s.cost for s in steps) + facing_turns
    return PathCost(mode, tuple(steps), stand_up, here, end_facing % 6, facing_turns, total)


def turn_surcharge(state: EncounterState, unit: Mech) -> int:
    """NGT-5.1: the MP a layer adds per hexside a vehicle turns (night: 1); BattleMechs pay the day costs
    [HOUSE]."""
    return surcharge(state).per_turn if unit.kind == VEHICLE else 0


def legal_facings(
    board: Board, unit: Mech, mode: str, path: tuple[Hex, ...], per_turn: int = 0
) -> tuple[int, ...]:
    """End facings the unit can afford after ``path`` in ``mode`` (jump: all six; standing: its own)."""
    if mode == STAND:
        return (unit.facing,)
    mp = mp_available(unit).get(mode)
    if mp is None:
        return ()
    base = path_cost(board, unit, mode, path, per_turn=per_turn)
    if base.total > mp:
        return ()
    if mode == JUMP:
        return tuple(range(6))
    heading = base.steps[-1].facing if base.steps else unit.facing
    spare = mp - (base.total - base.facing_turns)
    return tuple(f for f in range(6) if turn_distance(heading, f) * (1 + per_turn) <= spare)


def step_problem(board: Board, unit: Mech, mode: str, cost: PathCost, start: Hex) -> IllegalOrderError | None:
    """Board limits of a path: edge, climbs too steep for the kind, terrain the kind cannot enter (MECH-1.2)."""
    tb = tables()
    here = start
    if unit.is_fighter:
        problem = fighter_problem(unit, cost)
        if problem is not None:
            return problem
    for i, step in enumerate(cost.steps):
        if not board.contains(step.hex):
            if unit.is_fighter and i == len(cost.steps) - 1:
                break  # MECH-5 [HOUSE]: a fighter may fly off the board (it comes back next turn)
            return _illegal(unit, f"{step.hex.label} is off the board", "mech.off_board", hex=step.hex.label)
        if mode != JUMP:
            limit = tb.max_step.get(unit.kind, 99)
            if abs(elevation(board, step.hex) - elevation(board, here)) > limit:
                return _illegal(
                    unit,
                    f"{here.label} → {step.hex.label} changes more than {limit} elevation level(s)",
                    "mech.climb",
                    hex=step.hex.label,
                    prev=here.label,
                    limit=limit,
                )
        if unit.kind == VEHICLE and not tb.terrain_kind(board.terrain_at(step.hex)).vehicles:
            return _illegal(
                unit,
                f"vehicles cannot enter {board.terrain_at(step.hex)} ({step.hex.label})",
                "mech.vehicle_terrain",
                hex=step.hex.label,
                terrain=str(board.terrain_at(step.hex)),
            )
        here = step.hex
    if mode == JUMP and not unit.is_mech:
        return _illegal(unit, "vehicles cannot jump", "mech.vehicle_jump")
    return None


#: MECH-5 [HOUSE]: a fighter turns at most one hexside, and only after this many hexes flown straight
FIGHTER_STRAIGHT = 2


def fighter_problem(unit: Mech, cost: PathCost) -> IllegalOrderError | None:
    """MECH-5: a fighter flies forward along its facing (never in reverse, at least one hex), turning at most one
    hexside after every 2 hexes [HOUSE], the end facing included."""
    if not cost.steps:
        return _illegal(unit, "a fighter flies at least one hex", "mech.fighter_still", "MECH-5")
    straight = 0
    for step in cost.steps:
        if step.reverse:
            return _illegal(unit, "a fighter never flies in reverse", "mech.fighter_reverse", "MECH-5")
        if step.turns > 1 or (step.turns == 1 and straight < FIGHTER_STRAIGHT):
            return _illegal(
                unit,
                f"a fighter turns one hexside at most, after {FIGHTER_STRAIGHT} hexes straight ({step.hex.label})",
                "mech.fighter_turn",
                "MECH-5",
                hex=step.hex.label,
                straight=FIGHTER_STRAIGHT,
            )
        straight = 1 if step.turns else straight + 1
    if cost.facing_turns > 1 or (cost.facing_turns == 1 and straight < FIGHTER_STRAIGHT):
        return _illegal(
            unit,
            f"a fighter turns one hexside at most, after {FIGHTER_STRAIGHT} hexes straight ({cost.end.label})",
            "mech.fighter_turn",
            "MECH-5",
            hex=cost.end.label,
            straight=FIGHTER_STRAIGHT,
        )
    return None


def straight_path(board: Board, unit: Mech, hexes: int) -> tuple[Hex, ...]:
    """MECH-5: ``hexes`` hexes straight ahead along the unit's facing, ending at the first one off the board (a
    fighter leaves there)."""
    assert unit.at is not None
    out: list[Hex] = []
    here = unit.at
    for _ in range(hexes):
        here = here.neighbor(unit.facing)
        out.append(here)
        if not board.contains(here):
            break
    return tuple(out)


def out_of_control_order(board: Board, unit: Mech) -> MechOrder:
    """MECH-5 [HOUSE]: an out-of-control fighter flies straight on at flank speed and fires nothing."""
    return MechOrder(unit=unit.id, mode=FLANK, path=straight_path(board, unit, unit.run))


def cruise_order(board: Board, unit: Mech) -> MechOrder:
    """MECH-5: a fighter that gets no declaration flies straight on at cruise speed (it cannot stand still)."""
    return MechOrder(unit=unit.id, mode=CRUISE, path=straight_path(board, unit, unit.walk))
