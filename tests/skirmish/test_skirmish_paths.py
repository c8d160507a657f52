"""A move of several hexes in one order (rules/skirmish/paths.py): written ``move <hex> <hex> … facing <vertex>``,
costed and judged step by step (SK-2.2..2.4, SK-1.2), resolved one move action at a time so overwatch fire is
drawn at the exact step that draws it (SK-4.1) and stops the path there, the AP of the steps not taken kept."""

from __future__ import annotations

import pytest

from rules.errors import IllegalOrderError, InvalidOrderError
from rules.events import ShotResolved, UnitMoved
from rules.hexgrid import Hex, Vertex
from rules.skirmish.events import SkApSpent, SkPathStopped
from rules.skirmish.model import SkMove
from rules.skirmish.paths import path_text, reach
from tests.skirmish_fixtures import RS, act, ch, char, draw, make, types

H = Hex.parse
PATH = "move 0306 0405 0505 0604 facing N-NE"  # four hexes from 0205, the last step turning to N-NE


def corridor(policy: str | None = None, *, dice: list[int] | None = None, ap: int = 6):  # type: ignore[no-untyped-def]
    """Veddio (rfp) in 0205 facing NE-SE; the obstacle in 0305 hides him from Kara (tyr, 0805, facing SW-NW) until
    his first step puts him in 0306, in her sight."""
    units = [
        char("veddio", "rfp", "alpha", "0205", "NE-SE", ap=ap),
        char("kara", "tyr", "bravo", "0805", "SW-NW", ranged=20),
    ]
    state = make(units, dice=dice or [], terrain={"0305": "obstacle"})
    if policy is not None:
        state = draw(state, "bravo")
        state = act(state, "kara", f"overwatch {policy}").state
    return draw(state, "alpha")


def test_sk_2_2_a_path_parses_and_a_single_move_reads_as_before() -> None:
    state = corridor()
    path = RS.parse_order(state, "veddio", PATH)
    assert path == SkMove(unit="veddio", to=H("0604"), facing=0, path=(H("0306"), H("0405"), H("0505")))
    single = RS.parse_order(state, "veddio", "move 0306 facing N-NE")
    assert single == SkMove(unit="veddio", to=H("0306"), facing=0)
    assert RS.parse_order(state, "veddio", "back 0104") == SkMove(unit="veddio", to=H("0104"), backward=True)
    with pytest.raises(InvalidOrderError):
        RS.parse_order(state, "veddio", "move 0306 0405 facing")
    with pytest.raises(InvalidOrderError):
        RS.parse_order(state, "veddio", "move 0306 junk")


def test_sk_2_2_a_path_costs_its_steps_and_is_judged_step_by_step() -> None:
    state = corridor()
    RS.validate_order(state, "veddio", RS.parse_order(state, "veddio", PATH))
    with pytest.raises(IllegalOrderError) as gap:
        RS.validate_order(state, "veddio", RS.parse_order(state, "veddio", "move 0306 0505"))
    assert gap.value.code == "skirmish.not_a_path" and gap.value.rule == "SK-2.2"
    with pytest.raises(IllegalOrderError) as wall:  # SK-2.4: the obstacle cannot be entered on the way
        RS.validate_order(state, "veddio", RS.parse_order(state, "veddio", "move 0305 0405"))
    assert wall.value.code == "skirmish.blocked"
    tired = corridor(ap=3)
    with pytest.raises(IllegalOrderError) as ap:  # SK-1.2: four steps need 4 AP
        RS.validate_order(tired, "veddio", RS.parse_order(tired, "veddio", PATH))
    assert ap.value.code == "skirmish.ap" and ap.value.params["cost"] == 4


def test_sk_2_2_reach_finds_the_cheapest_path_and_its_text_is_accepted_at_that_cost() -> None:
    state = corridor()
    veddio = ch(state, "veddio")
    ways = reach(state, veddio)
    cost, _turned, hexes = ways[H("0604"), 0]
    assert cost == 4 and len(hexes) == 4
    assert H("0305") not in {h for h, _ in ways}, "never into the obstacle (SK-2.4)"
    assert all(c <= veddio.ap_left for c, _, _ in ways.values()), "never beyond the AP left (SK-1.2)"
    text = path_text(veddio.facing, hexes, 0)
    order = RS.parse_order(state, "veddio", text)
    RS.validate_order(state, "veddio", order)
    from rules.skirmish.legality import action_cost

    assert action_cost(state, veddio, order) == cost


