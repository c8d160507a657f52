"""Layers: rules that change any ground ruleset (``night``), composed by wrapping it (rules/registry.py).

A layer never branches inside a base ruleset. :class:`LayeredRuleset` is a ruleset whose every call goes to the
base, with the layer's hooks around it: extra scenario keys, what a side sees, and steps before and after a
resolution (wind and flare drift before, markers cleared after). A hook that has nothing to do returns what it
was given, so an empty layer plays exactly like the base ruleset (the contract test checks this).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from rules.dice import Dice
from rules.events import Event
from rules.hexgrid import Hex
from rules.ruleset import (
    DiceFactory,
    MoveIntent,
    MoveSurcharge,
    Order,
    OrderMode,
    PhaseLabel,
    PhaseResult,
    RangeBand,
    RoundSpec,
    Ruleset,
    Ruling,
    SimStep,
    Visibility,
)
from rules.state import Board, EncounterState, Unit

if TYPE_CHECKING:
    from rules.scenario import ScenarioContext


class Layer:
    """Base of a layer; override the hooks it needs."""

    id: ClassVar[str]
    #: extra keys a ``[[units]]`` table, the ``[board]`` table, a ``[[rounds]]`` entry and the top level may carry
    unit_keys: ClassVar[frozenset[str]] = frozenset()
    board_keys: ClassVar[frozenset[str]] = frozenset()
    round_keys: ClassVar[frozenset[str]] = frozenset()
    top_keys: ClassVar[frozenset[str]] = frozenset()

    def wrap(self, base: Ruleset) -> Ruleset:
        return LayeredRuleset(base, self)

    # --- scenario files ----------------------------------------------------------------------------------
    # A layer keeps its own data in ``state.layer_state[layer.id]``: its ``read_top`` reads its top-level table
    # and its unit keys (``raw["units"][i][key]``, which the base ruleset never sees) into it.
    def read_board(self, raw: Mapping[str, Any], board: Board, ctx: ScenarioContext) -> Board:
        return board

    def read_top(self, raw: Mapping[str, Any], state: EncounterState, ctx: ScenarioContext) -> EncounterState:
        """The layer's top-level tables (``[night]``) into the state."""
        return state

    def check_round(self, spec: RoundSpec, state: EncounterState, path: str, ctx: ScenarioContext) -> None:
        """Static checks of the layer's own keys in a ``[[rounds]]`` entry: everything :meth:`start_round` will
        read, read the same way, so a file ``validate`` passes never fails there."""

    # --- play ----------------------------------------------------------------------------------------------
    def validate_order(self, base: Ruleset, state: EncounterState, actor: str, order: Order) -> None:
        """The layer's own checks (night: only targets the side can see), then the base's."""
        base.validate_order(state, actor, order)

    def resolve(
        self, base: Ruleset, state: EncounterState, orders: Mapping[str, Order], dice: Dice
    ) -> PhaseResult:
        """One resolution through the layer: its steps before, the base's resolution, its steps after. A layer
        that changes orders (night straying) overrides this."""
        before = state
        state, first = self.before_resolve(state, dice)
        result = base.resolve(state, orders, dice)
        result = PhaseResult(result.state, (*first, *result.events), result.pending)
        return self.after_resolve(before, result, dice)

    def start_round(self, state: EncounterState, spec: RoundSpec) -> EncounterState:
        """``hexdirector sim``: a ``[[rounds]]`` entry is about to be played (the layer reads its own keys)."""
        return state

    def rulings(self, base: Mapping[str, Ruling]) -> Mapping[str, Ruling]:
        """The director's rulings with the layer's own added (night: flare, illuminate, nvr)."""
        return base

    def private_views(self, state: EncounterState, base: tuple[str, ...]) -> tuple[str, ...]:
        return base

    def before_resolve(self, state: EncounterState, dice: Dice) -> tuple[EncounterState, tuple[Event, ...]]:
        return state, ()

    def after_resolve(self, before: EncounterState, result: PhaseResult, dice: Dice) -> PhaseResult:
        return result

    def visible_to(self, state: EncounterState, side: str, base: Visibility) -> Visibility:
        return base

    def check_placement(self, base: Ruleset, state: EncounterState, unit: Unit, to: Hex) -> None:
        """The director's hand (``/director move``, ``add-unit``): the layer's own limits on where a unit may be
        put, then the base's."""
        base.check_placement(state, unit, to)

    def move_surcharge(self, state: EncounterState, base: MoveSurcharge) -> MoveSurcharge:
        """Movement costs the layer adds on top of ``base`` (night: NGT-5.1)."""
        return base

    def unit_summary(self, unit: Unit, summary: dict[str, Any]) -> dict[str, Any]:
        return summary

    def board_summary(self, state: EncounterState, summary: dict[str, Any]) -> dict[str, Any]:
        return summary


