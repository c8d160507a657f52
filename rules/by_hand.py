"""Small pieces shared by the rulesets' ``damage_by_hand`` hooks (the director's ``/director damage``)."""

from __future__ import annotations

from rules.errors import IllegalOrderError
from rules.events import DirectorOverride, Event, UnitDestroyed
from rules.state import Unit

RULE = "DIRECTOR"  # overrides are the director's ruling, not a rule of the book


def positive_amount(text: str) -> int:
    """A damage amount typed by the director: a whole number above zero."""
    try:
        amount = int(text.strip())
    except ValueError:
        amount = 0
    if amount <= 0:
        raise IllegalOrderError(
            "Damage must be a positive number.",
            code="director.bad_value",
            params={"stat": "damage", "value": text[:20]},
        )
    return amount


def damage_events(before: Unit, after: Unit, amount: int | str) -> tuple[Event, ...]:
    """The override event, plus ``UnitDestroyed`` when the damage destroyed the unit."""
    events: list[Event] = [
        DirectorOverride(rule=RULE, action="damage", unit=before.id, args=(("amount", amount),))
    ]
    if after.destroyed and not before.destroyed:
        events.append(UnitDestroyed(rule=RULE, unit=before.id, at=before.at))
    return tuple(events)
