"""mech scenario files (DESIGN §7.1, a public contract): keys, `hexdirector validate` reporting illegal
declarations with their rule ids, `hexdirector sim` exiting 2 on them, and the golden logs of both bundled
scenarios.

Regenerate a golden log after an intended rules change with
``.venv/bin/python -m bot.process.cli sim data/scenarios/mech-duel.toml --json > tests/golden/mech-duel.jsonl``
(and ``mech-mixed``) and review the diff.
"""

from __future__ import annotations

import contextlib
import difflib
import io
import json
from pathlib import Path

import pytest

from bot.process.cli import main as cli_main
from data import SCENARIO_DIR
from data.i18n import problem_text
from rules.errors import ScenarioError
from rules.scenario import load_scenario
from tests.mech_fixtures import scenario_text, unit
from tests.paths import GOLDEN


def cli(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli_main(list(args))
    return code, out.getvalue(), err.getvalue()


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "s.toml"
    path.write_text(text, encoding="utf-8")
    return path


# --- golden logs ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["mech-duel", "mech-mixed", "mech-air"])
def test_bundled_scenario_json_log_matches_its_golden_file_exactly(name: str) -> None:
    code, out, _ = cli("sim", str(SCENARIO_DIR / f"{name}.toml"), "--json")
    assert code == 0
    got = out.splitlines()
    expected = (GOLDEN / f"{name}.jsonl").read_text(encoding="utf-8").splitlines()
    if got != expected:
        diff = "\n".join(difflib.unified_diff(expected, got, "expected", "got", lineterm="", n=1))
        raise AssertionError(f"{name} golden log changed:\n{diff[:6000]}")


@pytest.mark.parametrize("name", ["mech-duel-weapon", "mech-mixed-weapon"])
def test_mech_2_1a_per_weapon_golden_logs_still_replay_because_the_mode_is_in_the_scenario(name: str) -> None:
    """MECH-2.1a [HOUSE] ``rolls = "weapon"``: the logs written before the rule (one roll per shot) replay bit for
    bit from the same file with the mode named at its top."""
    code, out, _ = cli("sim", str(GOLDEN / f"{name}.toml"), "--json")
    assert code == 0
    expected = (GOLDEN / f"{name}.jsonl").read_text(encoding="utf-8").splitlines()
    assert out.splitlines() == expected
    assert not any(json.loads(line)["type"] == "DeclarationRolled" for line in expected)


def _records(name: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in (GOLDEN / f"{name}.jsonl").read_text(encoding="utf-8").splitlines()]


@pytest.mark.parametrize("name", ["mech-duel", "mech-mixed", "mech-air"])
def test_golden_logs_carry_the_contract_fields(name: str) -> None:
    records = _records(name)
    by_type: dict[str, list[dict[str, object]]] = {}
    for r in records:
        by_type.setdefault(str(r["type"]), []).append(r)
        assert "rule" in r or r["type"] == "phase_end"
    for r in by_type["InitiativeRolled"]:
        assert {"unit", "initiative"} <= set(r) and r["rule"] == "MECH-1.1"
    for r in by_type["WeaponFired"]:
        assert {"unit", "weapon", "target", "target_number", "roll", "total", "hit"} <= set(r)
        assert isinstance(r["weapon"], int) and r["weapon"] >= 1 and r["rule"] == "MECH-2.1"
    for r in by_type["DamageDealt"]:
        assert {"unit", "by", "location", "amount"} <= set(r)
    for r in by_type["HeatChanged"]:
        assert {"unit", "generated", "heat"} <= set(r) and r["rule"] == "MECH-3.1"
    for r in by_type["phase_end"]:
        for summary in r["units"].values():  # type: ignore[union-attr]
            assert {
                "at",
                "facing",
                "torso",
                "heat",
                "armor",
                "structure",
                "destroyed",
                "immobile",
                "shutdown",
            } <= set(summary)


def test_the_duel_shows_woods_rough_elevation_fire_punches_kicks_and_a_failed_death_from_above() -> None:
    records = _records("mech-duel")
    kinds = {(r["kind"], r["hit"]) for r in records if r["type"] == "PhysicalAttackMade"}
    assert {("kick", True), ("punch", True), ("dfa", False)} <= kinds
    assert any(r["type"] == "Fell" for r in records)
    assert any(r["type"] == "FireSpent" for r in records)
    assert any(r["type"] == "WeaponFired" and "woods" in r["modifiers"] for r in records)  # type: ignore[operator]
    sides = {r["units"]["hunter"]["at"] for r in records if r["type"] == "phase_end"}  # type: ignore[index]
    assert len(sides) > 1


def test_the_mixed_scenario_has_a_turret_tank_a_jump_mech_and_secret_declarations() -> None:
    state = load_scenario(SCENARIO_DIR / "mech-mixed.toml").state
    assert state.option("secret_declarations") is True
    kinds = {u.kind for u in state.units.values()}
    assert kinds == {"mech", "vehicle"}
    records = _records("mech-mixed")
    assert all(r["args"] == [] for r in records if r["type"] == "DeclarationLocked")
    assert sum(1 for r in records if r["type"] == "DeclarationsRevealed") == 4
    made = {r["kind"] for r in records if r["type"] == "PhysicalAttackMade"}
    assert {"dfa", "charge"} <= made
    # MECH-2.1a in secret: each declaration's two rolls are made as it locks, sealed, and shown at the reveal
    sealed = [r for r in records if r["type"] == "RollMade" and r["rule"] == "MECH-2.1a"]
    assert sealed and all(r["phase"] == "declare" and r["detail"]["sealed"] is True for r in sealed)
    shown = [r for r in records if r["type"] == "DeclarationRolled"]
    assert len(shown) == len(sealed) // 2 and all(r["phase"] == "resolve" for r in shown)
    hull = {
        r["location"] for r in records if r["type"] == "DamageDealt" and r["unit"] in ("bulldog", "vedette")
    }
    assert hull and hull <= {"front", "left", "right", "rear", "turret"}


def test_mech_5_the_air_scenario_has_a_helicopter_and_two_fighters_against_ground_units() -> None:
    """MECH-5, the bundled ``mech-air``: the seed's helicopter and air-target modifiers in the account, a fighter
    at flank speed, the out-of-control rolls of a hot fighter, and a fighter that leaves the board and is back
    the next turn."""
    state = load_scenario(SCENARIO_DIR / "mech-air.toml").state
    kinds = sorted(u.kind for u in state.units.values())  # type: ignore[attr-defined]
    assert kinds == ["fighter", "fighter", "helicopter", "mech", "mech"]
    records = _records("mech-air")
    mods = {k for r in records if r["type"] == "WeaponFired" for k in r["modifiers"]}  # type: ignore[union-attr]
    assert {"target_helicopter", "air_front", "shooter_fighter_flank"} <= mods
    assert any(r["type"] == "AvoidRolled" and r["what"] == "out_of_control" for r in records)
    keys = [r["key"] for r in records if r["type"] == "Note"]
    assert "mech.left_board" in keys and "mech.reentered" in keys
    assert not any(r["type"] == "PhysicalAttackMade" for r in records)


def test_declarations_are_made_in_initiative_order_whatever_the_file_order() -> None:
    records = _records("mech-duel")
    for rnd in range(1, 6):
        order = next(r["units"] for r in records if r["type"] == "DeclarationOrder" and r["round"] == rnd)
        locked = [r["unit"] for r in records if r["type"] == "DeclarationLocked" and r["round"] == rnd]
        assert locked == order


def test_the_text_account_speaks_spanish_with_the_seeds_weapon_names() -> None:
    code, out, _ = cli("sim", str(SCENARIO_DIR / "mech-duel.toml"), "--lang", "es")
    assert code == 0
    assert "CA/20" in out and "Láser Medio" in out and "AMLA/10" in out and "CPP" in out
    assert "anda" in out and "salta" in out and "patada" in out and "calor" in out


# --- validate and sim on illegal declarations -----------------------------------------------------------------------
TWO = (unit("a", "red", "0810", walk=4, initiative=0), unit("b", "blue", "0803", facing="S", initiative=9))


@pytest.mark.parametrize(
    ("declaration", "rule", "words"),
    [
        ('{ mode = "walk", path = ["0809", "0808", "0807", "0806", "0706"] }', "MECH-1.2", "MP"),
        ('{ mode = "run", path = ["0811"] }', "MECH-1.2", "reverse"),
        (
            '{ mode = "walk", path = [], facing = "S", fire = [{ weapon = 1, target = "b" }] }',
            "MECH-1.3",
            "arc",
        ),
        (
            '{ mode = "walk", path = ["0811", "0812", "0813"], fire = [{ weapon = 1, target = "b" }] }',
            "MECH-2.1",
            "range",
        ),
    ],
)
def test_validate_reports_illegal_declarations_with_the_rule_and_sim_exits_2(
    tmp_path: Path, declaration: str, rule: str, words: str
) -> None:
    path = write(tmp_path, scenario_text(*TWO, rounds=f"[[rounds]]\norders.a = {declaration}\n"))
    code, _, err = cli("validate", str(path))
    assert code == 2
    assert f"[{rule}]" in err and words in err and "round 1" in err and "unit a" in err
    code, _, err = cli("sim", str(path))
    assert code == 2 and f"[{rule}]" in err and "unit a" in err and "round 1" in err


def test_validate_checks_a_later_round_on_the_board_the_earlier_rounds_leave(tmp_path: Path) -> None:
    rounds = (
        '[[rounds]]\norders.a = { mode = "walk", path = ["0811", "0812", "0813"] }\n'
        '[[rounds]]\norders.a = { fire = [{ weapon = 1, target = "b" }] }\n'
    )
    code, _, err = cli("validate", str(write(tmp_path, scenario_text(*TWO, rounds=rounds))))
    assert code == 2
    assert "round 2" in err and "[MECH-2.1]" in err and "rounds[1].orders.a" in err


def test_validate_accepts_the_bundled_scenarios() -> None:
    for name in ("mech-duel", "mech-mixed"):
        code, out, _ = cli("validate", str(SCENARIO_DIR / f"{name}.toml"))
        assert code == 0 and "ok" in out


def test_sim_with_other_dice_still_stops_on_an_illegal_declaration_naming_unit_round_and_rule(
    tmp_path: Path,
) -> None:
    path = write(
        tmp_path, scenario_text(*TWO, rounds='[[rounds]]\norders.a = { mode = "run", path = ["0811"] }\n')
    )
    code, _, err = cli("sim", str(path), "--seed", "3")
    assert code == 2 and "MECH-1.2" in err and "unit a" in err


# --- scenario keys -------------------------------------------------------------------------------------------------
def problems(text: str) -> str:
    with pytest.raises(ScenarioError) as err:
        load_scenario(text)
    return "\n".join(problem_text(p) for p in err.value.problems)


def test_contract_example_unit_loads_with_its_given_armour_and_structure() -> None:
    hunter = unit(
        "hunter",
        "red",
        "0510",
        tonnage=50,
        walk=4,
        jump=0,
        heat_sinks=10,
        initiative=3,
        tactics=0,
        gunnery=7,
        piloting=6,
        armor={"head": 9, "ct": 26, "lt": 20, "rt": 20, "la": 16, "ra": 16, "ll": 20, "rl": 20},
        structure={"head": 3, "ct": 16, "lt": 12, "rt": 12, "la": 8, "ra": 8, "ll": 12, "rl": 12},
        weapons=[
            {"type": "ac20", "loc": "rt"},
            {"type": "medium_laser", "loc": "la"},
            {"type": "small_laser", "loc": "ct", "rear": True},
        ],
    )
    state = load_scenario(
        scenario_text(hunter, unit("raven", "blue", "0505"), elevation={"0606": 1, "0607": 2})
    ).state
    h = state.units["hunter"]
    assert h.armor["lt"] == 20 and h.structure["ct"] == 16 and h.run == 6  # type: ignore[attr-defined]
    assert (
        state.board.feature("elevation", (state.board.terrain and next(iter(state.board.terrain))) or h.at)
        == 0
    )  # type: ignore[arg-type]


def test_default_armour_by_tonnage_fills_what_a_unit_leaves_out() -> None:
    state = load_scenario(
        scenario_text(unit("a", "red", "0810", tonnage=50, armor={"ct": 30}), unit("b", "blue", "0801"))
    ).state
    a = state.units["a"]
    assert a.armor["ct"] == 30 and a.armor["head"] == 9 and a.structure["ct"] == 16  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ('weapons = [{ type = "medium_lazer", loc = "la" }]', "did you mean 'medium_laser'"),
        ('weapons = [{ type = "ppc", loc = "turret" }]', "locations are head"),
        ('weapons = [{ type = "ppc", loc = "la", rear = true }]', "rear"),
        ('kind = "tank"', "kind is mech, vehicle, helicopter or fighter"),
        ("tonnage = 53", "no default armor for a 53-ton mech"),
    ],
)
def test_unit_key_mistakes_are_reported_clearly(line: str, expected: str) -> None:
    bad = '[[units]]\nid = "x"\nside = "red"\nat = "0303"\nwalk = 4\ninitiative = 1\ngunnery = 5\npiloting = 5\n'
    if "tonnage" not in line:
        bad += "tonnage = 50\n"
    bad += line + "\n"
    assert expected in problems(scenario_text(unit("b", "blue", "0801"), bad))


