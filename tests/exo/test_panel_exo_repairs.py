"""The exo phase-5 panel (bot/panels/exo.py): after the damage, a damaged ship's crew is offered the repairs the
rules can attempt (EXO-6.1, EXO-6.4) and station changes (EXO-6.5); what the player picks becomes an order the
rules accept, and a value that was not offered (a forged draft) is dropped. A pilot busy after a repair writes
no movement the next round (EXO-6.2)."""

from __future__ import annotations

import dataclasses

import pytest

from bot.panels import exo as exo_panel
from bot.panels.draft import Draft
from bot.panels.model import Button, PanelModel
from rules.errors import IllegalOrderError
from rules.exo.model import Ship
from rules.exo.repairs import repair_work
from rules.state import EncounterState
from tests.exo_fixtures import EXO, at_phase_5, damaged


def _panel(draft: Draft | None = None) -> tuple[EncounterState, PanelModel]:
    state = at_phase_5(damaged((1, 3, 5)), {})
    model = exo_panel.build_panel(state, "a", draft=draft or Draft(), owing=True)
    return state, model


def test_phase_5_offers_the_repairs_the_ship_needs_to_its_able_crew() -> None:
    state, model = _panel()
    assert model.step == "repairs"
    ship = state.unit_as("a", Ship)
    items = {w.item for w in repair_work(ship)}
    assert items == {"engines", "weapon"}
    offered = {(o.param("crew"), o.key) for o in model.options("repairs")}
    assert ("Tito", "panel.repair.engines") in offered and ("Tito", "panel.repair.weapon") in offered
    stations = model.options("stations")
    assert all(len(o.value) <= 8 for o in (*model.options("repairs"), *stations))
    assert stations and all(o.value.startswith("s") for o in stations)


def test_the_choices_become_an_order_the_rules_accept_and_forged_values_are_dropped() -> None:
    state, model = _panel()
    tito_engines = next(
        o.value
        for o in model.options("repairs")
        if o.param("crew") == "Tito" and o.key == "panel.repair.engines"
    )
    doc_moves = next(o.value for o in model.options("stations") if o.param("crew") == "Doc")
    _, chosen = _panel(Draft(repairs=[tito_engines, "r9.e"], stations=[doc_moves]))
    raw = exo_panel.raw_order(chosen)
    assert raw["repairs"] == [{"by": "Tito", "item": "engines"}]
    assert [s["by"] for s in raw["stations"]] == ["Doc"]
    EXO.validate_order(state, "a", EXO.parse_order(state, "a", raw))
    assert exo_panel.draft_from_raw(state, "a", raw) == chosen.draft, (
        "a reopened panel shows the same choices"
    )
    forged = dataclasses.replace(model, draft=Draft(repairs=["r9.e"], stations=["s9.1"]))
    assert exo_panel.raw_order(forged) == {"repairs": [], "stations": []}
    assert exo_panel.raw_order(model) == {"repairs": [], "stations": []}


def test_the_orders_panel_declares_station_changes_for_the_end_of_the_round() -> None:
    """EXO-6.5 from the phase-1 panel: the change rides with the round's orders and happens in phase 5, and the
    phase-5 question still comes for a damaged ship (declaring a station change does not skip its repairs)."""
    from rules.engine import resolve_phase
    from rules.exo.events import StationChanged
    from tests.exo_fixtures import load, ship_toml

    crew = """
crew = [
  { name = "Pilar", station = "pilot", skills = { piloting = 14 } },
  { name = "Tito", station = "technician", skills = { drives = 16 } },
]
"""
    state = load(ship_toml("a", "red", "0810", extra=crew), ship_toml("b", "blue", "1505"))
    state = resolve_phase(EXO, state, {}).state  # the crew step (nobody rolls)
    model = exo_panel.build_panel(state, "a", draft=Draft(), owing=True)
    assert model.step == "orders" and model.options("stations")
    tito_gunner = next(
        o.value for o in model.options("stations") if o.param("crew") == "Tito" and o.label == "gunner"
    )
    chosen = exo_panel.build_panel(state, "a", draft=Draft(stations=[tito_gunner]), owing=True)
    raw = exo_panel.raw_order(chosen)
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


def test_a_pilot_busy_after_a_repair_gets_no_movement_buttons_exo_6_2() -> None:
    """The bug: with the pilot repairing, I/D/A stayed enabled and Submit answered [EXO-6.2]. Now the panel
    offers no movement letter, and what it does offer passes the rules."""
    from rules.engine import resolve_phase
    from tests.exo_fixtures import load, ship_toml

    crew = """
crew = [
  { name = "Pilar", station = "pilot", skills = { piloting = 14, drives = 12 } },
  { name = "Tito", station = "gunner", skills = { gunnery = 12 } },
]
"""
    state = load(ship_toml("a", "red", "0810", extra=crew), ship_toml("b", "blue", "1505"))
    state = resolve_phase(EXO, state, {}).state.replace(round=2)  # round 2's orders, after the crew step
    ship = state.unit_as("a", Ship)
    crew = tuple(dataclasses.replace(c, repaired_round=1) if c.name == "Pilar" else c for c in ship.crew)
    state = state.with_units([dataclasses.replace(ship, crew=crew)])
    with pytest.raises(IllegalOrderError, match="no pilot"):  # what Submit answered
        EXO.validate_order(state, "a", EXO.parse_order(state, "a", {"move": "D", "fire": []}))
    model = exo_panel.build_panel(state, "a", draft=Draft(move="DA"), owing=True)
    assert model.step == "orders"
    letters = [c for c in model.controls if isinstance(c, Button) and c.action in ("I", "D", "A")]
    assert len(letters) == 3 and not any(b.enabled for b in letters)
    assert model.draft.text("move") == "", "a stored draft's letters are dropped too"
    pressed = exo_panel.apply(model, "D", None)
    assert pressed.text("move") == "", "a forged press of a disabled letter writes nothing"
    raw = exo_panel.raw_order(model)
    EXO.validate_order(state, "a", EXO.parse_order(state, "a", raw))
