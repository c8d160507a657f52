"""``hexdirector sim`` / ``validate`` for pbw scenario files: the bundled scenarios against their golden logs, the
DESIGN §7.4 output contract, and refusals of illegal declarations with their rule id (exit status 2).

Regenerate a golden log after an intended rules change with
``.venv/bin/hexdirector sim data/scenarios/pbw-street.toml --json > tests/golden/pbw-street.jsonl`` (and the same
for ``pbw-brawl``), and review the diff.
"""

from __future__ import annotations

import contextlib
import difflib
import io
import json
from pathlib import Path
from typing import Any

import pytest

from bot.process.cli import main
from data import SCENARIO_DIR
from tests.paths import GOLDEN
from tests.pbw_fixtures import person, scenario_text

SCENARIOS = ("pbw-street", "pbw-brawl")


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("name", SCENARIOS)
def test_bundled_scenario_matches_its_golden_log(name: str) -> None:
    code, out, _ = run("sim", str(SCENARIO_DIR / f"{name}.toml"), "--json")
    assert code == 0
    got = out.splitlines()
    expected = (GOLDEN / f"{name}.jsonl").read_text(encoding="utf-8").splitlines()
    if got != expected:
        diff = "\n".join(difflib.unified_diff(expected, got, "expected", "got", lineterm="", n=1))
        raise AssertionError(f"{name} golden log changed:\n{diff[:6000]}")


@pytest.mark.parametrize("name", SCENARIOS)
def test_bundled_scenario_validates_and_reads_in_both_languages(name: str) -> None:
    code, out, _ = run("validate", str(SCENARIO_DIR / f"{name}.toml"))
    assert code == 0 and "ok — pbw" in out
    for lang in ("es", "en"):
        code, out, _ = run("sim", str(SCENARIO_DIR / f"{name}.toml"), "--lang", lang)
        assert code == 0
        assert "{" not in out, "every template found its fields"
        assert "Pbw" not in out and "DeclarationLocked" not in out, "every event has a readable line"


