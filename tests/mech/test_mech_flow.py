"""mech as the bot drives it (OrderMode.SEQUENTIAL_OPEN): an automatic initiative step, one declarer at a time,
then the turn resolved as a step of its own; plus the panel's pure queries and the director's damage."""

from __future__ import annotations

import pytest

from data.i18n import t
from rules.engine import resolve_phase
from rules.errors import IllegalOrderError, InvalidOrderError
from rules.hexgrid import Hex
from rules.mech import (
    apply_damage,
    cost_of_path,
    declaration_problem,
    end_facings,
    fire_options,
    heat_after,
    mp_by_mode,
    physical_options,
)
from rules.mech.orders import MechOrder
from rules.mech.state import DECLARE, INITIATIVE, RESOLVE, ext_of
from rules.ruleset import OrderMode
from rules.serial import from_json, to_json
from tests.mech_fixtures import MECH, build, mech, of_type, step, unit, with_unit

H = Hex.parse


def _two() -> object:
    return build(unit("a", "red", "0810", initiative=0), unit("b", "blue", "0805", facing="S", initiative=9))


def test_mech_is_sequential_open_with_three_phases() -> None:
    assert MECH.order_mode is OrderMode.SEQUENTIAL_OPEN
    assert [p.id for p in MECH.phases] == [INITIATIVE, DECLARE, RESOLVE]
    assert [p.takes_orders for p in MECH.phases] == [False, True, False]


def test_initiative_is_an_automatic_step_then_exactly_one_declarer_is_awaited_lowest_first() -> None:
    state = _two()
    assert state.phase == INITIATIVE and MECH.awaiting(state) == ()  # the bot resolves it without orders
    state, events = step(state.replace(dice_script=(1, 1, 6, 6)))
    assert [e.initiative for e in of_type(events, "InitiativeRolled")] == [2, 21]
    assert state.phase == DECLARE and MECH.awaiting(state) == ("a",)
    state, events = step(state, {"a": MECH.parse_order(state, "a", {"mode": "walk", "path": ["0809"]})})
    assert [e.unit for e in of_type(events, "DeclarationLocked")] == ["a"]
    assert ext_of(state).declaration("a") is not None and MECH.awaiting(state) == ("b",)
    state, events = step(state, {"b": MECH.parse_order(state, "b", {})})
    assert (
        state.phase == RESOLVE and MECH.awaiting(state) == ()
    )  # the bot posts b's declaration, then resolves
    state, events = step(state)
    assert state.phase == INITIATIVE and state.round == 2 and ext_of(state).locked == ()
    assert of_type(events, "HeatChanged")


def test_a_declaration_out_of_turn_is_refused_naming_the_rule() -> None:
    state, _ = step(_two().replace(dice_script=(1, 1, 6, 6)))
    order = MECH.parse_order(state, "b", {})
    with pytest.raises(IllegalOrderError) as err:
        MECH.validate_order(state, "b", order)
    assert (err.value.rule, err.value.code, err.value.params["now"]) == (
        "MECH-1.1",
        "mech.not_your_turn",
        "a",
    )


def test_a_forced_resolution_with_no_declaration_locks_standing_still() -> None:
    state, _ = step(_two().replace(dice_script=(1, 1, 6, 6)))
    state, events = step(state, {})  # the deadline passed, or /director resolve
    (locked,) = of_type(events, "DeclarationLocked")
    assert locked.unit == "a" and dict(locked.args)["mode"] == "stand"
    assert MECH.awaiting(state) == ("b",)


def test_declaration_locked_content_is_the_scenario_form() -> None:
    state, _ = step(_two().replace(dice_script=(1, 1, 6, 6)))
    raw = {
        "mode": "walk",
        "path": ["0809", "0808"],
        "facing": "NE",
        "twist": "L",
        "fire": [{"weapon": 1, "target": "b"}],
    }
    state, events = step(state, {"a": MECH.parse_order(state, "a", raw)})
    args = dict(of_type(events, "DeclarationLocked")[0].args)
    assert args["mode"] == "walk" and args["facing"] == "NE" and args["twist"] == "L"
    assert args["path"] == (H("0809"), H("0808"))
    assert args["fire"] == ({"weapon": 1, "target": "b"},) and args["physical"] == ()


def test_secret_declaration_events_never_leak_content_into_json() -> None:
    from bot.text.account import event_json

    state = build(
        unit("a", "red", "0810", initiative=0),
        unit("b", "blue", "0805", initiative=9),
        options={"secret_declarations": True},
    )
    state, _ = step(state.replace(dice_script=(1, 1, 6, 6)))
    state, events = step(state, {"a": MECH.parse_order(state, "a", {"mode": "walk", "path": ["0809"]})})
    line = event_json(of_type(events, "DeclarationLocked")[0])
    assert "0809" not in line and "walk" not in line and '"unit": "a"' in line


