"""Phase 5 — repairs, first aid and station changes (EXO-6.1 … EXO-6.5), then the next round begins."""

from __future__ import annotations

import dataclasses
from typing import cast

from rules.dice import Dice, Quality
from rules.events import Event
from rules.exo.crew import BOARDING, Crew, find_crew, may_try, resolve_crew_ref
from rules.exo.events import RepairResolved, StationChanged
from rules.exo.model import Ship
from rules.exo.orders import RepairOrder
from rules.exo.rolls import roll_event
from rules.exo.state import ExoState
from rules.exo.turrets import GUNNER, turret_takeover
from rules.state import EncounterState, Unit

SKILL_FOR = {"engines": "drives", "weapon": "weapons_tech", "cargo": "auxiliary_tech", "cabin": "first_aid"}
# Ship systems repaired a point at a time, and the field counting their points a fumble put beyond repair.
BEYOND_REPAIR_FIELD = {"engines": "engines_beyond_repair", "cargo": "cargo_beyond_repair"}


def _weapon_to_fix(ship: Ship, rep: RepairOrder) -> int | None:
    if rep.weapon:
        w = ship.weapons[rep.weapon - 1]
        return rep.weapon - 1 if w.disabled and not w.beyond_repair else None
    return next((i for i, w in enumerate(ship.weapons) if w.disabled and not w.beyond_repair), None)


def _patient(ship: Ship, rep: RepairOrder) -> int | None:
    if rep.patient:
        member = find_crew(ship.crew, rep.patient)
        return ship.crew.index(member) if member is not None and member.down else None
    return next((i for i, c in enumerate(ship.crew) if c.down), None)


def _has_work(ship: Ship, rep: RepairOrder) -> bool:
    match rep.item:
        case "engines":
            return ship.engines < ship.max_engines - ship.engines_beyond_repair
        case "cargo":
            return ship.cargo < ship.max_cargo - ship.cargo_beyond_repair
        case "weapon":
            return _weapon_to_fix(ship, rep) is not None
        case _:
            return _patient(ship, rep) is not None or ship.cabin < ship.max_cabin


def repair_work(ship: Ship) -> tuple[RepairOrder, ...]:
    """What could be repaired on ``ship`` now (EXO-6.1, EXO-6.4): one entry per engine/cargo system with a
    repairable point, per disabled weapon not beyond repair, and per crew member down (first aid), each with
    ``by`` empty. Phase 5 asks a ship's crew only when this is not empty."""
    out: list[RepairOrder] = []
    for item in ("engines", "cargo"):
        probe = RepairOrder(by="", item=item)
        if _has_work(ship, probe):
            out.append(probe)
    out.extend(
        RepairOrder(by="", item="weapon", weapon=i + 1)
        for i, w in enumerate(ship.weapons)
        if w.disabled and not w.beyond_repair
    )
    out.extend(RepairOrder(by="", item="cabin", patient=c.name) for c in ship.crew if c.down)
    return tuple(out)


def _fix_points(ship: Ship, item: str, *, success: bool, fumble: bool) -> tuple[Ship, str, str]:
    """A system counted in points (EXO-6.1): a success restores one, a fumble puts one beyond repair."""
    if success:
        points = cast(int, getattr(ship, item)) + 1
        return dataclasses.replace(ship, **{item: points}), "repaired", str(points)
    if fumble:
        lost = BEYOND_REPAIR_FIELD[item]
        return dataclasses.replace(ship, **{lost: cast(int, getattr(ship, lost)) + 1}), "beyond_repair", ""
    return ship, "failed", ""


def _fix(ship: Ship, rep: RepairOrder, quality: Quality) -> tuple[Ship, str, str]:
    """Apply one repair result: (ship, result, detail)."""
    success = quality.success
    fumble = quality is Quality.FUMBLE and rep.item != "cabin"  # EXO-6.1: fumble = beyond repair
    if rep.item in BEYOND_REPAIR_FIELD:
        return _fix_points(ship, rep.item, success=success, fumble=fumble)
    if rep.item == "weapon":
        index = _weapon_to_fix(ship, rep)
        assert index is not None
        weapons = list(ship.weapons)
        label = ship.weapon_label(index)
        if success:
            weapons[index] = dataclasses.replace(weapons[index], disabled=False)
            return dataclasses.replace(ship, weapons=tuple(weapons)), "repaired", label
        if fumble:
            weapons[index] = dataclasses.replace(weapons[index], beyond_repair=True)
            return dataclasses.replace(ship, weapons=tuple(weapons)), "beyond_repair", label
    elif success:  # EXO-6.4 first aid: one cabin point, a crew member back
        crew = list(ship.crew)
        index = _patient(ship, rep)
        detail = ""
        if index is not None:
            crew[index] = dataclasses.replace(crew[index], status="active")
            detail = crew[index].name
        cabin = min(ship.max_cabin, ship.cabin + 1)
        return dataclasses.replace(ship, crew=tuple(crew), cabin=cabin), "repaired", detail
    return ship, "failed", ""


