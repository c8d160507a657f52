"""The exo phase-5 panel (bot/panel_model.py): after the damage, a damaged ship's crew is offered the repairs the
rules can attempt (EXO-6.1, EXO-6.4) and station changes (EXO-6.5); what the player picks becomes an order the
rules accept, and a value that was not offered (a forged draft) is dropped."""

from __future__ import annotations

import dataclasses

from bot.panel_model import Draft, PanelModel, build_panel
from rules.exo.repairs import repair_work
from rules.exo.ship import Ship
from rules.state import EncounterState
from tests.test_exo import EXO, _at_phase_5, _damaged


def _panel() -> tuple[EncounterState, PanelModel]:
    state = _at_phase_5(_damaged((1, 3, 5)), {})
    model = build_panel(state, "a", encounter_id=1, phase_no=9, draft=Draft(), submitted=False, owing=True)
    return state, model


def test_phase_5_offers_the_repairs_the_ship_needs_to_its_able_crew() -> None:
    state, model = _panel()
    assert model.step == "repairs"
    ship = state.unit_as("a", Ship)
    items = {w.item for w in repair_work(ship)}
    assert items == {"engines", "weapon"}
    offered = {(dict(o.params)["crew"], o.key) for o in model.repair_options}
    assert ("Tito", "panel.repair.engines") in offered and ("Tito", "panel.repair.weapon") in offered
    assert all(len(o.value) <= 8 for o in (*model.repair_options, *model.station_options))
    assert model.station_options and all(o.value.startswith("s") for o in model.station_options)


def test_the_choices_become_an_order_the_rules_accept_and_forged_values_are_dropped() -> None:
    state, model = _panel()
    tito_engines = next(
        o.value
        for o in model.repair_options
        if dict(o.params)["crew"] == "Tito" and o.key == "panel.repair.engines"
    )
    doc_moves = next(o.value for o in model.station_options if dict(o.params)["crew"] == "Doc")
    chosen = dataclasses.replace(model, draft=Draft(crew=(tito_engines, doc_moves, "r9.e")))
    raw = chosen.raw_order()
    assert raw["repairs"] == [{"by": "Tito", "item": "engines"}]
    assert [s["by"] for s in raw["stations"]] == ["Doc"]
    EXO.validate_order(state, "a", EXO.parse_order(state, "a", raw))
    nothing = dataclasses.replace(model, draft=Draft())
    assert nothing.raw_order() == {"repairs": [], "stations": []}


def test_the_orders_panel_declares_station_changes_for_the_end_of_the_round() -> None:
    """EXO-6.5 from the phase-1 panel: the change rides with the round's orders and happens in phase 5, and the
    phase-5 question still comes for a damaged ship (declaring a station change does not skip its repairs)."""
    from rules.engine import resolve_phase
    from rules.exo.events import StationChanged
    from tests.test_exo import load, ship_toml

    crew = """
crew = [
  { name = "Pilar", station = "pilot", skills = { piloting = 14 } },
  { name = "Tito", station = "technician", skills = { drives = 16 } },
]
"""
    state = load(ship_toml("a", "red", "0810", extra=crew), ship_toml("b", "blue", "1505"))
    state = resolve_phase(EXO, state, {}).state  # the crew step (nobody rolls)
    model = build_panel(state, "a", encounter_id=1, phase_no=2, draft=Draft(), submitted=False, owing=True)
    assert model.step == "orders" and model.station_options
    tito_gunner = next(
        o.value for o in model.station_options if dict(o.params)["crew"] == "Tito" and o.label == "gunner"
    )
    raw = dataclasses.replace(model, draft=Draft(crew=(tito_gunner,))).raw_order()
    assert raw["stations"] == [{"by": "Tito", "station": "gunner"}]
    order = EXO.parse_order(state, "a", raw)
    EXO.validate_order(state, "a", order)
    result = resolve_phase(EXO, state, {"a": order})
    events = list(result.events)
    while result.state.round == state.round:
        result = resolve_phase(EXO, result.state, {})
        events.extend(result.events)
    moved = [e for e in events if isinstance(e, StationChanged)]
    assert [(e.crew, e.to) for e in moved] == [("Tito", "gunner")]
