"""Scenario files (DESIGN §7) and ``hexdirector validate``: every problem at once, with key path and line."""

from __future__ import annotations

from pathlib import Path

import pytest

import tests.toy_ruleset  # noqa: F401  (registers the toy rulesets)
from bot.process.cli import main
from data.i18n import phrase_text, problem_text
from rules.errors import ScenarioError
from rules.hexgrid import Hex
from rules.scenario import load_scenario

GOOD = """
ruleset = "toy-sim"
name = "Duel at Kessel"
seed = 7
dice = [4, 5, 2]

[board]
width = 12
height = 10
terrain = { "0507" = "asteroid", "6,8" = "woods" }

[[sides]]
id = "red"
name = "Corsairs"
color = "#c03030"

[[sides]]
id = "blue"
name = "Patrol"

[[units]]
id = "halcon"
side = "red"
at = "0505"
facing = "NE"
initiative = 3

[[units]]
id = "pirata"
side = "blue"
at = "9,4"
facing = 3

[[rounds]]
orders = { halcon = "move 0605" }
"""

THREE_MISTAKES = """
ruleset = "toy-sim"
name = "Broken"

[board]
width = 12
height = 10

[[sides]]
id = "red"

[[units]]
id = "halcon"
side = "red"
at = "0505"
facng = "N"

[[units]]
id = "pirata"
side = "green"
at = "2020"
"""


def test_good_scenario_builds_the_state() -> None:
    sc = load_scenario(GOOD)
    s = sc.state
    assert s.ruleset == "toy-sim" and s.name == "Duel at Kessel" and s.seed == 7
    assert s.dice_script == (4, 5, 2)
    assert s.board.width == 12 and s.board.terrain[Hex.parse("0507")] == "asteroid"
    assert s.board.terrain[Hex.from_offset(6, 8)] == "woods"
    assert s.unit("halcon").at == Hex.parse("0505") and s.unit("halcon").facing == 1
    assert s.unit("pirata").at == Hex.from_offset(9, 4) and s.unit("pirata").facing == 3
    assert s.side("red").color == "#c03030"
    assert len(sc.rounds) == 1 and sc.rounds[0].raw["orders"] == {"halcon": "move 0605"}


def test_cli_overrides_seed_and_dice() -> None:
    sc = load_scenario(GOOD, dice=(1, 2), seed=99)
    assert sc.state.seed == 99 and sc.state.dice_script == (1, 2)


def test_every_problem_is_reported_with_path_and_line() -> None:
    with pytest.raises(ScenarioError) as err:
        load_scenario(THREE_MISTAKES)
    problems = err.value.problems
    text = "\n".join(problem_text(p) for p in problems)
    assert len(problems) == 3, text
    by_path = {p.path: p for p in problems}
    assert "did you mean 'facing'" in phrase_text(by_path["units[0].facng"])
    assert by_path["units[0].facng"].line == 16
    assert "unknown side 'green'" in phrase_text(by_path["units[1].side"])
    assert by_path["units[1].side"].line == 20
    assert "outside the 12×10 board" in phrase_text(by_path["units[1].at"])
    assert by_path["units[1].at"].line == 21


@pytest.mark.parametrize(
    ("snippet", "expected"),
    [
        ('ruleset = "chess"\nname = "x"\n[[sides]]\nid = "a"\n', "unknown ruleset 'chess'"),
        (
            'ruleset = "toy-sim"\nname = "x"\ndice = [0, 11]\n[board]\nwidth = 3\nheight = 3\n[[sides]]\nid = "a"\n',
            "dice[0]",
        ),
        (
            'ruleset = "toy-sim"\nname = 3\n[board]\nwidth = 3\nheight = 3\n[[sides]]\nid = "a"\n',
            "expected text",
        ),
        (
            'ruleset = "toy-sim"\nname = "x"\n[board]\nwidth = true\nheight = 3\n[[sides]]\nid = "a"\n',
            "expected a whole number",
        ),
        ('ruleset = "toy-sim"\nname = "x"\n[[sides]]\nid = "a"\n', "[board] table"),
        (
            'ruleset = "toy-sim"\nname = "x"\n[board]\nwidth = 3\nheight = 3\n[[sides]]\nid = "a"\n[[sides]]\nid = "a"\n',
            "duplicate side",
        ),
        (
            'ruleset = "toy-sim"\nname = "x"\n[board]\nwidth = 3\nheight = 3\n[[sides]]\nid = "a"\n[[units]]\nid = "u"\nside = "a"\nat = "0101"\nfacing = "UP"\n',
            "bad facing",
        ),
        ('ruleset = "toy-sim"\nname = [x\n', "not valid TOML"),
    ],
)
def test_each_kind_of_mistake_has_a_clear_message(snippet: str, expected: str) -> None:
    with pytest.raises(ScenarioError) as err:
        load_scenario(snippet)
    assert expected in "\n".join(problem_text(p) for p in err.value.problems)


def test_validate_cli_reports_all_three_and_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text(THREE_MISTAKES, encoding="utf-8")
    assert main(["validate", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.count("bad.toml:") == 3
    assert "bad.toml:16: units[0].facng" in err
    assert "3 problem(s)" in err


def test_validate_cli_accepts_a_good_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = tmp_path / "good.toml"
    good.write_text(GOOD, encoding="utf-8")
    assert main(["validate", str(good)]) == 0
    assert "ok" in capsys.readouterr().out


def test_validate_cli_missing_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", str(tmp_path / "nope.toml")]) == 2
    assert "file not found" in capsys.readouterr().err


def test_sim_cli_runs_the_toy_rounds(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = tmp_path / "good.toml"
    good.write_text(GOOD, encoding="utf-8")
    assert main(["sim", str(good), "--json"]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    assert '"type": "UnitMoved"' in out[0] and '"to": "0605"' in out[0]
    assert '"type": "phase_end"' in out[-1]


def test_sim_cli_illegal_order_exits_2_naming_unit_and_round(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text(GOOD.replace('move 0605"', 'move 0909"'), encoding="utf-8")
    assert main(["sim", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "round 1" in err and "unit halcon" in err and "TOY-1" in err


def test_a_scenario_text_is_parsed_once_and_each_load_builds_from_its_own_copy() -> None:
    """Opening encounter after encounter of the same bundled scenario parsed its TOML twice each time
    (the seed check, then the scenario) in pure Python; the parse is kept, and every load gets its own copy."""
    from rules import scenario as sc

    text = (Path(__file__).resolve().parents[2] / "data" / "scenarios" / "exo-duel.toml").read_text("utf-8")
    sc._parsed.cache_clear()  # pyright: ignore[reportPrivateUsage]
    assert sc.names_seed(text)
    first = sc.load_scenario(text, seed=7)
    kept = sc._parsed(text)  # pyright: ignore[reportPrivateUsage]
    kept_before = repr(kept)
    second = sc.load_scenario(text, seed=7)
    info = sc._parsed.cache_info()  # pyright: ignore[reportPrivateUsage]
    assert (info.misses, info.hits) == (1, 3)
    assert first.state == second.state
    assert repr(kept) == kept_before  # building a scenario changed nothing in the kept parse
    assert not sc.names_seed("not = [toml")  # a text that does not parse names no seed (load says why)
    long_file = "seed = 3\n" + "#" * sc.KEPT_TEXT_CHARS + "\n"  # an upload: parsed, not kept
    assert sc.names_seed(long_file)
    assert sc._parsed.cache_info().currsize == 1  # pyright: ignore[reportPrivateUsage]
