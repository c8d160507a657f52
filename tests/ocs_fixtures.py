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


# The two-combat board of the Discord tests (tests/ocs/).
# Combat 1 (0403): a1+a2 (4+3) against d1+d2 (2+1), AR a1 4 vs d1 2 → DRM +2; 7:3 = 2.33 → 2:1, column 3.
#   surprise 6+5 +2 = 13 ≥ 10: the attacker's; shift 1d6 = 2 → column 5 (4:1); combat 6+6 +2 = 14 → DL2o2.
# Combat 2 (0606): b1+b2 (4+3) against x1+x2 (2+2), AR b2 2 vs x1 3 → DRM −1; 7:4 = 1.75 → 2:1, column 3.
#   surprise 1+2 −1 = 2 ≤ 4: the defender's; shift 1d6 = 3 → column 0, clamped to 1 (1:2); combat 1+2 −1 = 2 → AL2.
TWO_COMBATS = """
ruleset = "ocs"
name = "Two combats"
seed = 5
dice = [6, 5, 2, 6, 6, 1, 2, 3, 1, 2]

[board]
width = 10
height = 10

[[sides]]
id = "axis"
name = "Axis"

[[sides]]
id = "allies"
name = "Allies"

[[units]]
id = "a1"
side = "axis"
name = "Panzer A"
at = "0303"
strength = 4
ar = 4
steps = 2

[[units]]
id = "a2"
side = "axis"
name = "Panzer B"
at = "0304"
strength = 3
ar = 3
steps = 2

[[units]]
id = "x1"
side = "axis"
name = "Rifles X"
at = "0606"
strength = 2
ar = 3
steps = 2

[[units]]
id = "x2"
side = "axis"
name = "Rifles Y"
at = "0606"
strength = 2
ar = 1
steps = 2

[[units]]
id = "d1"
side = "allies"
name = "Guards D"
at = "0403"
strength = 2
ar = 2
steps = 2

[[units]]
id = "d2"
side = "allies"
name = "Militia E"
at = "0403"
strength = 1
ar = 1
steps = 2

[[units]]
id = "b1"
side = "allies"
name = "Armour B"
at = "0706"
strength = 4
ar = 3
steps = 2

[[units]]
id = "b2"
side = "allies"
name = "Armour C"
at = "0707"
strength = 3
ar = 2
steps = 2
"""
AXIS = ("a1", "a2", "x1", "x2")
ALLIES = ("d1", "d2", "b1", "b2")
