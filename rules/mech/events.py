"""Mech events (templates ``event.<ClassName>`` in ``data/locales/*/mech.toml``), each citing its rule id.

DESIGN §7.1 fixes the fields tools read from ``sim --json``: ``InitiativeRolled`` carries ``unit`` and
``initiative`` (the total); ``WeaponFired`` ``unit``, ``weapon`` (1-based), ``target``, ``target_number``, ``roll``,
``total`` and ``hit``; ``DamageDealt`` ``unit`` (the unit damaged), ``by``, ``location`` and ``amount``;
``HeatChanged`` ``unit``, ``generated`` and ``heat``. Moves use the core ``UnitMoved`` (with the path, so boards
draw the trail), losses the core ``UnitDestroyed``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from rules.events import Event, Note
from rules.hexgrid import Hex
from rules.serial import serializable

Modifiers = tuple[tuple[str, int], ...]  # (reason code, value): JSON prints them as {"reason": value}


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class InitiativeRolled(Event):
    """MECH-1.1: 2d6 + Initiative + tactics; ``initiative`` is the total."""

    unit: str
    initiative: int
    roll: int
    attribute: int
    tactics: int


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class InitiativeTie(Note):
    """MECH-1.1: ``unit`` and ``other`` rolled the same ``total`` and ``unit`` counts as lower (it declares
    first): its Initiative attribute is lower (``key`` ``mech.tie.attribute``), or, the attributes being equal,
    it comes earlier in the scenario file (``mech.tie.file_order``). Both units are named, so a reader who cannot
    see one of them is not told of the tie."""

    other: str
    total: int


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class DeclarationOrder(Event):
    """MECH-1.1: this turn's declaration order, lowest initiative first (resolution of movement follows it)."""

    units: tuple[str, ...]


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class DeclarationLocked(Note):
    """MECH-1.1/1.2: a unit's declaration is locked. Open declarations (``key`` ``mech.declared``) carry its
    content in ``args`` (mode, path, facing, twist, fire, physical — the scenario file's form); secret ones
    (``mech.declared_secret``) carry nothing but the unit."""


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class DeclarationRolled(Event):
    """MECH-2.1a: the declaration's one Gunnery and one Piloting roll (2d6 + skill each), shown with the
    declaration: as it locks when declarations are open, at the reveal when they are secret. Every shot of it
    reads ``gunnery_total``; every physical attack, fall and accident check of the unit this turn
    ``piloting_total``."""

    unit: str
    gunnery_roll: int
    gunnery_total: int
    piloting_roll: int
    piloting_total: int
    gunnery: int = 0  # the skills added (attribute + skill, DICE-3)
    piloting: int = 0
    gunnery_dice: tuple[int, ...] = ()
    piloting_dice: tuple[int, ...] = ()


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class DeclarationsRevealed(Event):
    """MECH-1.1, secret declarations: every declaration of the turn, revealed together when the turn resolves."""

    units: tuple[str, ...]
    declarations: Mapping[str, Mapping[str, Any]] = field(
        default_factory=lambda: dict[str, Mapping[str, Any]]()
    )


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class MovementMade(Event):
    """MECH-1.2: how a unit moved: mode, hexes entered, MP spent of those it had; facing and torso after it."""

    unit: str
    mode: str
    hexes: int
    mp: int
    mp_available: int
    facing: str
    torso: str
    stood_up: bool = False


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class WeaponFired(Event):
    """MECH-2.1: one shot: 2d6 (``roll``) + gunnery = ``total`` against ``target_number`` (15 [HOUSE] +
    ``modifiers``). Double 1 always misses, double 6 always hits (DICE-3)."""

    unit: str
    weapon: int
    weapon_type: str
    target: str
    target_number: int
    roll: int
    total: int
    hit: bool
    distance: int
    result: str = ""  # "hit" | "miss" (for the account's words)
    modifiers: Modifiers = ()
    dice: tuple[int, ...] = ()


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class FireSpent(Event):
    """A declared weapon that did not fire: its target left the arc (MECH-1.3), the range or the line of
    sight (MECH-2.1) during movement, or the target was already gone."""

    unit: str
    weapon: int
    weapon_type: str
    target: str
    reason: str  # out_of_arc | out_of_range | no_sight | target_gone | weapon_lost


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class ClusterRolled(Event):
    """MECH-2.3: missiles that hit = max(1, n × 2d6 / 12), rounded to nearest (.5 up)."""

    unit: str
    weapon: int
    target: str
    missiles: int
    roll: int
    hits: int


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class PhysicalAttackMade(Event):
    """MECH-2.2: a physical attack: 2d6 + piloting against the target number; ``damage`` to the target."""

    unit: str
    kind: str
    limb: str
    target: str
    target_number: int
    roll: int
    total: int
    hit: bool
    damage: int
    result: str = ""  # "hit" | "miss"
    modifiers: Modifiers = ()
    dice: tuple[int, ...] = ()


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class PhysicalSpent(Event):
    """MECH-2.2: a declared physical attack that could not be made (the target moved away or is gone)."""

    unit: str
    kind: str
    target: str
    reason: str  # attacker_down | limb_lost | target_gone | out_of_reach


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class DamageDealt(Event):
    """MECH-2.3: ``amount`` damage at ``location`` of ``unit`` (the unit damaged) by ``by``: armour first, then
    structure. ``armor``/``structure``: what that location has left."""

    unit: str
    by: str
    location: str
    amount: int
    armor: int
    structure: int


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class DamageTransferred(Event):
    """MECH-2.3: damage beyond a destroyed location moves inward (arm or leg → side torso → centre torso)."""

    unit: str
    frm: str
    to: str
    amount: int
    armor: int
    structure: int


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class LocationDestroyed(Event):
    """MECH-2.3: a location's structure is gone (a side torso takes its arm; a leg leaves the mech immobile;
    head or centre torso destroy it)."""

    unit: str
    location: str
    with_location: str = ""  # the arm a destroyed side torso takes with it


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class PilotingRolled(Event):
    """[HOUSE] fall check: 2d6 + piloting against the fall difficulty; failing it, the mech falls."""

    unit: str
    reason: str  # leg | dfa
    target_number: int
    roll: int
    total: int
    fell: bool
    result: str = ""  # "fell" | "stayed_up"


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class Fell(Event):
    """[HOUSE] a mech falls: it is prone and takes its fall damage (tonnage / 10) at one location."""

    unit: str
    damage: int


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class Pushed(Event):
    """MECH-2.2: a push displaces the target one hex (no damage); ``to`` is None when the hex is not free."""

    unit: str
    by: str
    frm: Hex
    to: Hex | None


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class HeatChanged(Event):
    """MECH-3.1: end of turn, heat = heat + generated − heat sinks, minimum 0."""

    unit: str
    generated: int
    heat: int
    before: int
    sinks: int
    to_hit: int  # MECH-3.2 to-hit modifier now in force
    mp: int  # MECH-3.2 MP lost now


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class AvoidRolled(Event):
    """MECH-3.2: a shutdown or ammunition explosion avoid roll (2d6 ≥ ``needed`` avoids it)."""

    unit: str
    what: str  # shutdown | ammo
    level: int
    needed: int
    roll: int
    avoided: bool
    result: str = ""  # "avoided" | "not_avoided"


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class ShutdownChanged(Event):
    """MECH-3.2: a mech shuts down (``automatic`` at 30) or starts up again (no shutdown roll failed)."""

    unit: str
    shutdown: bool
    automatic: bool = False
    change: str = ""  # "shut_down" | "shut_down_automatic" | "started_up"


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class AmmoExploded(Event):
    """MECH-3.2 [HOUSE damage]: the ammunition of a weapon explodes."""

    unit: str
    location: str
    damage: int
