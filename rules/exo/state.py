"""What the exo ruleset keeps between resolutions (``EncounterState.ext``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from rules.events import Event
from rules.exo.orders import ShipOrders
from rules.serial import serializable
from rules.state import RulesetState

CREW_STEP, ORDERS_STEP = "crew", "orders"


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class CrewEffects:
    """EXO-2.1 results of one ship's crew rolls this round (+N helps: -N on the helped roll's total)."""

    engineer: int = 0
    navigator: int = 0
    gunner: int = 0
    gunner_name: str = ""  # the gunner the captain helped


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class PendingHit:
    """EXO-3.5 damage scored in phase 2, applied in phase 4 (EXO-5.1)."""

    shooter: str
    weapon: str
    armor: int
    locations: tuple[str, ...]


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class PilotOutcome:
    """EXO-4.1 result kept while a critical pilot chooses a change."""

    crew: str
    quality: str
    executed: str
    yaw: str = ""  # fumble: "I" port or "D" starboard
    change: bool = False  # critical: waiting for the pilot's choice


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class ExoState(RulesetState):
    """Round bookkeeping. ``locked`` holds orders locked at the end of phase 1, when every side's orders are in
    (fire declarations are revealed in phase 2, moves in phase 3); unsubmitted orders are never stored here."""

    step: str = CREW_STEP  # phase 1 sub-step: open crew rolls, then secret orders
    effects: Mapping[str, CrewEffects] = field(default_factory=lambda: dict[str, CrewEffects]())
    locked: Mapping[str, ShipOrders] = field(default_factory=lambda: dict[str, ShipOrders]())
    hits: Mapping[str, tuple[PendingHit, ...]] = field(
        default_factory=lambda: dict[str, tuple[PendingHit, ...]]()
    )
    piloting: Mapping[str, PilotOutcome] = field(default_factory=lambda: dict[str, PilotOutcome]())
    collisions: tuple[tuple[str, ...], ...] = ()
    setup_events: tuple[Event, ...] = ()  # EXO-1.3 broadside rolls made at setup, reported with round 1


def ext_of(state_ext: RulesetState | None) -> ExoState:
    return state_ext if isinstance(state_ext, ExoState) else ExoState()
