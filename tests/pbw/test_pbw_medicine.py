"""PBW-6 Medicine (RULES.md, DESIGN §7.4 ``treat`` and ``items``), through the real engine. Seed
(pbw-tactical-mech.es.txt): "Con la habilidad de Medicina y el equipo adecuado se pueden tratar los daños sufridos
… por cada punto de daño de la herida se necesitan 10 turnos completos para tratarla. Durante todo ese tiempo la
persona que aplica la cura debe estar concentrada realizando su tarea y no puede llevar a cabo ninguna otra
acción"."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from bot.panels import accepted, press
from bot.panels import pbw as P
from bot.panels.draft import Draft
from bot.panels.model import Button
from render.rulesets.pbw import OVERLAY
from rules.errors import IllegalOrderError, InvalidOrderError
from rules.pbw.events import PbwTreatment
from rules.pbw.model import INCAPACITATED, Character, Treatment
from rules.scenario import ScenarioError, load_scenario
from rules.state import EncounterState
from tests.pbw_fixtures import DEFEND, RS, act, ch, declare, make, of_type, person, play_turn, scenario_text

TREAT = act("treat", target="bob", location="ra")


def healer_and_patient(**ana: Any) -> EncounterState:
    """Ana (Medicine 1, a medkit) next to Bob, her side's, whose right arm is down to 5 of 8 and hit points to 25 of
    30; Eve, the enemy, far off."""
    card: dict[str, Any] = {
        "skills": {"ranged": 3, "melee": 2, "fight": 2, "athletics": 1, "medicine": 1},
        "items": ["medkit"],
        **ana,
    }
    state = make(
        [
            person("ana", "a", "0303", initiative=6, **card),
            person("bob", "a", "0304", initiative=2),
            person("eve", "b", "1810", initiative=1),
        ]
    )
    bob = ch(state, "bob")
    hurt = dataclasses.replace(bob, resistance={**bob.resistance, "ra": 5}, hp=25)
    return state.with_units([hurt])


def treat_turns(state: EncounterState, n: int, plan: Any = None) -> tuple[EncounterState, list[Any]]:
    events: list[Any] = []
    for _ in range(n):
        state, more = play_turn(state, {"ana": plan or [TREAT] * 3, "bob": [DEFEND]})
        events.extend(more)
    return state, events


def test_pbw_6_ten_complete_turns_of_treatment_restore_one_point_of_the_location_and_one_hit_point() -> None:
    state, events = treat_turns(healer_and_patient(), 9)
    assert ch(state, "ana").treating == Treatment(target="bob", location="ra", turns=9)
    assert ch(state, "bob").resistance["ra"] == 5 and ch(state, "bob").hp == 25, "nothing before the tenth"
    assert [e.turns for e in of_type(events, PbwTreatment)] == list(range(1, 10))
    state, events = treat_turns(state, 1)
    (done,) = of_type(events, PbwTreatment)
    assert done.restored and done.key == "pbw.treat.restored" and done.rule == "PBW-6"
    assert ch(state, "bob").resistance["ra"] == 6 and ch(state, "bob").hp == 26  # [HOUSE: both]
    assert ch(state, "ana").treating is None, "the next point takes ten turns more"


def test_pbw_6_any_other_action_by_the_healer_breaks_the_count_and_it_starts_again() -> None:
    """The seed: "no puede llevar a cabo ninguna otra acción" — a turn of anything else (here only defending)."""
    state, _ = treat_turns(healer_and_patient(), 3)
    state, events = treat_turns(state, 1, [DEFEND] * 3)
    (broken,) = of_type(events, PbwTreatment)
    assert broken.key == "pbw.treat.broken" and broken.turns == 3
    assert ch(state, "ana").treating is None
    state, events = treat_turns(state, 1)
    assert of_type(events, PbwTreatment)[0].turns == 1


def test_pbw_6_the_two_moving_apart_break_the_count() -> None:
    state, _ = treat_turns(healer_and_patient(), 2)
    away = [act("move", path=["0305", "0306"])]
    state, events = play_turn(state, {"ana": [TREAT] * 3, "bob": away})
    (broken,) = of_type(events, PbwTreatment)
    assert broken.key == "pbw.treat.broken" and broken.turns == 2
    with pytest.raises(IllegalOrderError) as err:  # no longer within 1 m: refused from the next declaration
        play_turn(state, {"ana": [TREAT] * 3, "bob": [DEFEND]})
    assert err.value.code == "pbw.treat_reach" and err.value.rule == "PBW-6"


@pytest.mark.parametrize(
    ("ana", "bob_ra", "segments", "code"),
    [
        ({"items": []}, 5, [TREAT] * 3, "pbw.no_medkit"),
        ({"skills": {"ranged": 3}}, 5, [TREAT] * 3, "pbw.no_medicine"),
        ({}, 8, [TREAT] * 3, "pbw.not_wounded"),
        ({}, 5, [TREAT, DEFEND, DEFEND], "pbw.treat_whole_turn"),
    ],
)
def test_pbw_6_treat_is_refused_without_medicine_a_medkit_a_wound_or_the_whole_turn(
    ana: dict[str, Any], bob_ra: int, segments: list[Any], code: str
) -> None:
    state = healer_and_patient(**ana)
    bob = ch(state, "bob")
    state = state.with_units([dataclasses.replace(bob, resistance={**bob.resistance, "ra": bob_ra})])
    with pytest.raises(IllegalOrderError) as err:
        play_turn(state, {"ana": segments, "bob": [DEFEND]})
    assert err.value.code == code


def test_pbw_6_an_incapacitated_character_may_treat_only_itself() -> None:
    """The seed: an incapacitated character can do nothing "salvo arrastrarse un metro por segmento o intentar
    curarse las heridas"."""
    state = healer_and_patient()
    ana = ch(state, "ana")
    down = dataclasses.replace(ana, condition=INCAPACITATED, resistance={**ana.resistance, "torso": 0})
    state = state.with_units([down])
    with pytest.raises(IllegalOrderError) as err:
        play_turn(state, {"ana": [TREAT] * 3, "bob": [DEFEND]})
    assert err.value.code == "pbw.cannot_act"
    own = act("treat", target="ana", location="torso")
    after, events = play_turn(state, {"ana": [own] * 3, "bob": [DEFEND]})
    assert of_type(events, PbwTreatment)[0].turns == 1
    assert isinstance(after.units["ana"], Character)