def records(name: str) -> list[dict[str, Any]]:
    lines = (GOLDEN / f"{name}.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines]


def test_golden_logs_cover_every_pbw_rule() -> None:
    every = records("pbw-street") + records("pbw-brawl")
    rules = {r["rule"] for r in every if "rule" in r}
    assert {"PBW-1", "PBW-2", "PBW-3", "PBW-4", "PBW-5"} <= rules
    kinds = {r["type"] for r in every}
    for expected in (
        "DeclarationLocked",
        "PbwIntentionChanged",
        "PbwAthletics",
        "PbwDefence",
        "PbwDisengaged",
        "PbwItemDropped",
        "PbwLocationDisabled",
        "UnitDestroyed",
        "GameOver",
    ):
        assert expected in kinds, expected
    covered = [r for r in every if r["type"] == "PbwAttack" and r["cover"]]
    aimed = [r for r in every if r["type"] == "PbwAttack" and r["aimed"]]
    assert covered and aimed
    assert any(r["type"] == "PbwFatigue" and r["reason"] == "rest" for r in every)


def test_sim_json_carries_the_design_7_4_fields() -> None:
    """DESIGN §7.4: attacks carry unit, target, roll, total, difficulty, hit, location, damage (and the rule);
    ``phase_end`` units carry at, facing, hp, resistance by location, fatigue and state."""
    every = records("pbw-street")
    attack = next(r for r in every if r["type"] == "PbwAttack" and r["hit"])
    assert {"rule", "unit", "target", "roll", "total", "difficulty", "hit", "location", "damage"} <= set(
        attack
    )
    assert attack["rule"] == "PBW-5" and attack["location"] in ("head", "ra", "la", "torso", "rl", "ll")
    end = next(r for r in every if r["type"] == "phase_end")
    unit = end["units"]["ana"]
    assert list(unit) == ["at", "facing", "hp", "resistance", "fatigue", "state"]
    assert list(unit["resistance"]) == ["head", "ra", "la", "torso", "rl", "ll"]
    states = {u["state"] for r in every if r["type"] == "phase_end" for u in r["units"].values()}
    assert states <= {"ok", "prone", "incapacitated", "unconscious", "dead"} and "dead" in states


def test_sim_steps_are_one_per_declaration_and_one_per_segment() -> None:
    phases = [r["phase"] for r in records("pbw-street") if r["type"] == "phase_end" and r["round"] == 1]
    assert phases == [
        "declare-fede",
        "declare-bruno",
        "declare-carla",
        "declare-dario",
        "declare-ana",
        "declare-eva",
        "segment-1",
        "segment-2",
        "segment-3",
    ]


def duel_file(tmp_path: Path, rounds: list[dict[str, Any]], dice: tuple[int, ...] = ()) -> Path:
    text = scenario_text(
        [person("ana", "a", "0303", initiative=6), person("bob", "b", "0310", initiative=2)],
        dice=dice,
        rounds=rounds,
    )
    path = tmp_path / "duel.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_validate_refuses_an_illegal_first_declaration_with_its_rule(tmp_path: Path) -> None:
    bad = {"ana": {"segments": [{"action": "move", "path": ["0304", "0305", "0306", "0307", "0308"]}]}}
    code, _, err = run("validate", str(duel_file(tmp_path, [bad])))
    assert code == 2
    assert "rounds[0].orders.ana" in err and "PBW-2" in err and "at most 4" in err


def test_validate_checks_a_declaration_knowing_the_ones_locked_before_it(tmp_path: Path) -> None:
    """PBW-1: Bob (Initiative 2) declares first; Ana may then strike where Bob's declared move takes him."""
    orders = {
        "bob": {"segments": [{"action": "move", "path": ["0309", "0308", "0307", "0306"]}]},
        "ana": {
            "segments": [{"action": "move", "path": ["0304", "0305"]}, {"action": "melee", "target": "bob"}]
        },
    }
    code, _, err = run("validate", str(duel_file(tmp_path, [orders])))
    assert code == 0, err
    code, out, err = run("sim", str(duel_file(tmp_path, [orders])), "--json")
    assert code == 0, err
    attack = next(json.loads(line) for line in out.splitlines() if '"PbwAttack"' in line)
    assert (attack["unit"], attack["target"], attack["kind"]) == ("ana", "bob", "melee")


def test_sim_refuses_an_illegal_declaration_naming_unit_round_and_rule(tmp_path: Path) -> None:
    rounds = [{}, {"ana": {"segments": [{"action": "rest"}, {"action": "shoot", "target": "bob"}]}}]
    code, _, err = run("sim", str(duel_file(tmp_path, rounds)))
    assert code == 2
    assert "error: round 2: unit ana:" in err and "[PBW-3]" in err


def test_sim_plays_a_scripted_change_of_intention(tmp_path: Path) -> None:
    orders = {
        "ana": {
            "segments": [{"action": "shoot", "target": "bob"}] * 3,
            "change": [{"segment": 2, "action": "move", "path": ["0304"]}],
        }
    }
    code, out, _ = run("sim", str(duel_file(tmp_path, [orders])), "--json")
    assert code == 0
    got = [json.loads(line) for line in out.splitlines()]
    change = next(r for r in got if r["type"] == "PbwIntentionChanged")
    assert (change["phase"], change["segment"], change["forfeited"]) == ("segment-2", 2, 3)
    assert [r["to"] for r in got if r["type"] == "UnitMoved"] == ["0304"]
    assert sum(1 for r in got if r["type"] == "PbwAttack") == 1


def test_sim_refuses_a_change_nothing_can_pay_for(tmp_path: Path) -> None:
    """PBW-2: a change costs one action. Shoot, skip, skip: the second skipped segment pays for turning the first
    into a move. Shoot, shoot, skip: the skipped segment is the third action itself, nothing is left to pay."""
    shoot = {"action": "shoot", "target": "bob"}
    payable = {"ana": {"segments": [shoot], "change": [{"segment": 2, "action": "move", "path": ["0304"]}]}}
    code, _, err = run("sim", str(duel_file(tmp_path, [payable])))
    assert code == 0, err
    unpaid = {
        "ana": {"segments": [shoot, shoot], "change": [{"segment": 3, "action": "move", "path": ["0304"]}]}
    }
    code, _, err = run("sim", str(duel_file(tmp_path, [unpaid])))
    assert code == 2 and "[PBW-2]" in err and "no action left" in err


def test_validate_reports_bad_characters(tmp_path: Path) -> None:
    unit = person("ana", "a", "0303", weapons=[{"type": "laser"}], resistance={"head": 6})
    unit["skills"] = {"piloting": 3}
    text = scenario_text([unit, person("bob", "b", "0303")], terrain={"0505": "lava"})
    path = tmp_path / "bad.toml"
    path.write_text(text, encoding="utf-8")
    code, _, err = run("validate", str(path))
    assert code == 2
    for expected in ("unknown weapon 'laser'", "resistance.ra: is required", "unknown key 'piloting'"):
        assert expected in err
    text = scenario_text([person("ana", "a", "0303"), person("bob", "b", "0303")], terrain={"0505": "lava"})
    path.write_text(text, encoding="utf-8")
    code, _, err = run("validate", str(path))
    assert code == 2 and "already taken by ana" in err and "unknown terrain 'lava'" in err
