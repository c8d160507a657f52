"""The engine core fits side- and vertex-facing rulesets and all four order modes (DESIGN §2)."""

from __future__ import annotations

import pytest

from rules.engine import resolve_phase, visibility
from rules.errors import GameError, IllegalOrderError, InvalidOrderError
from rules.events import RollMade, UnitMoved
from rules.hexgrid import Hex
from rules.registry import get_ruleset
from rules.ruleset import DiceFactory, FacingKind, OrderMode
from rules.serial import from_json, to_json
from rules.state import Board, EncounterState, Marker, Side, Unit
from tests import toy_ruleset
from tests.toy_ruleset import Pawn, ToyExt


def make_state(ruleset: str, *, seed: int = 1, script: tuple[int, ...] = ()) -> EncounterState:
    units = {
        "a": Pawn(id="a", side="red", name="Alfa", at=Hex.from_offset(2, 2), initiative=5),
        "b": Pawn(id="b", side="blue", name="Bravo", at=Hex.from_offset(5, 5), initiative=2, facing=3),
        "h": Pawn(id="h", side="blue", name="Hidden", at=Hex.from_offset(8, 8), hidden=True),
    }
    return EncounterState(
        ruleset=ruleset,
        name="toy",
        board=Board(10, 10, {Hex.from_offset(3, 3): "woods"}),
        sides=(Side("red", "Red"), Side("blue", "Blue")),
        units=units,
        phase="move",
        seed=seed,
        dice_script=script,
        markers=(Marker(kind="fire", at=Hex.from_offset(4, 4), expires_round=3),),
    )


def test_registry_knows_the_toy_variants_and_their_modes() -> None:
    assert toy_ruleset.ToySimultaneous.id == "toy-sim"
    modes = {get_ruleset(r).order_mode for r in ("toy-sim", "toy-seq", "toy-act", "toy-dir")}
    assert modes == set(OrderMode)
    assert {get_ruleset(r).facing for r in ("toy-sim", "toy-seq")} == set(FacingKind)


def test_unknown_ruleset_is_a_clear_key_error() -> None:
    with pytest.raises(KeyError, match="unknown ruleset"):
        get_ruleset("chess")
    with pytest.raises(KeyError):
        get_ruleset("../etc")


def test_parse_and_validate_are_separate_errors_both_game_errors() -> None:
    rs = get_ruleset("toy-sim")
    state = make_state("toy-sim")
    with pytest.raises(InvalidOrderError):
        rs.parse_order(state, "a", "jump 0303")
    order = rs.parse_order(state, "a", "move 0909")
    with pytest.raises(IllegalOrderError) as err:
        rs.validate_order(state, "a", order)
    assert isinstance(err.value, GameError) and isinstance(err.value, ValueError)
    assert err.value.params["unit"] == "a" and err.value.rule == "TOY-1"


def test_simultaneous_mode_resolves_all_orders_together_and_returns_a_new_state() -> None:
    rs = get_ruleset("toy-sim")
    state = make_state("toy-sim")
    a_to = state.unit("a").at.neighbor(2)  # type: ignore[union-attr]
    b_to = state.unit("b").at.neighbor(0)  # type: ignore[union-attr]
    orders = {
        "a": rs.parse_order(state, "a", f"move {a_to.label}"),
        "b": rs.parse_order(state, "b", f"move {b_to.label}"),
    }
    result = resolve_phase(rs, state, orders)
    assert result.state.unit("a").at == a_to and result.state.unit("b").at == b_to
    assert state.unit("a").at == Hex.from_offset(2, 2), "the old state must not change"
    assert [type(e) for e in result.events] == [UnitMoved, UnitMoved]
    assert result.state.step == state.step + 1


def test_sequential_open_mode_locks_declarations_by_initiative() -> None:
    rs = get_ruleset("toy-seq")
    state = make_state("toy-seq")
    state = state.without_unit("h")
    assert rs.awaiting(state) == ("b",)  # lowest initiative declares first
    with pytest.raises(IllegalOrderError):
        rs.resolve(state, {"a": rs.parse_order(state, "a", "move 0203")}, DiceFactory()(state))
    b_to = state.unit("b").at.neighbor(0)  # type: ignore[union-attr]
    r1 = resolve_phase(rs, state, {"b": rs.parse_order(state, "b", f"move {b_to.label}")})
    assert isinstance(r1.state.ext, ToyExt) and r1.state.ext.declared == (
        ("b", b_to.label),
    )  # public once locked
    assert r1.events == () and rs.awaiting(r1.state) == ("a",)
    r2 = resolve_phase(rs, r1.state, {"a": rs.parse_order(r1.state, "a", "move 0203")})
    assert r2.state.unit("b").at == b_to and r2.state.unit("a").at == Hex.parse("0203")