def test_sk_2_2_an_unopposed_path_is_four_move_actions_in_one_order() -> None:
    result = act(corridor(), "veddio", PATH)
    moves = [e for e in result.events if isinstance(e, UnitMoved)]
    assert [m.to for m in moves] == [H("0306"), H("0405"), H("0505"), H("0604")]
    assert [e.cost for e in result.events if isinstance(e, SkApSpent)] == [1, 1, 1, 1]
    veddio = ch(result.state, "veddio")
    assert veddio.at == H("0604") and veddio.facing == int(Vertex.N_NE) and veddio.ap_left == 2
    assert RS.awaiting(result.state) == ("veddio",), "the activation goes on with the AP left"


def test_sk_4_1_overwatch_at_the_second_hex_stops_a_four_hex_path_there_and_keeps_the_ap() -> None:
    # hidden behind 0305 for the first step; the second step is paid in Kara's sight: one shot (27 > 20, a miss)
    result = act(corridor("always", dice=[9, 9, 9]), "veddio", PATH)
    events = result.events
    order = types(events)
    shots = [e for e in events if isinstance(e, ShotResolved)]
    assert [s.weapon for s in shots] == ["overwatch"] and len(shots) == 1
    moves = [e for e in events if isinstance(e, UnitMoved)]
    assert [m.to for m in moves] == [H("0306"), H("0405")]
    assert order.index("ShotResolved") < max(i for i, t in enumerate(order) if t == "UnitMoved"), (
        "before step 2"
    )
    stopped = next(e for e in events if isinstance(e, SkPathStopped))
    assert stopped.at == H("0405") and stopped.rule == "SK-4.1" and stopped.ap_left == 4
    veddio = ch(result.state, "veddio")
    assert veddio.at == H("0405") and veddio.ap_left == 4, "the two steps not taken keep their AP"
    assert RS.awaiting(result.state) == ("veddio",), "he acts on, knowing he is under fire"


def test_sk_4_1_a_held_question_lets_the_path_go_on_and_a_fired_one_stops_it() -> None:
    paused = act(corridor("ask", dice=[9, 9, 9]), "veddio", PATH)
    assert paused.pending is not None and paused.pending.unit == "kara"
    assert ch(paused.state, "veddio").at == H("0306"), "the first step is done, the second waits for Kara"
    held = act(paused.state, "kara", "hold")
    # holding answers for that step only: the third step asks again
    assert held.pending is not None and ch(held.state, "veddio").at == H("0405")
    fired = act(held.state, "kara", "fire")
    assert "SkPathStopped" in types(fired.events) and ch(fired.state, "veddio").at == H("0505")
    assert ch(fired.state, "veddio").ap_left == 3


def test_sk_4_1_a_kill_on_the_way_cancels_the_step_and_the_rest_of_the_path() -> None:
    state = corridor("always", dice=[1, 9, 9])
    veddio = ch(state, "veddio")
    from rules.state import replace_unit

    state = state.with_units([replace_unit(veddio, resistance=3, max_wounds=1)])
    result = act(state, "veddio", PATH)
    assert "SkActionCancelled" in types(result.events)
    assert [e.to for e in result.events if isinstance(e, UnitMoved)] == [H("0306")]
    assert not ch(result.state, "veddio").alive


def test_ngt_5_a_path_names_its_hexes_to_a_layer_and_a_single_step_is_judged_where_it_stands() -> None:
    # the night layer judges straying before every hex a declared path enters (NGT-5); a single move action is
    # judged once, from where the character stands, as before
    state = corridor()
    path = RS.move_intent(state, RS.parse_order(state, "veddio", PATH))
    assert path is not None and path.path == (H("0306"), H("0405"), H("0505"), H("0604"))
    assert path.points == 6
    single = RS.move_intent(state, RS.parse_order(state, "veddio", "move 0306"))
    assert single is not None and single.path == ()


def test_sk_2_5_astride_the_move_menu_offers_the_steps_out_and_no_path() -> None:
    from bot.panels import skirmish as sk_panel
    from bot.panels.draft import Draft

    units = [char("a", "rfp", "alpha", "0604", "NE-SE", astride="0605"), char("z", "tyr", "zulu", "1509")]
    state = draw(make(units, options={"half_hexes": True}), "alpha")
    model = sk_panel.build_panel(state, "a", draft=Draft(), owing=True)
    moves = [o.value for o in model.options("move")]
    assert moves and all(len(m.split()) in (2, 4) for m in moves), "one step at a time (SK-2.5)"
    assert {m.split()[1] for m in moves} == {"0705", "0505"}, "the hexes beyond either end of the side"
    for move in moves:
        RS.validate_order(state, "a", RS.parse_order(state, "a", move))
