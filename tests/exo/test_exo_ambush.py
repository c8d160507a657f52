"""The bundled ``exo-ambush`` (listed in the README): a scenario with a hidden unit (FOG-1) whose corsairs' view
``make demo`` copies into the README as its fog screenshot."""

from __future__ import annotations

import re
from pathlib import Path

from data import SCENARIO_DIR
from render import BoardSnapshot
from render.board import trace_board
from render.files import write_step_images
from rules.registry import ruleset_for
from rules.ruleset import DIRECTOR, DiceFactory, SimStep
from rules.scenario import load_scenario
from tests.paths import ROOT

AMBUSH = SCENARIO_DIR / "exo-ambush.toml"


def play() -> list[SimStep]:
    scenario = load_scenario(AMBUSH)
    state, steps = scenario.state, list[SimStep]()
    for spec in scenario.rounds:
        for step in ruleset_for(state).simulate_round(state, spec, DiceFactory()):
            steps.append(step)
            state = step.state
    return steps


def test_the_ambush_hides_the_escort_from_the_corsairs_all_game_FOG_1() -> None:
    scenario = load_scenario(AMBUSH)
    assert [u.id for u in scenario.state.units.values() if u.hidden] == ["sombra"]
    steps = play()
    assert [(s.round, s.phase) for s in steps][-1] == (2, "5")  # every scripted round plays
    combat = next(s for s in steps if (s.round, s.phase) == (2, "2"))
    snapshot = BoardSnapshot(combat.state, combat.events, step=(2, "2"))
    red = trace_board(snapshot, viewer="red")
    seen = trace_board(snapshot, viewer=DIRECTOR)
    assert "sombra" in seen.counters and "sombra" not in red.counters
    assert {"halcon", "cuervo", "correo"} <= set(red.counters)
    assert all("sombra" not in (m.shooter, m.target) for m in red.shots)
    assert any(m.shooter == "sombra" for m in seen.shots)  # the escort did fire: only the corsairs miss it


def test_sim_out_writes_each_sides_view_while_a_unit_is_hidden(tmp_path: Path) -> None:
    step = play()[6]  # round 2, phase 2
    assert (step.round, step.phase) == (2, "2")
    written = {p.name for p in write_step_images(tmp_path, step)}
    assert written == {"r02-p2.png", "r02-p2-director.png", "r02-p2-red.png", "r02-p2-blue.png"}


def test_make_demo_copies_the_ambushs_red_view_into_the_readme() -> None:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    demo = makefile.split("\ndemo:", 1)[1].split("\n\n", 1)[0]
    assert re.search(r"cp demo-out/exo-ambush/r02-p2-red\.png docs/images/exo-fogged-red-view\.png", demo)
    assert "docs/images/exo-fogged-red-view.png" in (ROOT / "README.md").read_text(encoding="utf-8")
