"""One resolution of the director-run procedure, and who it waits for.

A resolution takes, in this order: combats that can no longer be fought are called off; the procedure orders
(moves, mode changes, new combats, cancellations), by actor; the sides' answers, by combat; then every combat
that was ready when the resolution began rolls (OCS-5, OCS-6), in combat order. A combat whose ARs are both
named in this resolution rolls in the next one. An order that stopped being legal since it was accepted (another
answer of the same resolution got there first) is dropped with a note, and its combat asks again.
"""

from __future__ import annotations

from collections.abc import Mapping

from rules.by_hand import RULE
from rules.dice import Dice
from rules.errors import IllegalOrderError
from rules.events import Event, Note, UnitMoved
from rules.ocs.combat import Outcome, answer, cancel_combat, open_combat, roll_combat
from rules.ocs.events import OcsModeChanged, OcsTurnEnded
from rules.ocs.legality import check_order, combat_problem
from rules.ocs.model import READY, OcsUnit, ext_of
from rules.ocs.orders import (
    CancelCombat,
    ChooseAr,
    EndTurn,
    FreeMove,
    Losses,
    ModeChange,
    OpenCombat,
    Retreats,
)
from rules.ocs.queries import questions
from rules.ruleset import Order, PhaseResult
from rules.state import EncounterState, replace_unit

ANSWER_TYPES = (ChooseAr, Losses, Retreats)


def resolve(state: EncounterState, orders: Mapping[str, Order], dice: Dice) -> PhaseResult:
    events: list[Event] = []
    for combat in ext_of(state).combats:
        problem = combat_problem(state, combat)
        if problem is not None:
            state, more = cancel_combat(state, combat.id, problem)
            events.extend(more)
    ready = [c.id for c in ext_of(state).combats if c.stage == READY]
    procedure = [orders[k] for k in sorted(orders) if not isinstance(orders[k], ANSWER_TYPES)]
    answers = sorted(
        (o for o in orders.values() if isinstance(o, ANSWER_TYPES)), key=lambda o: (o.combat, o.unit)
    )
    for order in (*procedure, *answers):
        state, more = _apply(state, order)
        events.extend(more)
    for cid in ready:
        combat = next((c for c in ext_of(state).combats if c.id == cid), None)
        if combat is not None and combat.stage == READY:
            state, more = roll_combat(state, cid, dice)
            events.extend(more)
    return PhaseResult(state, tuple(events))


def nothing_due(state: EncounterState) -> bool:
    """No combat is ready to roll (OCS-5, OCS-6) and none has to be called off: a resolution without orders would
    change nothing."""
    return all(c.stage != READY and combat_problem(state, c) is None for c in ext_of(state).combats)


def _apply(state: EncounterState, order: Order) -> Outcome:
    try:
        check_order(state, order.unit, order)
    except IllegalOrderError as exc:
        note = Note(
            rule=exc.rule or "OCS-2",
            key="ocs.order_dropped",
            unit=order.unit,
            args=(("reason", exc.message),),
        )
        return state, [note]
    if isinstance(order, ChooseAr | Losses | Retreats):
        return answer(state, order)
    if isinstance(order, OpenCombat):
        return open_combat(state, order)
    if isinstance(order, CancelCombat):
        return cancel_combat(state, order.combat, "called_off")
    if isinstance(order, EndTurn):  # the director's call: the seed's sequence of play is not in the engine
        turn = state.round + 1
        return state.replace(round=turn), [OcsTurnEnded(rule=RULE, turn=turn)]
    if isinstance(order, FreeMove):
        unit = state.unit_as(order.who, OcsUnit)
        moved = UnitMoved(
            rule="OCS-1",
            unit=unit.id,
            frm=unit.at,
            to=order.to,
            facing_from=unit.facing,
            facing_to=unit.facing,
        )
        return state.with_units([replace_unit(unit, at=order.to)]), [moved]
    assert isinstance(order, ModeChange)
    unit = state.unit_as(order.who, OcsUnit)
    changed = OcsModeChanged(rule="OCS-1", unit=unit.id, frm=unit.mode, to=order.mode)
    return state.with_units([replace_unit(unit, mode=order.mode)]), [changed]


def awaiting(state: EncounterState) -> tuple[str, ...]:
    """For each open combat waiting for a side, one unit of that side in the combat."""
    if state.over:
        return ()
    return tuple(dict.fromkeys(q.unit for q in questions(state)))


def auto_resolves(state: EncounterState) -> bool:
    """True only when a resolution has work of its own: a combat ready to roll, or one to call off."""
    if state.over:
        return False
    return any(c.stage == READY or combat_problem(state, c) is not None for c in ext_of(state).combats)