def test_activation_mode_pauses_for_a_reaction_and_resumes_with_the_answer() -> None:
    rs = get_ruleset("toy-act")
    state = make_state("toy-act", script=(6, 5))
    start = state.unit("b").at.neighbor(5).neighbor(5)  # type: ignore[union-attr]
    state = state.with_units([Pawn(id="a", side="red", name="Alfa", at=start, initiative=5)])
    step_to = state.unit("b").at.neighbor(5)  # type: ignore[union-attr]
    assert state.unit("a").at.distance(step_to) == 1  # type: ignore[union-attr]
    paused = resolve_phase(rs, state, {"a": rs.parse_order(state, "a", f"move {step_to.label}")})
    assert paused.state.pending is not None and paused.state.pending.side == "blue"
    assert paused.state.unit("a").at != step_to, "the action waits for the reaction"
    done = resolve_phase(rs, paused.state, {"b": rs.parse_order(paused.state, "b", "answer fire")})
    rolls = [e for e in done.events if isinstance(e, RollMade)]
    assert rolls[0].dice == (6, 5) and rolls[0].source == "script"
    assert done.state.unit("a").destroyed and done.state.pending is None


def test_director_mode_rolls_are_events_and_scripted_dice_carry_over() -> None:
    rs = get_ruleset("toy-dir")
    state = make_state("toy-dir", script=(3, 4, 6))
    r1 = resolve_phase(rs, state, {})
    assert [e.dice for e in r1.events if isinstance(e, RollMade)] == [(3, 4)]
    assert r1.state.dice_script == (6,)
    r2 = resolve_phase(rs, r1.state, {})
    assert next(e.dice for e in r2.events if isinstance(e, RollMade))[0] == 6


def test_same_state_orders_and_seed_give_the_same_result() -> None:
    rs = get_ruleset("toy-dir")
    a = resolve_phase(rs, make_state("toy-dir", seed=42), {})
    b = resolve_phase(rs, make_state("toy-dir", seed=42), {})
    c = resolve_phase(rs, make_state("toy-dir", seed=43), {})
    assert a == b
    assert to_json(a.state) == to_json(b.state)
    assert [e for e in a.events] == [e for e in b.events]
    assert isinstance(c.events[0], RollMade)


def test_director_override_replaces_a_roll_without_shifting_later_rolls() -> None:
    rs = get_ruleset("toy-dir")
    state = make_state("toy-dir", seed=5)
    plain = resolve_phase(rs, state, {})
    forced = resolve_phase(rs, state, {}, dice_for=DiceFactory({0: (1, 1)}))
    roll = forced.events[0]
    assert isinstance(roll, RollMade) and roll.dice == (1, 1) and roll.source == "override"
    assert plain.state.dice_script == forced.state.dice_script


def test_visibility_hides_director_placed_units_from_the_other_side() -> None:
    rs = get_ruleset("toy-sim")
    state = make_state("toy-sim")
    assert "h" not in visibility(rs, state, "red").units
    assert "h" in visibility(rs, state, "blue").units
    assert "h" in visibility(rs, state, "director").units
    assert "h" not in visibility(rs, state, "public").units


def test_state_round_trips_through_json() -> None:
    state = make_state("toy-seq").replace(ext=ToyExt(declared=(("a", "0203"),)))
    data = to_json(state)
    import json

    again = from_json(json.loads(json.dumps(data)))
    assert again == state
    assert isinstance(again.unit("a"), Pawn)
    assert again.board.terrain[Hex.from_offset(3, 3)] == "woods"


def test_unit_lookup_error_is_clear() -> None:
    with pytest.raises(IllegalOrderError, match="no unit called 'zz'"):
        make_state("toy-sim").unit("zz")


def test_unit_base_class_defaults() -> None:
    u = Unit(id="x", side="red", name="Xenon", at=None)
    assert u.short == "Xeno" and not u.on_board
