"""The ``pbw`` ruleset (RULES.md §3.2, PBW-1..5): characters at 1 hex = 1 m, 3-second turns of three segments,
declarations in the open from the lowest Initiative, resolution segment by segment from the highest."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from rules.dice import Dice
from rules.errors import InvalidOrderError
from rules.events import Event
from rules.hexgrid import Hex, HexSide
from rules.pbw import by_hand, scenario_io, sim, turn
from rules.pbw.geometry import blocks_move, clear_line, enterable, hexes_used, occupant, step_limit
from rules.pbw.legality import check_change, check_declaration, illegal
from rules.pbw.model import (
    DEFEND_ACTION,
    MOVE,
    SEGMENTS,
    Change,
    Character,
    Declaration,
    ForcedDeclaration,
    PbwState,
)
from rules.pbw.orders import parse_order
from rules.pbw.tables import LOCATIONS
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
    RoundSpec,
    Ruleset,
    SimStep,
)
from rules.state import EncounterState, Unit

if TYPE_CHECKING:
    from rules.scenario import ScenarioContext


@register
class PbwRuleset(Ruleset):
    id: ClassVar[str] = "pbw"
    facing: ClassVar[FacingKind] = FacingKind.SIDE
    order_mode: ClassVar[OrderMode] = OrderMode.SEQUENTIAL_OPEN
    phases: ClassVar[tuple[PhaseSpec, ...]] = tuple(PhaseSpec(p, takes_orders=True) for p in turn.PHASES)
    unit_keys: ClassVar[frozenset[str]] = scenario_io.UNIT_KEYS

    # --- orders ------------------------------------------------------------------------------------------
    def parse_order(self, state: EncounterState, unit_id: str, raw: Any) -> Order:
        return parse_order(state, unit_id, raw)

    def validate_order(self, state: EncounterState, actor: str, order: Order) -> None:
        ch = state.unit_as(actor, Character)
        if order.unit != actor:
            raise illegal(ch, "not_yours", "PBW-1", f"cannot give orders for {order.unit}", other=order.unit)
        if state.over:
            raise illegal(ch, "over", "PBW-1", "the encounter is over")
        if isinstance(order, Declaration):
            if state.phase != turn.DECLARE or turn.next_declarer(state) != actor:
                raise illegal(ch, "not_your_turn", "PBW-1", "it is not this character's turn to declare")
            check_declaration(state, ch, order)
        elif isinstance(order, Change):
            check_change(state, ch, order)
        else:
            raise InvalidOrderError(f"{ch.name}: not a pbw order", code="pbw.syntax", params={"unit": actor})

    def resolve(self, state: EncounterState, orders: Mapping[str, Order], dice: Dice) -> PhaseResult:
        """A declaration (phase ``declare``) or one segment with the changes of intention given before it."""
        return turn.resolve(state, orders, dice)

    def awaiting(self, state: EncounterState) -> tuple[str, ...]:
        return turn.awaiting(state)

    def phase_label(self, state: EncounterState, phase: str) -> PhaseLabel:
        """PBW-1: a turn is a declaration and three 1-second segments, named as such and never numbered as
        phases (segment 2 is not "phase 3"); a ``sim`` step ``declare-<id>`` is that character's declaration."""
        prefix = f"{turn.DECLARE}-"
        if phase.startswith(prefix) and phase[len(prefix) :] in state.units:
            return PhaseLabel(None, "phase.pbw.declare_of", (("unit", phase[len(prefix) :]),))
        return PhaseLabel(None, super().phase_label(state, phase).key)

    def step_mode(self, state: EncounterState) -> OrderMode:
        """PBW-1: declarations one at a time, each posted when locked; PBW-2: before a segment every character
        that may change its intention answers at once (keep or change), and the changes show when it resolves."""
        return OrderMode.SEQUENTIAL_OPEN if state.phase == turn.DECLARE else OrderMode.SIMULTANEOUS

    def turn_of_play(self, before: EncounterState, events: tuple[Event, ...]) -> str | None:
        """PBW-1: a turn (its declarations and its three segments) is one turn of play."""
        return str(before.round)

    def optional_orders(self, state: EncounterState) -> bool:
        """Before a segment the question is whether to change an intention: no answer keeps it (PBW-2)."""
        return state.phase != turn.DECLARE and not state.over

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
        return state.replace(phase=turn.DECLARE, ext=PbwState())

    # --- what a layer asks (night: targets it must see, NGT-2; straying at a declaration with moves, NGT-5) ----
    def order_targets(self, state: EncounterState, order: Order) -> tuple[str, ...]:
        actions = (
            order.segments
            if isinstance(order, Declaration)
            else (order.action,)
            if isinstance(order, Change) and order.action is not None
            else ()
        )
        return tuple(dict.fromkeys(a.target for a in actions if a.target))

    def move_intent(self, state: EncounterState, order: Order) -> MoveIntent | None:
        """A declaration with move segments; a stray takes them over (each becomes a defend)."""
        if not isinstance(order, Declaration) or state.phase != turn.DECLARE:
            return None
        moves = [s for s in order.segments if s.action == MOVE and s.path]
        if not moves:
            return None
        ch = state.unit_as(order.unit, Character)
        rest = Declaration(
            unit=order.unit,
            segments=tuple(DEFEND_ACTION if s.action == MOVE else s for s in order.segments),
            disengage=order.disengage,
        )
        path = tuple(h for s in moves for h in s.path)
        return MoveIntent(unit=ch.id, points=step_limit(ch) * len(moves), rest=rest, path=path)

    def check_placement(self, state: EncounterState, unit: Unit, to: Hex) -> None:
        """PBW-2: a character never stands in a wall nor in a hex another living character holds."""
        super().check_placement(state, unit, to)
        kind = state.board.terrain_at(to)
        if kind is not None and blocks_move(state, to):
            raise impassable(to, kind, "PBW-2")
        other = occupant(state, to, besides=unit.id)
        if other is not None:
            raise occupied(to, other, "PBW-2")

    def stand_in(self, state: EncounterState, unit_id: str) -> Order | None:
        """PBW-1: the declarer whose player gave none skips its three segments, told as forced."""
        if state.phase == turn.DECLARE and turn.next_declarer(state) == unit_id:
            return ForcedDeclaration(unit=unit_id, segments=(DEFEND_ACTION,) * SEGMENTS)
        return super().stand_in(state, unit_id)

    def damage_locations(self, state: EncounterState, unit_id: str) -> tuple[str, ...]:
        unit = state.units.get(unit_id)
        return by_hand.damage_locations(unit) if isinstance(unit, Character) else ()

    def damage_by_hand(
        self, state: EncounterState, unit_id: str, amount: str
    ) -> tuple[EncounterState, tuple[Event, ...]]:
        """PBW-4 by hand: ``"torso 3"`` off the hit points and that location's resistance, as a hit."""
        unit = state.units.get(unit_id)
        if not isinstance(unit, Character):
            return super().damage_by_hand(state, unit_id, amount)
        return by_hand.by_hand_damage(state, unit, amount)

    def enter_cost(self, state: EncounterState, unit_id: str, frm: Hex, to: Hex) -> int | None:
        ch = state.unit_as(unit_id, Character)
        return hexes_used(state, (to,)) if state.board.contains(to) and enterable(state, ch, to) else None

    def sees_hex(self, state: EncounterState, unit_id: str, target: Hex) -> bool:
        """The walls block sight (PBW terrain)."""
        unit = state.units.get(unit_id)
        return (
            unit is not None
            and unit.at is not None
            and (unit.at == target or clear_line(state, unit.at, target))
        )

    def simulate_round(
        self, state: EncounterState, spec: RoundSpec, dice_for: DiceFactory
    ) -> Iterator[SimStep]:
        return sim.simulate(ruleset_for(state), state, spec, dice_for)

    def unit_summary(self, unit: Unit) -> dict[str, Any]:
        """DESIGN §7.4: ``at``, ``facing``, ``hp``, ``resistance`` by location, ``fatigue``, ``state``."""
        if not isinstance(unit, Character):
            return super().unit_summary(unit)
        return {
            "at": unit.at.label if unit.at else None,
            "facing": HexSide(unit.facing % 6).name,
            "hp": unit.hp,
            "resistance": {loc: unit.resistance.get(loc, 0) for loc in LOCATIONS},
            "fatigue": unit.fatigue,
            "state": unit.condition,
        }
