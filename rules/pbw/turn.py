"""The turn (PBW-1): declarations from the lowest Initiative to the highest, each public when locked, then three
segments resolved from the highest to the lowest, one ``resolve`` call each; before each segment the characters
who may change their intention are asked (PBW-2, optional orders).

Phases (``state.phase``): ``declare`` — ``awaiting`` is the next declarer, and ``resolve`` locks its declaration
(plus any character with no choice: exhausted ones rest, PBW-3); then ``segment-1`` … ``segment-3``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from itertools import pairwise
from typing import Any

from rules.dice import Dice
from rules.errors import IllegalOrderError
from rules.events import Event, GameOver
from rules.pbw.events import (
    DeclarationLocked,
    PbwDeclarationForced,
    PbwDisengaged,
    PbwFatigue,
    PbwInitiativeTie,
    PbwIntentionChanged,
    PbwSegmentPlanned,
    PbwSegmentStarted,
    PbwTreatment,
    PbwTurnEnded,
)
from rules.pbw.legality import change_payment, check_change, check_declaration, ext_of, put_record
from rules.pbw.model import (
    DEFEND_ACTION,
    LOST_ACTION,
    REST,
    REST_ACTION,
    SEGMENTS,
    TREAT,
    Change,
    Character,
    Declaration,
    ForcedDeclaration,
    PbwState,
    SegmentAction,
    Treatment,
    TurnRecord,
)
from rules.pbw.queries import may_change
from rules.pbw.resolution import perform
from rules.pbw.tables import tables
from rules.ruleset import Order, PhaseResult
from rules.state import EncounterState, replace_unit

DECLARE = "declare"
TREAT_TURNS = 10  # PBW-6: "por cada punto de daño de la herida se necesitan 10 turnos completos"
FORCED = "forced"  # a declaration's source when the director (or a deadline) locked it for an absent player
PHASES = (DECLARE, *(f"segment-{k}" for k in range(1, SEGMENTS + 1)))

Outcome = tuple[EncounterState, list[Event]]


def segment_phase(k: int) -> str:
    return f"segment-{k}"


def _file_index(state: EncounterState) -> dict[str, int]:
    return {uid: i for i, uid in enumerate(state.units)}


def declaration_order(state: EncounterState) -> list[Character]:
    """PBW-1: lowest Initiative first; ties in file order."""
    index = _file_index(state)
    chars = [c for c in state.units_of(Character) if c.awake and c.at is not None]
    return sorted(chars, key=lambda c: (c.initiative, index[c.id]))


def resolution_order(state: EncounterState) -> list[Character]:
    """PBW-1: highest Initiative first; ties in file order (DESIGN §7.4)."""
    index = _file_index(state)
    chars = [c for c in state.units_of(Character) if c.alive and c.at is not None]
    return sorted(chars, key=lambda c: (-c.initiative, index[c.id]))


def has_choice(ch: Character) -> bool:
    """An exhausted character (PBW-3) has nothing to declare: it rests."""
    return ch.awake and ch.actions_per_turn() > 0


def next_declarer(state: EncounterState) -> str | None:
    records = ext_of(state).records
    for c in declaration_order(state):
        if c.id not in records and has_choice(c):
            return c.id
    return None


# --- declarations (PBW-1) ------------------------------------------------------------------------------------------


def segment_table(act: SegmentAction) -> tuple[tuple[str, Any], ...]:
    """A segment as plain data for the public event (only the keys it uses)."""
    out: list[tuple[str, Any]] = [("action", act.action)]
    if act.path:
        out.append(("path", act.path))
    if act.target:
        out.append(("target", act.target))
    if act.weapon:
        out.append(("weapon", act.weapon))
    if act.location:
        out.append(("location", act.location))
    if act.aim:
        out.append(("aim", act.aim))
    return tuple(out)


def planned(ch: Character, segment: int, act: SegmentAction, rule: str) -> PbwSegmentPlanned:
    """The readable line of one segment (``note.pbw.plan.<action>[_aimed]``)."""
    weapon = ch.weapons[act.weapon - 1].type if 0 < act.weapon <= len(ch.weapons) else ""
    key = f"pbw.plan.{act.action}{'_aimed' if act.aim else ''}"
    return PbwSegmentPlanned(
        rule=rule,
        key=key,
        unit=ch.id,
        segment=segment,
        action=act.action,
        target=act.target,
        weapon=weapon,
        to=act.path[-1] if act.path else None,
        aim=act.aim,
    )


def lock(state: EncounterState, ch: Character, decl: Declaration, source: str) -> Outcome:
    rec = TurnRecord(
        plan=decl.segments,
        actions=ch.actions_per_turn(),
        rest=decl.rest or decl.only_defends,
        disengage=decl.disengage,
        source=source,
    )
    locked = PbwDeclarationForced if source == FORCED else DeclarationLocked
    events: list[Event] = [
        locked(
            rule="PBW-1",
            unit=ch.id,
            initiative=ch.initiative,
            segments=tuple(segment_table(s) for s in decl.segments),
            rest=decl.rest,
            disengage=decl.disengage,
            source=source,
        )
    ]
    events.extend(planned(ch, i, s, "PBW-2") for i, s in enumerate(decl.segments, start=1))
    return put_record(state, ch.id, rec), events


def lock_without_choice(state: EncounterState, until: str | None) -> Outcome:
    """Lock, in declaration order, every character before ``until`` that has no choice (PBW-3: exhausted, rest)."""
    events: list[Event] = []
    for c in declaration_order(state):
        if c.id == until:
            break
        if c.id not in ext_of(state).records and not has_choice(c):
            state, more = lock(
                state, c, Declaration(unit=c.id, segments=(REST_ACTION,) * SEGMENTS), "exhausted"
            )
            events.extend(more)
    return state, events


def ties(state: EncounterState) -> list[Event]:
    """PBW-1: each pair of neighbours in the declaration order with the same Initiative, the earlier in the file
    first (it declares and acts first: DESIGN §7.4), so the order of the turn never rests on an unexplained
    choice."""
    order = declaration_order(state)
    return [
        PbwInitiativeTie(rule="PBW-1", unit=a.id, other=b.id, initiative=a.initiative)
        for a, b in pairwise(order)
        if a.initiative == b.initiative
    ]


def declare(state: EncounterState, orders: Mapping[str, Order]) -> Outcome:
    """Lock the next declarer's declaration (none given: three skipped segments) and any automatic ones around it;
    once everyone has declared, segment 1 comes next. The turn's first declaration tells its ties first."""
    first = not ext_of(state).records
    nxt = next_declarer(state)
    told = ties(state) if first else []
    state, events = lock_without_choice(state, nxt)
    events = [*told, *events]
    if nxt is not None:
        ch = state.unit_as(nxt, Character)
        order = orders.get(nxt)
        if isinstance(order, ForcedDeclaration):
            state, more = lock(state, ch, order, FORCED)
        elif isinstance(order, Declaration):
            state, more = lock(state, ch, check_declaration(state, ch, order), "declared")
        else:
            state, more = lock(
                state, ch, Declaration(unit=nxt, segments=(DEFEND_ACTION,) * SEGMENTS), "default"
            )
        events.extend(more)
        state, more = lock_without_choice(state, next_declarer(state))
        events.extend(more)
    if next_declarer(state) is None:
        state = state.replace(phase=segment_phase(1), ext=dataclasses.replace(ext_of(state), segment=1))
    return state, events


