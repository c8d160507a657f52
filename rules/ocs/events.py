"""OCS events (templates ``event.<ClassName>`` in ``data/locales/*/ocs.toml``).

Together they carry every figure OCS-7 asks the result message to show. The field names of the OCS-2..6 events
are the ``sim --json`` contract of DESIGN §7.2. Moves and retreats use the core ``UnitMoved``, eliminations the
core ``UnitDestroyed``.
"""

from __future__ import annotations

from dataclasses import dataclass

from rules.events import Event
from rules.hexgrid import Hex
from rules.serial import serializable


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class OcsCombatOpened(Event):
    """A combat is declared: the attackers, the defender hex and the units in it, the attack type."""

    combat: int
    kind: str
    at: Hex
    attackers: tuple[str, ...]
    defenders: tuple[str, ...]


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class OcsArChosen(Event):
    """OCS-2: a side names the unit whose Action Rating it uses (``forced``: it had only one)."""

    combat: int
    role: str  # attacker | defender
    unit: str
    ar: int
    mode: str
    forced: bool = False


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class OcsActionRatings(Event):
    """OCS-2: both ARs (after the mode) and the DRM = attacker AR − defender AR."""

    combat: int
    attacker: str
    defender: str
    attacker_mode: str
    defender_mode: str
    attacker_ar: int
    defender_ar: int
    drm: int


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class OcsOdds(Event):
    """OCS-3: attack and defence strengths, the raw ratio (2 decimals shown) and the rounded odds."""

    combat: int
    attack: float
    defense: float
    ratio: float
    odds: str


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class OcsColumn(Event):
    """OCS-4: the defender's terrain class and the CRT column the odds are read in (1-based)."""

    combat: int
    terrain: str
    column: int
    column_odds: str  # the odds printed over that column


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class OcsSurprise(Event):
    """OCS-5: the surprise roll and its thresholds; on surprise, the 1d6 shift and the final column."""

    combat: int
    kind: str
    roll: int
    drm: int
    hedgehog_modifier: int  # -1 with any hedgehog in the defender hex, else 0
    modified: int
    threshold_attacker: int
    threshold_defender: int
    surprise: str | None
    surprise_by: str  # the same for the account: attacker_surprise, defender_surprise or no_surprise
    shift_roll: int | None
    shift: int  # signed: + right for the attacker, − left for the defender
    final_column: int  # after the shift, clamped at the table's ends
    final_odds: str  # the odds printed over the final column


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class OcsCombatRoll(Event):
    """OCS-6: the combat roll (raw, modified, clamped to 1..15) and the CRT result in the final column."""

    combat: int
    roll: int
    drm: int
    hedgehog: int  # the full hedgehog level subtracted
    unclamped: int
    modified: int
    column: int
    result: str
    attacker_loss: int
    defender_loss: int
    option: int
    exploit: bool


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class OcsStepLost(Event):
    """A unit loses a step. ``cause``: ``action_rating`` (OCS-2, the first step of a side), ``owner_choice``
    (OCS-6), ``option_step`` (taken instead of retreating, owner's choice, OCS-6) or ``every_step`` (the result
    takes every step the side has)."""

    combat: int
    unit: str
    cause: str
    steps: int  # steps left


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class OcsOptionSettled(Event):
    """OCS-6: how the defender fulfilled its option: steps lost instead, hexes retreated."""

    combat: int
    option: int
    steps: int
    retreat: int


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class OcsModeChanged(Event):
    """OCS-1: a unit changes mode (normal, dg, strategic)."""

    unit: str
    frm: str
    to: str


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class OcsCombatEnded(Event):
    """The combat is over: every loss and retreat is applied."""

    combat: int
    at: Hex


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class OcsTurnEnded(Event):
    """The director ended the combat phase; ``turn`` is the turn that begins."""

    turn: int


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class OcsCombatCancelled(Event):
    """The director called a combat off, or it can no longer be fought (``reason`` says why)."""

    combat: int
    at: Hex
    reason: str
