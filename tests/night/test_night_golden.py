"""The bundled night scenarios (skirmish and mech) against their golden ``sim --json`` logs (DESIGN §7.3).

Regenerate after an intended rules change with
``.venv/bin/python -m bot.process.cli sim data/scenarios/<name>.toml --json > tests/golden/<name>.jsonl``.
"""

from __future__ import annotations

import contextlib
import difflib
import io
import json
from typing import Any

import pytest

from bot.process.cli import main as cli_main
from data import SCENARIO_DIR
from tests.paths import GOLDEN

NAMES = ["skirmish-night", "mech-night"]


def sim_json(name: str) -> list[str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        assert cli_main(["sim", str(SCENARIO_DIR / f"{name}.toml"), "--json"]) == 0
    return out.getvalue().splitlines()


@pytest.mark.parametrize("name", NAMES)
def test_bundled_night_scenario_json_log_matches_its_golden_file_exactly(name: str) -> None:
    got = sim_json(name)
    expected = (GOLDEN / f"{name}.jsonl").read_text(encoding="utf-8").splitlines()
    if got != expected:
        diff = "\n".join(difflib.unified_diff(expected, got, "expected", "got", lineterm="", n=1))
        raise AssertionError(f"{name} golden log changed:\n{diff[:6000]}")


def _records(name: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (GOLDEN / f"{name}.jsonl").read_text(encoding="utf-8").splitlines()]


@pytest.mark.parametrize("name", NAMES)
def test_night_golden_logs_carry_the_contract_fields(name: str) -> None:
    records = _records(name)
    ends = [r for r in records if r["type"] == "phase_end"]
    assert ends
    for r in ends:
        night = r["night"]
        assert {"nvr", "illuminated", "gunflashes", "seen"} <= set(night)
        assert set(night["seen"]) == {"rfp", "tyr"} if name.startswith("skirmish") else {"red", "blue"}
        for side in night["seen"].values():
            assert set(side) == {"visible", "concealed"}
    strays = [r for r in records if r["type"] == "NightStraying"]
    keys = {
        "unit",
        "colored",
        "white",
        "exempt",
        "strayed",
        "direction",
        "direction_colored",
        "direction_white",
    }
    assert strays and all(keys | {"stopped_at", "stopped_because"} <= set(r) for r in strays)
    assert any(r["strayed"] for r in strays), "each bundled night scenario shows a unit straying"
    assert all(r["rule"] == "NGT-5" for r in strays)
    for r in records:
        assert "rule" in r or r["type"] == "phase_end"


def test_the_skirmish_night_scenario_shows_a_shot_from_a_hidden_unit_as_a_gunflash_question_mark() -> None:
    records = _records("skirmish-night")
    flashes = [r for r in records if r["type"] == "NightGunflash" and r["unit"] == "kara"]
    assert flashes
    # after Kara's shot (while her gunflash lasts) RFP sees her only as a '?' (NGT-2), Tyranos fully
    ends = [next(r for r in records[records.index(f) :] if r["type"] == "phase_end") for f in flashes]
    after = next(e for e in ends if "kara" in e["night"]["gunflashes"])
    assert "kara" in after["night"]["seen"]["rfp"]["concealed"]
    assert "kara" not in after["night"]["seen"]["rfp"]["visible"]
    assert "kara" in after["night"]["seen"]["tyr"]["visible"]
