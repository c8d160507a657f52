"""Small builders for the mech tests: a scenario from a few unit lines, and a whole turn played through the
same steps the bot and ``hexdirector sim`` use (initiative, one declaration per unit, resolution)."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

from rules.engine import resolve_phase
from rules.events import Event
from rules.mech.events import DamageDealt, WeaponFired
from rules.mech.model import Mech
from rules.mech.state import DECLARE, INITIATIVE, RESOLVE, ROLLS_PER_WEAPON
from rules.registry import get_ruleset
from rules.ruleset import DiceFactory
from rules.scenario import load_scenario
from rules.state import EncounterState

MECH = get_ruleset("mech")


def _value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return f'"{v}"'
    if isinstance(v, Mapping):
        return "{ " + ", ".join(f"{k} = {_value(x)}" for k, x in v.items()) + " }"  # type: ignore[union-attr]
    if isinstance(v, list | tuple):
        return "[" + ", ".join(_value(x) for x in v) + "]"  # type: ignore[union-attr]
    return str(v)


def unit(uid: str, side: str, at: str, facing: str = "N", **keys: Any) -> str:
    """A ``[[units]]`` table: a 50-ton mech, walk 4, gunnery 9, piloting 8, unless ``keys`` say otherwise."""
    base: dict[str, Any] = {
        "tonnage": 50,
        "walk": 4,
        "initiative": 3,
        "gunnery": 9,
        "piloting": 8,
        "weapons": [{"type": "medium_laser", "loc": "ct"}],
    }
    base.update(keys)
    lines = [f'[[units]]\nid = "{uid}"\nside = "{side}"\nat = "{at}"\nfacing = "{facing}"']
    lines += [f"{k} = {_value(v)}" for k, v in base.items()]
    return "\n".join(lines) + "\n"


def scenario_text(
    *units: str,
    terrain: Mapping[str, str] | None = None,
    elevation: Mapping[str, int] | None = None,
    options: Mapping[str, Any] | None = None,
    dice: Sequence[int] = (),
    seed: int = 1,
    rounds: str = "",
    width: int = 16,
    height: int = 17,
    rolls: str | None = None,
) -> str:
    parts = [f'ruleset = "mech"\nname = "test"\nseed = {seed}\n']
    if rolls is not None:
        parts.append(f'rolls = "{rolls}"\n')  # MECH-2.1a: "declaration" (the default) or "weapon" [HOUSE]
    if dice:
        parts.append(f"dice = {_value(list(dice))}\n")
    if options:
        parts.append("[options]\n" + "".join(f"{k} = {_value(v)}\n" for k, v in options.items()))
    parts.append(f"[board]\nwidth = {width}\nheight = {height}\n")
    if terrain:
        parts.append(f"terrain = {_value(dict(terrain))}\n")
    if elevation:
        parts.append(f"elevation = {_value(dict(elevation))}\n")
    parts.append('[[sides]]\nid = "red"\n[[sides]]\nid = "blue"\n')
    parts.extend(units)
    parts.append(rounds)
    return "".join(parts)


def build(*units: str, **kw: Any) -> EncounterState:
    return load_scenario(scenario_text(*units, **kw)).state


def by_weapon(state: EncounterState) -> EncounterState:
    """The [HOUSE] variant of MECH-2.1a (``rolls = "weapon"``): every shot and physical attack rolls its own 2d6,
    in the per-shot dice order of DESIGN §7.1."""
    return state.replace(options={**state.options, ROLLS_PER_WEAPON: True})


def with_unit(state: EncounterState, uid: str, **changes: Any) -> EncounterState:
    u = state.unit_as(uid, Mech)
    return state.with_units([dataclasses.replace(u, **changes)])


def mech(state: EncounterState, uid: str) -> Mech:
    return state.unit_as(uid, Mech)


def step(
    state: EncounterState, orders: Mapping[str, Any] | None = None
) -> tuple[EncounterState, tuple[Event, ...]]:
    result = resolve_phase(MECH, state, dict(orders or {}), dice_for=DiceFactory())
    return result.state, result.events


def declare_all(
    state: EncounterState, raw: Mapping[str, Mapping[str, Any]]
) -> tuple[EncounterState, list[Event]]:
    """Roll initiative if due, then lock every declaration in initiative order (stand still when ``raw`` has
    none for a unit). Returns the state at the ``resolve`` phase."""
    events: list[Event] = []
    if state.phase == INITIATIVE:
        state, evs = step(state)
        events.extend(evs)
    while state.phase == DECLARE:
        waiting = MECH.awaiting(state)
        if not waiting:
            state, evs = step(state)
            events.extend(evs)
            continue
        uid = waiting[0]
        order = MECH.parse_order(state, uid, raw.get(uid))
        MECH.validate_order(state, uid, order)
        state, evs = step(state, {uid: order})
        events.extend(evs)
    return state, events


def play_turn(
    state: EncounterState, raw: Mapping[str, Mapping[str, Any]], dice: Sequence[int] | None = None
) -> tuple[EncounterState, list[Event]]:
    """A whole turn. ``dice``: scripted dice for it (initiative first, DESIGN §7.1 order)."""
    if dice is not None:
        state = state.replace(dice_script=tuple(dice))
    state, events = declare_all(state, raw)
    assert state.phase == RESOLVE
    state, evs = step(state)
    return state, events + list(evs)


def of_type(events: Sequence[Event], name: str) -> list[Any]:
    return [e for e in events if type(e).__name__ == name]


def laser_at_locust(hit: bool, *, damage: int = 0) -> tuple[WeaponFired | DamageDealt, ...]:
    """Atlas's medium laser at Locust three hexes off (MECH-2.1), and the damage it dealt if any (MECH-2.3)."""
    shot = WeaponFired(
        rule="MECH-2.1",
        unit="atlas",
        weapon=1,
        weapon_type="medium_laser",
        target="locust",
        target_number=8,
        roll=9,
        total=9,
        hit=hit,
        distance=3,
    )
    if not damage:
        return (shot,)
    return shot, DamageDealt(
        rule="MECH-2.3", unit="locust", by="atlas", location="ct", amount=damage, armor=1, structure=5
    )
