"""Small builders for pbw tests: a board from a few characters, declarations and segments through the engine."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from rules.engine import resolve_phase
from rules.events import Event
from rules.pbw.legality import ext_of
from rules.pbw.model import Character, Declaration, SegmentAction
from rules.registry import get_ruleset
from rules.ruleset import DiceFactory, PhaseResult
from rules.scenario import load_scenario
from rules.state import EncounterState

RS = get_ruleset("pbw")

CARD: dict[str, Any] = {
    "initiative": 5,
    "movement": 4,
    "fatigue": 4,
    "hp": 30,
    "resistance": {"head": 6, "ra": 8, "la": 8, "torso": 14, "rl": 10, "ll": 10},
    "attributes": {"agility": 3, "strength": 3, "perception": 3},
    "skills": {"ranged": 3, "melee": 2, "fight": 2, "athletics": 1},
    "weapons": [{"type": "pistol"}, {"type": "knife"}],
}


def person(cid: str, side: str, at: str, facing: str = "N", **card: Any) -> dict[str, Any]:
    return {"id": cid, "side": side, "name": cid.capitalize(), "at": at, "facing": facing, **CARD, **card}


def toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, Mapping):
        items: Mapping[str, Any] = value  # type: ignore[assignment]
        return "{ " + ", ".join(f"{k} = {toml_value(v)}" for k, v in items.items()) + " }"
    if isinstance(value, list | tuple):
        seq: Iterable[Any] = value  # type: ignore[assignment]
        return "[" + ", ".join(toml_value(v) for v in seq) + "]"
    return str(value)


def scenario_text(
    units: Iterable[Mapping[str, Any]],
    *,
    terrain: Mapping[str, str] | None = None,
    dice: Iterable[int] = (),
    width: int = 20,
    height: int = 14,
    rounds: Iterable[Mapping[str, Any]] = (),
) -> str:
    lines = ['ruleset = "pbw"', 'name = "test"', f"dice = {toml_value(list(dice))}", ""]
    lines += ["[board]", f"width = {width}", f"height = {height}"]
    if terrain:
        lines.append("terrain = { " + ", ".join(f'"{k}" = "{v}"' for k, v in terrain.items()) + " }")
    for side in ("a", "b"):
        lines += ["", "[[sides]]", f'id = "{side}"']
    for u in units:
        lines += ["", "[[units]]", *(f"{k} = {toml_value(v)}" for k, v in u.items())]
    for r in rounds:
        lines += ["", "[[rounds]]", *(f"orders.{uid} = {toml_value(o)}" for uid, o in r.items())]
    return "\n".join(lines) + "\n"


def make(units: Iterable[Mapping[str, Any]], **kw: Any) -> EncounterState:
    return load_scenario(scenario_text(units, **kw)).state


def act(action: str, **kw: Any) -> SegmentAction:
    """A segment action; ``path`` may be given as labels."""
    from rules.hexgrid import Hex

    if "path" in kw:
        kw["path"] = tuple(Hex.parse(h) if isinstance(h, str) else h for h in kw["path"])
    return SegmentAction(action=action, **kw)


DEFEND = act("defend")


def step(state: EncounterState, orders: Mapping[str, Any] | None = None) -> PhaseResult:
    """Validate every order (raw tables or order objects) and resolve one step, scripted dice carried along."""
    parsed = {}
    for uid, raw in (orders or {}).items():
        order = raw if not isinstance(raw, Mapping) else RS.parse_order(state, uid, raw)
        RS.validate_order(state, uid, order)
        parsed[uid] = order
    return resolve_phase(RS, state, parsed, dice_for=DiceFactory())


def declare(
    state: EncounterState, uid: str, *segments: SegmentAction, disengage: bool = False
) -> PhaseResult:
    padded = (*segments, *([DEFEND] * (3 - len(segments))))
    return step(state, {uid: Declaration(unit=uid, segments=padded, disengage=disengage)})


def declare_all(
    state: EncounterState, plans: Mapping[str, Iterable[SegmentAction]], **disengage: bool
) -> tuple[EncounterState, list[Event]]:
    """Every declaration in the engine's order (missing plans: three skipped segments)."""
    events: list[Event] = []
    while state.phase == "declare" and not state.over:
        waiting = RS.awaiting(state)
        if not waiting:
            result = step(state)
        else:
            uid = waiting[0]
            result = declare(state, uid, *plans.get(uid, ()), disengage=disengage.get(uid, False))
        state = result.state
        events.extend(result.events)
    return state, events


def segment(state: EncounterState, changes: Mapping[str, Any] | None = None) -> PhaseResult:
    return step(state, changes)


def play_turn(
    state: EncounterState,
    plans: Mapping[str, Iterable[SegmentAction]],
    changes: Mapping[int, Mapping[str, Any]] | None = None,
) -> tuple[EncounterState, list[Event]]:
    state, events = declare_all(state, plans)
    for k in (1, 2, 3):
        if state.over:
            break
        result = segment(state, (changes or {}).get(k))
        state = result.state
        events.extend(result.events)
    return state, events


def ch(state: EncounterState, cid: str) -> Character:
    return state.unit_as(cid, Character)


def of_type(events: Iterable[Event], cls: type) -> list[Any]:
    return [e for e in events if isinstance(e, cls)]


def types(events: Iterable[Event]) -> list[str]:
    return [e.type for e in events]


def record(state: EncounterState, cid: str):  # type: ignore[no-untyped-def]
    return ext_of(state).records[cid]
