"""NGT-5.1 night movement costs (RULES.md, DESIGN §7.3 ``[night] concealing``). Seed (asl-night-rules.es.txt, the
quick reference): "El costo de movimiento para infantería +1 terreno ocultador. Vehículos +1 por lado de hex."
Infantry-scale units (skirmish and pbw characters) pay +1 to enter a concealing hex; mech vehicles +1 MP per
hexside turned; BattleMechs pay the day costs [HOUSE]. Every base counts it wherever it counts movement, so the
reach its panel offers is the reach the rules accept."""

from __future__ import annotations

from typing import Any

import pytest

from bot.panels import accepted, press
from bot.panels import pbw as P
from bot.panels.draft import Draft
from bot.panels.model import Button, Select
from rules.errors import IllegalOrderError
from rules.mech.legality import check_declaration
from rules.mech.orders import MechOrder
from rules.mech.queries import cost_of_path, end_facings
from rules.mech.state import DECLARE
from rules.pbw.queries import destinations, move_options
from rules.registry import get_ruleset, ruleset_for
from rules.ruleset import surcharge
from rules.scenario import ScenarioError, load_scenario
from rules.skirmish.geometry import step_cost
from rules.state import EncounterState
from tests.mech_fixtures import scenario_text as mech_text
from tests.mech_fixtures import unit
from tests.night_fixtures import H, char, night_state, with_terrain
from tests.pbw_fixtures import person
from tests.pbw_fixtures import scenario_text as pbw_text

SKIRMISH = get_ruleset("skirmish")


def at_night(text: str, ruleset: str, night: str = "") -> str:
    head = f'ruleset = "{ruleset}"\n'
    table = f"[night]\n{night}\n" if night else ""
    body = text.replace(head, f'{head}layers = ["night"]\n', 1)
    return body.replace("[board]", f"{table}[board]", 1) if table else body


# --- skirmish: +1 AP into difficult terrain (the default concealing class) ----------------------------------------


def test_ngt5_1_skirmish_a_character_pays_one_ap_more_to_enter_concealing_terrain() -> None:
    night = with_terrain(night_state(char("u", "a", "0505"), char("far", "b", "1010")), {"0504": "difficult"})
    day = night.replace(layers=())
    # by day SK-2.4 doubles the step into difficult terrain (2 AP); at night one more
    assert step_cost(day, H("0504"), backward=False) == 2
    assert step_cost(night, H("0504"), backward=False) == 3
    assert step_cost(night, H("0506"), backward=False) == 1, "open ground costs the day's AP"
    assert step_cost(night, H("0504"), backward=True) == 5, "a backward step into it: 2 × 2 + 1"
    assert ruleset_for(night).enter_cost(night, "u", H("0505"), H("0504")) == 3  # a stray pays it too


# --- pbw: one hex more of Movement into cover --------------------------------------------------------------------


def pbw_state(night: bool, **kw: Any) -> EncounterState:
    text = pbw_text(
        [person("ana", "a", "0303", movement=4), person("bob", "b", "1813")],
        terrain={"0304": "cover", "0305": "cover"},
        **kw,
    )
    return load_scenario(at_night(text, "pbw") if night else text).state


DECLARED = {"segments": [{"action": "move", "path": ["0304", "0305", "0306"]}]}


def test_ngt5_1_pbw_a_path_through_cover_uses_one_hex_more_of_movement_per_cover_hex() -> None:
    day, night = pbw_state(False), pbw_state(True)
    pbw = ruleset_for(day)
    pbw.validate_order(day, "ana", pbw.parse_order(day, "ana", DECLARED))  # 3 hexes of 4 by day
    at_dark = ruleset_for(night)
    with pytest.raises(IllegalOrderError) as err:  # 3 hexes + 2 of cover = 5 of 4 at night
        at_dark.validate_order(night, "ana", at_dark.parse_order(night, "ana", DECLARED))
    assert err.value.rule == "NGT-5.1" and err.value.code == "pbw.too_far_night"
    assert err.value.params["used"] == 5 and err.value.params["limit"] == 4


def test_ngt5_1_pbw_the_panel_reach_counts_the_night_cost() -> None:
    day, night = move_options(pbw_state(False), "ana"), move_options(pbw_state(True), "ana")
    assert H("0307") in day and H("0307") not in night  # straight south through both cover hexes
    assert night[H("0305")] == (H("0304"), H("0305"))  # 2 + 2: the cover hex is still within reach
    assert H("0306") in night and len(night[H("0306")]) >= 3, "round the cover, or through it at its cost"


