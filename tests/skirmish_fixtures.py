"""Small builders for skirmish tests: a board from a few characters, and one-line actions through the engine."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from typing import Any

from rules.engine import resolve_phase
from rules.events import Event
from rules.registry import get_ruleset
from rules.ruleset import PhaseResult
from rules.scenario import load_scenario
from rules.skirmish.activation import ext_of
from rules.skirmish.model import Character
from rules.state import EncounterState

RS = get_ruleset("skirmish")

CARD: dict[str, Any] = {"ap": 6, "ranged": 15, "melee": 12, "action": 12, "resistance": 5, "wounds": 3}


def char(cid: str, side: str, group: str, at: str, facing: str = "NE-SE", **card: Any) -> dict[str, Any]:
    return {"id": cid, "side": side, "unit": group, "at": at, "facing": facing, **CARD, **card}


def _toml(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    return str(value)


def scenario_text(
    units: Iterable[Mapping[str, Any]],
    *,
    terrain: Mapping[str, str] | None = None,
    dice: Iterable[int] = (),
    options: Mapping[str, Any] | None = None,
    width: int = 16,
    height: int = 10,
    rounds: str = "",
) -> str:
    lines = ['ruleset = "skirmish"', 'name = "test"', f"dice = [{', '.join(str(d) for d in dice)}]", ""]
    lines += ["[board]", f"width = {width}", f"height = {height}"]
    if terrain:
        lines.append("terrain = { " + ", ".join(f'"{k}" = "{v}"' for k, v in terrain.items()) + " }")
    if options:
        lines += ["", "[options]", *(f"{k} = {_toml(v)}" for k, v in options.items())]
    for side in ("rfp", "tyr"):
        lines += ["", "[[sides]]", f'id = "{side}"']
    for u in units:
        lines += ["", "[[units]]", *(f"{k} = {_toml(v)}" for k, v in u.items())]
    return "\n".join(lines) + "\n" + rounds


def make(units: Iterable[Mapping[str, Any]], **kw: Any) -> EncounterState:
    return load_scenario(scenario_text(units, **kw)).state


def draw(state: EncounterState, chit: str) -> EncounterState:
    """Draw ``chit`` next (a fixed draw, SK-1.1)."""
    state = state.replace(ext=dataclasses.replace(ext_of(state), draw_plan=(chit,)))
    return resolve_phase(RS, state, {}).state


def act(state: EncounterState, cid: str, text: str) -> PhaseResult:
    order = RS.parse_order(state, cid, text)
    RS.validate_order(state, cid, order)
    return resolve_phase(RS, state, {cid: order})


def ch(state: EncounterState, cid: str) -> Character:
    return state.unit_as(cid, Character)


def types(events: Iterable[Event]) -> list[str]:
    return [e.type for e in events]
