"""One ``resolve`` call in activation mode: a chit draw, one action, or one answer to an overwatch question.

An action first pays its AP, then every overwatch shot it triggers is resolved (SK-4.1: "before the triggering
action"); a watcher whose policy is ``ask`` pauses the resolution with a ``Decision`` while the action waits in
``SkirmishState.trigger``. If the shots kill the actor the action is cancelled, otherwise it happens.
"""

from __future__ import annotations

from collections.abc import Mapping

from rules.dice import Dice
from rules.errors import IllegalOrderError
from rules.events import Event, UnitMoved
from rules.ruleset import Order, PhaseResult
from rules.skirmish.activation import (
    DRAW,
    check_victory,
    draw_chit,
    end_activation,
    ext_of,
    waiting_characters,
)
from rules.skirmish.combat import Outcome, grenade, melee_attack, other_action, ranged_attack
from rules.skirmish.events import (
    SkActionCancelled,
    SkApSpent,
    SkOverwatchHeld,
    SkOverwatchLost,
    SkOverwatchSet,
    SkPathStopped,
)
from rules.skirmish.legality import action_cost, check_reaction, illegal, path_steps
from rules.skirmish.model import (
    Character,
    SkAct,
    SkEnd,
    SkForcedEnd,
    SkGrenade,
    SkirmishState,
    SkMelee,
    SkMove,
    SkOverwatch,
    SkReaction,
    SkShoot,
    SkTrigger,
    SkTurn,
    action_kind,
)
from rules.skirmish.overwatch import may_fire, overwatch_shot, shot_queue
from rules.state import Decision, EncounterState, replace_unit


def check_turn(state: EncounterState, actor: str, order: Order) -> None:
    """SK-1.1: only a character of the drawn chit acts, one at a time, and only for itself."""
    ch = state.unit_as(actor, Character)
    if state.over:
        raise illegal(ch, "over", "SK-1.1", "the encounter is over")
    if isinstance(order, SkReaction):
        check_reaction(state, order)
        return
    if state.pending is not None:
        raise illegal(
            ch, "waiting_reaction", "SK-4.1", f"waiting for {state.pending.unit} to answer overwatch"
        )
    if order.unit != actor or actor not in waiting_characters(state):
        raise illegal(ch, "not_your_turn", "SK-1.1", "it is not this character's turn to act")


def resolve(state: EncounterState, orders: Mapping[str, Order], dice: Dice) -> PhaseResult:
    if state.pending is not None:
        answer = next((o for o in orders.values() if isinstance(o, SkReaction)), None)
        if answer is None:
            raise IllegalOrderError(
                f"waiting for {state.pending.unit} to answer the overwatch question",
                code="skirmish.waiting_reaction",
                rule="SK-4.1",
                params={"unit": state.pending.unit},
            )
        check_reaction(state, answer)
        return _continue(state.replace(pending=None), dice, [], answer)
    if state.phase == DRAW or not orders:
        if state.over:
            return PhaseResult(state, ())
        state, events = draw_chit(state, dice)
        return PhaseResult(state, tuple(events))
    if len(orders) != 1:
        raise IllegalOrderError(
            "one action at a time in an activation", code="skirmish.one_action", rule="SK-1.1", params={}
        )
    ((actor, order),) = orders.items()
    check_turn(state, actor, order)
    ch = state.unit_as(actor, Character)
    cost = action_cost(state, ch, order)
    events: list[Event] = []
    if ch.overwatch is not None:
        # SK-4.1: overwatch is always the last action of an activation, so a watcher giving an order is starting
        # its next activation, and that ends the overwatch whether or not the activation spends AP.
        ch = replace_unit(ch, overwatch=None)
        state = state.with_units([ch])
        events.append(SkOverwatchLost(rule="SK-4.1", unit=ch.id))
    if isinstance(order, SkEnd):
        state, more = end_activation(state, actor, forced=isinstance(order, SkForcedEnd))
        return PhaseResult(state, (*events, *more))
    rest: tuple[Order, ...] = ()
    if isinstance(order, SkMove) and order.path:
        # a path is its steps, one move action each: each pays its AP and draws its overwatch in turn
        first, *later = path_steps(state, ch, order)
        order, rest, cost = first, tuple(later), action_cost(state, ch, first)
    return _start(state, dice, events, ch, order, cost, rest)