def test_pbw_6_a_treat_given_once_fills_the_turn_and_the_target_defaults_to_oneself() -> None:
    state = healer_and_patient()
    decl = RS.parse_order(
        state, "ana", {"segments": [{"action": "treat", "target": "bob", "location": "ra"}]}
    )
    assert [s.action for s in decl.segments] == ["treat"] * 3  # type: ignore[attr-defined]
    own = RS.parse_order(state, "ana", {"segments": [{"action": "treat", "location": "ra"}]})
    assert own.segments[0].target == "ana"  # type: ignore[attr-defined]
    with pytest.raises(InvalidOrderError):
        RS.parse_order(state, "ana", {"segments": [{"action": "treat", "target": "bob"}]})


def test_pbw_6_items_in_a_scenario_file() -> None:
    good = scenario_text([person("ana", "a", "0303", items=["medkit"]), person("bob", "b", "0310")])
    assert ch(load_scenario(good).state, "ana").items == ("medkit",)
    bad = scenario_text([person("ana", "a", "0303", items=["bandage"]), person("bob", "b", "0310")])
    with pytest.raises(ScenarioError):
        load_scenario(bad)


# --- the panel and the board ---------------------------------------------------------------------------------


def declaring_panel(state: EncounterState, uid: str) -> tuple[EncounterState, Any]:
    """``uid``'s panel when its turn to declare comes, everyone before it skipping its segments."""
    while RS.awaiting(state) != (uid,):
        (first,) = RS.awaiting(state)
        state = declare(state, first).state
    return state, P.build_panel(state, uid, draft=Draft(), owing=True)


def treat_values(model: Any) -> list[str]:
    select = model.control(P.ACT)
    return [o.value for o in select.options if o.value.startswith("t")]


def test_pbw_6_the_panel_offers_treat_only_for_a_wound_it_may_treat_and_submits_it() -> None:
    state, model = declaring_panel(healer_and_patient(), "ana")
    bob_no = list(state.units).index("bob")
    assert treat_values(model) == [f"t{bob_no}.1"], "bob's right arm, his only wound"
    chosen = press(P.PANEL, state, model, P.ACT, (f"t{bob_no}.1",))
    order = accepted(state, "ana", P.raw_order(chosen))
    assert order is not None and [s.action for s in order.segments] == ["treat"] * 3  # type: ignore[attr-defined]
    assert all(isinstance(b, Button) and not b.enabled for b in chosen.controls if b.action in P.SEG[1:])
    _, without = declaring_panel(healer_and_patient(items=[]), "ana")
    assert treat_values(without) == []


def test_pbw_6_both_panels_and_the_board_show_the_count() -> None:
    state, _ = treat_turns(healer_and_patient(), 3)
    ana = P.build_panel(state, "ana", draft=Draft(), owing=False)
    bob = P.build_panel(state, "bob", draft=Draft(), owing=False)
    assert "3/10" in stat_text(ana, "pbw_treating") and "3/10" in stat_text(bob, "pbw_treated")
    bars = {b.label: b for b in OVERLAY.stat_bars(ch(state, "ana"))}
    assert bars["render.stat.pbw_treat"].value == 3 and bars["render.stat.pbw_treat"].maximum == 10
    assert "render.stat.pbw_treat" not in {b.label for b in OVERLAY.stat_bars(ch(state, "bob"))}


def stat_text(model: Any, name: str) -> str:
    (stat,) = [s for s in model.stats if s.name == name]
    return stat.value.render("en")