# --- changes of intention (PBW-2) ----------------------------------------------------------------------------------


def change(state: EncounterState, ch: Character, new: SegmentAction) -> Outcome:
    """Replace the segment's action and pay one action: a spare one, else the last later action is given up."""
    ext = ext_of(state)
    k = ext.segment
    rec = ext.records[ch.id]
    paid = change_payment(rec, k, new)
    assert paid is not None, "check_change refuses a change nothing pays for"
    plan = [*rec.plan]
    plan[k - 1] = new
    if paid:
        plan[paid - 1] = LOST_ACTION
    rest_broken = rec.rest
    disengage_broken = rec.disengage and new.action in ("shoot", "melee")
    rec = dataclasses.replace(
        rec,
        plan=tuple(plan),
        spent=rec.spent + 1,
        changes=rec.changes + 1,
        rest=False,
        disengage=rec.disengage and not disengage_broken,
    )
    state = put_record(state, ch.id, rec)
    events: list[Event] = [
        PbwIntentionChanged(
            rule="PBW-2",
            key=f"pbw.changed.{'forfeit' if paid else 'spare'}",
            unit=ch.id,
            segment=k,
            action=new.action,
            forfeited=paid,
            rest_broken=rest_broken,
            disengage_broken=disengage_broken,
        ),
        planned(ch, k, new, "PBW-2"),
    ]
    return state, events


