"""The round (SK-1.1): chit draw, one character's activation at a time, end of round, victory."""

from __future__ import annotations

from rules.dice import Dice
from rules.errors import IllegalOrderError
from rules.events import Event, GameOver
from rules.skirmish.events import SkActivationEnded, SkActivationForced, SkChitDrawn, SkFireOut, SkRoundEnded
from rules.skirmish.geometry import FIRE
from rules.skirmish.model import Character, SkirmishState
from rules.state import EncounterState, replace_unit

DRAW = "draw"
ACTIVATION = "activation"

Outcome = tuple[EncounterState, list[Event]]


def ext_of(state: EncounterState) -> SkirmishState:
    return state.ext if isinstance(state.ext, SkirmishState) else SkirmishState()


def living_groups(state: EncounterState) -> tuple[str, ...]:
    """Chits of units that still have a living character, sorted (SK-1.1)."""
    return tuple(sorted({c.unit_group for c in state.units_of(Character) if c.acting}))


def group_side(state: EncounterState, group: str) -> str:
    return next((c.side for c in state.units_of(Character) if c.unit_group == group), "")


def fresh_round(state: EncounterState) -> EncounterState:
    """Full AP and overwatch shots for every living character, every living chit in the bag."""
    chars = [
        replace_unit(
            c, ap_left=c.ap, overwatch_shots_left=c.ap // 2, turn_from=None, turn_paid=0
        )  # SK-1.2/4.1
        for c in state.units_of(Character)
        if c.acting
    ]
    plan = ext_of(state).draw_plan
    return state.with_units(chars).replace(
        phase=DRAW, ext=SkirmishState(bag=living_groups(state), draw_plan=plan)
    )


def waiting_characters(state: EncounterState) -> tuple[str, ...]:
    """Who may act now: the active character, or any living, not yet activated character of the drawn chit."""
    ext = ext_of(state)
    if state.over or state.phase != ACTIVATION or ext.chit is None:
        return ()
    if ext.active is not None:
        return (ext.active,)
    return tuple(
        sorted(
            c.id
            for c in state.units_of(Character)
            if c.unit_group == ext.chit and c.acting and c.id not in ext.done
        )
    )


def draw_chit(state: EncounterState, dice: Dice) -> Outcome:
    """SK-1.1: a chit at random from the bag (seeded generator, never the scripted dice), or the next chit of a
    fixed draw order."""
    ext = ext_of(state)
    alive = set(living_groups(state))
    bag = tuple(c for c in ext.bag if c in alive)
    plan = tuple(c for c in ext.draw_plan if c in alive or c in bag)
    if not bag:
        return end_round(state.replace(ext=SkirmishState()))
    if plan:
        chit, fixed = plan[0], True
        if chit not in bag:
            raise IllegalOrderError(
                f"chit {chit!r} is not in the bag (left: {', '.join(bag)})",
                code="skirmish.chit_not_in_bag",
                rule="SK-1.1",
                params={"chit": chit, "bag": ", ".join(bag)},
            )
        plan = plan[1:]
    else:
        chit, fixed = dice.choice(sorted(bag)), False
    ext = SkirmishState(bag=tuple(c for c in bag if c != chit), draw_plan=plan, chit=chit, done=ext.done)
    event = SkChitDrawn(rule="SK-1.1", chit=chit, side=group_side(state, chit), fixed=fixed)
    return state.replace(phase=ACTIVATION, ext=ext), [event]


def end_activation(state: EncounterState, unit_id: str, *, forced: bool = False) -> Outcome:
    """The character is done for this round; when the chit has nobody left, draw again or end the round.
    ``forced``: its player gave no order and the director (or a deadline) moved the step on."""
    ext = ext_of(state)
    ch = state.unit_as(unit_id, Character)
    ended = SkActivationForced if forced else SkActivationEnded
    events: list[Event] = [ended(rule="SK-1.1", unit=ch.id, ap_left=ch.ap_left)]
    if ch.turn_from is not None or ch.turn_paid:
        state = state.with_units([replace_unit(ch, turn_from=None, turn_paid=0)])  # SK-2.1: the run ends here
    ext = SkirmishState(bag=ext.bag, draw_plan=ext.draw_plan, chit=ext.chit, done=(*ext.done, ch.id))
    state = state.replace(ext=ext)
    if waiting_characters(state):
        return state, events
    state = state.replace(phase=DRAW, ext=SkirmishState(bag=ext.bag, draw_plan=ext.draw_plan, done=ext.done))
    if not set(ext.bag) & set(living_groups(state)):
        state, more = end_round(state)
        events.extend(more)
    return state, events


def end_round(state: EncounterState) -> Outcome:
    """SK-1.1 / SK-6.2: burn out fires, refill AP and overwatch shots, re-bag living chits, next round."""
    events: list[Event] = []
    expired = [m for m in state.markers if m.expires_round is not None and m.expires_round <= state.round]
    if expired:
        state = state.replace(markers=tuple(m for m in state.markers if m not in expired))
        fires = tuple(sorted({m.at for m in expired if m.kind == FIRE}))
        if fires:
            events.append(SkFireOut(rule="SK-6.2", at=fires))
    state = fresh_round(state.replace(ext=SkirmishState()))
    events.insert(0, SkRoundEnded(rule="SK-1.1", round=state.round, chits=ext_of(state).bag))
    return state.replace(round=state.round + 1), events


def check_victory(state: EncounterState) -> Outcome:
    """The encounter ends when at most one side has living characters."""
    if state.over:
        return state, []
    sides = sorted({c.side for c in state.units_of(Character) if c.acting})
    if len(sides) > 1:
        return state, []
    winner = sides[0] if sides else None
    reason = "last side standing" if winner else "no character left alive"
    state = state.replace(over=True, winner=winner, pending=None, ext=SkirmishState())
    return state, [GameOver(rule="SK-1.1", winner=winner, reason=reason)]