class LayeredRuleset(Ruleset):
    """A base ruleset seen through one layer. Class attributes are copied per instance from the base."""

    def __init__(self, base: Ruleset, layer: Layer) -> None:
        self.base = base
        self.layer = layer
        # instance attributes shadow the ClassVars, so callers read the base's values (plus the layer's keys)
        self.id = base.id  # type: ignore[misc]
        self.facing = base.facing  # type: ignore[misc]
        self.order_mode = base.order_mode  # type: ignore[misc]
        self.phases = base.phases  # type: ignore[misc]
        self.unit_keys = base.unit_keys | layer.unit_keys  # type: ignore[misc]
        self.board_keys = base.board_keys | layer.board_keys  # type: ignore[misc]
        self.round_keys = base.round_keys | layer.round_keys  # type: ignore[misc]
        self.top_keys = base.top_keys | layer.top_keys  # type: ignore[misc]
        self.option_keys = base.option_keys  # type: ignore[misc]
        self.fixed_stats = base.fixed_stats  # type: ignore[misc]
        self.unbounded_by_default = base.unbounded_by_default  # type: ignore[misc]

    @property
    def layers(self) -> tuple[str, ...]:
        return (*self.base.layers, self.layer.id)

    def innermost(self) -> Ruleset:
        return self.base.innermost()

    # --- orders --------------------------------------------------------------------------------------------
    def parse_order(self, state: EncounterState, unit_id: str, raw: Any) -> Order:
        return self.base.parse_order(state, unit_id, raw)

    def validate_order(self, state: EncounterState, actor: str, order: Order) -> None:
        self.layer.validate_order(self.base, state, actor, order)

    def order_targets(self, state: EncounterState, order: Order) -> tuple[str, ...]:
        return self.base.order_targets(state, order)

    def sees_hex(self, state: EncounterState, unit_id: str, target: Hex) -> bool:
        return self.base.sees_hex(state, unit_id, target)

    def resolve(self, state: EncounterState, orders: Mapping[str, Order], dice: Dice) -> PhaseResult:
        return self.layer.resolve(self.base, state, orders, dice)

    def awaiting(self, state: EncounterState) -> tuple[str, ...]:
        return self.base.awaiting(state)

    def optional_orders(self, state: EncounterState) -> bool:
        return self.base.optional_orders(state)

    def step_mode(self, state: EncounterState) -> OrderMode:
        return self.base.step_mode(state)

    def turn_of_play(self, before: EncounterState, events: tuple[Event, ...]) -> str | None:
        return self.base.turn_of_play(before, events)

    def auto_resolves(self, state: EncounterState) -> bool:
        return self.base.auto_resolves(state)

    def idle(self, state: EncounterState, orders: Mapping[str, Order]) -> bool:
        return self.base.idle(state, orders)

    def may_act(self, state: EncounterState, unit_id: str) -> bool:
        return self.base.may_act(state, unit_id)

    def stand_in_order(self, state: EncounterState, unit_id: str) -> Any | None:
        return self.base.stand_in_order(state, unit_id)

    def stand_in(self, state: EncounterState, unit_id: str) -> Order | None:
        return self.base.stand_in(state, unit_id)

    def visible_to(self, state: EncounterState, side: str) -> Visibility:
        return self.layer.visible_to(state, side, self.base.visible_to(state, side))

    # --- the director's hand, pictures -------------------------------------------------------------------
    def check_placement(self, state: EncounterState, unit: Unit, to: Hex) -> None:
        self.layer.check_placement(self.base, state, unit, to)

    def place(self, state: EncounterState, unit: Unit, to: Hex, facing: int | None) -> Unit:
        return self.base.place(state, unit, to, facing)

    def damage_by_hand(
        self, state: EncounterState, unit_id: str, amount: str
    ) -> tuple[EncounterState, tuple[Event, ...]]:
        return self.base.damage_by_hand(state, unit_id, amount)

    def rulings(self) -> Mapping[str, Ruling]:
        return self.layer.rulings(self.base.rulings())

    def attackers(self, events: tuple[Event, ...]) -> frozenset[str]:
        return self.base.attackers(events)

    def move_intent(self, state: EncounterState, order: Order) -> MoveIntent | None:
        return self.base.move_intent(state, order)

    def move_surcharge(self, state: EncounterState) -> MoveSurcharge:
        return self.layer.move_surcharge(state, self.base.move_surcharge(state))

    def enter_cost(self, state: EncounterState, unit_id: str, frm: Hex, to: Hex) -> int | None:
        return self.base.enter_cost(state, unit_id, frm, to)

    def stray_move(
        self, state: EncounterState, unit_id: str, path: tuple[Hex, ...], spent: int
    ) -> tuple[EncounterState, tuple[Event, ...]]:
        return self.base.stray_move(state, unit_id, path, spent)

    def private_views(self, state: EncounterState) -> tuple[str, ...]:
        return self.layer.private_views(state, self.base.private_views(state))

    def public_event(self, event: Event, seen: frozenset[str], known: frozenset[str]) -> Event | None:
        return self.base.public_event(event, seen, known)

    def damage_locations(self, state: EncounterState, unit_id: str) -> tuple[str, ...]:
        return self.base.damage_locations(state, unit_id)

    def director_switches(self) -> tuple[str, ...]:
        return self.base.director_switches()

    def firing_arcs(self, state: EncounterState, unit_id: str) -> Mapping[str, frozenset[Hex]]:
        return self.base.firing_arcs(state, unit_id)

    def arc_weapons(self, state: EncounterState, unit_id: str) -> Mapping[str, str]:
        return self.base.arc_weapons(state, unit_id)

    def arc_weapon(self, state: EncounterState, unit_id: str, typed: str) -> str | None:
        return self.base.arc_weapon(state, unit_id, typed)

    def weapon_reach(
        self, state: EncounterState, unit_id: str, weapon: str | None
    ) -> tuple[Mapping[str, frozenset[Hex]], tuple[RangeBand, ...]]:
        return self.base.weapon_reach(state, unit_id, weapon)

    def reachable(self, state: EncounterState, unit_id: str) -> frozenset[Hex]:
        return self.base.reachable(state, unit_id)

    # --- scenario files ------------------------------------------------------------------------------------
    def build_unit(
        self, raw: Mapping[str, Any], common: Unit, path: str, ctx: ScenarioContext
    ) -> Unit | None:
        own = {k: v for k, v in raw.items() if k not in self.layer.unit_keys}
        return self.base.build_unit(own, common, path, ctx)

    def read_board(self, raw: Mapping[str, Any], board: Board, ctx: ScenarioContext) -> Board:
        return self.layer.read_board(raw, self.base.read_board(raw, board, ctx), ctx)

    def read_top(self, raw: Mapping[str, Any], state: EncounterState, ctx: ScenarioContext) -> EncounterState:
        return self.layer.read_top(raw, self.base.read_top(raw, state, ctx), ctx)

    def check_state(self, state: EncounterState, ctx: ScenarioContext) -> None:
        self.base.check_state(state, ctx)

    def check_round(self, spec: RoundSpec, state: EncounterState, path: str, ctx: ScenarioContext) -> None:
        self.base.check_round(spec, state, path, ctx)
        self.layer.check_round(spec, state, path, ctx)

    def setup(self, state: EncounterState) -> EncounterState:
        return self.base.setup(state)

    def simulate_round(
        self, state: EncounterState, spec: RoundSpec, dice_for: DiceFactory
    ) -> Iterator[SimStep]:
        return self.base.simulate_round(self.layer.start_round(state, spec), spec, dice_for)

    def phase_label(self, state: EncounterState, phase: str) -> PhaseLabel:
        return self.base.phase_label(state, phase)

    def unit_summary(self, unit: Unit) -> dict[str, Any]:
        return self.layer.unit_summary(unit, self.base.unit_summary(unit))

    def board_summary(self, state: EncounterState) -> dict[str, Any]:
        return self.layer.board_summary(state, self.base.board_summary(state))
