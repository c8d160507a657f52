"""The public contract of DESIGN §7.2 through the real CLI: scenario keys, dice order, ``sim --json`` fields, the
bundled desert battle and its golden log, ``validate`` and ``sim`` exit codes.

Regenerate the golden log after an intended rules change with
``.venv/bin/hexdirector sim data/scenarios/ocs-gazala.toml --json > tests/golden/ocs-gazala.jsonl`` and review
the diff.
"""

from __future__ import annotations

import contextlib
import difflib
import io
import json
from pathlib import Path
from typing import Any

import pytest

from bot.process.cli import main as cli_main
from rules.hexgrid import Hex
from rules.ocs.model import OcsUnit
from rules.scenario import load_scenario
from tests.paths import ROOT

GAZALA = ROOT / "data" / "scenarios" / "ocs-gazala.toml"
GOLDEN = ROOT / "tests" / "golden" / "ocs-gazala.jsonl"

HEADER = """ruleset = "ocs"
name = "test"
[board]
width = 10
height = 10
terrain = { "0606" = "close", "0707" = "very_close" }
hedgehog = { "0606" = 2 }
[[sides]]
id = "axis"
[[sides]]
id = "allies"
"""


def _unit(uid: str, side: str, at: str, strength: float, ar: int, steps: int, extra: str = "") -> str:
    return (
        f'[[units]]\nid = "{uid}"\nside = "{side}"\nat = "{at}"\nstrength = {strength}\nar = {ar}\n'
        f"steps = {steps}\n{extra}"
    )


# DESIGN §7.2's own example, completed with a name, sides and the other units it names
EXAMPLE = (
    HEADER
    + _unit("pz21", "axis", "0506", 9.5, 5, 2, 'name = "2/1 Pz"\nmode = "normal"\n')
    + _unit("pz15", "axis", "0605", 3, 4, 2)
    + _unit("rtr7", "allies", "0606", 3.5, 4, 2)
    + '[[rounds]]\norders.combat = [{ attackers = ["pz21", "pz15"], defender = "0606", ar_attacker = "pz21", '
    'ar_defender = "rtr7", kind = "regular" }]\n'
)


