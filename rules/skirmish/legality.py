"""Is an action legal now, and what does it cost? Every refusal names the character and cites its rule."""

from __future__ import annotations

from rules.errors import IllegalOrderError
from rules.hexgrid import Hex, Vertex
from rules.ruleset import Order
from rules.skirmish.geometry import (
    blocks_move,
    can_see,
    holds_object,
    move_cost,
    move_targets,
    occupant,
    turn_cost,
)
from rules.skirmish.model import (
    Character,
    SkAct,
    SkEnd,
    SkGrenade,
    SkMelee,
    SkMove,
    SkOverwatch,
    SkReaction,
    SkShoot,
    SkTurn,
)
from rules.skirmish.tables import tables
from rules.state import EncounterState


def refuse(ch: Character, code: str, rule: str, message: str, **params: object) -> IllegalOrderError:
    return IllegalOrderError(
        f"{ch.name}: {message}",
        code=f"skirmish.{code}",
        rule=rule,
        params={"unit": ch.id, "name": ch.name, **params},
    )


def action_cost(state: EncounterState, ch: Character, order: Order) -> int:
    """The AP ``order`` costs ``ch`` now, or ``IllegalOrderError`` saying why it cannot be done."""
    if not ch.acting:
        raise refuse(ch, "dead", "SK-3.4", "is dead and cannot act")
    if isinstance(order, SkEnd):
        return 0
    if isinstance(order, SkTurn):
        cost = _turn(ch, order)
    elif isinstance(order, SkMove):
        cost = _move(state, ch, order)
    elif isinstance(order, SkShoot):
        cost = _shoot(state, ch, order.target)
    elif isinstance(order, SkMelee):
        cost = _melee(state, ch, order.target)
    elif isinstance(order, SkGrenade):
        cost = _grenade(state, ch, order)
    elif isinstance(order, SkOverwatch):
        if ch.ranged <= 0:
            raise refuse(
                ch, "no_skill", "SK-4.1", "has no ranged skill, so cannot go into overwatch", skill="ranged"
            )
        cost = tables().action_cost["overwatch"]
    elif isinstance(order, SkAct):
        cost = tables().action_cost["act"]
    else:
        raise refuse(ch, "not_an_action", "SK-1.1", "that is not an action", order=type(order).__name__)
    if cost > ch.ap_left:
        # SK-1.2: AP cannot be saved or exceeded
        raise refuse(
            ch, "ap", "SK-1.2", f"needs {cost} AP but has {ch.ap_left} left", cost=cost, ap_left=ch.ap_left
        )
    return cost


def _turn(ch: Character, order: SkTurn) -> int:
    if order.to == ch.facing:
        raise refuse(
            ch,
            "turn_none",
            "SK-2.1",
            f"already faces {Vertex(order.to).label}",
            vertex=Vertex(order.to).label,
        )
    # SK-2.1: turns in place add up within an activation: the run since the last other action costs what one
    # turn from where it started to the new facing costs; earlier turns of the run already paid their part.
    start = ch.facing if ch.turn_from is None else ch.turn_from
    return max(0, turn_cost(start, order.to) - ch.turn_paid)


def _move(state: EncounterState, ch: Character, order: SkMove) -> int:
    rule = "SK-2.3" if order.backward else "SK-2.2"
    allowed = move_targets(ch, backward=order.backward)
    if order.to not in allowed:
        where = "behind" if order.backward else "ahead of"
        options = " or ".join(h.label for h in allowed)
        raise refuse(
            ch,
            "not_behind" if order.backward else "not_ahead",
            rule,
            f"{order.to.label} is not {where} the facing vertex {Vertex(ch.facing).label} (choose {options})",
            hex=order.to.label,
            options=options,
        )
    _enterable(state, ch, order.to)
    facing = ch.facing if order.facing is None else order.facing
    return move_cost(state, ch, order.to, facing, backward=order.backward)


def _enterable(state: EncounterState, ch: Character, h: Hex) -> None:
    if not state.board.contains(h):
        raise refuse(ch, "off_board", "SK-2.4", f"{h.label} is off the board", hex=h.label)
    other = occupant(state, h)
    if other is not None and other.hidden and other.side != ch.side:
        # the mover bumps into someone it cannot see: say so without naming them (FOG-1)
        raise refuse(ch, "occupied_unseen", "SK-2.4", f"{h.label} is occupied", hex=h.label)
    if other is not None:
        raise refuse(
            ch, "occupied", "SK-2.4", f"{h.label} is occupied by {other.name}", hex=h.label, other=other.name
        )
    if blocks_move(state, h):
        kind = state.board.terrain_at(h) or "fire"
        raise refuse(ch, "blocked", "SK-2.4", f"{h.label} cannot be entered ({kind})", hex=h.label, kind=kind)


