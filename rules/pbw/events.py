"""pbw events (templates ``event.<ClassName>`` and ``note.pbw.*`` in ``data/locales/*/pbw.toml``).

Moves use the core ``UnitMoved``, deaths ``UnitDestroyed``; an attack is a ``ShotResolved`` (the board draws its
firing line) carrying the DESIGN §7.4 fields. Class names carry a ``Pbw`` prefix because the account looks
templates up by class name, which is shared by every ruleset; ``DeclarationLocked`` keeps the name the engine
contract gives it and a template that only uses ``rule`` and ``unit``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from rules.events import Event, Note, ShotResolved
from rules.hexgrid import Hex
from rules.serial import serializable

Pairs = tuple[tuple[str, Any], ...]


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class DeclarationLocked(Event):
    """PBW-1: a character's intentions for the three segments, public once locked.

    ``segments`` holds one table per segment (``action``, and ``path``, ``target``, ``weapon``, ``aim`` when
    given); ``source`` is ``declared``, ``default`` (nothing was declared: three skipped segments) or
    ``exhausted`` (PBW-3: no action left, a turn of rest)."""

    unit: str
    initiative: int
    segments: tuple[Pairs, ...]
    rest: bool = False
    disengage: bool = False
    source: str = "declared"


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class PbwDeclarationForced(DeclarationLocked):
    """PBW-1: a declaration the director (or a deadline) locked for a character whose player gave none
    (``source`` ``forced``)."""


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class PbwSegmentPlanned(Note):
    """One declared (or changed) segment, for the readable account: ``key`` is ``pbw.plan.<action>``."""

    segment: int
    action: str
    target: str = ""
    weapon: str = ""
    to: Hex | None = None
    aim: str = ""


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class PbwInitiativeTie(Event):
    """PBW-1: ``unit`` and ``other`` have the same Initiative; ``unit`` comes earlier in the scenario file, so it
    declares first and acts first in each segment (DESIGN §7.4). Told as a turn's declarations begin; both units
    are named, so a reader who cannot see one of them is not told of the tie."""

    unit: str
    other: str
    initiative: int


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class PbwSegmentStarted(Event):
    """PBW-1: a segment resolves, characters from the highest Initiative to the lowest (ties: file order)."""

    turn: int
    segment: int
    units: tuple[str, ...]


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class PbwIntentionChanged(Note):
    """PBW-2: a change of intention; it costs one action (``forfeited``: the later segment given up, 0 when a
    spare action paid for it, which can then no longer be a defence). ``key``: ``pbw.changed.spare|forfeit``."""

    segment: int
    action: str
    forfeited: int = 0
    rest_broken: bool = False
    disengage_broken: bool = False


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class PbwAttack(ShotResolved):
    """PBW-5 (and PBW-4 for the location and damage): one attack. ``roll`` is the 2d6, ``total`` the roll plus
    attribute, skill and modifiers, ``difficulty`` what it had to reach (an opposed melee: the defence total + 1,
    or + 0 when ties go to the attacker). ``location`` is None on a miss."""

    unit: str
    kind: str  # shoot | melee
    roll: int
    total: int
    difficulty: int
    location: str | None = None
    bonus: int = 0
    modifiers: Mapping[str, int] = field(default_factory=lambda: dict[str, int]())  # PBW-5: reason → value
    band: str = ""  # ranged: short | medium | long | extreme
    cover: int = 0
    critical: bool = False  # DICE-3 double 6
    fumble: bool = False  # DICE-3 double 1
    defence: int | None = None  # an opposed melee: the defender's total
    aimed: bool = False
    quality: str = ""  # DICE-3: critical | success | failure | fumble (the attacker's roll)


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class PbwDefence(Event):
    """PBW-2: the defender spends one of its melee defences and rolls against the attack."""

    unit: str
    attacker: str
    left: int


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class PbwDamage(Event):
    """PBW-4: damage off the hit points and off the location's resistance."""

    unit: str
    by: str
    location: str
    amount: int
    hp: int
    resistance: int


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class PbwLocationDisabled(Event):
    """PBW-4: a location at 0 or less: arm useless, leg falls, torso incapacitated, head unconscious."""

    unit: str
    location: str
    effect: str  # arm_useless | falls | incapacitated | unconscious


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class PbwItemDropped(Event):
    """PBW-4: a useless arm drops what it held; the weapon stays on the ground."""

    unit: str
    weapon: str
    at: Hex | None


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class PbwMoveStopped(Event):
    """A move cut short: ``engaged`` (PBW-5, held in melee or running into it), ``occupied``, ``path`` (the declared
    path no longer starts next to the character), ``athletics`` (PBW-2, the roll for another move failed)."""

    unit: str
    segment: int
    reason: str
    at: Hex | None
    other: str = ""


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class PbwActionLost(Event):
    """A declared action that cannot be carried out when its segment comes (the action is spent)."""

    unit: str
    segment: int
    action: str
    reason: str
    target: str = ""


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class PbwHandsUsed(Note):
    """PBW-2: draw, stow or reload (``key`` ``pbw.hands.<action>``). ``ammo`` is what the weapon holds after."""

    action: str
    weapon: str
    ammo: int = 0


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class PbwTreatment(Note):
    """PBW-6: a turn of treatment by ``unit`` on ``target``'s ``location``: ``turns`` complete, consecutive turns
    so far; at ten the location and the hit points get 1 back (``restored``) and the count starts again. ``key``:
    ``pbw.treat.turn``, ``pbw.treat.restored`` or ``pbw.treat.broken`` (the count lost, ``turns`` then those lost)."""

    target: str
    location: str
    turns: int
    restored: bool = False


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class PbwFatigue(Event):
    """PBW-3: fatigue gained (Athletics, melee) or recovered (a whole turn of rest)."""

    unit: str
    change: int
    fatigue: int
    reason: str


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class PbwAthletics(Event):
    """PBW-2: the Athletics roll that allows another move this turn."""

    unit: str
    total: int
    difficulty: int
    success: bool
    quality: str  # DICE-3: critical | success | failure | fumble


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class PbwDisengaged(Event):
    """PBW-5: a whole turn without attacking: free to leave the melee next turn."""

    unit: str


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class PbwTurnEnded(Event):
    """PBW-1: the third segment is over; the next turn starts with new declarations."""

    turn: int
