"""Exo events: every roll and effect of the five phases, each citing its rule id (DESIGN §2)."""

from __future__ import annotations

from dataclasses import dataclass

from rules.events import Event
from rules.hexgrid import Hex
from rules.serial import serializable


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class BroadsideSideRolled(Event):
    """EXO-1.3: a broadside weapon without a side got one from a d10 (even port, odd starboard)."""

    unit: str
    weapon: str
    side: str


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class CrewEffect(Event):
    """EXO-2.1 (or EXO-1.5 for an assistant): a crew roll's effect and what it applies to."""

    unit: str
    crew: str
    station: str
    quality: str
    effect: int
    applies_to: str


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class MantaSet(Event):
    """EXO-2.2: this round's maneuverability."""

    unit: str
    manta: int
    maneuverability: int
    engineer_effect: int


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class OrdersLocked(Event):
    """EXO-2.3/2.4: a ship's secret orders are in (their content is revealed in phases 2 and 3)."""

    unit: str


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class FireDeclared(Event):
    """EXO-2.4 revealed at the start of phase 2."""

    unit: str
    target: str
    crew: str
    weapon: str
    shots: int


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class ShotSpent(Event):
    """A declared shot that cannot hit: EXO-3.1 out of arc, EXO-3.2 nearer target, EXO-3.4 out of range."""

    shooter: str
    target: str
    weapon: str
    reason: str  # "arc" | "nearest" | "range"
    distance: int


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class HitScored(Event):
    """EXO-3.5: a hit's damage split into armor and internal points; applied in phase 4 (EXO-5.1)."""

    shooter: str
    target: str
    weapon: str
    damage: int
    armor: int
    internal: int
    locations: tuple[str, ...]
    multiplier: int = 1  # EXO-3.7: ×10 against a lesser target (persons, vehicles)


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class PilotingResolved(Event):
    """EXO-4.1: what the piloting roll left of the written orders."""

    unit: str
    crew: str
    written: str
    executed: str
    quality: str


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class Yawed(Event):
    """EXO-4.1 fumble: the ship yaws one hexside."""

    unit: str
    direction: str  # "I" port or "D" starboard
    facing: int


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class ManeuverExecuted(Event):
    """EXO-4.2: the executed orders turned the bow and pushed the vector."""

    unit: str
    moves: str
    facing_from: int
    facing_to: int
    vector_from: Hex | None
    vector_to: Hex | None


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class CollisionFlagged(Event):
    """EXO-4.5: pieces ending in one hex; the director rules collision, docking or boarding."""

    at: Hex
    units: tuple[str, ...]
    terrain: str = ""


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class CollisionRuled(Event):
    """EXO-4.6: the director ruled a collision in ``at``; ``damage[i]`` is what ``units[i]`` takes (applied like one
    hit, EXO-3.5; always 0 for debris and asteroids). ``queued``: ruled before the damage phase, so it takes effect in
    phase 4 with the round's damage (EXO-5.1)."""

    at: Hex
    units: tuple[str, ...]
    damage: tuple[int, ...] = ()
    queued: bool = False


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class ShipsDocked(Event):
    """EXO-4.7: the director ruled that ``unit`` docked with ``other``; ``matched``: it took the other's velocity."""

    unit: str
    other: str
    at: Hex
    matched: bool = True


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class ShipBoarded(Event):
    """EXO-4.8: the director ruled that ``crew`` of ``unit`` boarded ``target``; ``captured``: they took it."""

    unit: str
    target: str
    at: Hex
    crew: tuple[str, ...] = ()
    captured: bool = False


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class DamageApplied(Event):
    """EXO-5.1: one ship's damage of the round, applied."""

    unit: str
    armor_lost: int
    internal: int


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class SystemHit(Event):
    """EXO-3.5 location effect applied in phase 4: a stat point lost or a weapon disabled."""

    unit: str
    location: str
    detail: str = ""
    remaining: int = 0


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class CrewCasualty(Event):
    """EXO-5.2: a crew member falls (out of action until treated); EXO-5.3: the damage rolled at once."""

    unit: str
    crew: str
    station: str
    injury: str
    damage: int = 0


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class RepairResolved(Event):
    """EXO-6.1 (or EXO-6.4 first aid): ``result`` is repaired, failed, beyond_repair or nothing."""

    unit: str
    crew: str
    item: str
    result: str
    detail: str = ""


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class StationChanged(Event):
    """EXO-6.5: a crew member takes another station from next round."""

    unit: str
    crew: str
    frm: str
    to: str
