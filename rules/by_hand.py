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
            "Damage must be a positive number.", code="director.bad_amount", params={"value": text[:20]}
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


def location_and_amount(
    text: str, locations: tuple[str, ...], words: dict[str, str] | None = None
) -> tuple[str, int] | None:
    """``"torso 3"`` or ``"3 torso"``: a location of ``locations`` (or a word ``words`` maps to one) and an amount
    above zero; None when the text is not one location and one number."""
    parts = text.lower().replace("=", " ").replace(",", " ").split()
    numbers = [w for w in parts if w.isdigit()]
    places = [(words or {}).get(w, w) for w in parts if not w.isdigit()]
    if len(numbers) != 1 or len(places) != 1 or places[0] not in locations:
        return None
    return places[0], positive_amount(numbers[0])
