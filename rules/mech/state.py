"""What the mech ruleset keeps between steps of a turn (``EncounterState.ext``).

A turn is three phases (``state.phase``): ``initiative`` (automatic: every unit rolls, MECH-1.1), ``declare``
(one unit at a time, lowest initiative first; each declaration is locked here with its MECH-2.1a rolls) and
``resolve`` (automatic: movement, fire, physical attacks, heat, MECH-4).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from rules.mech.orders import MechOrder
from rules.serial import serializable
from rules.state import EncounterState, RulesetState

INITIATIVE, DECLARE, RESOLVE = "initiative", "declare", "resolve"
SECRET_DECLARATIONS = "secret_declarations"  # the [options] key (MECH-1.1), as rules/order_modes.py names it
#: the scenario's top-level ``rolls`` key (DESIGN §7.1) and its two values (MECH-2.1a)
ROLLS, BY_DECLARATION, BY_WEAPON = "rolls", "declaration", "weapon"
#: the encounter option ``rolls = "weapon"`` sets, and the switch ``/director option`` turns (MECH-2.1a [HOUSE])
ROLLS_PER_WEAPON = "rolls_per_weapon"


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class DeclarationRolls:
    """MECH-2.1a: the one Gunnery 2d6 and the one Piloting 2d6 a declaration carries, rolled as it locks (the
    dice only: the totals add the unit's skills, which a turn does not change)."""

    gunnery: tuple[int, ...]
    piloting: tuple[int, ...]


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class MechState(RulesetState):
    """``order``: this turn's declaration order, lowest initiative first (MECH-1.1). ``locked``: the
    declarations made so far, in that order. ``initiative``: each unit's total this turn."""

    initiative: Mapping[str, int] = field(default_factory=lambda: dict[str, int]())
    order: tuple[str, ...] = ()
    locked: tuple[MechOrder, ...] = ()
    #: whether this turn's declarations are secret, fixed when its initiative is rolled (None: not rolled yet)
    secret: bool | None = None
    #: whether this turn rolls per shot ([HOUSE] ``rolls = "weapon"``), fixed with its initiative like ``secret``
    per_weapon: bool | None = None
    #: MECH-2.1a: each locked declaration's two rolls, by unit (none in the per-shot variant)
    rolls: Mapping[str, DeclarationRolls] = field(default_factory=lambda: dict[str, DeclarationRolls]())

    def declaration(self, unit_id: str) -> MechOrder | None:
        for order in self.locked:
            if order.unit == unit_id:
                return order
        return None

    @property
    def declared(self) -> frozenset[str]:
        return frozenset(o.unit for o in self.locked)


def ext_of(state: EncounterState) -> MechState:
    return state.ext if isinstance(state.ext, MechState) else MechState()


def secret(state: EncounterState) -> bool:
    """MECH-1.1: the director may switch an encounter to secret declarations (all revealed together). A switch
    takes effect from the next turn's initiative: a turn half declared in secret never turns open (that would
    show the later declarers where the earlier ones go), nor the other way round."""
    turn = ext_of(state).secret
    return bool(state.option(SECRET_DECLARATIONS, False)) if turn is None else turn


def per_weapon(state: EncounterState) -> bool:
    """MECH-2.1a [HOUSE] ``rolls = "weapon"``: every shot and physical attack rolls its own 2d6. Like secret
    declarations, a director's switch takes effect from the next turn's initiative, so a turn is never half
    rolled one way and half the other."""
    turn = ext_of(state).per_weapon
    return bool(state.option(ROLLS_PER_WEAPON, False)) if turn is None else turn
