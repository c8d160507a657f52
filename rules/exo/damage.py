"""Phase 4 — damage (EXO-5.1, EXO-5.2): the round's hits take effect, ships die, crew fall."""

from __future__ import annotations

import dataclasses

from rules.dice import Dice
from rules.events import Event, GameOver, Note, RollMade, UnitDestroyed
from rules.exo.crew import BOARDING, Crew
from rules.exo.events import CrewCasualty, DamageApplied, SystemHit
from rules.exo.model import Ship, SpaceObject
from rules.exo.state import ExoState, PendingHit
from rules.exo.tables import tables
from rules.state import EncounterState, Unit


def _has_room(ship: Ship, location: str) -> bool:
    if location == "weapon":
        return any(w.usable for w in ship.weapons)
    return int(getattr(ship, location)) > 0


def _casualty(ship: Ship, dice: Dice, events: list[Event]) -> Ship:
    """EXO-5.2: a random crew member still in action falls; the injury comes from the [HOUSE] d10 table."""
    # EXO-4.8: a boarding party is not in this ship's cabin
    standing = [i for i, c in enumerate(ship.crew) if not c.down and c.station != BOARDING]
    if not standing:
        return ship
    index = dice.choice(standing)
    member = ship.crew[index]
    roll = dice.d10(rule="EXO-5.2", purpose=f"EXO-5.2 injury, {ship.name} {member.name}")
    events.append(RollMade.of(roll, actor=ship.id, crew=member.name, purpose_key="exo.injury"))
    injury = tables().injuries[roll.total]
    # EXO-5.3: "le aplicará inmediatamente una tirada de daño": [HOUSE] d10s by injury, recorded
    count = tables().injury_damage_dice[injury]
    damage = 0
    if count > 0:
        hurt = dice.roll(
            count, 10, rule="EXO-5.3", purpose=f"EXO-5.3 damage roll, {ship.name} {member.name} ({injury})"
        )
        events.append(
            RollMade.of(hurt, actor=ship.id, crew=member.name, injury=injury, purpose_key="exo.injury_damage")
        )
        damage = hurt.total
    events.append(
        CrewCasualty(
            rule="EXO-5.2",
            unit=ship.id,
            crew=member.name,
            station=member.station,
            injury=injury,
            damage=damage,
        )
    )
    crew: list[Crew] = list(ship.crew)
    crew[index] = dataclasses.replace(member, status=injury, damage=member.damage + damage)
    return dataclasses.replace(ship, crew=tuple(crew))


def _internal_point(ship: Ship, location: str, dice: Dice, events: list[Event]) -> Ship:
    t = tables()
    if not _has_room(ship, location) and t.location_overflow != "none" and location != t.location_overflow:
        events.append(
            Note(
                rule="EXO-3.5",
                key="exo.location_overflow",
                unit=ship.id,
                args=(("frm", location), ("to", t.location_overflow)),
            )
        )
        location = t.location_overflow
    if not _has_room(ship, location):
        events.append(
            SystemHit(rule="EXO-3.5", unit=ship.id, location=location, detail="nothing_left", remaining=0)
        )
        return ship
    if location == "weapon":
        usable = [i for i, w in enumerate(ship.weapons) if w.usable]
        index = dice.choice(usable)
        weapons = list(ship.weapons)
        weapons[index] = dataclasses.replace(weapons[index], disabled=True)
        events.append(
            SystemHit(
                rule="EXO-3.5",
                unit=ship.id,
                location="weapon",
                detail=ship.weapon_label(index),
                remaining=len(usable) - 1,
            )
        )
        return dataclasses.replace(ship, weapons=tuple(weapons))
    value = int(getattr(ship, location)) - 1
    ship = dataclasses.replace(ship, **{location: value})
    events.append(SystemHit(rule="EXO-3.5", unit=ship.id, location=location, remaining=value))
    if location == "cabin":
        ship = _casualty(ship, dice, events)
    return ship


def _apply_hits(ship: Ship, hits: tuple[PendingHit, ...], dice: Dice, events: list[Event]) -> Ship:
    armor_lost = sum(h.armor for h in hits)
    internal = sum(len(h.locations) for h in hits)
    ship = dataclasses.replace(ship, armor=max(0, ship.armor - armor_lost))
    events.append(DamageApplied(rule="EXO-5.1", unit=ship.id, armor_lost=armor_lost, internal=internal))
    for hit in hits:
        for location in hit.locations:
            ship = _internal_point(ship, location, dice, events)
    return ship


def _debris(ship: Ship) -> SpaceObject:
    """EXO-5.1 [HOUSE]: the wreck leaves debris, drifting with the ship's velocity if the table says so."""
    assert ship.at is not None
    vector = ship.at + ship.velocity if tables().debris_drifts else None
    return SpaceObject(
        id=f"{ship.id}-debris",
        side="",
        name=ship.name,  # the wreck of that ship: readers see "restos de <name>" (catalog unitname.debris)
        at=ship.at,
        kind="debris",
        vector=vector,
        label="X",
    )


def winner_check(state: EncounterState) -> tuple[EncounterState, list[Event]]:
    """The encounter ends when ships of at most one side remain."""
    alive = [
        s.id
        for s in state.sides
        if any(isinstance(u, Ship) and u.side == s.id and u.active for u in state.units.values())
    ]
    if len(alive) > 1 or state.over:
        return state, []
    winner = alive[0] if alive else None
    reason = "last side with ships" if winner else "no ships left"
    return state.replace(over=True, winner=winner), [GameOver(rule="EXO-5.1", winner=winner, reason=reason)]


def damage_ship(ship: Ship, hits: tuple[PendingHit, ...], dice: Dice, events: list[Event]) -> list[Unit]:
    """EXO-5.1: apply ``hits`` to ``ship``; at structure 0 it is destroyed and leaves debris. Returns the changed
    units (the ship, and its debris)."""
    changed: list[Unit] = []
    ship = _apply_hits(ship, hits, dice, events)
    if ship.structure <= 0:
        ship = dataclasses.replace(ship, destroyed=True, structure=0)
        events.append(UnitDestroyed(rule="EXO-5.1", unit=ship.id, at=ship.at))
        debris = _debris(ship)
        changed.append(debris)
        events.append(
            Note(rule="EXO-5.1", key="exo.debris_left", unit=ship.id, args=(("debris", debris.id),))
        )
    changed.append(ship)
    return changed


def resolve_damage(state: EncounterState, ext: ExoState, dice: Dice) -> tuple[EncounterState, list[Event]]:
    events: list[Event] = []
    changed: list[Unit] = []
    for unit in state.units.values():
        if not isinstance(unit, Ship) or unit.destroyed:
            continue
        hits = ext.hits.get(unit.id, ())
        if not hits:
            continue
        changed.extend(damage_ship(unit, hits, dice, events))
    # EXO-4.5 [HOUSE]: a collision the director did not rule by phase 4 has no effect, but it is logged.
    for ids in ext.collisions:
        events.append(
            Note(rule="EXO-4.5", key="exo.collision_unruled", unit=ids[0], args=(("units", tuple(ids)),))
        )
    state = state.with_units(changed).replace(ext=dataclasses.replace(ext, hits={}, collisions=()))
    state, over = winner_check(state)
    return state, events + over
