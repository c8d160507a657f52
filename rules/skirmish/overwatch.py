"""SK-4.1 overwatch ("fuego de cobertura"): who may fire at a character spending AP, and how often."""

from __future__ import annotations

from rules.dice import Dice
from rules.ruleset import Order
from rules.skirmish.combat import Outcome, ranged_attack
from rules.skirmish.geometry import can_see
from rules.skirmish.halfhex import position
from rules.skirmish.legality import shot_range_ok
from rules.skirmish.model import Character, action_kind
from rules.skirmish.tables import tables
from rules.state import EncounterState, replace_unit


def shots_triggered(order: Order, cost: int) -> int:
    """One shot per AP spent moving or on other actions, one per 2 AP of a ranged attack; none for entering
    overwatch or melee (``data/skirmish/overwatch.toml``)."""
    per = tables().ap_per_shot.get(action_kind(order), 0)
    return cost // per if per > 0 else 0


def may_fire(state: EncounterState, watcher_id: str, actor_id: str) -> bool:
    """A living enemy in overwatch with shots left this round, able to see the actor within 2..12 hexes."""
    watcher = state.units.get(watcher_id)
    actor = state.units.get(actor_id)
    if not isinstance(watcher, Character) or not isinstance(actor, Character):
        return False
    if not (watcher.acting and actor.acting) or watcher.side == actor.side:
        return False
    if watcher.overwatch is None or watcher.overwatch_shots_left <= 0 or watcher.ranged <= 0:
        return False
    assert actor.at is not None
    return shot_range_ok(watcher, actor) and can_see(state, watcher, position(actor))


def shot_queue(state: EncounterState, actor_id: str, order: Order, cost: int) -> tuple[str, ...]:
    """One entry per possible shot, watchers by id; watchers whose policy is ``never`` are left out."""
    shots = shots_triggered(order, cost)
    if shots <= 0:
        return ()
    queue: list[str] = []
    for watcher in sorted(state.units_of(Character), key=lambda c: c.id):
        if watcher.overwatch in (None, "never") or not may_fire(state, watcher.id, actor_id):
            continue
        queue.extend([watcher.id] * min(shots, watcher.overwatch_shots_left))
    return tuple(queue)


def overwatch_shot(state: EncounterState, dice: Dice, watcher_id: str, actor_id: str) -> Outcome:
    """One overwatch shot: it counts against the per-round cap, then resolves as a ranged attack (SK-3.5 too)."""
    watcher = state.unit_as(watcher_id, Character)
    state = state.with_units([replace_unit(watcher, overwatch_shots_left=watcher.overwatch_shots_left - 1)])
    return ranged_attack(state, dice, watcher_id, actor_id, weapon="overwatch")
