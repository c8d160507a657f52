"""What the mech ruleset keeps between steps of a turn (``EncounterState.ext``).

A turn is three phases (``state.phase``): ``initiative`` (automatic: every unit rolls, MECH-1.1), ``declare``
(one unit at a time, lowest initiative first; each declaration is locked here) and ``resolve`` (automatic:
movement, fire, physical attacks, heat, MECH-4).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from rules.mech.orders import MechOrder
from rules.serial import serializable
from rules.state import EncounterState, RulesetState

INITIATIVE, DECLARE, RESOLVE = "initiative", "declare", "resolve"
SECRET_DECLARATIONS = "secret_declarations"  # the [options] key (MECH-1.1), as rules/order_modes.py names it


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
