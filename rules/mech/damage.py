"""Damage (MECH-2.3): hit locations, armour then structure, inward transfer, destroyed locations and units.

``apply_damage`` is pure and public: the resolution uses it for every hit, and the director's
``/director damage`` with a location calls it directly.
"""

from __future__ import annotations

import dataclasses

from rules.dice import Dice, Roll
from rules.errors import IllegalOrderError
from rules.events import Event, RollMade, UnitDestroyed
from rules.hexgrid import Hex
from rules.mech.events import DamageDealt, DamageTransferred, LocationDestroyed
from rules.mech.geometry import arc_of
from rules.mech.model import Mech
from rules.mech.tables import tables
from rules.state import EncounterState

STANDARD, PUNCH, KICK = "standard", "punch", "kick"
VEHICLE_CORE = (
    "front",
    "left",
    "right",
    "rear",
)  # a vehicle whose structure fails at any of these is destroyed


def apply_damage(
    state: EncounterState,
    unit_id: str,
    location: str,
    amount: int,
    *,
    by: str = "",
    internal: bool = False,
    rule: str = "MECH-2.3",
) -> tuple[EncounterState, tuple[Event, ...]]:
    """``amount`` damage at ``location`` of ``unit_id``: armour first, then structure; what a destroyed location
    cannot take moves inward (arm or leg → side torso → centre torso). A destroyed side torso takes its arm with
    it; a destroyed head or centre torso destroys the mech; a vehicle is destroyed when a hull location fails
    (its turret's excess is lost). ``internal``: the first location's armour does not stop it (ammunition).

    Returns the new state and the events (``DamageDealt`` first). Damage to a destroyed unit changes nothing.
    """
    unit = state.unit_as(unit_id, Mech)
    if location not in unit.locations:
        raise IllegalOrderError(
            f"{unit.name} has no location {location!r} (it has {', '.join(unit.locations)})",
            code="mech.location",
            rule=rule,
            params={
                "unit": unit.id,
                "name": unit.name,
                "location": location,
                "locations": ", ".join(unit.locations),
            },
        )
    if amount < 0:
        raise IllegalOrderError(
            f"damage cannot be negative ({amount})",
            code="mech.damage_negative",
            rule=rule,
            params={"unit": unit.id, "name": unit.name, "amount": amount},
        )
    changed, events = damage_unit(unit, location, amount, by=by, internal=internal, rule=rule)
    return (state if changed is unit else state.with_units([changed])), events


def damage_unit(
    unit: Mech, location: str, amount: int, *, by: str = "", internal: bool = False, rule: str = "MECH-2.3"
) -> tuple[Mech, tuple[Event, ...]]:
    """:func:`apply_damage` on the unit alone (the resolution keeps its units in a working dict)."""
    if unit.destroyed:
        return unit, ()
    tb = tables()
    armor, structure = dict(unit.armor), dict(unit.structure)
    before = dict(structure)
    left = _take(armor, structure, location, amount, skip_armor=internal)
    events: list[Event] = [
        DamageDealt(
            rule=rule,
            unit=unit.id,
            by=by,
            location=location,
            amount=amount,
            armor=armor.get(location, 0),
            structure=structure.get(location, 0),
        )
    ]
    destroyed = False
    loc = location
    while True:
        if before.get(loc, 0) > 0 and structure.get(loc, 0) == 0:
            carried = tb.carries.get(loc, "") if unit.is_mech else ""
            if carried and structure.get(carried, 0) > 0:
                structure[carried] = 0
                armor[carried] = 0
            else:
                carried = ""
            events.append(LocationDestroyed(rule=rule, unit=unit.id, location=loc, with_location=carried))
            destroyed = loc in ("head", "ct") if unit.is_mech else loc in VEHICLE_CORE
        if left <= 0 or destroyed:
            break
        nxt = tb.inward.get(loc) if unit.is_mech else None
        if nxt is None:
            break  # nothing further in: the rest is lost (head, centre torso, a vehicle's turret)
        moving = left
        left = _take(armor, structure, nxt, left, skip_armor=False)
        events.append(
            DamageTransferred(
                rule=rule,
                unit=unit.id,
                frm=loc,
                to=nxt,
                amount=moving,
                armor=armor.get(nxt, 0),
                structure=structure.get(nxt, 0),
            )
        )
        loc = nxt
    changed = dataclasses.replace(unit, armor=armor, structure=structure, destroyed=destroyed)
    if destroyed:
        events.append(UnitDestroyed(rule=rule, unit=unit.id, at=unit.at))
    return changed, tuple(events)


def _take(
    armor: dict[str, int], structure: dict[str, int], loc: str, amount: int, *, skip_armor: bool
) -> int:
    """Take ``amount`` at ``loc`` (armour first unless ``skip_armor``, then structure); return what is left."""
    if structure.get(loc, 0) <= 0:
        return amount
    if not skip_armor:
        taken = min(armor.get(loc, 0), amount)
        armor[loc] = armor.get(loc, 0) - taken
        amount -= taken
    taken = min(structure[loc], amount)
    structure[loc] -= taken
    return amount - taken


def roll_location(
    dice: Dice,
    unit: Mech,
    table: str,
    *,
    attacker_at: Hex | None = None,
    purpose: str,
    rule: str = "MECH-2.3",
) -> tuple[str, Roll, RollMade]:
    """Roll a hit location on ``unit``: mechs on the 2d6 ``standard`` table or the 1d6 ``punch``/``kick`` tables;
    vehicles on the [HOUSE] 2d6 table of the side the attack comes from (``attacker_at``)."""
    tb = tables()
    if unit.is_mech:
        if table == STANDARD:
            roll = dice.two_d6(rule=rule, purpose=purpose)
        else:
            roll = dice.d6(rule=rule, purpose=purpose)
        loc = tb.mech_locations[table][roll.total]
    else:
        side = "front"
        if attacker_at is not None and unit.at is not None and attacker_at != unit.at:
            side = arc_of(unit.at, unit.facing, attacker_at)
        roll = dice.two_d6(rule=rule, purpose=purpose)
        loc = tb.vehicle_locations[side][roll.total]
        if loc not in unit.structure:
            loc = side  # a turret result on a vehicle without a turret hits the attacked side
    event = RollMade.of(roll, actor=unit.id, location=loc)
    return loc, roll, event