# --- a segment (PBW-1) -----------------------------------------------------------------------------------------------


def resolve_segment(state: EncounterState, orders: Mapping[str, Order], dice: Dice) -> Outcome:
    ext = ext_of(state)
    k = ext.segment
    order = [c.id for c in resolution_order(state)]
    events: list[Event] = [PbwSegmentStarted(rule="PBW-1", turn=state.round, segment=k, units=tuple(order))]
    for uid in order:
        answer = orders.get(uid)
        if isinstance(answer, Change):
            new = check_change(state, state.unit_as(uid, Character), answer)
            if new is not None:
                state, more = change(state, state.unit_as(uid, Character), new)
                events.extend(more)
    for uid in order:
        rec = ext_of(state).records.get(uid)
        if rec is None:
            continue
        state, more = perform(state, dice, uid, rec.plan[k - 1], k)
        events.extend(more)
        state, more = check_victory(state)
        events.extend(more)
        if state.over:
            return state, events
    if k < SEGMENTS:
        return state.replace(
            phase=segment_phase(k + 1), ext=dataclasses.replace(ext_of(state), segment=k + 1)
        ), events
    state, more = end_turn(state)
    events.extend(more)
    return state, events


def end_turn(state: EncounterState) -> Outcome:
    """PBW-3: a whole turn of rest recovers fatigue, and so does one spent only defending (the seed's "se puede
    permanecer a la defensiva todo el turno y solo defenderse de ataques"), whether or not an attack came; PBW-6:
    a turn of treatment counts; PBW-5: a turn spent disengaging frees the way out."""
    ext = ext_of(state)
    events: list[Event] = []
    rested: list[Character] = []
    recovery = tables().fatigue_rest
    for uid, rec in ext.records.items():
        ch = state.unit_as(uid, Character)
        if rec.rest and ch.awake and ch.fatigue > 0:
            now = max(0, ch.fatigue - recovery)
            rested.append(replace_unit(ch, fatigue=now))
            reason = "rest" if all(s.action == REST for s in rec.plan) else "defended"
            events.append(
                PbwFatigue(rule="PBW-3", unit=uid, change=now - ch.fatigue, fatigue=now, reason=reason)
            )
    state, more = treatments(state.with_units(rested))
    events.extend(more)
    free = tuple(uid for uid, rec in ext.records.items() if rec.disengage and not rec.attacked)
    events.extend(PbwDisengaged(rule="PBW-5", unit=uid) for uid in free)
    events.append(PbwTurnEnded(rule="PBW-1", turn=state.round))
    state = state.replace(
        round=state.round + 1, phase=DECLARE, ext=PbwState(segment=0, records={}, free=free)
    )
    return state, events