def _start(
    state: EncounterState,
    dice: Dice,
    events: list[Event],
    ch: Character,
    order: Order,
    cost: int,
    rest: tuple[Order, ...],
) -> PhaseResult:
    """Pay an action's AP and hold it while the overwatch shots it draws are resolved (SK-1.2, SK-4.1)."""
    ext = ext_of(state)
    if isinstance(order, SkTurn):  # SK-2.1: the run of turns in place goes on
        start = ch.facing if ch.turn_from is None else ch.turn_from
        ch = replace_unit(ch, ap_left=ch.ap_left - cost, turn_from=start, turn_paid=ch.turn_paid + cost)
    else:  # any other action ends the run
        ch = replace_unit(ch, ap_left=ch.ap_left - cost, turn_from=None, turn_paid=0)
    events.append(
        SkApSpent(rule="SK-1.2", unit=ch.id, action=action_kind(order), cost=cost, ap_left=ch.ap_left)
    )
    state = state.with_units([ch])
    queue = shot_queue(state, ch.id, order, cost)
    trigger = SkTrigger(actor=ch.id, order=order, cost=cost, queue=queue, rest=rest)
    state = state.replace(ext=_with(ext, active=ch.id, trigger=trigger))
    return _continue(state, dice, events, None)


def _with(ext: SkirmishState, *, active: str | None, trigger: SkTrigger | None) -> SkirmishState:
    return SkirmishState(
        bag=ext.bag, draw_plan=ext.draw_plan, chit=ext.chit, active=active, done=ext.done, trigger=trigger
    )


def _continue(
    state: EncounterState, dice: Dice, events: list[Event], answer: SkReaction | None
) -> PhaseResult:
    """Work through the overwatch queue, then carry out (or cancel) the held action."""
    ext = ext_of(state)
    trigger = ext.trigger
    assert trigger is not None
    queue: list[str] = list(trigger.queue)
    actor_id = trigger.actor
    fired = trigger.interrupted
    while queue and state.unit_as(actor_id, Character).acting and not state.over:
        watcher_id = queue[0]
        if not may_fire(state, watcher_id, actor_id):
            queue.pop(0)
            continue
        watcher = state.unit_as(watcher_id, Character)
        if watcher.overwatch == "ask":
            if answer is None or answer.unit != watcher_id:
                held = SkTrigger(
                    actor=actor_id,
                    order=trigger.order,
                    cost=trigger.cost,
                    queue=tuple(queue),
                    rest=trigger.rest,
                    interrupted=fired,
                )
                state = state.replace(ext=_with(ext, active=ext.active, trigger=held))
                question = _question(state, watcher, actor_id, trigger)
                return PhaseResult(state.replace(pending=question), tuple(events), question)
            fire, answer = answer.answer == "fire", None
        else:
            fire = watcher.overwatch == "always"
        queue.pop(0)
        if fire:
            fired = True
            state, more = overwatch_shot(state, dice, watcher_id, actor_id)
            events.extend(more)
            state, more = check_victory(state)
            events.extend(more)
        else:
            # holding answers for this whole action: the watcher is not asked again for it
            queue = [w for w in queue if w != watcher_id]
            events.append(SkOverwatchHeld(rule="SK-4.1", unit=watcher_id, target=actor_id))
    state = state.replace(ext=_with(ext_of(state), active=ext.active, trigger=None))
    if state.over:
        # the overwatch shots ended the encounter: the held action never happens, and the log says so
        kind = action_kind(trigger.order)
        events.append(SkActionCancelled(rule="SK-1.1", unit=actor_id, action=kind, reason="game_over"))
        return PhaseResult(state, tuple(events))
    actor = state.unit_as(actor_id, Character)
    if not actor.acting:
        events.append(SkActionCancelled(rule="SK-4.1", unit=actor_id, action=action_kind(trigger.order)))
        state, more = end_activation(state, actor_id)
        events.extend(more)
        return PhaseResult(state, tuple(events))
    state, more = _perform(state, dice, actor, trigger.order)
    events.extend(more)
    state, more = check_victory(state)
    events.extend(more)
    if state.over:
        return PhaseResult(state, tuple(events))
    actor = state.unit_as(actor_id, Character)
    if trigger.rest and actor.acting:
        if fired:
            # drawn fire stops a path where it was drawn: the character stands there with the rest of its AP, to
            # act again knowing what happened (SK-4.1: the shot came before this step, which still happened)
            assert actor.at is not None
            events.append(SkPathStopped(rule="SK-4.1", unit=actor_id, at=actor.at, ap_left=actor.ap_left))
            return PhaseResult(state, tuple(events))
        step = trigger.rest[0]
        try:
            cost = action_cost(state, actor, step)
        except IllegalOrderError:
            # nothing that happened on the way changes the board a path crosses, so its next step stays legal;
            # should one not be, the path ends here with the AP unspent rather than losing what was done
            return PhaseResult(state, tuple(events))
        return _start(state, dice, events, actor, step, cost, trigger.rest[1:])
    if not actor.acting or isinstance(trigger.order, SkOverwatch):
        # SK-4.1: entering overwatch is the character's last action
        state, more = end_activation(state, actor_id)
        events.extend(more)
    return PhaseResult(state, tuple(events))


