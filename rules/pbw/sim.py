"""Offline play of one ``[[rounds]]`` entry (``hexdirector sim``): one turn, through the very steps the bot drives.

Declarations come one ``resolve`` at a time, lowest Initiative first (``declare-<id>``); a character without
orders in the round skips its three segments. Then each segment is one step (``segment-<k>``), with the round's
``change`` entries for that segment given as the optional orders of the characters asked (PBW-2).

A scripted round cannot foresee the dice: the orders of a character who can no longer act or choose (PBW-3,
PBW-4), and segments its body or the dice made impossible (see :func:`_playable`), are dropped with a note. Any
other illegal order stops the simulation with its rule id.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Mapping
from typing import Any, cast

from rules.engine import resolve_phase
from rules.errors import IllegalOrderError
from rules.events import Event, Note
from rules.pbw.geometry import step_limit
from rules.pbw.legality import Outlook, advance, check_action, outlook
from rules.pbw.model import DEFEND_ACTION, MOVE, Character, Declaration, SegmentAction
from rules.pbw.orders import DECLARATION_KEYS, parse_change, parse_declaration
from rules.pbw.turn import DECLARE, has_choice, segment_phase
from rules.ruleset import DiceFactory, Order, RoundSpec, Ruleset, SimStep
from rules.state import EncounterState


def simulate(
    ruleset: Ruleset, state: EncounterState, spec: RoundSpec, dice_for: DiceFactory
) -> Iterator[SimStep]:
    raw_orders = cast(Mapping[str, Mapping[str, Any]], spec.raw.get("orders", {}))
    start = state.round
    notes: list[Event] = []

    def step(current: EncounterState, orders: Mapping[str, Order], label: str) -> SimStep:
        result = resolve_phase(ruleset, current, orders, dice_for=dice_for)
        events = (*notes, *result.events)
        notes.clear()
        return SimStep(spec.index, label, result.state, events)

    for uid, raw in raw_orders.items():
        unit = state.units.get(uid)
        if isinstance(unit, Character) and not has_choice(unit) and "segments" in raw:
            rule = "PBW-3" if unit.awake else "PBW-4"
            notes.append(Note(rule=rule, key="pbw.orders_dropped", unit=uid))
    while not state.over and state.round == start and state.phase == DECLARE:
        waiting = ruleset.awaiting(state)
        orders: dict[str, Order] = {}
        label = DECLARE
        if waiting:
            uid = waiting[0]
            label = f"{DECLARE}-{uid}"
            raw = raw_orders.get(uid, {})
            if "segments" in raw:
                table = {k: v for k, v in raw.items() if k in DECLARATION_KEYS}
                order = _playable(state, parse_declaration(state, uid, table), notes)
                ruleset.validate_order(state, uid, order)
                orders[uid] = order
        done = step(state, orders, label)
        state = done.state
        yield done
    for k in range(1, 4):
        if state.over or state.round != start or state.phase != segment_phase(k):
            break
        orders = {}
        for uid, raw in raw_orders.items():
            for entry in cast(list[Mapping[str, Any]], raw.get("change", [])):
                if entry.get("segment") != k:
                    continue
                unit = state.unit_as(uid, Character)
                if not unit.awake:
                    notes.append(
                        Note(rule="PBW-4", key="pbw.change_dropped", unit=uid, args=(("segment", k),))
                    )
                    continue
                order = parse_change(state, uid, entry)
                ruleset.validate_order(state, uid, order)
                orders[uid] = order
        done = step(state, orders, segment_phase(k))
        state = done.state
        yield done


def _playable(state: EncounterState, decl: Declaration, notes: list[Event]) -> Declaration:
    """What the dice made impossible becomes a skipped segment, with a note: a segment aimed at a character now
    dead, one the body no longer allows (incapacitated, no working arm, weapon dropped: PBW-4), actions beyond
    what fatigue allows (PBW-3); a move longer than a crawl is cut to the hexes a crawl covers (PBW-4)."""
    ch = state.unit_as(decl.unit, Character)
    allowed = ch.actions_per_turn()
    limit = step_limit(ch)
    look = outlook(state, ch)
    segments = list(decl.segments)
    used = 0
    for i, act in enumerate(segments):
        if act.action == MOVE and len(act.path) > limit:
            act = segments[i] = dataclasses.replace(act, path=act.path[:limit])
            args = (("segment", i + 1), ("to", act.path[-1].label))
            notes.append(Note(rule="PBW-4", key="pbw.move_shortened", unit=decl.unit, args=args))
        reason = "tired" if act.active and used >= allowed else _impossible(state, ch, look, act)
        if reason:
            segments[i] = act = DEFEND_ACTION
            args = (("segment", i + 1), ("reason", reason))
            notes.append(Note(rule=_RULES[reason], key="pbw.segment_dropped", unit=decl.unit, args=args))
        used += 1 if act.active else 0
        look = advance(ch, look, act)
    return dataclasses.replace(decl, segments=tuple(segments))


#: refusals the dice can cause in a round written beforehand, and their rule
_RULES = {
    "tired": "PBW-3",
    "target_dead": "PBW-4",
    "cannot_act": "PBW-4",
    "no_arm": "PBW-4",
    "dropped": "PBW-4",
    "arms": "PBW-4",
}


def _impossible(state: EncounterState, ch: Character, look: Outlook, act: SegmentAction) -> str:
    try:
        check_action(state, ch, look, act)
    except IllegalOrderError as exc:
        reason = exc.code.removeprefix("pbw.")
        return reason if reason in _RULES else ""
    return ""
