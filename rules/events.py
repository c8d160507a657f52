"""Events: everything that happens is data, citing its rule id (DESIGN §2, DICE-1).

Cogs and renderers turn events into text and pictures; the engine never formats messages. Rulesets add their
own event classes (subclass :class:`Event`, decorate with ``@serializable``) and give each an entry in the locale
catalogs under ``event.<ClassName>``.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

from rules.dice import Roll
from rules.hexgrid import Hex
from rules.serial import serializable

# Field names that name units; used to decide who may see an event (FOG-1).
UNIT_FIELDS = ("unit", "shooter", "target", "actor", "attacker", "defender", "other")
#: fields naming the unit that caused an event about another (a mech's damage ``by``, a push ``by``): the event
#: is still about its ``unit``, so a reader who cannot see the cause reads the event without it (FOG-1)
CAUSE_FIELDS = ("by",)


@dataclass(frozen=True, slots=True, kw_only=True)
class Event:
    """Base of every event. ``rule`` is the rule id the event applies (``"EXO-3.4"``)."""

    rule: str

    @property
    def type(self) -> str:
        return type(self).__name__

    def involved(self) -> tuple[str, ...]:
        """Unit ids this event is about (visibility filtering uses it)."""
        out: list[str] = []
        for name in UNIT_FIELDS:
            value = getattr(self, name, None)
            if isinstance(value, str) and value:
                out.append(value)
        units = getattr(self, "units", None)
        if isinstance(units, tuple):
            out.extend(u for u in units if isinstance(u, str))  # type: ignore[misc]
        return tuple(out)

    def params(self) -> dict[str, Any]:
        """Field values for message templates."""
        return {f.name: getattr(self, f.name) for f in fields(self)}


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class RollMade(Event):
    """A die roll (DICE-1). ``detail`` holds what a reader needs: skill, modifiers, total, quality."""

    purpose: str
    sides: int
    dice: tuple[int, ...]
    source: str = "seeded"
    index: int = 0
    actor: str = ""
    target: str = ""
    detail: tuple[tuple[str, Any], ...] = ()

    @classmethod
    def of(cls, roll: Roll, *, actor: str = "", target: str = "", **detail: Any) -> RollMade:
        return cls(
            rule=roll.rule,
            purpose=roll.purpose,
            sides=roll.sides,
            dice=roll.dice,
            source=roll.source,
            index=roll.index,
            actor=actor,
            target=target,
            detail=tuple(sorted(detail.items())),
        )

    def get(self, key: str, default: Any = None) -> Any:
        return dict(self.detail).get(key, default)


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class UnitMoved(Event):
    unit: str
    frm: Hex | None
    to: Hex | None
    facing_from: int
    facing_to: int
    path: tuple[Hex, ...] = ()


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class PhaseStarted(Event):
    round: int
    phase: str


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class UnitDestroyed(Event):
    unit: str
    at: Hex | None = None


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class Note(Event):
    """A fact without mechanics of its own (a flagged collision, a skipped action). ``key`` names a template."""

    key: str
    unit: str = ""
    args: tuple[tuple[str, Any], ...] = ()


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class DirectorOverride(Event):
    """The director changed the state by hand (DESIGN §4): shown in the channel, undoable."""

    action: str
    unit: str = ""
    args: tuple[tuple[str, Any], ...] = ()


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class GameOver(Event):
    winner: str | None
    reason: str = ""


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class ShotResolved(Event):
    """A shot or attack and its outcome; renderers draw it as a firing line with a hit/miss mark."""

    shooter: str
    target: str
    weapon: str = ""
    hit: bool = False
    damage: int = 0
    spent: bool = False  # declared but could not hit (out of arc, nearest-target rule, out of range)