def _cli(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli_main(list(args))
    return code, out.getvalue(), err.getvalue()


def _write(tmp_path: Path, text: str) -> str:
    path = tmp_path / "scenario.toml"
    path.write_text(text, encoding="utf-8")
    return str(path)


def _records(out: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in out.splitlines()]


def test_gazala_golden_json_log_matches_exactly() -> None:
    code, out, _ = _cli("sim", str(GAZALA), "--json")
    assert code == 0
    got = out.splitlines()
    expected = GOLDEN.read_text(encoding="utf-8").splitlines()
    if got != expected:
        diff = "\n".join(difflib.unified_diff(expected, got, "expected", "got", lineterm="", n=1))
        raise AssertionError(f"ocs golden log changed:\n{diff[:6000]}")
    records = _records(out)
    assert sum(1 for r in records if r.get("source") == "script") == 3, "the scripted dice come first"
    assert [r["phase"] for r in records if r["type"] == "phase_end"] == [
        "mode",
        "move",
        "combat-1",
        "combat-2",
        "combat-3",
        "mode",
        "move",
        "combat-4",
        "combat-5",
    ]


def test_gazala_is_a_desert_battle_of_six_units_a_side_three_terrains_and_a_hedgehog() -> None:
    state = load_scenario(GAZALA).state
    sides = [u.side for u in state.units_of(OcsUnit)]
    assert sides.count("axis") == 6 and sides.count("allies") == 6
    assert set(state.board.terrain.values()) | {"open"} == {"open", "close", "very_close"}
    assert state.board.features["hedgehog"] == {Hex.parse("0608"): 2}
    code, out, _ = _cli("validate", str(GAZALA))
    assert code == 0 and "12 units" in out


def test_gazala_plays_the_seed_example_and_shows_every_figure() -> None:
    """The first combat is the seed's: 9.5 vs 3.5, ratio 2.71, odds 3:1; ARs 5 and 4, DRM +1 (OCS-2, OCS-3)."""
    records = _records(_cli("sim", str(GAZALA), "--json")[1])
    first = [r for r in records if r["phase"] == "combat-1"]
    by_type = {r["type"]: r for r in first if r["type"].startswith("Ocs")}
    assert {k: by_type["OcsActionRatings"][k] for k in ("attacker_ar", "defender_ar", "drm")} == {
        "attacker_ar": 5,
        "defender_ar": 4,
        "drm": 1,
    }
    assert {k: by_type["OcsOdds"][k] for k in ("attack", "defense", "ratio", "odds")} == {
        "attack": 9.5,
        "defense": 3.5,
        "ratio": 2.71,
        "odds": "3:1",
    }
    # Bir Hakeim: 2:1 in very close terrain is column 1, and the defender's surprise shift of 4 stops there
    surprise = next(r for r in records if r["type"] == "OcsSurprise" and r["combat"] == 2)
    assert (surprise["surprise"], surprise["shift"], surprise["final_column"]) == ("defender", -4, 1)


def test_json_events_carry_the_design_fields_and_phase_end_the_unit_fields() -> None:
    """DESIGN §7.2: per rule id the listed fields; ``phase_end`` units carry at, steps, mode, destroyed."""
    code, out, _ = _cli("sim", str(GAZALA), "--json")
    assert code == 0
    records = _records(out)
    contract = {
        "OCS-2": ("OcsActionRatings", {"attacker_ar", "defender_ar", "drm"}),
        "OCS-3": ("OcsOdds", {"attack", "defense", "ratio", "odds"}),
        "OCS-4": ("OcsColumn", {"terrain", "column"}),
        "OCS-5": (
            "OcsSurprise",
            {"roll", "modified", "threshold_attacker", "threshold_defender", "surprise", "shift"},
        ),
        "OCS-6": ("OcsCombatRoll", {"roll", "modified", "result"}),
    }
    for rule, (kind, fields) in contract.items():
        found = [r for r in records if r["type"] == kind]
        assert found and all(r["rule"] == rule and fields <= set(r) for r in found), kind
    assert {r["surprise"] for r in records if r["type"] == "OcsSurprise"} >= {"attacker", "defender", None}
    for r in records:
        if r["type"] == "OcsSurprise":
            assert (
                r["shift"] == 0
                if r["surprise"] is None
                else (r["shift"] > 0) == (r["surprise"] == "attacker")
            )
        if r["type"] == "OcsCombatRoll":
            assert 1 <= r["modified"] <= 15
        if r["type"] == "OcsOdds":
            assert r["ratio"] >= 1 and ":" in r["odds"]
    ends = [r for r in records if r["type"] == "phase_end"]
    assert all(set(u) == {"at", "steps", "mode", "destroyed"} for e in ends for u in e["units"].values())
    last = ends[-1]["units"]
    assert last["sa1"]["destroyed"] and last["marcks"]["mode"] == "normal" and last["rtr7"]["at"] == "0805"


def test_design_example_runs_and_its_dice_go_surprise_shift_combat(tmp_path: Path) -> None:
    """DESIGN §7.2's example: 9.5 + 3 against 3.5 (3.57 → 4:1) in close terrain (column 4) behind a level-2
    hedgehog; scripted dice 6, 6 (surprise 12 +1 −1 = 12 → attacker), 3 (shift to column 7), 5, 4 (combat
    9 +1 −2 = 8)."""
    path = _write(tmp_path, EXAMPLE)
    assert _cli("validate", path)[0] == 0
    code, out, _ = _cli("sim", path, "--json", "--dice", "6,6,3,5,4")
    assert code == 0
    records = _records(out)
    rolls = [(r["rule"], r["dice"]) for r in records if r["type"] == "RollMade"]
    assert rolls == [("OCS-5", [6, 6]), ("OCS-5", [3]), ("OCS-6", [5, 4])]
    (column,) = [r for r in records if r["type"] == "OcsColumn"]
    assert (column["terrain"], column["column"]) == ("close", 4)
    (surprise,) = [r for r in records if r["type"] == "OcsSurprise"]
    assert [surprise[k] for k in ("roll", "modified", "shift", "final_column")] == [12, 12, 3, 7]
    (roll,) = [r for r in records if r["type"] == "OcsCombatRoll"]
    assert (roll["roll"], roll["modified"], roll["column"]) == (9, 8, 7)


def test_sim_takes_scripted_losses_and_retreats(tmp_path: Path) -> None:
    """Combat 1+1 −1 = 1 at 9:1 (column 10): AL1 DL2o2. The defender's scripted losses name one step beyond the
    first and one option step, so it retreats one hex, to the scripted hex."""
    text = (
        HEADER
        + _unit("a1", "axis", "0404", 5, 3, 2)
        + _unit("a2", "axis", "0403", 4, 2, 2)
        + _unit("d1", "allies", "0504", 0.5, 4, 2)
        + _unit("d2", "allies", "0504", 0.5, 1, 3)
        + '[[rounds]]\norders.combat = [{ attackers = ["a1", "a2"], defender = "0504", ar_attacker = "a1", '
        'ar_defender = "d1", losses = { defender = ["d2", "d2"] }, retreats = { d1 = "0604" } }]\n'
    )
    code, out, err = _cli("sim", _write(tmp_path, text), "--json", "--dice", "3,3,1,1")
    assert code == 0, err
    records = _records(out)
    assert [(r["unit"], r["cause"]) for r in records if r["type"] == "OcsStepLost"] == [
        ("a1", "action_rating"),
        ("d1", "action_rating"),
        ("d2", "owner_choice"),
        ("d2", "option_step"),
    ]
    moved = [(r["unit"], r["to"]) for r in records if r["type"] == "UnitMoved"]
    assert moved[0] == ("d1", "0604") and len(moved) == 2 and all(m[1] for m in moved)


def test_sim_stops_with_status_2_on_an_illegal_combat(tmp_path: Path) -> None:
    text = (
        HEADER
        + _unit("a", "axis", "0101", 3, 3, 2)
        + _unit("d", "allies", "0606", 3, 3, 2)
        + '[[rounds]]\norders.combat = [{ attackers = ["a"], defender = "0606" }]\n'
    )
    code, _, err = _cli("sim", _write(tmp_path, text))
    assert code == 2
    assert "round 1" in err and "not adjacent" in err and "[OCS-2]" in err


@pytest.mark.parametrize(
    ("extra", "expected"),
    [
        (
            '[[units]]\nid = "x"\nside = "axis"\nat = "0303"\nar = 3\nsteps = 2\n',
            "units[0].strength: is required",
        ),
        (_unit("x", "axis", "0303", 3, 3, 2, 'mode = "fast"\n'), "mode is one of normal, dg, strategic"),
        (_unit("x", "axis", "0303", 3, 12, 2), "units[0].ar: must be between 0 and 9"),
        (_unit("x", "axis", "0303", 3, 3, 2, "speed = 4\n"), "unknown key 'speed'"),
        (
            _unit("x", "axis", "0606", 3, 3, 2) + _unit("y", "allies", "0606", 3, 3, 2),
            "two sides never share",
        ),
        (
            '[[rounds]]\norders.combat = [{ attackers = ["nobody"], defender = "0606" }]\n',
            "unknown unit 'nobody'",
        ),
        ("[[rounds]]\norders.attack = []\n", "unknown key 'attack'"),
        (
            '[[rounds]]\norders.combat = [{ attackers = ["x"], defender = "0606", odds = 3 }]\n',
            "unknown: odds",
        ),
    ],
)
def test_validate_reports_every_problem_with_status_2(tmp_path: Path, extra: str, expected: str) -> None:
    text = HEADER + extra
    if "[[rounds]]" in extra and "[[units]]" not in extra:
        text = HEADER + _unit("x", "axis", "0505", 3, 3, 2) + extra
    code, _, err = _cli("validate", _write(tmp_path, text))
    assert code == 2
    assert expected in err


@pytest.mark.parametrize(
    ("board", "expected"),
    [
        ('terrain = { "0606" = "jungle" }\n', "unknown terrain class 'jungle'"),
        ('hedgehog = { "0606" = 5 }\n', "from 0 to 4"),
        ('hedgehog = { "9999" = 1 }\n', "outside the 10×10 board"),
    ],
)
def test_validate_checks_the_board_keys(tmp_path: Path, board: str, expected: str) -> None:
    text = f'ruleset = "ocs"\nname = "t"\n[board]\nwidth = 10\nheight = 10\n{board}[[sides]]\nid = "a"\n'
    code, _, err = _cli("validate", _write(tmp_path, text))
    assert code == 2 and expected in err


def test_spanish_account_uses_the_seed_vocabulary() -> None:
    code, out, _ = _cli("sim", str(GAZALA), "--lang", "es")
    assert code == 0
    for term in (
        "Action Rating",
        "proporción 3:1",
        "sorpresa",
        "erizo",
        "desplazamiento de columna",
        "incremento",
    ):
        assert term in out, term
