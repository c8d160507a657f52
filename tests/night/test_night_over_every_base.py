"""The night layer composes with each base it applies to (``skirmish``, ``mech``, ``pbw``, ``ocs``): a bundled
scenario of each, with ``layers = ["night"]`` and a wide NVR, plays to the end in ``hexdirector sim`` through the
composed ruleset (``simulate_round`` goes through ``ruleset_for``), with the night's ``phase_end`` fields."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import pytest

from bot.process.cli import main as cli_main
from data import SCENARIO_DIR
from rules.errors import IllegalOrderError
from rules.registry import ruleset_for
from rules.scenario import load_scenario


def at_night(name: str, nvr: int) -> str:
    text = (SCENARIO_DIR / f"{name}.toml").read_text(encoding="utf-8")
    lines = text.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("ruleset = "))
    lines.insert(at + 1, 'layers = ["night"]')
    return "\n".join(lines) + f"\n\n[night]\nnvr = {nvr}\n"


@pytest.mark.parametrize(
    ("name", "events"),
    [
        ("skirmish-corridor", "NightStraying"),
        ("mech-duel", "NightStraying"),
        ("pbw-brawl", "NightGunflash"),
        ("ocs-gazala", ""),
    ],
)
def test_each_base_plays_to_the_end_at_night(tmp_path: Path, name: str, events: str) -> None:
    path = tmp_path / f"{name}-night.toml"
    path.write_text(at_night(name, 12), encoding="utf-8")
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        assert cli_main(["sim", str(path), "--json"]) == 0
    records = [json.loads(line) for line in out.getvalue().splitlines()]
    ends = [r for r in records if r["type"] == "phase_end"]
    assert ends and all("night" in r for r in ends)
    if events:
        assert any(r["type"] == events for r in records), f"no {events} in {name} at night"


def test_pbw_at_night_refuses_a_declared_shot_at_a_character_the_side_cannot_see() -> None:
    state = load_scenario(at_night("pbw-brawl", 0)).state
    ruleset = ruleset_for(state)
    actor = ruleset.awaiting(state)[0]
    enemy = next(u for u in state.units.values() if u.side != state.units[actor].side)
    order = ruleset.parse_order(
        state, actor, {"segments": [{"action": "shoot", "weapon": 1, "target": enemy.id}]}
    )
    with pytest.raises(IllegalOrderError) as refused:
        ruleset.validate_order(state, actor, order)
    assert refused.value.code == "night.unseen_target"
