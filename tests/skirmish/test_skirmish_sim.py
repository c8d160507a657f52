"""``hexdirector sim`` / ``validate`` for skirmish scenario files (the SK-8 example, errors, the corridor)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.process.cli import main
from data import SCENARIO_DIR
from data.i18n import problem_text
from rules.errors import ScenarioError
from rules.scenario import load_scenario
from tests.skirmish_fixtures import char, scenario_text

CORRIDOR = SCENARIO_DIR / "skirmish-corridor.toml"

SK8_ROUND = """
[[rounds]]
draw = ["alpha", "bravo"]
actions = { veddio = ["shoot tyrano", "shoot tyrano", "shoot tyrano"] }
"""


def sk8_file(tmp_path: Path, rounds: str = SK8_ROUND) -> Path:
    text = scenario_text(
        [
            char("veddio", "rfp", "alpha", "0304", "NE-SE", ap=6, ranged=17),
            char("tyrano", "tyr", "bravo", "0804", "SW-NW", resistance=7, wounds=3),
        ],
        dice=[4, 5, 2, 3, 9, 1, 1, 9, 7],
        rounds=rounds,
    )
    path = tmp_path / "sk8.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_sk_8_worked_example_through_sim_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sim", str(sk8_file(tmp_path)), "--json"]) == 0
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    wounds = [(r["damage"], r["wounds"]) for r in records if r["type"] == "SkWounded"]
    assert wounds == [(7, 0), (10, 1), (16, 2)]
    end = [r for r in records if r["type"] == "phase_end"][-1]
    assert end["units"]["tyrano"] == {
        "at": "0804",
        "facing": "SW-NW",
        "ap_left": 0,
        "wounds": 3,
        "alive": False,
        "astride": None,
        "overwatch": None,
        "overwatch_shots_left": 0,
    }
    assert end["units"]["veddio"] == {
        "at": "0304",
        "facing": "NE-SE",
        "ap_left": 0,
        "wounds": 0,
        "alive": True,
        "astride": None,
        "overwatch": None,
        "overwatch_shots_left": 0,
    }
    assert records[-2]["type"] == "GameOver" and records[-2]["winner"] == "rfp"


def test_sk_1_1_actions_listed_after_the_end_are_reported_cancelled(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rounds = '\n[[rounds]]\ndraw = ["alpha", "bravo"]\nactions = { veddio = ["shoot tyrano", "shoot tyrano", "shoot tyrano", "shoot tyrano"], tyrano = ["turn N-NE"] }\n'
    assert main(["sim", str(sk8_file(tmp_path, rounds)), "--json"]) == 0
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    notes = [(r["key"], r["unit"], r["args"]["count"]) for r in records if r["type"] == "Note"]
    assert notes == [("sk_actions_game_over", "veddio", 1), ("sk_actions_game_over", "tyrano", 1)]


def test_phase_end_shows_markers_and_overwatch(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Fire markers (SK-6.2), equipment markers (SK-3.4) and each character's overwatch policy and shots left
    (SK-4.1): enough to check a game from outside."""
    text = scenario_text(
        [
            char("veddio", "rfp", "alpha", "0304", "NE-SE", ap=7, ranged=17, action=14),
            char("tyrano", "tyr", "bravo", "0804", "SW-NW", resistance=3, wounds=2),
            char("kara", "tyr", "bravo", "1004", "SW-NW"),
        ],
        dice=[
            3,
            4,
            2,
        ],  # the grenade: 9 ≤ 14, hit; 12 in 0804 kills tyrano (R3, 2 boxes); fire for dE 3 rounds
        rounds='\n[[rounds]]\ndraw = ["alpha", "bravo"]\nactions = { veddio = ["grenade tyrano", "overwatch ask"] }\n',
    )
    path = tmp_path / "markers.toml"
    path.write_text(text, encoding="utf-8")
    assert main(["sim", str(path), "--json"]) == 0
    ends = [json.loads(line) for line in capsys.readouterr().out.splitlines() if '"phase_end"' in line]
    first = ends[0]
    assert (
        first["units"]["veddio"]["overwatch"] == "ask"
        and first["units"]["veddio"]["overwatch_shots_left"] == 3
    )
    assert first["units"]["kara"]["overwatch"] is None and first["units"]["kara"]["overwatch_shots_left"] == 0
    fires = sorted(m["at"] for m in first["markers"] if m["kind"] == "fire")
    assert len(fires) == 7 and "0804" in fires
    assert {m["until_round"] for m in first["markers"] if m["kind"] == "fire"} == {4}
    assert [m for m in first["markers"] if m["kind"] == "equipment"] == [
        {"kind": "equipment", "at": "0804", "owner": "tyrano", "until_round": None}
    ]


def test_illegal_action_exits_2_naming_character_round_and_rule(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = '\n[[rounds]]\nactions = { veddio = ["move 0505"] }\n'
    assert main(["sim", str(sk8_file(tmp_path, bad))]) == 2
    err = capsys.readouterr().err
    assert "error: round 1: unit veddio:" in err and "[SK-2.2]" in err


def test_validate_reports_bad_units_groups_and_terrain() -> None:
    units = [char(f"c{i}", "rfp", "alpha", f"0{i + 1}01") for i in range(6)]
    units.append(char("z", "tyr", "alpha", "0909"))
    with pytest.raises(ScenarioError) as err:
        load_scenario(scenario_text(units, terrain={"0505": "lava"}))
    found = "\n".join(problem_text(p) for p in err.value.problems)
    for expected in ("mixes sides", "at most 5", "unknown terrain 'lava'"):
        assert expected in found


def test_validate_reports_bad_rounds() -> None:
    units = [char("a", "rfp", "alpha", "0101"), char("z", "tyr", "zulu", "0909")]
    rounds = '\n[[rounds]]\ndraw = ["nobody"]\nactions = { a = ["jump"], ghost = ["end"] }\n'
    rounds += 'reactions = [{ by = "z", answer = "maybe" }]\n'
    with pytest.raises(ScenarioError) as err:
        load_scenario(scenario_text(units, rounds=rounds))
    found = "\n".join(problem_text(p) for p in err.value.problems)
    for expected in (
        "unknown unit 'nobody'",
        "unknown action 'jump'",
        "unknown character 'ghost'",
        "'maybe'",
    ):
        assert expected in found


def test_corridor_validates_and_simulates(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", str(CORRIDOR)]) == 0
    assert main(["sim", str(CORRIDOR), "--json"]) == 0
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines() if line.startswith("{")]
    kinds = {r["type"] for r in records}
    assert {
        "SkChitDrawn",
        "ShotResolved",
        "UnitMoved",
        "SkOverwatchSet",
        "SkRoundEnded",
        "phase_end",
    } <= kinds
    assert any(r["type"] == "ShotResolved" and r["weapon"] == "overwatch" for r in records)
    ends = [r for r in records if r["type"] == "phase_end"]
    assert all(
        set(u) >= {"at", "facing", "ap_left", "wounds", "alive"} for r in ends for u in r["units"].values()
    )


def test_corridor_writes_board_images(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("render.files")
    from PIL import Image

    assert main(["sim", str(CORRIDOR), "--out", str(tmp_path)]) == 0
    pngs = sorted(tmp_path.glob("*.png"))
    assert len(pngs) >= 4
    for png in pngs[:3]:
        with Image.open(png) as img:
            img.verify()
