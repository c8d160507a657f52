"""What a viewer may read of a step that took the board from one state to another (FOG-1, NGT-9).

A step a viewer could see only half of tells them nothing: a unit counts as seen only when the viewer sees it in
every state it is in, before and after. So a director removing a unit the viewer never saw, bringing one in where
the viewer cannot see, or moving one from the dark into sight names nothing the viewer did not see; what the
viewer's board shows afterwards is theirs to look at.
"""

from __future__ import annotations

from collections.abc import Sequence

from rules.engine import visibility
from rules.events import DirectorOverride, Event
from rules.registry import ruleset_for
from rules.ruleset import DIRECTOR
from rules.state import EncounterState


def seen_events(
    before: EncounterState, after: EncounterState, events: Sequence[Event], viewer: str
) -> tuple[Event, ...]:
    """The events of the step from ``before`` to ``after`` that ``viewer`` (a side, ``"public"`` or
    ``"director"``) may read, as the ruleset words them for that viewer."""
    if viewer == DIRECTOR:
        return tuple(events)
    return seen_between(
        before,
        after,
        events,
        visibility(ruleset_for(before), before, viewer).units,
        visibility(ruleset_for(after), after, viewer).units,
    )


def seen_between(
    before: EncounterState,
    after: EncounterState,
    events: Sequence[Event],
    sees_before: frozenset[str],
    sees_after: frozenset[str],
) -> tuple[Event, ...]:
    """:func:`seen_events` for a viewer whose sight of each state is already known (``sees_before``, ``sees_after``:
    the units they see in each), so a reader of many steps works out each state's sight once."""
    ruleset = ruleset_for(after)
    known_before, known_after = frozenset(before.units), frozenset(after.units)
    unseen = (known_before - sees_before) | (known_after - sees_after)
    known = known_before | known_after
    seen = known - unseen
    shown = (ruleset.public_event(e, seen, known) for e in events)
    return tuple(e for e in shown if e is not None)


def is_ruling(events: Sequence[Event]) -> bool:
    """A step the director made by hand (an override and what came with it), not one the rules resolved."""
    return any(isinstance(e, DirectorOverride) for e in events)
