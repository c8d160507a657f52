"""Who may do what in an encounter (DESIGN §4 Permissions). Pure: the cog supplies what Discord knows.

The director is the encounter's creator, its co-directors, members holding the configured director role and
members with Manage Server. Players act only for the units assigned to them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, cast

from bot.storage.base import Encounter, Participant


@dataclass(frozen=True, slots=True)
class Actor:
    """A Discord member as far as permissions go."""

    user_id: int
    role_ids: frozenset[int] = field(default_factory=lambda: frozenset[int]())
    role_names: frozenset[str] = field(default_factory=lambda: frozenset[str]())
    manage_guild: bool = False
    locale: str = "en"


def is_director(
    actor: Actor,
    meta: Encounter,
    participants: Iterable[Participant],
    *,
    director_role_id: int | None = None,
    director_role_name: str | None = None,
) -> bool:
    if actor.user_id == meta.created_by or actor.manage_guild:
        return True
    if director_role_id is not None and director_role_id in actor.role_ids:
        return True
    if director_role_name and director_role_name in actor.role_names:
        return True
    return any(p.user_id == actor.user_id and p.role in ("director", "codirector") for p in participants)


def units_of(user_id: int, participants: Iterable[Participant]) -> list[str]:
    return [p.unit for p in participants if p.user_id == user_id and p.role == "player" and p.unit]


def holder_of(unit_id: str, participants: Iterable[Participant]) -> int | None:
    for p in participants:
        if p.role == "player" and p.unit == unit_id:
            return p.user_id
    return None


def is_member(user_id: int, participants: Iterable[Participant]) -> bool:
    return any(p.user_id == user_id for p in participants)


#: encounter setting: the units nobody plays that follow the ruleset's stand-in order every time they are awaited
#: (the director's choice at the start), instead of the director playing them
STAND_INS = "stand_in_units"


def stand_ins(settings: Mapping[str, Any]) -> frozenset[str]:
    """The units the director left to their stand-in order (the encounter's ``settings``)."""
    raw: object = settings.get(STAND_INS, [])
    return frozenset(str(u) for u in cast("list[object]", raw)) if isinstance(raw, list) else frozenset()


def player_of(unit_id: str, participants: Iterable[Participant], meta: Encounter) -> int | None:
    """Who gives ``unit_id``'s orders: its player or, when nobody plays it, the encounter's director (so no step
    ever waits on nobody); None only for a unit the director left to its stand-in order."""
    holder = holder_of(unit_id, participants)
    if holder is not None:
        return holder
    return None if unit_id in stand_ins(meta.settings) else meta.created_by
