"""A tiny ruleset used to show the core fits every facing kind and every order mode (DESIGN §2).

Four variants share one implementation: ``move <hex>`` orders, a 2d6 "shot" that may ask a reaction question,
and a director procedure. They are registered as ``toy-sim``, ``toy-seq``, ``toy-act`` and ``toy-dir``.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from rules.dice import Dice
from rules.engine import resolve_phase
from rules.errors import IllegalOrderError, InvalidOrderError
from rules.events import Event, RollMade, UnitMoved
from rules.hexgrid import Hex
from rules.registry import Plugin, add, register
from rules.ruleset import (
    DiceFactory,
    FacingKind,
    Order,
    OrderMode,
    PhaseResult,
    PhaseSpec,
    RoundSpec,
    Ruleset,
    SimStep,
)
from rules.serial import serializable
from rules.state import Decision, EncounterState, RulesetState, Unit

TOY_IDS = ("toy-sim", "toy-seq", "toy-act", "toy-dir")
for _tid in TOY_IDS:  # through the same registry path as the real rulesets (rules/registry.py)
    add(Plugin(_tid, "ruleset", engine=__name__, panel="tests.toy_panel", overlay="tests.toy_overlay"))


@serializable(ns="toy")
@dataclass(frozen=True, slots=True, kw_only=True)
class Pawn(Unit):
    initiative: int = 0


@serializable(ns="toy")
@dataclass(frozen=True, slots=True, kw_only=True)
class Move(Order):
    to: Hex


@serializable(ns="toy")
@dataclass(frozen=True, slots=True, kw_only=True)
class Answer(Order):
    answer: str


@serializable(ns="toy")
@dataclass(frozen=True, slots=True, kw_only=True)
class ToyExt(RulesetState):
    declared: tuple[tuple[str, str], ...] = ()  # sequential_open: (unit, hex label) locked so far, public
    waiting: str = ""  # activation: the move held while a reaction is asked


class ToyBase(Ruleset):
    phases: ClassVar[tuple[PhaseSpec, ...]] = (PhaseSpec("move", takes_orders=True, secret=True),)
    unit_keys: ClassVar[frozenset[str]] = frozenset({"initiative"})

    def parse_order(self, state: EncounterState, unit_id: str, raw: Any) -> Order:
        if isinstance(raw, str) and raw.startswith("answer "):
            return Answer(unit=unit_id, answer=raw.split(" ", 1)[1])
        if not isinstance(raw, str) or not raw.startswith("move "):
            raise InvalidOrderError(
                f"{unit_id}: write 'move 0102'", code="toy.syntax", params={"unit": unit_id}
            )
        try:
            return Move(unit=unit_id, to=Hex.parse(raw[5:].strip()))
        except ValueError as exc:
            raise InvalidOrderError(str(exc), params={"unit": unit_id}) from None

    def validate_order(self, state: EncounterState, actor: str, order: Order) -> None:
        unit = state.unit(order.unit)
        if isinstance(order, Move):
            assert unit.at is not None
            if unit.at.distance(order.to) != 1:
                raise IllegalOrderError(
                    f"{unit.name} moves one hex at a time", rule="TOY-1", params={"unit": unit.id}
                )
            if not state.board.contains(order.to):
                raise IllegalOrderError(
                    f"{order.to.label} is off the board", rule="TOY-1", params={"unit": unit.id}
                )

    def _move(self, state: EncounterState, order: Move) -> tuple[EncounterState, Event]:
        unit = state.unit(order.unit)
        moved = unit.__class__(**{**{f: getattr(unit, f) for f in unit.__dataclass_fields__}, "at": order.to})
        event = UnitMoved(
            rule="TOY-1",
            unit=unit.id,
            frm=unit.at,
            to=order.to,
            facing_from=unit.facing,
            facing_to=unit.facing,
        )
        return state.with_units([moved]), event

    def resolve(self, state: EncounterState, orders: Mapping[str, Order], dice: Dice) -> PhaseResult:
        events: list[Event] = []
        for uid in sorted(orders):
            order = orders[uid]
            if isinstance(order, Move):
                state, ev = self._move(state, order)
                events.append(ev)
        return PhaseResult(state.replace(round=state.round + 1), tuple(events))

    def awaiting(self, state: EncounterState) -> tuple[str, ...]:
        return tuple(sorted(u.id for u in state.units.values() if not u.destroyed))

    def build_unit(self, raw: Mapping[str, Any], common: Unit, path: str, ctx: Any) -> Unit | None:
        return Pawn(
            **{f: getattr(common, f) for f in Unit.__dataclass_fields__},
            initiative=int(raw.get("initiative", 0)),
        )

    def simulate_round(
        self, state: EncounterState, spec: RoundSpec, dice_for: DiceFactory
    ) -> Iterator[SimStep]:
        raw_orders: Mapping[str, str] = spec.raw.get("orders", {})
        orders = {uid: self.parse_order(state, uid, text) for uid, text in raw_orders.items()}
        for uid, order in orders.items():
            self.validate_order(state, uid, order)
        result = resolve_phase(self, state, orders, dice_for=dice_for)
        yield SimStep(spec.index, "move", result.state, result.events)


@register
class ToySimultaneous(ToyBase):
    id = "toy-sim"
    facing = FacingKind.SIDE
    order_mode = OrderMode.SIMULTANEOUS


@register
class ToySequential(ToyBase):
    """Declarations by initiative, lowest first; each is public once locked; resolved after the last."""

    id = "toy-seq"
    facing = FacingKind.VERTEX
    order_mode = OrderMode.SEQUENTIAL_OPEN

    def awaiting(self, state: EncounterState) -> tuple[str, ...]:
        ext = state.ext if isinstance(state.ext, ToyExt) else ToyExt()
        done = {u for u, _ in ext.declared}
        pawns = sorted(state.units_of(Pawn), key=lambda p: (p.initiative, p.id))
        nxt = [p.id for p in pawns if p.id not in done]
        return tuple(nxt[:1])

    def resolve(self, state: EncounterState, orders: Mapping[str, Order], dice: Dice) -> PhaseResult:
        ext = state.ext if isinstance(state.ext, ToyExt) else ToyExt()
        ((uid, order),) = orders.items()
        if uid not in self.awaiting(state):
            raise IllegalOrderError(f"it is not {uid}'s turn to declare", rule="TOY-2", params={"unit": uid})
        assert isinstance(order, Move)
        ext = ToyExt(declared=(*ext.declared, (uid, order.to.label)))
        state = state.replace(ext=ext)
        if self.awaiting(state):
            return PhaseResult(state, ())
        events: list[Event] = []
        for unit_id, label in ext.declared:
            state, ev = self._move(state, Move(unit=unit_id, to=Hex.parse(label)))
            events.append(ev)
        return PhaseResult(state.replace(ext=ToyExt(), round=state.round + 1), tuple(events))

    def simulate_round(
        self, state: EncounterState, spec: RoundSpec, dice_for: DiceFactory
    ) -> Iterator[SimStep]:
        """One declaration per step, by initiative, whatever the file's order (sequential_open)."""
        raw_orders: Mapping[str, str] = spec.raw.get("orders", {})
        start = state.round
        while self.awaiting(state) and state.round == start:
            uid = self.awaiting(state)[0]
            order = self.parse_order(state, uid, raw_orders[uid])
            self.validate_order(state, uid, order)
            result = resolve_phase(self, state, {uid: order}, dice_for=dice_for)
            yield SimStep(spec.index, "move", result.state, result.events)
            state = result.state