def test_shut_down_and_destroyed_units_are_never_awaited() -> None:
    state = build(unit("a", "red", "0810"), unit("b", "blue", "0805"), unit("c", "blue", "0405"))
    state = with_unit(with_unit(state, "a", shutdown=True), "c", destroyed=True)
    state, events = step(state.replace(dice_script=(1, 1, 6, 6)))
    assert [e.unit for e in of_type(events, "InitiativeRolled")] == ["a", "b"]  # a shut-down unit still rolls
    assert MECH.awaiting(state) == ("b",)


def test_state_round_trips_through_json_mid_declaration() -> None:
    state = build(
        unit("a", "red", "0810", initiative=0),
        unit("b", "blue", "0805", facing="S", initiative=9),
        terrain={"0707": "light_woods"},
        elevation={"0606": 2},
    )
    state, _ = step(state.replace(dice_script=(1, 1, 6, 6)))
    state, _ = step(
        state, {"a": MECH.parse_order(state, "a", {"mode": "walk", "path": ["0809"], "twist": "L"})}
    )
    again = from_json(to_json(state))
    assert again == state
    assert isinstance(ext_of(again).locked[0], MechOrder)


def test_same_state_orders_and_seed_give_the_same_turn() -> None:
    def run() -> tuple[object, ...]:
        state = _two()
        events: list[object] = []
        for orders in (
            {},
            {"a": {"mode": "walk", "path": ["0809"], "fire": [{"weapon": 1, "target": "b"}]}},
            {"b": {}},
            {},
        ):
            uid = next(iter(orders), None)
            parsed = {uid: MECH.parse_order(state, uid, orders[uid])} if uid else {}
            result = resolve_phase(MECH, state, parsed)
            state = result.state
            events.extend(result.events)
        return tuple(events)

    assert run() == run()


def test_parse_errors_are_invalid_orders_with_codes() -> None:
    state = _two()
    for raw, code in (
        ({"mode": "fly"}, "mech.mode"),
        ({"path": ["zz"]}, "mech.path_syntax"),
        ({"fire": [{"weapon": "one", "target": "b"}]}, "mech.fire_syntax"),
        ({"physical": [{"kind": "headbutt", "target": "b"}]}, "mech.physical_kind"),
        ({"twist": "up"}, "mech.twist"),
        ({"speed": 3}, "mech.keys"),
    ):
        with pytest.raises(InvalidOrderError) as err:
            MECH.parse_order(state, "a", raw)
        assert err.value.code == code


def test_spanish_words_are_read_in_declarations() -> None:
    state = _two()
    order = MECH.parse_order(
        state,
        "a",
        {
            "mode": "andar",
            "path": ["0809"],
            "twist": "D",
            "physical": [{"kind": "puñetazo", "limb": "bd", "target": "b"}],
        },
    )
    assert (order.mode, order.twist, order.physical[0].kind, order.physical[0].limb) == (
        "walk",
        1,
        "punch",
        "ra",
    )
    assert MECH.parse_order(state, "a", {"mode": "saltar", "path": ["0809"]}).mode == "jump"
    assert MECH.parse_order(state, "a", {"mode": "correr", "path": ["0809"]}).mode == "run"


# --- the order panel's queries ------------------------------------------------------------------------------
def test_query_mp_by_mode_after_heat_and_damage() -> None:
    state = build(unit("a", "red", "0810", walk=5, jump=5), unit("b", "blue", "0805"))
    assert mp_by_mode(state, "a") == {"stand": 0, "walk": 5, "run": 8, "jump": 5}
    hot = with_unit(state, "a", heat=10)
    assert mp_by_mode(hot, "a") == {"stand": 0, "walk": 3, "run": 6, "jump": 3}
    legless = with_unit(state, "a", structure={**mech(state, "a").structure, "ll": 0})
    assert mp_by_mode(legless, "a") == {"stand": 0}


def test_query_path_cost_hex_by_hex_for_a_pencil_check() -> None:
    state = build(
        unit("a", "red", "0810"), unit("b", "blue", "0801"), terrain={"0809": "rough"}, elevation={"0808": 1}
    )
    cost = cost_of_path(state, "a", "walk", (H("0809"), H("0808")), 1)
    assert [(s.hex.label, s.turns, s.terrain, s.elevation, s.cost) for s in cost.steps] == [
        ("0809", 0, 1, 0, 2),
        ("0808", 0, 0, 1, 2),
    ]
    assert (cost.facing_turns, cost.total) == (1, 5)


def test_query_legal_end_facings_within_the_mp_left() -> None:
    state = build(unit("a", "red", "0810", walk=4), unit("b", "blue", "0801"))
    assert end_facings(state, "a", "walk", (H("0809"), H("0808"), H("0807"))) == (0, 1, 5)  # 1 MP left
    assert end_facings(state, "a", "walk", ()) == (0, 1, 2, 3, 4, 5)
    assert end_facings(state, "a", "walk", (H("0809"),) * 1 + (H("0808"), H("0807"), H("0806"))) == (0,)
    assert end_facings(state, "a", "stand", ()) == (0,)