def treatments(state: EncounterState) -> Outcome:
    """PBW-6: every character that spent the whole turn treating a wound (the seed: "por cada punto de daño de la
    herida se necesitan 10 turnos completos … no puede llevar a cabo ninguna otra acción") adds a turn to its count
    while it is on the same wound and still within reach of it; every ten turns the location and the hit points get 1
    back [HOUSE: both]. Any other turn, or the two apart, loses the count: it starts again."""
    ext = ext_of(state)
    events: list[Event] = []
    for uid, rec in ext.records.items():
        healer = state.unit_as(uid, Character)
        act = _treated(state, healer, rec)
        before = healer.treating
        if act is None:
            if before is not None:
                state = state.with_units([replace_unit(healer, treating=None)])
                if before.turns:
                    events.append(_treatment_event(uid, before, "broken"))
            continue
        same = before is not None and (before.target, before.location) == (act.target, act.location)
        turns = (before.turns if same and before is not None else 0) + 1
        treating = Treatment(target=act.target, location=act.location, turns=turns)
        if turns < TREAT_TURNS:
            state = state.with_units([replace_unit(healer, treating=treating)])
            events.append(_treatment_event(uid, treating, "turn"))
            continue
        patient = state.unit_as(act.target, Character)
        loc = act.location
        healed = replace_unit(
            patient,
            resistance={
                **patient.resistance,
                loc: min(patient.max_resistance.get(loc, 0), patient.resistance[loc] + 1),
            },
            hp=min(patient.max_hp, patient.hp + 1),
        )
        state = state.with_units([healed])
        healer = state.unit_as(uid, Character)
        state = state.with_units([replace_unit(healer, treating=None)])
        events.append(_treatment_event(uid, treating, "restored", restored=True))
    return state, events


def _treated(state: EncounterState, healer: Character, rec: TurnRecord) -> SegmentAction | None:
    """The wound ``healer`` treated all this turn, if it did and the treatment still holds (PBW-6)."""
    first = rec.plan[0]
    if first.action != TREAT or any(s != first for s in rec.plan) or not healer.awake or healer.at is None:
        return None
    patient = state.units.get(first.target)
    if not isinstance(patient, Character) or not patient.alive or patient.at is None:
        return None
    if healer.at.distance(patient.at) > 1:
        return None  # PBW-6: the two moved apart
    if patient.resistance.get(first.location, 0) >= patient.max_resistance.get(first.location, 0):
        return None  # nothing left to treat there
    return first


def _treatment_event(uid: str, t: Treatment, key: str, *, restored: bool = False) -> PbwTreatment:
    return PbwTreatment(
        rule="PBW-6",
        key=f"pbw.treat.{key}",
        unit=uid,
        target=t.target,
        location=t.location,
        turns=t.turns,
        restored=restored,
    )


def check_victory(state: EncounterState) -> Outcome:
    """[HOUSE] the encounter ends when at most one side has a character still able to fight (ok or prone)."""
    if state.over:
        return state, []
    sides = sorted({c.side for c in state.units_of(Character) if c.fighting and c.at is not None})
    if len(sides) > 1:
        return state, []
    winner = sides[0] if sides else None
    reason = "last side standing" if winner else "nobody able to fight"
    return state.replace(over=True, winner=winner), [GameOver(rule="PBW-4", winner=winner, reason=reason)]


# --- the engine's entry points ---------------------------------------------------------------------------------------


def awaiting(state: EncounterState) -> tuple[str, ...]:
    """The next declarer while declaring; before a segment, whoever may change its intention (PBW-2)."""
    if state.over:
        return ()
    if state.phase == DECLARE:
        nxt = next_declarer(state)
        return (nxt,) if nxt is not None else ()
    return tuple(c.id for c in resolution_order(state) if may_change(state, c.id))


def resolve(state: EncounterState, orders: Mapping[str, Order], dice: Dice) -> PhaseResult:
    if state.over:
        return PhaseResult(state, ())
    if state.phase == DECLARE:
        state, events = declare(state, orders)
    elif state.phase in PHASES:
        state, events = resolve_segment(state, orders, dice)
    else:
        raise IllegalOrderError(
            f"unknown pbw phase {state.phase!r}",
            code="pbw.bad_phase",
            rule="PBW-1",
            params={"phase": state.phase},
        )
    return PhaseResult(state, tuple(events))
