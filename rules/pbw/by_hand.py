"""The director's hand on pbw characters: damage on a location (``/director damage``, PBW-4)."""

from __future__ import annotations

from rules.by_hand import RULE, location_and_amount
from rules.errors import IllegalOrderError
from rules.events import DirectorOverride, Event
from rules.pbw.combat import apply_damage
from rules.pbw.model import Character
from rules.pbw.tables import LOCATIONS
from rules.state import EncounterState

#: what a director may type for a location besides its code (Spanish words and initials)
LOCATION_WORDS = {
    "cabeza": "head",
    "cab": "head",
    "bd": "ra",
    "bi": "la",
    "pd": "rl",
    "pi": "ll",
}


def damage_locations(unit: Character) -> tuple[str, ...]:
    """PBW-4: the locations the character has a resistance for, in the hit table's order."""
    return tuple(loc for loc in LOCATIONS if loc in unit.resistance) or LOCATIONS


def by_hand_damage(
    state: EncounterState, unit: Character, text: str
) -> tuple[EncounterState, tuple[Event, ...]]:
    """``"torso 3"``: PBW-4 as a hit does it (``combat.apply_damage``): off the hit points and the location's
    resistance, with what a location at 0 or HP at 0 brings (a dropped weapon, a fall, death)."""
    locations = damage_locations(unit)
    parsed = location_and_amount(text, locations, LOCATION_WORDS)
    if parsed is None:
        raise IllegalOrderError(
            f"{unit.name}: choose a location and type an amount, like 'torso 3' ({', '.join(locations)})",
            code="director.damage_location",
            rule="PBW-4",
            params={"unit": unit.id, "name": unit.name, "locations": ", ".join(locations)},
        )
    location, amount = parsed
    if not unit.alive:
        raise IllegalOrderError(
            f"{unit.name} is dead: damage changes nothing.",
            code="director.damage_nothing",
            params={"unit": unit.id, "name": unit.name},
        )
    new_state, events = apply_damage(state, unit.id, "", location, amount)
    record = DirectorOverride(
        rule=RULE, action="damage-at", unit=unit.id, args=(("amount", amount), ("location", location))
    )
    return new_state, (record, *events)
