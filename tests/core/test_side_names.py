"""Scenario sides named per language, like the scenario's own name: ``name = { es = "…", en = "…" }``."""

from __future__ import annotations

from data import SCENARIO_DIR
from rules.scenario import ScenarioError, load_scenario
from rules.serial import from_json, to_json
from rules.state import Side

DUEL = (SCENARIO_DIR / "exo-duel.toml").read_text(encoding="utf-8")


def test_a_side_named_per_language_reads_in_each_and_resolves_like_the_scenario_name() -> None:
    state = load_scenario(DUEL).state
    red = state.side("red")
    assert (red.name_in("es"), red.name_in("en-GB"), red.name_in("fr")) == (
        "Corsarios",
        "Corsairs",
        "Corsairs",
    )
    assert red.name == "Corsarios"  # no reader named: the file's first, as logs and exports keep it
    assert load_scenario(DUEL, lang="en").state.side("red").name == "Corsairs"


def test_a_side_named_once_reads_the_same_in_every_language() -> None:
    state = load_scenario((SCENARIO_DIR / "skirmish-corridor.toml").read_text(encoding="utf-8")).state
    side = state.sides[0]
    assert side.names == () and side.name_in("en") == side.name_in("es") == side.name == "RFP"


def test_a_side_name_in_an_unknown_language_is_a_problem_at_its_place() -> None:
    text = DUEL.replace(
        'name = { es = "Corsarios", en = "Corsairs" }', 'name = { es = "Corsarios", fr = "x" }'
    )
    try:
        load_scenario(text)
    except ScenarioError as exc:
        assert any(p.path == "sides[0].name.fr" for p in exc.problems), exc.problems
    else:
        raise AssertionError("an unknown language was accepted")


def test_a_side_keeps_its_languages_through_a_snapshot_and_old_snapshots_still_read() -> None:
    red = load_scenario(DUEL).state.side("red")
    assert from_json(to_json(red)) == red
    old = {k: v for k, v in to_json(Side("red", "Corsarios")).items() if k != "names"}
    assert from_json(old) == Side("red", "Corsarios")
