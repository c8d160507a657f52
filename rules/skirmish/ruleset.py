"""The ``skirmish`` ruleset (Sombrachapas, RULES.md §2): vertex facing, chit-pull activation, live actions and
overwatch reactions."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from rules.by_hand import damage_events, positive_amount
from rules.dice import Dice
from rules.events import Event
from rules.hexgrid import Hex, Vertex
from rules.placement import impassable, occupied
from rules.registry import register, ruleset_for
from rules.ruleset import (
    DiceFactory,
    FacingKind,
    MoveIntent,
    Order,
    OrderMode,
    PhaseLabel,
    PhaseResult,
    PhaseSpec,
    RangeBand,
    RoundSpec,
    Ruleset,
    SimStep,
)
from rules.skirmish import arcs, resolution, scenario_io, sim
from rules.skirmish.activation import ACTIVATION, DRAW, ext_of, fresh_round, waiting_characters
from rules.skirmish.events import SkActivationEnded, SkApSpent
from rules.skirmish.geometry import FIRE, blocks_move, can_see, step_cost
from rules.skirmish.halfhex import occupants
from rules.skirmish.legality import action_cost
from rules.skirmish.model import (
    Character,
    SkForcedEnd,
    SkGrenade,
    SkirmishState,
    SkMelee,
    SkMove,
    SkReaction,
    SkShoot,
)
from rules.skirmish.orders import parse_action
from rules.skirmish.tables import tables
from rules.state import EncounterState, Marker, Unit, replace_unit

if TYPE_CHECKING:
    from rules.scenario import ScenarioContext


def marker_summary(marker: Marker) -> dict[str, Any]:
    return {
        "kind": marker.kind,
        "at": marker.at.label,
        "owner": marker.owner,
        "until_round": marker.expires_round,  # SK-6.2: the fire burns through this round (None: stays)
    }


def _marker_order(marker: Marker) -> tuple[str, int, int, str]:
    return marker.kind, marker.at.q, marker.at.r, marker.owner


@register
class SkirmishRuleset(Ruleset):
    id: ClassVar[str] = "skirmish"
    facing: ClassVar[FacingKind] = FacingKind.VERTEX
    order_mode: ClassVar[OrderMode] = OrderMode.ACTIVATION
    phases: ClassVar[tuple[PhaseSpec, ...]] = (PhaseSpec(DRAW), PhaseSpec(ACTIVATION, takes_orders=True))
    unit_keys: ClassVar[frozenset[str]] = scenario_io.UNIT_KEYS
    round_keys: ClassVar[frozenset[str]] = scenario_io.ROUND_KEYS
    option_keys: ClassVar[frozenset[str]] = scenario_io.OPTION_KEYS

    def phase_label(self, state: EncounterState, phase: str) -> PhaseLabel:
        """SK-1.1: the chit draw is phase 1, a character's activation phase 2; a ``sim`` step is labelled
        ``<chit>-<character id>``, the activation of that character."""
        if phase not in (DRAW, ACTIVATION):
            who = next((u for u in state.units if phase.endswith(f"-{u}")), None)
            if who is not None:
                return PhaseLabel(2, "phase.skirmish.activation_of", (("unit", who),))
        return super().phase_label(state, phase)

    # --- orders ------------------------------------------------------------------------------------------
    def parse_order(self, state: EncounterState, unit_id: str, raw: Any) -> Order:
        return parse_action(state, unit_id, raw)

    def validate_order(self, state: EncounterState, actor: str, order: Order) -> None:
        resolution.check_turn(state, actor, order)
        if not isinstance(order, SkReaction):
            action_cost(state, state.unit_as(actor, Character), order)

    def resolve(self, state: EncounterState, orders: Mapping[str, Order], dice: Dice) -> PhaseResult:
        """A chit draw (``draw`` phase, no orders), one action, or one answer to an overwatch question."""
        return resolution.resolve(state, orders, dice)

    def check_placement(self, state: EncounterState, unit: Unit, to: Hex) -> None:
        """SK-2.4: one character a hex (SK-2.5: a hex half held by characters astride counts as held), never on an
        obstacle or an obstruction; SK-6.2: nor into a fire, an obstruction while it burns."""
        super().check_placement(state, unit, to)
        kind = state.board.terrain_at(to)
        spec = tables().kind(kind)
        if kind is not None and spec is not None and spec.blocks_move:
            raise impassable(to, kind, "SK-2.4")
        if blocks_move(state, to):
            raise impassable(to, FIRE, "SK-6.2")
        others = occupants(state, to, besides=unit.id)
        if others:  # half held by one astride: a half hex, passed but never stood in (SK-2.5)
            raise occupied(to, others[0], "SK-2.5" if others[0].astride is not None else "SK-2.4")

    def place(self, state: EncounterState, unit: Unit, to: Hex, facing: int | None) -> Unit:
        """A character put down by hand stands in ``to`` whole (SK-2.5: not astride the hexes it left)."""
        placed = super().place(state, unit, to, facing)
        return (
            replace_unit(placed, astride=None) if isinstance(placed, Character) and placed.astride else placed
        )

    def damage_by_hand(
        self, state: EncounterState, unit_id: str, amount: str
    ) -> tuple[EncounterState, tuple[Event, ...]]:
        """Wounds by hand (SK-5): added to the character's wounds."""
        unit = state.unit(unit_id)
        if not isinstance(unit, Character):
            return super().damage_by_hand(state, unit_id, amount)
        wounds = positive_amount(amount)
        hit = replace_unit(unit, wounds=unit.wounds + wounds)
        return state.with_units([hit]), damage_events(unit, hit, wounds)

    def stand_in_order(self, state: EncounterState, unit_id: str) -> Any | None:
        """SK-1.1: an absent player's character ends its activation; a held question takes its default."""
        return super().stand_in_order(state, unit_id) or "end"

    def stand_in(self, state: EncounterState, unit_id: str) -> Order | None:
        """SK-1.1: the activation ends, told as forced (a held question takes its default answer)."""
        held = super().stand_in_order(state, unit_id)
        return self.parse_order(state, unit_id, held) if held is not None else SkForcedEnd(unit=unit_id)

    def awaiting(self, state: EncounterState) -> tuple[str, ...]:
        if state.pending is not None:
            return (state.pending.unit,)
        return waiting_characters(state)

    def turn_of_play(self, before: EncounterState, events: tuple[Event, ...]) -> str | None:
        """SK-1.1: a character's activation is one turn of play, whatever number of actions (and overwatch
        answers) it takes; a chit draw goes with the activation before it."""
        actor = next((e.unit for e in events if isinstance(e, SkApSpent | SkActivationEnded)), None)
        actor = actor or ext_of(before).active
        return f"{before.round}:{actor}" if actor else None

    # --- a layer's straying (NGT-5: per move action or path; the stray replaces it and spends its AP) -----
    def sees_hex(self, state: EncounterState, unit_id: str, target: Hex) -> bool:
        """SK-3.2: the front arc and a clear line (its own hex is always seen)."""
        ch = state.units.get(unit_id)
        if not isinstance(ch, Character) or ch.at is None:
            return False
        return target == ch.at or can_see(state, ch, target)

    # --- pictures (``/unit arcs``) -------------------------------------------------------------------------
    def firing_arcs(self, state: EncounterState, unit_id: str) -> Mapping[str, frozenset[Hex]]:
        """SK-3.2: the vertex arc out to the ranged maximum, seen or hidden by obstacles (rules/skirmish/arcs.py)."""
        ch = state.units.get(unit_id)
        if not isinstance(ch, Character) or not ch.acting:
            return {}
        return arcs.weapon_reach(state, ch, None)[0]

    def arc_weapons(self, state: EncounterState, unit_id: str) -> Mapping[str, str]:
        ch = state.units.get(unit_id)
        return arcs.attacks(ch) if isinstance(ch, Character) and ch.acting else {}

    def weapon_reach(
        self, state: EncounterState, unit_id: str, weapon: str | None
    ) -> tuple[Mapping[str, frozenset[Hex]], tuple[RangeBand, ...]]:
        """SK-3.1, SK-3.5, SK-5.1: the arc out to the attack's reach, and its bands."""
        ch = state.units.get(unit_id)
        if not isinstance(ch, Character) or not ch.acting:
            return {}, ()
        return arcs.weapon_reach(state, ch, weapon)

    def order_targets(self, state: EncounterState, order: Order) -> tuple[str, ...]:
        if isinstance(order, SkShoot | SkMelee) or (isinstance(order, SkGrenade) and order.target):
            return (order.target,)
        return ()

    def move_intent(self, state: EncounterState, order: Order) -> MoveIntent | None:
        if not isinstance(order, SkMove):
            return None
        ch = state.unit_as(order.unit, Character)
        # a path names its hexes beforehand, so a layer judges them one by one (NGT-5: before every hex entered);
        # a single step is judged from where the character stands, as a move action always was
        return MoveIntent(unit=ch.id, points=ch.ap_left, path=(*order.path, order.to) if order.path else ())

    def enter_cost(self, state: EncounterState, unit_id: str, frm: Hex, to: Hex) -> int | None:
        """SK-2.2/2.4: a forward step's AP; None off the board, into blocking terrain or an occupied hex."""
        if not state.board.contains(to) or blocks_move(state, to) or occupants(state, to, besides=unit_id):
            return None
        return step_cost(state, to, backward=False)

    def stray_move(
        self, state: EncounterState, unit_id: str, path: tuple[Hex, ...], spent: int
    ) -> tuple[EncounterState, tuple[Event, ...]]:
        """The stray is the character's move action: its AP are paid (SK-1.2) and the activation goes on."""
        ch = state.unit_as(unit_id, Character)
        state, moved = super().stray_move(state, unit_id, path, spent)
        ch = replace_unit(
            state.unit_as(unit_id, Character), ap_left=ch.ap_left - spent, turn_from=None, turn_paid=0
        )
        ext = ext_of(state)
        ext = SkirmishState(bag=ext.bag, draw_plan=ext.draw_plan, chit=ext.chit, active=ch.id, done=ext.done)
        paid = SkApSpent(rule="SK-1.2", unit=ch.id, action="move", cost=spent, ap_left=ch.ap_left)
        return state.with_units([ch]).replace(ext=ext), (paid, *moved)

    # --- scenario files ----------------------------------------------------------------------------------
    def build_unit(
        self, raw: Mapping[str, Any], common: Unit, path: str, ctx: ScenarioContext
    ) -> Unit | None:
        return scenario_io.build_character(raw, common, path, ctx)

    def check_state(self, state: EncounterState, ctx: ScenarioContext) -> None:
        scenario_io.check_characters(state, ctx)

    def check_round(self, spec: RoundSpec, state: EncounterState, path: str, ctx: ScenarioContext) -> None:
        scenario_io.check_round(spec, state, path, ctx)

    def setup(self, state: EncounterState) -> EncounterState:
        return fresh_round(state)

    def simulate_round(
        self, state: EncounterState, spec: RoundSpec, dice_for: DiceFactory
    ) -> Iterator[SimStep]:
        return sim.simulate(ruleset_for(state), state, spec, dice_for)

    def unit_summary(self, unit: Unit) -> dict[str, Any]:
        if not isinstance(unit, Character):
            return super().unit_summary(unit)
        return {
            "at": unit.at.label if unit.at else None,
            "facing": Vertex(unit.facing % 6).label,
            "ap_left": unit.ap_left,
            "wounds": unit.wounds,
            "alive": unit.alive,
            "astride": unit.astride.label if unit.astride else None,  # SK-2.5
            "overwatch": unit.overwatch,  # SK-4.1 policy (ask, always, never) or None
            "overwatch_shots_left": unit.overwatch_shots_left if unit.overwatch else 0,
        }

    def board_summary(self, state: EncounterState) -> dict[str, Any]:
        """What ``sim --json`` adds to each ``phase_end`` besides the units: the fire (SK-6.2) and equipment
        (SK-3.4) markers on the board."""
        return {"markers": [marker_summary(m) for m in sorted(state.markers, key=_marker_order)]}