def test_query_fire_options_give_the_number_and_every_reason() -> None:
    state = build(
        unit(
            "a",
            "red",
            "0810",
            weapons=[
                {"type": "medium_laser", "loc": "ra"},
                {"type": "ppc", "loc": "ra"},
                {"type": "small_laser", "loc": "ct", "rear": True},
            ],
        ),
        unit("b", "blue", "0805", facing="S"),
        terrain={"0808": "light_woods"},
    )
    state, _ = step(state.replace(dice_script=(1, 1, 6, 6)))
    ml, ppc, rear = fire_options(state, "a", "b", mode="walk")
    assert ml.legal and ml.distance == 5 and ml.band == "medium"
    assert dict(m.pair() for m in ml.modifiers) == {"range_medium": 3, "shooter_walk": 2, "woods": 2}
    assert ml.target_number == 22 and ml.need == 22 - 9 and ml.heat == 3
    assert not ml.target_known  # b declares later: its movement may still add
    assert ppc.legal and ppc.band == "short"
    assert not rear.legal and rear.problem is not None and rear.problem.rule == "MECH-1.3"


def test_query_fire_options_from_another_end_hex_and_twist() -> None:
    right = H("0810").neighbor(1).neighbor(2).label  # bearing 90: the right side
    state = build(
        unit("a", "red", "0810", weapons=[{"type": "medium_laser", "loc": "ct"}]), unit("b", "blue", right)
    )
    state, _ = step(state.replace(dice_script=(1, 1, 6, 6)))
    (straight,) = fire_options(state, "a", "b")
    (twisted,) = fire_options(state, "a", "b", twist=1)
    assert not straight.legal and twisted.legal


def test_query_physical_options_from_an_end_hex() -> None:
    state = build(unit("a", "red", "0810", tonnage=60), unit("b", "blue", "0808", facing="S"))
    state, _ = step(state.replace(dice_script=(1, 1, 6, 6)))
    options = physical_options(state, "a", mode="walk", path=(H("0809"),))
    kinds = {(o.kind, o.limb) for o in options}
    assert {
        ("punch", "la"),
        ("punch", "ra"),
        ("kick", "ll"),
        ("kick", "rl"),
        ("push", ""),
        ("melee", ""),
        ("charge", ""),
    } == kinds
    charge = next(o for o in options if o.kind == "charge")
    assert (charge.damage, charge.self_damage, charge.target_number) == (6, 5, 15 + 2)
    assert physical_options(state, "a") == ()  # standing still it is two hexes away


def test_query_heat_projection_and_its_spanish_text() -> None:
    state = build(
        unit(
            "a",
            "red",
            "0810",
            heat_sinks=10,
            weapons=[{"type": "ppc", "loc": "ra"}, {"type": "large_laser", "loc": "la"}],
        ),
        unit("b", "blue", "0805"),
    )
    state = with_unit(state, "a", heat=2)
    order = MechOrder(unit="a", mode="walk", path=(H("0809"),), fire=())
    draft = MECH.parse_order(
        state,
        "a",
        {
            "mode": "walk",
            "path": ["0809"],
            "fire": [{"weapon": 1, "target": "b"}, {"weapon": 2, "target": "b"}],
        },
    )
    projection = heat_after(state, draft)
    assert (projection.now, projection.generated, projection.after, projection.to_hit_next) == (
        2,
        1 + 10 + 8,
        11,
        2,
    )
    assert projection.mp_next == 2 and projection.shutdown_rolls == ()
    text = t("mech.heat_projection", "es", after=projection.after, to_hit=projection.to_hit_next)
    assert text == "calor 11 → +2 para impactar el próximo turno"
    assert heat_after(state, order).after == 0


def test_query_declaration_problem_names_the_rule() -> None:
    state, _ = step(_two().replace(dice_script=(1, 1, 6, 6)))
    problem = declaration_problem(state, MECH.parse_order(state, "a", {"mode": "run", "path": ["0811"]}))
    assert problem is not None and problem.rule == "MECH-1.2"
    assert (
        declaration_problem(state, MECH.parse_order(state, "a", {"mode": "walk", "path": ["0811"]})) is None
    )


# --- the director's damage -----------------------------------------------------------------------------------
def test_director_damage_at_a_location_is_a_pure_function() -> None:
    state = _two()
    after, events = apply_damage(state, "b", "ct", 7, by="director")
    assert mech(after, "b").armor["ct"] == mech(state, "b").armor["ct"] - 7
    assert (events[0].unit, events[0].location, events[0].amount, events[0].by) == ("b", "ct", 7, "director")
    with pytest.raises(IllegalOrderError) as err:
        apply_damage(state, "b", "turret", 3)
    assert err.value.code == "mech.location"
