"""The ``ocs`` ruleset (RULES.md §4): the OCS combat procedure, driven by the director.

There are no rounds of orders: the director opens combats and moves units (``{"combat": ...}``,
``{"move": ...}``); each open combat asks the side that owes an answer (its AR unit, then its losses and
retreats), one unit of that side at a time through :meth:`OcsRuleset.awaiting`; a combat whose AR units are both
named rolls in the next resolution, which :meth:`OcsRuleset.auto_resolves` announces. See :mod:`rules.ocs.orders`
for the order shapes and :mod:`rules.ocs.queries` for what a panel may offer.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from rules.by_hand import RULE, positive_amount
from rules.dice import Dice
from rules.errors import IllegalOrderError
from rules.events import DirectorOverride, Event, UnitDestroyed
from rules.hexgrid import Hex
from rules.ocs import resolution, scenario_io, sim
from rules.ocs.events import (
    OcsActionRatings,
    OcsArChosen,
    OcsColumn,
    OcsCombatCancelled,
    OcsCombatEnded,
    OcsCombatOpened,
    OcsCombatRoll,
    OcsOdds,
    OcsOptionSettled,
    OcsStepLost,
    OcsSurprise,
)
from rules.ocs.legality import PLAYERS_OPEN_COMBATS, check_order
from rules.ocs.model import OcsState, OcsUnit, combat_of, units_in
from rules.ocs.orders import parse
from rules.placement import occupied
from rules.registry import register, ruleset_for
from rules.ruleset import (
    DiceFactory,
    FacingKind,
    Order,
    OrderMode,
    PhaseLabel,
    PhaseResult,
    PhaseSpec,
    RoundSpec,
    Ruleset,
    SimStep,
)
from rules.state import Board, EncounterState, Unit, replace_unit

if TYPE_CHECKING:
    from rules.scenario import ScenarioContext

PHASE = "combat"
#: the events of one combat's procedure (OCS-2..OCS-6), each naming its combat
COMBAT_EVENTS = (
    OcsCombatOpened,
    OcsArChosen,
    OcsActionRatings,
    OcsOdds,
    OcsColumn,
    OcsSurprise,
    OcsCombatRoll,
    OcsStepLost,
    OcsOptionSettled,
    OcsCombatEnded,
    OcsCombatCancelled,
)


@register
class OcsRuleset(Ruleset):
    id: ClassVar[str] = "ocs"
    facing: ClassVar[FacingKind] = FacingKind.SIDE
    order_mode: ClassVar[OrderMode] = OrderMode.DIRECTOR
    phases: ClassVar[tuple[PhaseSpec, ...]] = (PhaseSpec(PHASE, takes_orders=True),)
    unit_keys: ClassVar[frozenset[str]] = scenario_io.UNIT_KEYS
    board_keys: ClassVar[frozenset[str]] = scenario_io.BOARD_KEYS
    option_keys: ClassVar[frozenset[str]] = frozenset({PLAYERS_OPEN_COMBATS})

    # --- orders ------------------------------------------------------------------------------------------
    def parse_order(self, state: EncounterState, unit_id: str, raw: Any) -> Order:
        return parse(state, unit_id, raw)

    def validate_order(self, state: EncounterState, actor: str, order: Order) -> None:
        check_order(state, actor, order)

    def phase_label(self, state: EncounterState, phase: str) -> PhaseLabel:
        """A ``sim`` step is one part of the procedure: ``combat-<n>`` (one combat, OCS-2 to OCS-6), ``move`` (free
        moves) or ``mode`` (mode changes, OCS-1); the encounter's single phase is the combats."""
        head, _, number = phase.partition("-")
        if head == PHASE and number.isdigit():
            return PhaseLabel(None, "phase.ocs.combat_n", (("n", number),))
        if phase in ("move", "mode"):
            return PhaseLabel(None, f"phase.ocs.{phase}")
        return super().phase_label(state, phase)

    def resolve(self, state: EncounterState, orders: Mapping[str, Order], dice: Dice) -> PhaseResult:
        return resolution.resolve(state, orders, dice)

    def awaiting(self, state: EncounterState) -> tuple[str, ...]:
        return resolution.awaiting(state)

    def turn_of_play(self, before: EncounterState, events: tuple[Event, ...]) -> str | None:
        """OCS-2..OCS-7: a combat, from its opening through its Action Ratings, its roll and its losses and
        retreats, is one turn of play. A step that touches two combats goes with the one it carried furthest (a
        resolution rolls after its answers, and answers after its openings: the last combat named); a step of
        no combat (free moves, mode changes, the end of the combat phase) is a post of its own."""
        combats = [e.combat for e in events if isinstance(e, COMBAT_EVENTS)]
        return f"combat:{combats[-1]}" if combats else ""

    def director_switches(self) -> tuple[str, ...]:
        """OCS-2: the director may let a side's player open a combat with its own unit (``/director option``)."""
        return (PLAYERS_OPEN_COMBATS,)

    def may_act(self, state: EncounterState, unit_id: str) -> bool:
        """OCS-1: a unit's owner may move it freely or change its mode (and open a combat with it, when the
        director allows players to) whenever it takes part in no open combat."""
        unit = state.units.get(unit_id)
        return (
            not state.over and isinstance(unit, OcsUnit) and unit.active and combat_of(state, unit_id) is None
        )

    def idle(self, state: EncounterState, orders: Mapping[str, Order]) -> bool:
        """OCS-2..OCS-6: with no order given, a resolution of the procedure only rolls the combats ready to roll
        and calls off those that can no longer be fought; with neither, it would be an empty step."""
        return not orders and resolution.nothing_due(state)

    def auto_resolves(self, state: EncounterState) -> bool:
        """True only when a resolution is due without anyone's answer (a combat ready to roll); an idle
        encounter waits for the director."""
        return resolution.auto_resolves(state)

    # --- the director's hand -----------------------------------------------------------------------------
    def check_placement(self, state: EncounterState, unit: Unit, to: Hex) -> None:
        """OCS-1: a side's units stack freely, but never in a hex that holds the other side's units."""
        super().check_placement(state, unit, to)
        enemy = next((u for u in units_in(state, to) if u.side != unit.side and u.id != unit.id), None)
        if enemy is not None:
            raise occupied(to, enemy, "OCS-1")

    def damage_by_hand(
        self, state: EncounterState, unit_id: str, amount: str
    ) -> tuple[EncounterState, tuple[Event, ...]]:
        """OCS-1 by hand: a unit loses steps (at 0 it is eliminated, as a combat's last step loss does)."""
        unit = state.units.get(unit_id)
        if not isinstance(unit, OcsUnit):
            return super().damage_by_hand(state, unit_id, amount)
        lost = positive_amount(amount)
        if not unit.active or lost > unit.steps:
            raise IllegalOrderError(
                f"{unit.name} has {unit.steps if unit.active else 0} steps left, not {lost} to lose.",
                code="director.damage_steps",
                rule="OCS-1",
                params={"unit": unit.id, "name": unit.name, "steps": unit.steps if unit.active else 0},
            )
        left = unit.steps - lost
        hit = replace_unit(unit, steps=left, destroyed=left == 0)
        events: list[Event] = [
            DirectorOverride(rule=RULE, action="damage-steps", unit=unit.id, args=(("amount", lost),))
        ]
        if left == 0:
            events.append(UnitDestroyed(rule=RULE, unit=unit.id, at=unit.at))
        return state.with_units([hit]), tuple(events)

    # --- scenario files ----------------------------------------------------------------------------------
    def build_unit(
        self, raw: Mapping[str, Any], common: Unit, path: str, ctx: ScenarioContext
    ) -> Unit | None:
        return scenario_io.build_unit(raw, common, path, ctx)

    def read_board(self, raw: Mapping[str, Any], board: Board, ctx: ScenarioContext) -> Board:
        return scenario_io.read_board(raw, board, ctx)

    def check_state(self, state: EncounterState, ctx: ScenarioContext) -> None:
        scenario_io.check_state(state, ctx)

    def check_round(self, spec: RoundSpec, state: EncounterState, path: str, ctx: ScenarioContext) -> None:
        scenario_io.check_round(spec, state, path, ctx)

    def setup(self, state: EncounterState) -> EncounterState:
        return state.replace(phase=PHASE, ext=OcsState())

    def simulate_round(
        self, state: EncounterState, spec: RoundSpec, dice_for: DiceFactory
    ) -> Iterator[SimStep]:
        return sim.simulate(ruleset_for(state), state, spec, dice_for)

    def unit_summary(self, unit: Unit) -> dict[str, Any]:
        """DESIGN §7.2: ``at``, ``steps``, ``mode``, ``destroyed``."""
        if not isinstance(unit, OcsUnit):
            return super().unit_summary(unit)
        return {
            "at": unit.at.label if unit.at else None,
            "steps": unit.steps,
            "mode": unit.mode,
            "destroyed": unit.destroyed,
        }