def _repair(
    state: EncounterState, ship: Ship, rep: RepairOrder, dice: Dice, events: list[Event]
) -> tuple[Ship, str]:
    """One repair attempt (EXO-6.1, EXO-6.4). Returns the ship and the name of the crew member who tried ('' if none)."""
    rule = "EXO-6.4" if rep.item == "cabin" else "EXO-6.1"
    member = find_crew(ship.crew, rep.by) or resolve_crew_ref(ship.crew, rep.by, state.round)
    if member is None or member.down or member.station == BOARDING:  # EXO-5.2; EXO-4.8 away boarding
        who = member.name if member is not None else rep.by
        events.append(RepairResolved(rule="EXO-5.2", unit=ship.id, crew=who, item=rep.item, result="unable"))
        return ship, ""
    if not may_try(member, rep.item):  # EXO-6.4: first aid is the medic's
        events.append(
            RepairResolved(rule=rule, unit=ship.id, crew=member.name, item=rep.item, result="not_medic")
        )
        return ship, ""
    if not _has_work(ship, rep):
        events.append(
            RepairResolved(rule=rule, unit=ship.id, crew=member.name, item=rep.item, result="nothing")
        )
        return ship, ""
    skill = SKILL_FOR[rep.item]
    roll = dice.sombra(
        member.skill(skill), 0, rule=rule, purpose=f"{rule} {rep.item} repair, {ship.name} {member.name}"
    )
    events.append(roll_event(roll, ship, member, item=rep.item, purpose_key="exo.repair"))
    ship, result, detail = _fix(ship, rep, roll.quality)
    events.append(
        RepairResolved(rule=rule, unit=ship.id, crew=member.name, item=rep.item, result=result, detail=detail)
    )
    return ship, member.name


def _mark_busy(ship: Ship, names: set[str], round_no: int) -> Ship:
    """EXO-6.2: who tried a repair does nothing but repair next round."""
    crew = tuple(dataclasses.replace(c, repaired_round=round_no) if c.name in names else c for c in ship.crew)
    return dataclasses.replace(ship, crew=crew)


def _change_stations(ship: Ship, ext: ExoState, repaired: set[str], events: list[Event]) -> Ship:
    """EXO-6.5: station changes of crew who did not repair, effective next round. A member who went down this
    round (EXO-5.2) stays put. Turrets follow (EXO-1.5): a new gunner takes over a fallen gunner's or an empty
    turret; a gunner who leaves the station leaves the turret."""
    orders = ext.locked.get(ship.id)
    if orders is None or not orders.stations:
        return ship
    crew: tuple[Crew, ...] = ship.crew
    for change in orders.stations:
        member = find_crew(crew, change.by)
        if member is None or member.down or member.name in repaired or member.station == change.station:
            continue
        moved = dataclasses.replace(member, station=change.station, turret=0)
        crew = tuple(moved if c is member else c for c in crew)
        if change.station == GUNNER:
            crew = turret_takeover(ship.weapons, crew, member.name)
        events.append(
            StationChanged(
                rule="EXO-6.5", unit=ship.id, crew=member.name, frm=member.station, to=change.station
            )
        )
    return dataclasses.replace(ship, crew=crew)


def resolve_repairs(state: EncounterState, ext: ExoState, dice: Dice) -> tuple[EncounterState, list[Event]]:
    events: list[Event] = []
    changed: list[Unit] = []
    for unit in state.units.values():
        if not isinstance(unit, Ship) or not unit.active:
            continue
        ship = unit
        orders = ext.locked.get(ship.id)
        tried: set[str] = set()
        for rep in orders.repairs if orders is not None else ():
            ship, who = _repair(state, ship, rep, dice, events)
            if who:
                tried.add(who)
        ship = _mark_busy(ship, tried, state.round)
        ship = _change_stations(ship, ext, tried, events)
        ship = dataclasses.replace(
            ship, manta=ship.maneuverability
        )  # EXO-2.2 until next round's engineer roll
        if ship != unit:
            changed.append(ship)
    return state.with_units(changed), events
