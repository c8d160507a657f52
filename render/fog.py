"""What a viewer may see (FOG-1, NGT-9): the ruleset answers; unknown rulesets get the core default."""

from __future__ import annotations

from rules.engine import visibility
from rules.registry import ruleset_for
from rules.ruleset import DIRECTOR, PUBLIC, Visibility
from rules.state import EncounterState


def view_for(state: EncounterState, viewer: str) -> Visibility:
    """``viewer`` is a side id, ``"director"`` or ``"public"``; anything else is refused (no accidental leaks)."""
    if viewer not in (DIRECTOR, PUBLIC) and viewer not in state.side_ids():
        raise ValueError(f"unknown viewer {viewer!r}: expected a side id, 'director' or 'public'")
    try:
        ruleset = ruleset_for(state)
    except KeyError:
        return _default_view(state, viewer)
    return visibility(ruleset, state, viewer)


def _default_view(state: EncounterState, viewer: str) -> Visibility:
    """Every unit not hidden; hidden ones only for their own side and the director (FOG-1)."""
    seen = frozenset(
        u.id for u in state.units.values() if not u.hidden or viewer == DIRECTOR or (viewer == u.side)
    )
    return Visibility(units=seen)
