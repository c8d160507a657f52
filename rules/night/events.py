"""Night events (RULES.md §5); each carries its rule id and has a template under ``event.<Name>``."""

from __future__ import annotations

from dataclasses import dataclass

from rules.events import Event, Note
from rules.hexgrid import Hex
from rules.serial import serializable


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class NightWind(Event):
    """NGT-1: the wind d6 at the start of a round; ``change`` to the NVR, now ``nvr``."""

    roll: int
    change: int
    nvr: int


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class NightNvrSet(Event):
    """NGT-1: the director sets the night visibility range."""

    nvr: int


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class NightLightPlaced(Event):
    """NGT-3: a flare or an illuminating round aimed at ``aimed`` drifts ``drift`` (side name, "" for none) and
    lights ``at`` with ``radius``."""

    kind: str
    aimed: Hex
    drift: str
    roll: int
    at: Hex
    radius: int


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class NightGunflash(Event):
    """NGT-4: a unit that fired is marked with a gunflash until the end of the round."""

    unit: str
    at: Hex


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class NightMarkersCleared(Event):
    """NGT-3: flares, illuminating rounds, gunflashes and TI markers removed at the end of the round."""

    round: int
    count: int


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class NightStraying(Note):
    """NGT-5: the movement roll (``colored``, ``white``) of a unit about to move, or why it is ``exempt``; on a
    stray, the direction roll and where and why it stopped (``ti``: marked TI). ``key`` picks the account's
    sentence: ``night_exempt``, ``night_kept_way``, ``night_strayed`` (``night_strayed_ti``), ``night_jittered``;
    each but the first with ``_at`` when the roll was made mid-path, where a unit that set out exempt lost its
    exemption (``args`` then carries ``checked_at``, that hex's label)."""

    exempt: str | None = None
    colored: int | None = None
    white: int | None = None
    discipline: str = ""
    strayed: bool = False
    direction: str | None = None
    direction_colored: int | None = None
    direction_white: int | None = None
    stopped_at: Hex | None = None
    stopped_because: str | None = None
    hexes: int = 0
    ti: bool = False


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class NightJitterFire(Event):
    """NGT-6: ``unit`` fires wildly (gunflash, no target; ``roll`` only for malfunction checks); when it is the
    moving unit, its move is cancelled."""

    unit: str
    roll: int
    cancels_move: bool = False
