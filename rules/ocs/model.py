"""OCS data: the unit (OCS-1), the open combats and their stage (OCS-2..6), the ruleset's own state.

A combat moves through stages: the attacker picks its Action Rating unit, then the defender (OCS-2); ``ready``
rolls in the next resolution (OCS-5, OCS-6); then the choices the result leaves to the owners: the attacker's
losses beyond the first step, the defender's losses (and option steps), the defender's retreat hexes. A stage
nobody needs to answer (one legal choice, or nothing to choose) is passed over by the engine.
"""

from __future__ import annotations

from dataclasses import dataclass

from rules.hexgrid import Hex
from rules.serial import serializable
from rules.state import EncounterState, RulesetState, Unit

# OCS-1 modes
NORMAL = "normal"
DG = "dg"
STRATEGIC = "strategic"
MODES = (NORMAL, DG, STRATEGIC)

# attack types (OCS-5)
REGULAR = "regular"
OVERRUN = "overrun"
KINDS = (REGULAR, OVERRUN)

# the two roles in a combat
ATTACKER = "attacker"
DEFENDER = "defender"

# combat stages, in order
AR_ATTACKER = "ar_attacker"  # OCS-2: the attacker chooses its AR unit first
AR_DEFENDER = "ar_defender"  # OCS-2: then the defender
READY = "ready"  # both chosen: the next resolution rolls
ATTACKER_LOSSES = "attacker_losses"  # OCS-2/6: the attacker's steps beyond the first
DEFENDER_LOSSES = "defender_losses"  # OCS-2/6: the defender's steps beyond the first, plus option steps
RETREAT = "retreat"  # OCS-6: the defender's retreat hexes
STAGES = (AR_ATTACKER, AR_DEFENDER, READY, ATTACKER_LOSSES, DEFENDER_LOSSES, RETREAT)
#: the stages that wait for an answer, and the role that owes it
ASKS: dict[str, str] = {
    AR_ATTACKER: ATTACKER,
    AR_DEFENDER: DEFENDER,
    ATTACKER_LOSSES: ATTACKER,
    DEFENDER_LOSSES: DEFENDER,
    RETREAT: DEFENDER,
}


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class OcsUnit(Unit):
    """OCS-1: modified combat strength (as the director gives it), action rating, mode and steps left."""

    strength: float = 0.0
    ar: int = 0
    mode: str = NORMAL
    steps: int = 1

    @property
    def action_rating(self) -> int:
        """OCS-1: DG subtracts one from the AR, strategic mode makes it 0."""
        if self.mode == STRATEGIC:
            return 0
        if self.mode == DG:
            return self.ar - 1
        return self.ar

    @property
    def active(self) -> bool:
        return self.at is not None and not self.destroyed and self.steps > 0


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class CrtResult:
    """One CRT cell (OCS-6): step losses of each side, the defender's option hexes, exploitation."""

    text: str
    attacker_loss: int = 0
    defender_loss: int = 0
    option: int = 0
    exploit: bool = False


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class Combat:
    """An open combat. The defence is every unit in ``at`` (DESIGN §7.2); ``side`` is the attacking side."""

    id: int
    kind: str
    attackers: tuple[str, ...]
    at: Hex
    side: str
    ar_attacker: str | None = None
    ar_defender: str | None = None
    stage: str = AR_ATTACKER
    result: CrtResult | None = None
    retreat: int = 0  # hexes the defender retreats, once its option is settled (OCS-6)

    @property
    def asks(self) -> str | None:
        """The role whose answer the combat waits for (None when it waits for nobody)."""
        return ASKS.get(self.stage)


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class OcsState(RulesetState):
    """The open combats, in the order they were opened, and the next combat number."""

    combats: tuple[Combat, ...] = ()
    next_id: int = 1


def ext_of(state: EncounterState) -> OcsState:
    return state.ext if isinstance(state.ext, OcsState) else OcsState()


def ocs_units(state: EncounterState) -> list[OcsUnit]:
    """Every OCS unit, in file order."""
    return state.units_of(OcsUnit)


def units_in(state: EncounterState, h: Hex) -> list[OcsUnit]:
    """The units standing in ``h`` (not eliminated), in file order."""
    return [u for u in ocs_units(state) if u.active and u.at == h]


def find_combat(state: EncounterState, combat_id: int) -> Combat | None:
    return next((c for c in ext_of(state).combats if c.id == combat_id), None)


def combat_of(state: EncounterState, unit_id: str) -> Combat | None:
    """The open combat ``unit_id`` takes part in, as an attacker or standing in the defender hex."""
    unit = state.units.get(unit_id)
    for c in ext_of(state).combats:
        if unit_id in c.attackers or (unit is not None and unit.at == c.at and not unit.destroyed):
            return c
    return None


def attacking_units(state: EncounterState, combat: Combat) -> list[OcsUnit]:
    """The combat's attackers still in play."""
    out: list[OcsUnit] = []
    for uid in combat.attackers:
        u = state.units.get(uid)
        if isinstance(u, OcsUnit) and u.active:
            out.append(u)
    return out


def defending_units(state: EncounterState, combat: Combat) -> list[OcsUnit]:
    return units_in(state, combat.at)


def role_units(state: EncounterState, combat: Combat, role: str) -> list[OcsUnit]:
    return attacking_units(state, combat) if role == ATTACKER else defending_units(state, combat)


def with_combat(state: EncounterState, combat: Combat) -> EncounterState:
    """The state with ``combat`` replacing the open combat of the same number (or added)."""
    ext = ext_of(state)
    combats = tuple(combat if c.id == combat.id else c for c in ext.combats)
    if all(c.id != combat.id for c in ext.combats):
        combats = (*combats, combat)
    return state.replace(ext=OcsState(combats=combats, next_id=max(ext.next_id, combat.id + 1)))


def without_combat(state: EncounterState, combat_id: int) -> EncounterState:
    ext = ext_of(state)
    combats = tuple(c for c in ext.combats if c.id != combat_id)
    return state.replace(ext=OcsState(combats=combats, next_id=ext.next_id))