@register
class ToyActivation(ToyBase):
    """One live action per resolve; moving next to an enemy asks that enemy whether it reacts."""

    id = "toy-act"
    facing = FacingKind.VERTEX
    order_mode = OrderMode.ACTIVATION

    def resolve(self, state: EncounterState, orders: Mapping[str, Order], dice: Dice) -> PhaseResult:
        ext = state.ext if isinstance(state.ext, ToyExt) else ToyExt()
        ((uid, order),) = orders.items()
        events: list[Event] = []
        if isinstance(order, Answer):
            assert state.pending is not None and ext.waiting
            held = Move(unit=state.pending.unit, to=Hex.parse(ext.waiting))
            if order.answer == "fire":
                roll = dice.two_d6(rule="TOY-3", purpose="reaction shot")
                events.append(RollMade.of(roll, actor=uid, target=held.unit))
                if roll.total >= 7:
                    mover = state.unit(held.unit)
                    state = state.with_units(
                        [
                            mover.__class__(
                                **{
                                    **{f: getattr(mover, f) for f in mover.__dataclass_fields__},
                                    "destroyed": True,
                                }
                            )
                        ]
                    )
                    return PhaseResult(state.replace(pending=None, ext=ToyExt()), tuple(events))
            state, ev = self._move(state.replace(pending=None, ext=ToyExt()), held)
            return PhaseResult(state, (*events, ev))
        assert isinstance(order, Move)
        mover = state.unit(uid)
        watchers = [
            u
            for u in state.units.values()
            if u.side != mover.side and u.at is not None and u.at.distance(order.to) == 1
        ]
        if watchers:
            w = watchers[0]
            question = Decision(
                id=f"react-{state.step}", side=w.side, unit=uid, kind="reaction", options=("fire", "hold")
            )
            return PhaseResult(state.replace(pending=question, ext=ToyExt(waiting=order.to.label)), ())
        state, ev = self._move(state, order)
        return PhaseResult(state, (ev,))


@register
class ToyDirector(ToyBase):
    """A director-run procedure: odds from two strengths, one 2d6 roll, the result applied by the engine."""

    id = "toy-dir"
    facing = FacingKind.SIDE
    order_mode = OrderMode.DIRECTOR

    def resolve(self, state: EncounterState, orders: Mapping[str, Order], dice: Dice) -> PhaseResult:
        roll = dice.two_d6(rule="TOY-4", purpose="combat")
        return PhaseResult(state, (RollMade.of(roll, odds="3:1"),))


TOY = """
ruleset = "{ruleset}"
name = "Toy duel"
seed = 3

[board]
width = 6
height = 6

[[sides]]
id = "red"

[[sides]]
id = "blue"

[[units]]
id = "a"
side = "red"
name = "Alfa"
at = "0202"
initiative = 2

[[units]]
id = "b"
side = "blue"
name = "Bravo"
at = "0404"
initiative = 1
"""
