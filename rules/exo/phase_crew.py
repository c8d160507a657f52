"""Phase 1, open step: the captain's, engineer's and navigator's optional rolls (EXO-2.1) and Manta (EXO-2.2)."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

from rules.dice import Dice
from rules.events import Event
from rules.exo.crew import resolve_crew_ref
from rules.exo.events import MantaSet
from rules.exo.legality import check_crew_rolls
from rules.exo.model import Ship
from rules.exo.orders import CrewRolls
from rules.exo.rolls import effect_event, reasons, station_roll
from rules.exo.state import ORDERS_STEP, CrewEffects, ext_of
from rules.exo.tables import tables
from rules.ruleset import Order
from rules.state import EncounterState


def _helped(ship: Ship, captain_on: str, round_no: int) -> str:
    """What the captain's roll applies to: "engineer", "navigator" or a gunner's name."""
    lowered = captain_on.strip().lower()
    if lowered in ("engineer", "navigator"):
        return lowered
    gunner = resolve_crew_ref(ship.crew, captain_on, round_no)
    return gunner.name if gunner is not None else captain_on


def _effect_roll(
    dice: Dice,
    ship: Ship,
    station: str,
    skill: str,
    bonus: int,
    round_no: int,
    applies_to: str,
    events: list[Event],
) -> int | None:
    """One optional EXO-2.1 roll and the effect it gives (``crew_effect`` table); None if nobody can roll."""
    done = station_roll(
        dice,
        ship,
        station,
        skill,
        reasons(("captain", -bonus)),
        round_no,
        rule="EXO-2.1",
        purpose=f"{station}'s {skill} roll",
        purpose_key="exo.station",
        events=events,
    )
    if done is None:
        return None
    crew, roll = done
    effect = tables().crew_effect[roll.quality]
    events.append(effect_event("EXO-2.1", ship, crew, station, roll, effect, applies_to))
    return effect


def _ship_rolls(dice: Dice, ship: Ship, order: CrewRolls, round_no: int, events: list[Event]) -> CrewEffects:
    captain_effect, helped = 0, ""
    # EXO-2.1: in that order: captain, engineer, navigator.
    if order.captain_on is not None:
        helped = _helped(ship, order.captain_on, round_no)
        captain_effect = _effect_roll(dice, ship, "captain", "command", 0, round_no, helped, events) or 0
    results: dict[str, int] = {}
    for station, skill, wanted, what in (
        ("engineer", "drives", order.engineer, "maneuverability"),
        ("navigator", "navigation", order.navigator, "piloting"),
    ):
        if not wanted:
            continue
        bonus = captain_effect if helped == station else 0
        effect = _effect_roll(dice, ship, station, skill, bonus, round_no, what, events)
        if effect is not None:
            results[station] = effect
    on_gunner = helped not in ("", "engineer", "navigator")
    return CrewEffects(
        engineer=results.get("engineer", 0),
        navigator=results.get("navigator", 0),
        gunner=captain_effect if on_gunner else 0,
        gunner_name=helped if on_gunner else "",
    )


def resolve_crew_step(
    state: EncounterState, orders: Mapping[str, Order], dice: Dice
) -> tuple[EncounterState, list[Event]]:
    ext = ext_of(state.ext)
    events: list[Event] = list(ext.setup_events)
    effects: dict[str, CrewEffects] = {}
    changed: list[Ship] = []
    for unit in state.units.values():
        if not isinstance(unit, Ship) or not unit.active:
            continue
        order = orders.get(unit.id)
        eff = CrewEffects()
        if isinstance(order, CrewRolls):
            check_crew_rolls(state, unit, order)
            eff = _ship_rolls(dice, unit, order, state.round, events)
            effects[unit.id] = eff
        manta = max(0, unit.maneuverability + eff.engineer)  # EXO-2.2
        events.append(
            MantaSet(
                rule="EXO-2.2",
                unit=unit.id,
                manta=manta,
                maneuverability=unit.maneuverability,
                engineer_effect=eff.engineer,
            )
        )
        if manta != unit.manta:
            changed.append(dataclasses.replace(unit, manta=manta))
    new_ext = dataclasses.replace(ext, step=ORDERS_STEP, effects=effects, setup_events=())
    return state.with_units(changed).replace(ext=new_ext), events