def _question(state: EncounterState, watcher: Character, actor_id: str, trigger: SkTrigger) -> Decision:
    actor = state.unit_as(actor_id, Character)
    kind = action_kind(trigger.order)
    return Decision(
        id=f"overwatch-{state.round}-{state.step}-{watcher.id}",
        side=watcher.side,
        unit=watcher.id,
        kind="overwatch",
        options=("fire", "hold"),
        default="hold",
        prompt=f"{actor.name} spends {trigger.cost} AP ({kind}) in sight of {watcher.name}: fire or hold?",
    )


def _perform(state: EncounterState, dice: Dice, ch: Character, order: Order) -> Outcome:
    assert ch.at is not None
    if isinstance(order, SkTurn):
        moved = UnitMoved(
            rule="SK-2.1", unit=ch.id, frm=ch.at, to=ch.at, facing_from=ch.facing, facing_to=order.to
        )
        return state.with_units([replace_unit(ch, facing=order.to)]), [moved]
    if isinstance(order, SkMove):
        facing = ch.facing if order.facing is None else order.facing
        half = order.astride is not None or order.via is not None or ch.astride is not None
        rule = "SK-2.5" if half else "SK-2.3" if order.backward else "SK-2.2"
        path = (ch.at, order.to) if order.via is None else (ch.at, order.via, order.to)
        moved = UnitMoved(
            rule=rule, unit=ch.id, frm=ch.at, to=order.to, facing_from=ch.facing, facing_to=facing, path=path
        )
        changed = replace_unit(ch, at=order.to, astride=order.astride, facing=facing)
        return state.with_units([changed]), [moved]
    if isinstance(order, SkShoot):
        return ranged_attack(state, dice, ch.id, order.target, weapon="ranged")
    if isinstance(order, SkMelee):
        return melee_attack(state, dice, ch.id, order.target)
    if isinstance(order, SkGrenade):
        return grenade(state, dice, ch.id, order.target, order.at)
    if isinstance(order, SkAct):
        return other_action(state, dice, ch.id, order.description)
    if isinstance(order, SkOverwatch):
        ch = replace_unit(ch, overwatch=order.policy)
        event = SkOverwatchSet(rule="SK-4.1", unit=ch.id, policy=order.policy, shots=ch.overwatch_shots_left)
        return state.with_units([ch]), [event]
    raise illegal(ch, "not_an_action", "SK-1.1", "that is not an action", order=type(order).__name__)
