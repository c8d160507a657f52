"""``hexdirector validate`` agrees with ``hexdirector sim``: a file ``validate`` passes never stops ``sim`` with a
traceback, and neither command ever prints one. Every registered ruleset and layer (from the registry) is given
hostile files: off-board hexes, negative and huge numbers, wrong types, empty lists, unicode, duplicate ids."""

from __future__ import annotations

import io
import re
import tempfile
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.process.cli import main
from data import SCENARIO_DIR
from tests.hostile_fixtures import base_scenario, combinations, hostile, to_toml

#: what the commands print when a fault of ours, not the file, stopped them: never expected
FAULTS = ("could not be checked", "engine stopped", "Traceback")


def run(argv: list[str]) -> tuple[int, str]:
    """The command's exit code and what it wrote to stderr; an exception escaping it fails the test."""
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(argv)
    return code, err.getvalue()


def problem_lines(path: Path, err: str) -> list[str]:
    """stderr's problem lines (``FILE:LINE: …``): every line but ``validate``'s count at the end."""
    lines = [line for line in err.splitlines() if line]
    return [line for line in lines if not re.fullmatch(r"\d+ problem\(s\) in .*", line)]


def assert_located(path: Path, err: str) -> None:
    lines = problem_lines(path, err)
    assert lines, err
    for line in lines:
        assert re.match(rf"{re.escape(str(path))}:\d+: ", line), f"a problem line without its line: {line!r}"
    assert not any(fault in err for fault in FAULTS), err


def night_patrol_with_flare(label: str) -> str:
    text = (SCENARIO_DIR / "skirmish-night.toml").read_text(encoding="utf-8")
    assert 'flares = ["0702"]' in text
    return text.replace('flares = ["0702"]', f'flares = ["{label}"]')


@pytest.mark.parametrize("command", ["validate", "sim"])
@pytest.mark.parametrize("label", ["-101", "9999", "0a0a"])
def test_ngt_3_a_flare_aimed_off_the_board_is_a_problem_line_for_validate_and_sim(
    tmp_path: Path, command: str, label: str
) -> None:
    """A round-1 flare at ``-101`` got "ok" from ``validate`` and a traceback from ``sim``: both now refuse the
    file the same way, naming the line of the round's ``night`` table."""
    path = tmp_path / "night.toml"
    path.write_text(night_patrol_with_flare(label), encoding="utf-8")
    line = next(i for i, text in enumerate(path.read_text().splitlines(), 1) if text.startswith("night = {"))
    code, err = run([command, str(path)])
    assert code == 2, err
    assert_located(path, err)
    assert f"{path}:{line}: rounds[0].night.flares[0]: " in err, err


def test_ngt_3_a_round_not_read_by_the_loader_is_refused_by_sim_not_crashed() -> None:
    """A round's lights are read by one reader whether the loader checked them or not: ``sim`` on a round
    built by hand says what is wrong with it and exits 2."""
    from bot.process.cli import simulate
    from rules.ruleset import RoundSpec
    from rules.scenario import load_scenario

    scenario = load_scenario(night_patrol_with_flare("0702"))
    bad = RoundSpec(index=1, raw={"night": {"flares": ["-101"]}})
    hand_built = type(scenario)(scenario.state, (bad,), scenario.description)
    err = io.StringIO()
    with redirect_stderr(err):
        assert simulate(hand_built, stream=io.StringIO()) == 2
    assert "error: round 1:" in err.getvalue() and not any(f in err.getvalue() for f in FAULTS)


@pytest.mark.parametrize(
    ("ruleset", "layers"), combinations(), ids=["+".join((rid, *layers)) for rid, layers in combinations()]
)
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_a_hostile_scenario_is_refused_by_validate_with_its_lines_or_plays_in_sim(
    ruleset: str, layers: tuple[str, ...], data: st.DataObject
) -> None:
    doc: dict[str, Any] = data.draw(hostile(base_scenario(ruleset, layers)))
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "hostile.toml"
        path.write_text(to_toml(doc), encoding="utf-8")
        code, err = run(["validate", str(path)])
        assert code in (0, 2), err
        if code == 2:
            assert_located(path, err)
            return
        code, err = run(["sim", str(path)])
        assert code in (0, 2), err
        if code == 2:
            assert_located(path, err)


@pytest.mark.parametrize(
    ("ruleset", "layers", "change"),
    [
        ("exo", (), lambda d: d["units"][0].update(facing={"a": 1})),
        ("skirmish", (), lambda d: d["rounds"][0].update(draw=[["alpha"]])),
        ("skirmish", (), lambda d: d["rounds"][0].update(reactions=[{"by": ["kara"], "answer": "fire"}])),
        ("ocs", (), lambda d: d["rounds"][0]["orders"]["combat"][0].update(ar_attacker=["pz21"])),
        ("ocs", (), lambda d: d["rounds"][0]["orders"].update(move=[{"unit": {"id": "pz21"}, "to": "0605"}])),
        ("ocs", (), lambda d: d["units"].append(d["units"][0])),
        ("skirmish", ("night",), lambda d: d["rounds"][0].update(night={"flares": ["0702"], "\n": 1})),
    ],
    ids=[
        "facing-table",
        "chit-list",
        "reaction-by-list",
        "ar-list",
        "move-unit-table",
        "duplicate-id",
        "newline",
    ],
)
def test_a_value_of_the_wrong_kind_is_a_problem_with_its_line(
    tmp_path: Path, ruleset: str, layers: tuple[str, ...], change: Any
) -> None:
    """Cases the property found: a list or a table where an id or a facing belongs stopped ``validate`` with a
    TypeError; a key with a newline split a problem over two lines."""
    doc = base_scenario(ruleset, layers)
    change(doc)
    path = tmp_path / "odd.toml"
    path.write_text(to_toml(doc), encoding="utf-8")
    code, err = run(["validate", str(path)])
    assert code == 2, err
    assert_located(path, err)


def test_a_fault_outside_a_round_is_one_line_not_a_traceback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Drawing the starting board (``sim --out``) is outside every round: a fault there is still one line."""
    import render.files

    def broken(*_: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(render.files, "write_step_images", broken)
    code, err = run(["sim", str(SCENARIO_DIR / "exo-duel.toml"), "--out", str(tmp_path), "--lang", "es"])
    assert (
        code == 1
        and err.strip() == "hexdirector se detuvo (OSError: disk full); avísanos y adjunta el archivo"
    )


@pytest.mark.parametrize("lang", ["en", "es"])
def test_dice_1_a_scripted_die_with_a_face_the_roll_lacks_is_the_files_problem_not_an_engine_fault(
    tmp_path: Path, lang: str
) -> None:
    """A case the property found: ``dice = [7]`` is a fine d10 for skirmish, but the night's first roll is the
    wind's d6 (NGT-1): ``sim`` said the engine stopped; it is the file's dice list that is wrong."""
    doc = base_scenario("skirmish", ("night",))
    doc["dice"] = [7]
    path = tmp_path / "dice.toml"
    path.write_text(to_toml(doc), encoding="utf-8")
    assert run(["validate", str(path)])[0] == 0
    code, err = run(["sim", "--lang", lang, str(path)])
    assert code == 2, err
    assert_located(path, err)
    assert "d6" in err and "7" in err, err
