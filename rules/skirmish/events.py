"""Skirmish events (templates ``event.<ClassName>`` in ``data/locales/*/skirmish.toml``).

Moves and turns use the core ``UnitMoved``, shots and melee the core ``ShotResolved``, deaths ``UnitDestroyed``.
"""

from __future__ import annotations

from dataclasses import dataclass

from rules.events import Event
from rules.hexgrid import Hex
from rules.serial import serializable


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class SkChitDrawn(Event):
    """SK-1.1: a chit comes out of the bag; its player becomes the active player."""

    chit: str
    side: str
    fixed: bool = False  # drawn from a scenario's fixed order rather than at random


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class SkActivationEnded(Event):
    unit: str
    ap_left: int


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class SkActivationForced(SkActivationEnded):
    """SK-1.1: the activation ended by the director (or a deadline), its player having given no order."""


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class SkApSpent(Event):
    """SK-1.2: AP paid for an action."""

    unit: str
    action: str
    cost: int
    ap_left: int


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class SkWounded(Event):
    """SK-3.4: damage against resistance, wounds = (damage − 1) // resistance."""

    unit: str
    damage: int
    resistance: int
    wounds: int
    total: int
    boxes: int


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class SkActionResolved(Event):
    """SK-6.1: an other action (search, use, open a door) and whether it worked."""

    actor: str
    description: str
    success: bool


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class SkGrenadeThrown(Event):
    """SK-6.2: the blast (centre and ring damage) and the fire it leaves. ``target`` is the character aimed at,
    or "" when the grenade was thrown at an object (the hex ``at``)."""

    actor: str
    target: str
    at: Hex
    hit: bool
    center_damage: int = 0
    ring_damage: int = 0
    fire_until: int = 0  # last round the fire markers stay (0: no fire)


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class SkOverwatchSet(Event):
    unit: str
    policy: str
    shots: int


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class SkOverwatchLost(Event):
    """SK-4.1: the watcher's next activation began (whether or not it spends AP): it leaves overwatch."""

    unit: str


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class SkOverwatchHeld(Event):
    """SK-4.1: a watcher chose not to fire (or was not asked to)."""

    unit: str
    target: str


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class SkActionCancelled(Event):
    """SK-4.1: an overwatch shot killed the actor before its action happened (``reason`` ``killed``); SK-1.1: or
    the shots ended the encounter, so the action never happens (``game_over``)."""

    unit: str
    action: str
    reason: str = "killed"


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class SkPathStopped(Event):
    """SK-4.1: overwatch fire drawn on a path of several hexes stops it at ``at``; the AP of the steps not taken
    stay with the character."""

    unit: str
    at: Hex
    ap_left: int


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class SkFireOut(Event):
    """SK-6.2: fire markers that burned out at the end of the round."""

    at: tuple[Hex, ...]


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class SkRoundEnded(Event):
    """SK-1.1: every chit has been drawn; the next round re-bags the chits of units with living characters."""

    round: int
    chits: tuple[str, ...]