def test_ngt5_1_pbw_the_destination_menu_labels_each_hex_with_its_night_cost() -> None:
    """The move's destination menu counts the surcharge: 0305, two cover hexes south, uses 4 of 4 Movement at
    night (2 by day); 0307 beyond them is offered by day only."""

    def south(state: EncounterState) -> dict[str, str]:
        model = press(P, state, P.build_panel(state, "ana", draft=Draft(), owing=True), "act", ("m",))
        menu = model.control(P.DEST)
        assert isinstance(menu, Select)
        if any(o.value.startswith(P.HEADING) for o in menu.options):  # more in reach than a menu holds
            model = press(P, state, model, P.DEST, (f"{P.HEADING}S",))
            menu = model.control(P.DEST)
            assert isinstance(menu, Select)
        return {o.label: o.param("cost") for o in menu.options if not o.value.startswith(P.HEADING)}

    day, night = south(pbw_state(False)), south(pbw_state(True))
    assert day["0305"] == "2" and night["0305"] == "4"
    assert "0307" in day and "0307" not in night
    assert destinations(pbw_state(True), "ana")[-1].used <= 4


# --- mech: vehicles +1 MP per hexside turned; BattleMechs the day costs --------------------------------------------


def mech_state(night: bool, kind: str) -> EncounterState:
    keys: dict[str, Any] = {"walk": 4}
    if kind == "vehicle":
        keys.update(kind="vehicle", weapons=[{"type": "medium_laser", "loc": "front"}])
    text = mech_text(unit("u", "red", "0510", **keys), unit("far", "blue", "1501"))
    return load_scenario(at_night(text, "mech") if night else text).state.replace(phase=DECLARE)


ZIGZAG = (
    H("0510").neighbor(1),
    H("0510").neighbor(1).neighbor(0),
)  # NE (one hexside turned), then N (one back)


@pytest.mark.parametrize(("kind", "mode"), [("vehicle", "cruise"), ("mech", "walk")])
def test_ngt5_1_mech_vehicles_pay_one_mp_more_per_hexside_turned_battlemechs_the_day_cost(
    kind: str, mode: str
) -> None:
    day = cost_of_path(mech_state(False, kind), "u", mode, ZIGZAG)
    night = cost_of_path(mech_state(True, kind), "u", mode, ZIGZAG)
    assert day.total == 4  # 2 hexes + 2 hexsides turned
    assert night.total == (6 if kind == "vehicle" else 4)


def test_ngt5_1_mech_a_vehicle_is_refused_a_path_the_night_makes_too_dear_and_offered_fewer_facings() -> None:
    night = mech_state(True, "vehicle")
    order = ruleset_for(night).parse_order(night, "u", {"mode": "cruise", "path": [h.label for h in ZIGZAG]})
    assert isinstance(order, MechOrder)
    check_declaration(mech_state(False, "vehicle"), order)  # 4 MP of 4 by day
    with pytest.raises(IllegalOrderError) as err:  # 6 MP of the 4 it has
        check_declaration(night, order)
    assert err.value.rule == "MECH-1.2"
    straight = (H("0509"),)
    assert len(end_facings(mech_state(False, "vehicle"), "u", "cruise", straight)) == 6  # 3 MP left: any
    assert sorted(end_facings(night, "u", "cruise", straight)) == [0, 1, 5]  # 3 MP left: one hexside each way


# --- [night] concealing ----------------------------------------------------------------------------------------


def test_ngt5_1_the_scenario_names_the_concealing_terrain_classes() -> None:
    text = at_night(
        pbw_text([person("ana", "a", "0303")], terrain={"0304": "cover", "0404": "wall"}),
        "pbw",
        'concealing = ["wall"]',
    )
    state = load_scenario(text).state
    assert surcharge(state).terrain == frozenset({"wall"})
    assert surcharge(pbw_state(True)).terrain == frozenset({"cover"})  # the pbw default [HOUSE]
    assert surcharge(pbw_state(False)).enter == 0, "by day nothing"
    bad = at_night(pbw_text([person("ana", "a", "0303")]), "pbw", 'concealing = "cover"')
    with pytest.raises(ScenarioError):
        load_scenario(bad)


def test_ngt5_1_pbw_the_panel_pad_never_steps_where_the_night_refuses() -> None:
    """The order panel's move pad (bot/panels/pbw.py): two steps south into cover use all 4 hexes of Ana's Movement
    at night, so the third step is not offered; by day it is."""
    for night, third in ((False, True), (True, False)):
        state = pbw_state(night)
        model = P.build_panel(state, "ana", draft=Draft(), owing=True)
        model = press(P, state, model, P.ACT, ("m",))
        for _ in range(2):
            model = press(P, state, model, "d3")  # south: 0304, then 0305 (both cover)
        south = model.control("d3")
        assert isinstance(south, Button) and south.enabled is third, f"night={night}"
        assert accepted(state, "ana", P.raw_order(model)) is not None, "what the pad built is accepted"
