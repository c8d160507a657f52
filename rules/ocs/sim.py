"""Offline play of one ``[[rounds]]`` entry (``hexdirector sim``), through the same orders as the director's.

First the round's ``orders.mode`` (one step each, named ``mode``), then ``orders.move`` (``move``), then each
``orders.combat`` entry in turn (DESIGN §7.2), played to its end before the next one opens (step
``combat-<n>``): the entry opens the combat as the director would; every question it leaves is answered by
the director's order, from the entry when it gives one, else by a default:

- AR unit (OCS-2): ``ar_attacker`` / ``ar_defender``, else the side's unit with the highest AR (file order on ties);
- losses (OCS-6): ``losses = { attacker = [...], defender = [...] }``, else the first legal list
  (:func:`rules.ocs.queries.loss_allocations`: fewest steps, so the defender retreats its option);
- retreats (OCS-6): ``retreats = { unit = "hex" }``, else each unit's first legal hex (label order).

Every order is checked with ``validate_order`` first, so an illegal one stops the simulation (exit status 2).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, cast

from rules.engine import resolve_phase
from rules.events import Event
from rules.ocs.model import ATTACKER, DEFENDER_LOSSES, OcsUnit, ext_of, find_combat
from rules.ocs.orders import ANSWER_OF
from rules.ocs.queries import ar_candidates, loss_allocations, retreat_options
from rules.ocs.scenario_io import SIM_KEYS
from rules.ruleset import DIRECTOR, DiceFactory, RoundSpec, Ruleset, SimStep
from rules.state import EncounterState


def simulate(
    ruleset: Ruleset, state: EncounterState, spec: RoundSpec, dice_for: DiceFactory
) -> Iterator[SimStep]:
    orders = cast(Mapping[str, Any], spec.raw.get("orders", {}))

    def play(current: EncounterState, raw: Mapping[str, Any]) -> tuple[EncounterState, tuple[Event, ...]]:
        order = ruleset.parse_order(current, DIRECTOR, raw)
        ruleset.validate_order(current, DIRECTOR, order)
        result = resolve_phase(ruleset, current, {DIRECTOR: order}, dice_for=dice_for)
        return result.state, result.events

    for key in ("mode", "move"):
        for entry in cast(list[Mapping[str, Any]], orders.get(key, [])):
            state, moved = play(state, {key: dict(entry)})
            yield SimStep(spec.index, key, state, moved)
    for entry in cast(list[Mapping[str, Any]], orders.get("combat", [])):
        cid = ext_of(state).next_id
        state, first = play(state, {"combat": {k: v for k, v in entry.items() if k not in SIM_KEYS}})
        events: list[Event] = list(first)
        while (combat := find_combat(state, cid)) is not None:
            if combat.asks is None:
                result = resolve_phase(ruleset, state, {}, dice_for=dice_for)
                state, more = result.state, result.events
            else:
                state, more = play(state, {**_answer(state, cid, entry), "combat": cid})
            events.extend(more)
        yield SimStep(spec.index, f"combat-{cid}", state, tuple(events))


def _answer(state: EncounterState, cid: int, entry: Mapping[str, Any]) -> dict[str, Any]:
    """The director's answer to what combat ``cid`` asks: the entry's, else the default."""
    combat = find_combat(state, cid)
    assert combat is not None
    kind = ANSWER_OF[combat.stage]
    if kind == "ar":
        units = [state.unit_as(uid, OcsUnit) for uid in ar_candidates(state, cid)]
        best = max(units, key=lambda u: (u.action_rating, -units.index(u)))
        return {"ar": best.id}
    if kind == "losses":
        role = "defender" if combat.stage == DEFENDER_LOSSES else ATTACKER
        scripted = cast(Mapping[str, Any], entry.get("losses", {})).get(role)
        if scripted is not None:
            return {"losses": list(cast(list[str], scripted))}
        return {"losses": list(loss_allocations(state, cid)[0])}
    scripted_hexes = cast(Mapping[str, Any], entry.get("retreats", {}))
    options = retreat_options(state, cid)
    return {
        "retreats": {
            uid: scripted_hexes.get(uid, hexes[0].label if hexes else "") for uid, hexes in options.items()
        }
    }