def target_of(state: EncounterState, ch: Character, target_id: str, rule: str) -> Character:
    target = state.units.get(target_id)
    if not isinstance(target, Character):
        raise refuse(ch, "no_target", rule, f"there is no character called {target_id}", target=target_id)
    if target.id == ch.id:
        raise refuse(ch, "self_target", rule, "cannot target itself", target=target.name)
    if not target.acting:
        raise refuse(ch, "target_dead", rule, f"{target.name} is already dead", target=target.name)
    return target


def _sight(state: EncounterState, ch: Character, target: Character, rule: str) -> None:
    assert target.at is not None
    if not can_see(state, ch, target.at):
        raise refuse(
            ch,
            "no_sight",
            rule,
            f"cannot see {target.name} (front arc and clear line, SK-3.2)",
            target=target.name,
        )


def shot_range_ok(ch: Character, target: Character) -> bool:
    assert ch.at is not None and target.at is not None
    tab = tables()
    return tab.range_min <= ch.at.distance(target.at) <= tab.range_max


def _shoot(state: EncounterState, ch: Character, target_id: str) -> int:
    target = target_of(state, ch, target_id, "SK-3.1")
    if ch.ranged <= 0:
        raise refuse(ch, "no_skill", "SK-3.1", "has no ranged skill", skill="ranged")
    assert ch.at is not None and target.at is not None
    distance = ch.at.distance(target.at)
    tab = tables()
    if distance < tab.range_min:
        raise refuse(
            ch,
            "adjacent",
            "SK-3.1",
            f"is adjacent to {target.name}: shooting needs a hex between (use melee)",
            target=target.name,
        )
    if distance > tab.range_max:
        raise refuse(
            ch,
            "range",
            "SK-3.1",
            f"{target.name} is {distance} hexes away (at most {tab.range_max})",
            target=target.name,
            distance=distance,
            max=tab.range_max,
        )
    _sight(state, ch, target, "SK-3.2")
    return tab.action_cost["shoot"]


def _melee(state: EncounterState, ch: Character, target_id: str) -> int:
    target = target_of(state, ch, target_id, "SK-5.1")
    assert ch.at is not None and target.at is not None
    if ch.at.distance(target.at) != 1:
        raise refuse(ch, "not_adjacent", "SK-5.1", f"{target.name} is not adjacent", target=target.name)
    _sight(state, ch, target, "SK-5.1")
    return tables().action_cost["melee"]


def _grenade(state: EncounterState, ch: Character, order: SkGrenade) -> int:
    """SK-6.2: a character or an object (a hex) in sight; an other action's cost (1 AP, SK-6.1)."""
    if order.at is None:
        target = target_of(state, ch, order.target, "SK-6.2")
        _sight(state, ch, target, "SK-6.2")
        return tables().action_cost["grenade"]
    h = order.at
    assert ch.at is not None
    if not state.board.contains(h):
        raise refuse(ch, "off_board", "SK-6.2", f"{h.label} is off the board", hex=h.label)
    if h == ch.at:
        raise refuse(ch, "self_target", "SK-6.2", "cannot target itself", target=h.label)
    if not tables().grenade_any_hex and not holds_object(state, h):
        raise refuse(
            ch,
            "no_object",
            "SK-6.2",
            f"there is nothing at {h.label} to throw a grenade at (a character or an object)",
            hex=h.label,
        )
    if not can_see(state, ch, h):
        raise refuse(
            ch, "no_sight_hex", "SK-3.2", f"cannot see {h.label} (front arc and clear line)", hex=h.label
        )
    return tables().action_cost["grenade"]


def check_reaction(state: EncounterState, order: SkReaction) -> None:
    """An answer must come from the watcher the pending overwatch question was put to (SK-4.1)."""
    pending = state.pending
    watcher = state.units.get(order.unit)
    if pending is None or pending.kind != "overwatch" or pending.unit != order.unit:
        name = watcher.name if watcher is not None else order.unit
        raise IllegalOrderError(
            f"{name}: no overwatch question is waiting for this character",
            code="skirmish.no_question",
            rule="SK-4.1",
            params={"unit": order.unit, "name": name},
        )
