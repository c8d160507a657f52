"""Small OCS boards for the tests: units written as (id, side, hex, strength, ar, steps[, mode]), orders given the
way the bot gives them (parse, validate, resolve through the engine, scripted dice first)."""

from __future__ import annotations

from typing import Any

from rules.engine import resolve_phase
from rules.ocs.model import OcsUnit
from rules.registry import get_ruleset
from rules.ruleset import DIRECTOR, DiceFactory, Order, PhaseResult
from rules.scenario import load_scenario
from rules.state import EncounterState

OCS = get_ruleset("ocs")

UnitSpec = tuple[Any, ...]


def board(
    units: list[UnitSpec],
    *,
    terrain: dict[str, str] | None = None,
    hedgehog: dict[str, int] | None = None,
    width: int = 10,
    height: int = 10,
) -> EncounterState:
    """A bounded board with sides ``axis`` and ``allies``."""
    lines = ['ruleset = "ocs"', 'name = "test"', "[board]", f"width = {width}", f"height = {height}"]
    if terrain:
        lines.append("terrain = { " + ", ".join(f'"{k}" = "{v}"' for k, v in terrain.items()) + " }")
    if hedgehog:
        lines.append("hedgehog = { " + ", ".join(f'"{k}" = {v}' for k, v in hedgehog.items()) + " }")
    lines += ["[[sides]]", 'id = "axis"', "[[sides]]", 'id = "allies"']
    for spec in units:
        uid, side, at, strength, ar, steps, *rest = spec
        mode = rest[0] if rest else "normal"
        lines += [
            "[[units]]",
            f'id = "{uid}"',
            f'side = "{side}"',
            f'at = "{at}"',
            f"strength = {strength}",
            f"ar = {ar}",
            f"steps = {steps}",
            f'mode = "{mode}"',
        ]
    return load_scenario("\n".join(lines)).state


def order(state: EncounterState, actor: str, raw: Any) -> Order:
    """Parse and validate, as the bot does when an order arrives."""
    parsed = OCS.parse_order(state, actor, raw)
    OCS.validate_order(state, actor, parsed)
    return parsed


def resolve(
    state: EncounterState, orders: dict[str, Order] | None = None, dice: tuple[int, ...] = ()
) -> PhaseResult:
    """One resolution through the engine (DICE-1), with ``dice`` scripted first."""
    if dice:
        state = state.replace(dice_script=dice)
    return resolve_phase(OCS, state, orders or {}, dice_for=DiceFactory())


def give(state: EncounterState, actor: str, raw: Any, dice: tuple[int, ...] = ()) -> PhaseResult:
    """One order given and resolved."""
    return resolve(state, {actor: order(state, actor, raw)}, dice)


def director(state: EncounterState, raw: Any, dice: tuple[int, ...] = ()) -> PhaseResult:
    return give(state, DIRECTOR, raw, dice)


def unit(state: EncounterState, uid: str) -> OcsUnit:
    return state.unit_as(uid, OcsUnit)


def of_type(result: PhaseResult, name: str) -> list[Any]:
    return [e for e in result.events if e.type == name]
