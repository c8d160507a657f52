"""``hexdirector sim`` / ``validate`` for skirmish scenario files (the SK-8 example, errors, the corridor)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.cli import main
from data import SCENARIO_DIR
from rules.errors import ScenarioError
from rules.scenario import load_scenario
from tests.test_skirmish_support import char, scenario_text

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
    }
    assert end["units"]["veddio"] == {
        "at": "0304",
        "facing": "NE-SE",
        "ap_left": 0,
        "wounds": 0,
        "alive": True,
        "astride": None,
    }
    assert records[-2]["type"] == "GameOver" and records[-2]["winner"] == "rfp"


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
    found = "\n".join(p.text() for p in err.value.problems)
    for expected in ("mixes sides", "at most 5", "unknown terrain 'lava'"):
        assert expected in found


def test_validate_reports_bad_rounds() -> None:
    units = [char("a", "rfp", "alpha", "0101"), char("z", "tyr", "zulu", "0909")]
    rounds = '\n[[rounds]]\ndraw = ["nobody"]\nactions = { a = ["jump"], ghost = ["end"] }\n'
    rounds += 'reactions = [{ by = "z", answer = "maybe" }]\n'
    with pytest.raises(ScenarioError) as err:
        load_scenario(scenario_text(units, rounds=rounds))
    found = "\n".join(p.text() for p in err.value.problems)
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
