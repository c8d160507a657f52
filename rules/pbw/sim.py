"""Offline play of one ``[[rounds]]`` entry (``hexdirector sim``): one turn, through the very steps the bot drives.

Declarations come one ``resolve`` at a time, lowest Initiative first (``declare-<id>``); a character without
orders in the round skips its three segments. Then each segment is one step (``segment-<k>``), with the round's
``change`` entries for that segment given as the optional orders of the characters asked (PBW-2).

A scripted round cannot foresee the dice: orders of a character who can no longer act, and segments aimed at a
character already dead, are dropped with a note. Any other illegal order stops the simulation with its rule id.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any, cast

from rules.engine import resolve_phase
from rules.events import Event, Note
from rules.pbw.model import DEFEND_ACTION, Character, Declaration
from rules.pbw.orders import DECLARATION_KEYS, parse_change, parse_declaration
from rules.pbw.turn import DECLARE, segment_phase
from rules.ruleset import DiceFactory, Order, RoundSpec, SimStep
from rules.state import EncounterState

if TYPE_CHECKING:
    from rules.pbw.ruleset import PbwRuleset


def simulate(
    ruleset: PbwRuleset, state: EncounterState, spec: RoundSpec, dice_for: DiceFactory
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
        if isinstance(unit, Character) and not unit.awake and "segments" in raw:
            notes.append(Note(rule="PBW-4", key="pbw.orders_dropped", unit=uid))
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
    """Segments aimed at a character who is dead by now become skipped segments (PBW-4), with a note."""
    segments = list(decl.segments)
    for i, act in enumerate(segments):
        target = state.units.get(act.target) if act.target else None
        if isinstance(target, Character) and not target.alive:
            segments[i] = DEFEND_ACTION
            notes.append(
                Note(
                    rule="PBW-4",
                    key="pbw.segment_dropped",
                    unit=decl.unit,
                    args=(("segment", i + 1), ("target", target.name)),
                )
            )
    return dataclasses.replace(decl, segments=tuple(segments))
