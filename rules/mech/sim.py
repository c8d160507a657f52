"""Offline play of one ``[[rounds]]`` entry (``hexdirector sim``), through exactly the steps the bot drives:
the automatic initiative step, one declaration per unit in initiative order (lowest first, whatever order the
file lists them in), then the automatic resolution. Three ``SimStep``s a turn: ``initiative``, ``declare``,
``resolve``.

A unit the file gives no declaration stands still. A scripted round cannot foresee the dice, so a declaration
the dice have made impossible (its unit shut down, fell or lost a leg; a weapon, limb or target destroyed) is
cut down to what can still be done, with a note; any other illegal declaration stops the simulation (exit 2,
naming the unit, the round and the rule).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Mapping
from typing import Any, cast

from rules.engine import resolve_phase
from rules.errors import GameError, IllegalOrderError
from rules.events import Event, Note
from rules.mech.legality import check_declaration
from rules.mech.model import Mech
from rules.mech.orders import JUMP, STAND, WALK, FireEntry, MechOrder, PhysicalEntry, parse_order, stand_order
from rules.mech.state import DECLARE, INITIATIVE, RESOLVE
from rules.ruleset import DiceFactory, RoundSpec, Ruleset, SimStep
from rules.state import EncounterState

OnIllegal = Callable[[str, GameError], None]


def play_round(
    ruleset: Ruleset,
    state: EncounterState,
    spec: RoundSpec,
    dice_for: DiceFactory,
    *,
    on_illegal: OnIllegal | None = None,
) -> Iterator[SimStep]:
    """Play one round. ``on_illegal`` (``hexdirector validate``) hears of an illegal declaration and the unit
    stands instead; without it the ``IllegalOrderError`` goes up (``hexdirector sim``)."""
    raw_orders = cast(Mapping[str, Any], spec.raw.get("orders", {}))
    rnd = state.round
    if state.phase == INITIATIVE:
        result = resolve_phase(ruleset, state, {}, dice_for=dice_for)
        state = result.state
        yield SimStep(rnd, INITIATIVE, state, result.events)
    events: list[Event] = []
    while state.phase == DECLARE and not state.over:
        waiting = ruleset.awaiting(state)
        if not waiting:
            result = resolve_phase(ruleset, state, {}, dice_for=dice_for)
            events.extend(result.events)
            state = result.state
            continue
        uid = waiting[0]
        unit = state.unit_as(uid, Mech)
        if uid not in raw_orders and unit.is_fighter:
            # no declaration: the ruleset's stand-in (a fighter cannot stand still, MECH-5)
            result = resolve_phase(ruleset, state, {}, dice_for=dice_for)
            events.extend(result.events)
            state = result.state
            continue
        order = (
            parse_order(uid, raw_orders.get(uid), vehicle=not unit.is_mech)
            if uid in raw_orders
            else stand_order(uid)
        )
        order, notes = playable(state, unit, order)
        events.extend(notes)
        try:
            ruleset.validate_order(state, uid, order)
        except GameError as exc:
            if on_illegal is None:
                raise
            on_illegal(uid, exc)
            order = None  # the ruleset's stand-in: standing still (a fighter flies straight on, MECH-5)
        result = resolve_phase(ruleset, state, {} if order is None else {uid: order}, dice_for=dice_for)
        events.extend(result.events)
        state = result.state
    yield SimStep(rnd, DECLARE, state, tuple(events))
    if state.phase == RESOLVE and not state.over:
        result = resolve_phase(ruleset, state, {}, dice_for=dice_for)
        yield SimStep(rnd, RESOLVE, result.state, result.events)


def playable(state: EncounterState, unit: Mech, order: MechOrder) -> tuple[MechOrder, list[Event]]:
    """What is left of a scripted declaration once the dice have had their say (see the module docstring)."""
    notes: list[Event] = []
    if order == stand_order(unit.id):
        return order, notes
    if unit.shutdown:
        notes.append(Note(rule="MECH-3.2", key="mech.orders_dropped_shutdown", unit=unit.id))
        return stand_order(unit.id), notes
    if unit.is_fighter and unit.out_of_control:
        notes.append(Note(rule="MECH-5", key="mech.orders_dropped_out_of_control", unit=unit.id))
        return stand_order(unit.id), notes  # the lock flies it straight on at flank speed
    moved = order
    if unit.immobile and order.mode != STAND:
        moved = dataclasses.replace(order, mode=STAND, path=(), facing=None)
        notes.append(Note(rule="MECH-2.3", key="mech.move_dropped_immobile", unit=unit.id))
    elif unit.prone and (order.path or order.mode == JUMP):
        moved = dataclasses.replace(order, mode=WALK, path=(), facing=None)
        notes.append(Note(rule="MECH-1.2", key="mech.move_dropped_prone", unit=unit.id))
    fire: list[FireEntry] = []
    for entry in order.fire:
        target = state.units.get(entry.target)
        if 1 <= entry.weapon <= len(unit.weapons) and not unit.weapon_usable(entry.weapon - 1):
            notes.append(
                Note(
                    rule="MECH-2.3",
                    key="mech.fire_dropped_weapon",
                    unit=unit.id,
                    args=(("weapon", entry.weapon),),
                )
            )
        elif isinstance(target, Mech) and target.destroyed:
            notes.append(
                Note(
                    rule="MECH-2.3",
                    key="mech.fire_dropped_target",
                    unit=unit.id,
                    args=(("target", entry.target),),
                )
            )
        else:
            fire.append(entry)
    physical: list[PhysicalEntry] = []
    for entry in order.physical:
        target = state.units.get(entry.target)
        if (
            (entry.limb and not unit.limb_usable(entry.limb))
            or (isinstance(target, Mech) and target.destroyed)
            or (unit.prone and moved.mode not in ("walk", "run"))
        ):
            notes.append(
                Note(rule="MECH-2.2", key="mech.physical_dropped", unit=unit.id, args=(("kind", entry.kind),))
            )
        else:
            physical.append(entry)
    adapted = dataclasses.replace(moved, fire=tuple(fire), physical=tuple(physical))
    if moved is not order:
        adapted = _drop_unreachable(state, adapted, notes)
    return adapted, notes


def _drop_unreachable(state: EncounterState, order: MechOrder, notes: list[Event]) -> MechOrder:
    """After the dice took a unit's movement away, drop the shots and blows it can no longer make from where it
    stays (each tried on its own, keeping the rest)."""
    fire = tuple(
        f
        for f in order.fire
        if _possible(
            state, order, (f,), (), notes, ("MECH-2.1", "mech.fire_dropped_moved", "weapon", f.weapon)
        )
    )
    physical = tuple(
        p
        for p in order.physical
        if _possible(state, order, (), (p,), notes, ("MECH-2.2", "mech.physical_dropped", "kind", p.kind))
    )
    return dataclasses.replace(order, fire=fire, physical=physical)


def _possible(
    state: EncounterState,
    order: MechOrder,
    fire: tuple[FireEntry, ...],
    physical: tuple[PhysicalEntry, ...],
    notes: list[Event],
    note: tuple[str, str, str, object],
) -> bool:
    try:
        check_declaration(state, dataclasses.replace(order, fire=fire, physical=physical))
    except IllegalOrderError:
        rule, key, name, value = note
        notes.append(Note(rule=rule, key=key, unit=order.unit, args=((name, value),)))
        return False
    return True
