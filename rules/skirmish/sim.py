"""Offline play of one ``[[rounds]]`` entry (``hexdirector sim``).

Chits come out in the round's ``draw`` order (then at random); each drawn unit's characters act in the order
the ``actions`` table lists them, each action through ``resolve_phase`` so scripted dice flow across steps;
a character with no actions left ends its activation. Overwatch questions are answered from ``reactions``
(the first unused entry by that watcher, else "hold"). One ``SimStep`` per character activation, named
``<chit>-<character>``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, cast

from rules.engine import resolve_phase
from rules.events import Event, Note
from rules.ruleset import DiceFactory, Order, RoundSpec, Ruleset, SimStep
from rules.skirmish.activation import DRAW, ext_of
from rules.skirmish.model import Character, SkEnd, SkirmishState, SkReaction
from rules.state import EncounterState


def simulate(
    ruleset: Ruleset, state: EncounterState, spec: RoundSpec, dice_for: DiceFactory
) -> Iterator[SimStep]:
    raw = spec.raw
    plan = tuple(str(c) for c in cast(list[Any], raw.get("draw", [])))
    actions: dict[str, list[str]] = {
        str(k): [str(a) for a in cast(list[Any], v)]
        for k, v in cast(dict[str, Any], raw.get("actions", {})).items()
    }
    reactions: list[tuple[str, str]] = [
        (str(r.get("by")), str(r.get("answer"))) for r in cast(list[dict[str, Any]], raw.get("reactions", []))
    ]
    listed = list(actions)
    ext = ext_of(state)
    state = state.replace(
        ext=SkirmishState(
            bag=ext.bag, draw_plan=plan, chit=ext.chit, active=ext.active, done=ext.done, trigger=ext.trigger
        )
    )
    start = state.round
    buffer: list[Event] = []
    label = "draw"

    def step(orders: dict[str, Order]) -> EncounterState:
        result = resolve_phase(ruleset, state, orders, dice_for=dice_for)
        buffer.extend(result.events)
        return result.state

    current: str | None = None
    while not state.over and state.round == start:
        if state.pending is not None:
            watcher = state.pending.unit
            answer = next((a for by, a in reactions if by == watcher), "hold")
            if (watcher, answer) in reactions:
                reactions.remove((watcher, answer))
            state = step({watcher: SkReaction(unit=watcher, answer=answer)})
        elif state.phase == DRAW:
            state = step({})
        else:
            waiting = ruleset.awaiting(state)
            current = next((c for c in listed if c in waiting), waiting[0])
            label = f"{ext_of(state).chit or ''}-{current}"
            todo = actions.get(current, [])
            if todo:
                order = ruleset.parse_order(state, current, todo.pop(0))
                ruleset.validate_order(state, current, order)
            else:
                order = SkEnd(unit=current)
            state = step({current: order})
        if current is not None and _finished(state, current, start):
            buffer.extend(_dropped(state, current, actions))
            yield SimStep(spec.index, label, state, tuple(buffer))
            buffer.clear()
            current = None
    if buffer:
        yield SimStep(spec.index, label, state, tuple(buffer))


def _dropped(state: EncounterState, current: str, actions: dict[str, list[str]]) -> list[Event]:
    """Listed actions that will never be taken, each character's told once: the game ended (SK-1.1, everyone's
    are cancelled), the character died (SK-4.1: an overwatch kill cancels the action and the rest of the
    activation), or its activation ended otherwise (SK-1.1, SK-4.1: overwatch is the last action)."""
    notes: list[Event] = []
    who = (
        [c for c, left in actions.items() if left]
        if state.over
        else [current]
        if actions.get(current)
        else []
    )
    for char_id in who:
        left = actions[char_id]
        if state.over:
            key, rule = "sk_actions_game_over", "SK-1.1"
        elif not state.unit_as(char_id, Character).acting:
            key, rule = "sk_actions_dropped", "SK-4.1"
        else:
            key, rule = "sk_actions_left", "SK-1.1"
        notes.append(Note(rule=rule, key=key, unit=char_id, args=(("count", len(left)),)))
        left.clear()
    return notes


def _finished(state: EncounterState, char_id: str, start_round: int) -> bool:
    """The character's activation is over (ended, dead, round over or encounter over)."""
    ch = state.unit_as(char_id, Character)
    return char_id in ext_of(state).done or not ch.acting or state.over or state.round != start_round