def test_board_and_option_mistakes_are_reported() -> None:
    text = scenario_text(
        unit("a", "red", "0810"),
        unit("b", "blue", "0810"),
        terrain={"0505": "swamp"},
        options={"secret_declarations": "yes"},
    )
    found = problems(text)
    assert "unknown terrain 'swamp'" in found
    assert "already taken" in found
    assert "secret_declarations" in found
    found = problems(scenario_text(unit("a", "red", "0810"), elevation={"0606": "high"}))  # type: ignore[dict-item]
    assert "board.elevation.0606" in found
    assert "(allowed: " in problems(scenario_text(unit("a", "red", "0810"), options={"fog": True}))


def test_a_vehicle_cannot_start_in_water_nor_jump() -> None:
    tank = unit(
        "t", "red", "0505", kind="vehicle", tonnage=50, walk=5, weapons=[{"type": "ac5", "loc": "turret"}]
    )
    assert "cannot stand in water" in problems(
        scenario_text(tank, unit("b", "blue", "0801"), terrain={"0505": "water"})
    )
    jumper = unit(
        "t",
        "red",
        "0505",
        kind="vehicle",
        tonnage=50,
        walk=5,
        jump=2,
        weapons=[{"type": "ac5", "loc": "turret"}],
    )
    assert "only mechs jump" in problems(scenario_text(jumper, unit("b", "blue", "0801")))


def test_a_declaration_that_cannot_be_read_is_a_problem_with_its_line(tmp_path: Path) -> None:
    path = write(
        tmp_path, scenario_text(*TWO, rounds='[[rounds]]\norders.a = { mode = "fly" }\norders.zz = {}\n')
    )
    code, _, err = cli("validate", str(path))
    assert code == 2 and "mode" in err and "'zz' is not a unit" in err
