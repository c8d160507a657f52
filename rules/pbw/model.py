"""pbw data: the character (PBW-1..4), its declaration of three segments (PBW-1, PBW-2), changes of intention
(PBW-2) and the bookkeeping of one turn (``PbwState``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from rules.hexgrid import Hex
from rules.pbw.tables import ARMS, LEGS, WeaponType, tables
from rules.ruleset import Order
from rules.serial import serializable
from rules.state import RulesetState, Unit

# --- conditions (PBW-4), worst last ---------------------------------------------------------------------------
OK, PRONE, INCAPACITATED, UNCONSCIOUS, DEAD = "ok", "prone", "incapacitated", "unconscious", "dead"
CONDITIONS = (OK, PRONE, INCAPACITATED, UNCONSCIOUS, DEAD)

# --- segment actions (PBW-2) ------------------------------------------------------------------------------------
MOVE, SHOOT, MELEE, RELOAD, DRAW, STOW, DEFEND, REST, TREAT = (
    "move",
    "shoot",
    "melee",
    "reload",
    "draw",
    "stow",
    "defend",
    "rest",
    "treat",
)
LOST = "lost"  # a segment given up to pay for a change of intention (PBW-2)
ACTIONS = (MOVE, SHOOT, MELEE, RELOAD, DRAW, STOW, DEFEND, REST, TREAT)
#: actions that take the whole turn, all three segments alike (PBW-3 rest, PBW-6 treat)
WHOLE_TURN = frozenset({REST, TREAT})
#: actions that use the segment; defend and rest skip it (and give a melee defence, PBW-2)
ACTIVE = frozenset({MOVE, SHOOT, MELEE, RELOAD, DRAW, STOW})
ATTACKS = frozenset({SHOOT, MELEE})
SEGMENTS = 3


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class Carried:
    """A weapon a character carries. ``ammo`` is what is loaded now (ranged weapons)."""

    type: str
    ammo: int = 0
    dropped: bool = False  # PBW-4: dropped by a useless arm; lies on the ground

    @property
    def spec(self) -> WeaponType:
        return tables().weapon(self.type)


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class Treatment:
    """PBW-6: the wound a healer is treating and the complete, consecutive turns spent on it so far."""

    target: str
    location: str
    turns: int = 0


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class Character(Unit):
    """A character at 1 hex = 1 m. ``facing`` is a hexside (kept for the board; no rule reads it)."""

    initiative: int = 0  # PBW-1
    movement: int = 4  # PBW-2: hexes per move action
    fatigue_attribute: int = 4  # PBW-3
    fatigue: int = 0  # PBW-3: the fatigue level now
    hp: int = 1  # PBW-4 Puntos de Vida
    resistance: Mapping[str, int] = field(default_factory=lambda: dict[str, int]())  # PBW-4, now
    #: PBW-4 the hit points and resistances at full health, as the scenario gave them (for the board's bars)
    max_hp: int = 0
    max_resistance: Mapping[str, int] = field(default_factory=lambda: dict[str, int]())
    attributes: Mapping[str, int] = field(default_factory=lambda: dict[str, int]())
    skills: Mapping[str, int] = field(default_factory=lambda: dict[str, int]())
    weapons: tuple[Carried, ...] = ()  # always includes the fists
    held: int | None = None  # index into ``weapons`` of what is in hand
    hand: str = ""  # "ra", "la" or "both": the arm(s) holding it
    condition: str = OK
    items: tuple[str, ...] = ()  # PBW-6: a medkit
    treating: Treatment | None = None  # PBW-6: the treatment under way, None when none

    # --- what the body allows (PBW-4) -----------------------------------------------------------------------
    @property
    def alive(self) -> bool:
        return self.condition != DEAD

    @property
    def awake(self) -> bool:
        """Can declare anything at all (the unconscious and the dead cannot)."""
        return self.condition in (OK, PRONE, INCAPACITATED)

    @property
    def fighting(self) -> bool:
        """Can act freely (fight, shoot, defend): not incapacitated, unconscious or dead."""
        return self.condition in (OK, PRONE)

    def arm_works(self, arm: str) -> bool:
        return self.resistance.get(arm, 1) > 0

    @property
    def working_arms(self) -> tuple[str, ...]:
        return tuple(a for a in ARMS if self.arm_works(a))

    @property
    def legs_work(self) -> bool:
        return all(self.resistance.get(leg, 1) > 0 for leg in LEGS)

    @property
    def crawling(self) -> bool:
        """PBW-4: a fallen (useless leg) or incapacitated character crawls."""
        return self.condition in (PRONE, INCAPACITATED)

    @property
    def fists(self) -> int:
        """Index of the unarmed attack (every character has one; it is added last when a file does not list it)."""
        return next(i for i, w in enumerate(self.weapons) if w.spec.fists)

    def skill(self, name: str) -> int:
        return self.skills.get(name, 0)

    def attribute(self, name: str) -> int:
        return self.attributes.get(name, 0)

    def actions_per_turn(self) -> int:
        """PBW-3: three actions; one at fatigue ≥ the attribute; none at ≥ twice the attribute (exhausted)."""
        tab = tables()
        if self.fatigue >= tab.exhausted_at * self.fatigue_attribute:
            return tab.actions_exhausted
        if self.fatigue >= self.fatigue_attribute:
            return tab.actions_tired
        return tab.actions_normal


# --- orders ------------------------------------------------------------------------------------------------------


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class SegmentAction:
    """What a character means to do in one segment (PBW-2). ``weapon`` is 1-based (0: the default one)."""

    action: str
    path: tuple[Hex, ...] = ()  # move: the hexes entered, in order
    target: str = ""  # shoot, melee
    weapon: int = 0  # shoot, melee, reload, draw, stow
    aim: str = ""  # shoot, melee: the chosen location (PBW-5, −5)
    location: str = ""  # treat: the wounded location (PBW-6)

    @property
    def active(self) -> bool:
        return self.action in ACTIVE


DEFEND_ACTION = SegmentAction(action=DEFEND)
REST_ACTION = SegmentAction(action=REST)
LOST_ACTION = SegmentAction(action=LOST)


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class Declaration(Order):
    """One character's intentions for the three segments of the turn (PBW-1), public once locked.

    ``disengage``: leaving a melee (PBW-5) — a whole turn without attacking or moving, free to move the next."""

    segments: tuple[SegmentAction, ...]
    disengage: bool = False

    @property
    def rest(self) -> bool:
        return all(s.action == REST for s in self.segments)

    @property
    def treat(self) -> SegmentAction | None:
        """PBW-6: the treatment this declaration spends its whole turn on, if it does."""
        first = self.segments[0] if self.segments else None
        if first is not None and first.action == TREAT and all(s == first for s in self.segments):
            return first
        return None

    @property
    def only_defends(self) -> bool:
        """PBW-3: three skipped segments are a turn spent only defending, which rests like ``rest``."""
        return all(s.action == DEFEND for s in self.segments)


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class ForcedDeclaration(Declaration):
    """PBW-1: the declaration locked for a character whose player gave none when the director (or a deadline)
    forced the step: three skipped segments, as a missing declaration. Never read from what a player gives."""


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class Change(Order):
    """A change of intention before a segment resolves (PBW-2); ``action`` None keeps the declared one."""

    segment: int
    action: SegmentAction | None = None


# --- one turn ----------------------------------------------------------------------------------------------------


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class TurnRecord:
    """A character's declaration and what it has used of its actions this turn (PBW-2, PBW-3)."""

    plan: tuple[SegmentAction, ...]  # always three entries; LOST marks a segment paid for a change
    actions: int  # PBW-3: the actions this turn allows (3, 1 or 0)
    spent: int = 0  # actions used: resolved actions, melee defences and changes of intention
    defences_used: int = 0
    changes: int = 0
    rest: bool = False  # PBW-3: a whole turn of rest (or only defending), not broken by a change
    disengage: bool = False  # PBW-5: leaving melee this turn
    resolved: tuple[int, ...] = ()  # segments whose action has been carried out
    moved: tuple[int, ...] = ()  # PBW-5: segments in which the character moved
    moves: int = 0  # PBW-2: move actions carried out (each after the first needs Athletics)
    attacked: bool = False
    source: str = "declared"  # declared | default (no declaration given) | exhausted

    def pending_active(self, from_segment: int) -> int:
        """Active actions still to be carried out from ``from_segment`` on."""
        return sum(
            1
            for i, s in enumerate(self.plan, start=1)
            if i >= from_segment and i not in self.resolved and s.active
        )

    def defences_left(self, segment: int) -> int:
        """PBW-2: one melee defence per skipped segment, as long as an action is left to spend on it."""
        slots = sum(1 for s in self.plan if s.action in (DEFEND, REST)) - self.defences_used
        spare = self.actions - self.spent - self.pending_active(segment)
        return max(0, min(slots, spare))


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class PbwState(RulesetState):
    """The turn in progress: ``segment`` 0 while declaring, then 1..3; records by character id."""

    segment: int = 0
    records: Mapping[str, TurnRecord] = field(default_factory=lambda: dict[str, TurnRecord]())
    #: PBW-5: characters who spent last turn disengaging, free to walk out of melee this turn
    free: tuple[str, ...] = ()
