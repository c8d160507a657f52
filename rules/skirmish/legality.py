"""Is an action legal now, and what does it cost? Every refusal names the character and cites its rule."""

from __future__ import annotations

from collections.abc import Sequence

from rules.errors import IllegalOrderError
from rules.hexgrid import Hex, Vertex, vertex_ahead
from rules.ruleset import Order
from rules.skirmish import halfhex
from rules.skirmish.geometry import (
    blocks_move,
    can_see,
    holds_object,
    move_cost,
    move_targets,
    step_cost,
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
from rules.skirmish.paths import steps_along
from rules.skirmish.tables import tables
from rules.state import EncounterState, replace_unit


def illegal(ch: Character, code: str, rule: str, message: str, **params: object) -> IllegalOrderError:
    return IllegalOrderError(
        f"{ch.name}: {message}",
        code=f"skirmish.{code}",
        rule=rule,
        params={"unit": ch.id, "name": ch.name, **params},
    )


def action_cost(state: EncounterState, ch: Character, order: Order) -> int:
    """The AP ``order`` costs ``ch`` now, or ``IllegalOrderError`` saying why it cannot be done."""
    if not ch.acting:
        raise illegal(ch, "dead", "SK-3.4", "is dead and cannot act")
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
            raise illegal(
                ch, "no_skill", "SK-4.1", "has no ranged skill, so cannot go into overwatch", skill="ranged"
            )
        cost = tables().action_cost["overwatch"]
    elif isinstance(order, SkAct):
        cost = tables().action_cost["act"]
    else:
        raise illegal(ch, "not_an_action", "SK-1.1", "that is not an action", order=type(order).__name__)
    if cost > ch.ap_left:
        # SK-1.2: AP cannot be saved or exceeded
        raise illegal(
            ch, "ap", "SK-1.2", f"needs {cost} AP but has {ch.ap_left} left", cost=cost, ap_left=ch.ap_left
        )
    return cost


def _turn(ch: Character, order: SkTurn) -> int:
    if order.to == ch.facing:
        raise illegal(
            ch,
            "turn_none",
            "SK-2.1",
            f"already faces {Vertex(order.to).label}",
            vertex=Vertex(order.to).label,
        )
    # SK-2.1: turns in place add up within an activation: the run since the last other action costs what one
    # turn from where it started to the new facing costs; earlier turns of the run already paid their part.
    if ch.at is not None and ch.astride is not None:
        facings = halfhex.astride_facings(ch.at, ch.astride)
        if order.to not in facings:
            names = " or ".join(Vertex(f).label for f in facings)
            raise illegal(
                ch, "astride_facing", "SK-2.5", f"astride, it faces along its side ({names})", options=names
            )
    start = ch.facing if ch.turn_from is None else ch.turn_from
    return max(0, turn_cost(start, order.to) - ch.turn_paid)


Cell = Hex | tuple[Hex, Hex]  # where a step ends: a whole hex, or astride two half hexes (SK-2.5)


def _label(cell: Cell) -> str:
    return cell.label if isinstance(cell, Hex) else f"{cell[0].label}/{cell[1].label}"


def _same(a: Cell, b: Cell) -> bool:
    if isinstance(a, Hex) or isinstance(b, Hex):
        return a == b
    return set(a) == set(b)


def path_steps(state: EncounterState, ch: Character, order: SkMove) -> tuple[SkMove, ...]:
    """The single steps of a move (a path's, rules/skirmish/paths.py; otherwise the move itself), or
    ``IllegalOrderError`` when its hexes do not follow one another as steps can."""
    if not order.path:
        return (order,)
    hexes = (*order.path, order.to)
    if ch.astride is not None:
        raise illegal(ch, "path_astride", "SK-2.5", "moves one step at a time while astride two half hexes")
    steps = steps_along(state, ch, hexes, order.facing)
    if steps is None:
        assert ch.at is not None
        labels = " ".join(h.label for h in hexes)
        raise illegal(
            ch,
            "not_a_path",
            "SK-2.2",
            f"{labels} is not a path of steps from {ch.at.label} (each hex next to the one before)",
            path=labels,
            hex=ch.at.label,
        )
    return steps


def _path(state: EncounterState, ch: Character, order: SkMove) -> int:
    """Every step of a path is judged as a move of its own from where the one before ends (SK-2.2..2.4)."""
    total, here = 0, ch
    for step in path_steps(state, ch, order):
        total += _move(state, here, step)
        here = replace_unit(here, at=step.to, facing=step.facing if step.facing is not None else here.facing)
    return total


def _move(state: EncounterState, ch: Character, order: SkMove) -> int:
    if order.path:
        return _path(state, ch, order)
    rule = "SK-2.3" if order.backward else "SK-2.2"
    halves = halfhex.enabled(state)
    if (order.astride is not None or order.via is not None) and not halves:
        raise illegal(
            ch, "half_off", "SK-2.5", "half hexes are not in play here (scenario option half_hexes)"
        )
    facing = ch.facing if order.facing is None else order.facing
    cell: Cell = order.to if order.astride is None else (order.to, order.astride)
    if order.via is not None:
        return _pass_half_hex(state, ch, order.via, cell, facing)
    assert ch.at is not None
    if ch.astride is None:
        allowed = halfhex.forward_cells(ch.at, ch.facing, backward=order.backward, halves=halves)
    else:
        allowed = list(move_targets(ch, backward=order.backward))
    _reachable(ch, cell, allowed, backward=order.backward, rule=rule)
    _enter(state, ch, cell, facing)
    return move_cost(state, ch, cell, facing, backward=order.backward)


def _reachable(ch: Character, cell: Cell, allowed: Sequence[Cell], *, backward: bool, rule: str) -> None:
    if any(_same(cell, a) for a in allowed):
        return
    where = "behind" if backward else "ahead of"
    options = " or ".join(_label(a) for a in allowed)
    raise illegal(
        ch,
        "not_behind" if backward else "not_ahead",
        rule,
        f"{_label(cell)} is not {where} the facing vertex {Vertex(ch.facing).label} (choose {options})",
        hex=_label(cell),
        options=options,
    )


def _enter(state: EncounterState, ch: Character, cell: Cell, facing: int) -> None:
    """A step may end here: a free whole hex (SK-2.4), or two free halves with a facing along their side (SK-2.5)."""
    if isinstance(cell, Hex):
        _enterable(state, ch, cell)
        return
    a, b = cell
    if halfhex.side_between(a, b) is None:
        raise illegal(
            ch,
            "not_adjacent_halves",
            "SK-2.5",
            f"{_label(cell)} are not two adjacent hexes",
            hex=_label(cell),
        )
    for h in cell:
        _on_board_and_open(state, ch, h)
    other = halfhex.halves_free(state, a, b, besides=ch.id)
    if other is not None:
        _occupied(state, ch, other, _label(cell))
    facings = halfhex.astride_facings(a, b)
    if facing not in facings:
        names = " or ".join(Vertex(f).label for f in facings)
        raise illegal(
            ch,
            "astride_facing",
            "SK-2.5",
            f"astride {_label(cell)} it faces along their side ({names})",
            hex=_label(cell),
            options=names,
        )


def _pass_half_hex(state: EncounterState, ch: Character, via: Hex, cell: Cell, facing: int) -> int:
    """SK-2.5: "pasar por un medio hexágono a un coste del doble … no puede permanecer": a forward step into a hex
    whose other half is taken, at double cost, and on in the same action to a free place ahead of it."""
    assert ch.at is not None
    if ch.astride is not None:
        raise illegal(
            ch, "pass_from_astride", "SK-2.5", "passes a half hex only from a whole hex", hex=via.label
        )
    _reachable(ch, via, vertex_ahead(ch.at, ch.facing), backward=False, rule="SK-2.2")
    _on_board_and_open(state, ch, via)
    if not halfhex.is_half_hex(state, via, besides=ch.id):
        raise illegal(ch, "not_half_hex", "SK-2.5", f"{via.label} is not a half hex", hex=via.label)
    beyond = halfhex.forward_cells(via, ch.facing, backward=False, halves=True)
    _reachable(ch, cell, beyond, backward=False, rule="SK-2.5")
    _enter(state, ch, cell, facing)
    return 2 * step_cost(state, via, backward=False) + move_cost(state, ch, cell, facing, backward=False)


def _on_board_and_open(state: EncounterState, ch: Character, h: Hex) -> None:
    if not state.board.contains(h):
        raise illegal(ch, "off_board", "SK-2.4", f"{h.label} is off the board", hex=h.label)
    if blocks_move(state, h):
        kind = state.board.terrain_at(h) or "fire"
        raise illegal(
            ch, "blocked", "SK-2.4", f"{h.label} cannot be entered ({kind})", hex=h.label, kind=kind
        )


def _occupied(state: EncounterState, ch: Character, other: Character, where: str) -> None:
    if other.side != ch.side and not _seen_by_side(state, ch.side, other.id):
        # the mover bumps into someone it cannot see: say so without naming them (FOG-1)
        raise illegal(ch, "occupied_unseen", "SK-2.4", f"{where} is occupied", hex=where)
    if other.astride is not None:
        raise illegal(
            ch,
            "half_hex",
            "SK-2.5",
            f"{where}: {other.name} holds half of it; a half hex can only be passed (move ... via)",
            hex=where,
            other=other.name,
        )
    raise illegal(
        ch, "occupied", "SK-2.4", f"{where} is occupied by {other.name}", hex=where, other=other.name
    )


def _seen_by_side(state: EncounterState, side: str, unit_id: str) -> bool:
    """Whether ``side`` sees the unit (FOG-1; a layer's sight too, such as the night's, NGT-2)."""
    from rules.engine import visibility
    from rules.registry import ruleset_for

    return unit_id in visibility(ruleset_for(state), state, side).units


def _enterable(state: EncounterState, ch: Character, h: Hex) -> None:
    if not state.board.contains(h):
        raise illegal(ch, "off_board", "SK-2.4", f"{h.label} is off the board", hex=h.label)
    other = next((o for o in halfhex.occupants(state, h) if o.id != ch.id), None)
    if other is not None:
        _occupied(state, ch, other, h.label)
    _on_board_and_open(state, ch, h)


def target_of(state: EncounterState, ch: Character, target_id: str, rule: str) -> Character:
    target = state.units.get(target_id)
    if not isinstance(target, Character):
        raise illegal(ch, "no_target", rule, f"there is no character called {target_id}", target=target_id)
    if target.id == ch.id:
        raise illegal(ch, "self_target", rule, "cannot target itself", target=target.name)
    if not target.acting:
        raise illegal(ch, "target_dead", rule, f"{target.name} is already dead", target=target.name)
    return target


def _sight(state: EncounterState, ch: Character, target: Character, rule: str) -> None:
    assert target.at is not None
    if not can_see(state, ch, halfhex.position(target)):
        raise illegal(
            ch,
            "no_sight",
            rule,
            f"cannot see {target.name} (front arc and clear line, SK-3.2)",
            target=target.name,
        )


def shot_range_ok(ch: Character, target: Character) -> bool:
    tab = tables()
    return tab.range_min <= halfhex.gap(ch, target) <= tab.range_max


def _shoot(state: EncounterState, ch: Character, target_id: str) -> int:
    target = target_of(state, ch, target_id, "SK-3.1")
    if ch.ranged <= 0:
        raise illegal(ch, "no_skill", "SK-3.1", "has no ranged skill", skill="ranged")
    distance = halfhex.gap(ch, target)  # SK-2.5: the nearest hexes of two characters astride
    tab = tables()
    if distance < tab.range_min:
        raise illegal(
            ch,
            "adjacent",
            "SK-3.1",
            f"is adjacent to {target.name}: shooting needs a hex between (use melee)",
            target=target.name,
        )
    if distance > tab.range_max:
        raise illegal(
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
    if halfhex.gap(ch, target) > 1:  # SK-2.5: two characters astride may share a hex, side by side
        raise illegal(ch, "not_adjacent", "SK-5.1", f"{target.name} is not adjacent", target=target.name)
    _sight(state, ch, target, "SK-5.1")
    return tables().action_cost["melee"]


def _grenade(state: EncounterState, ch: Character, order: SkGrenade) -> int:
    """SK-6.2: a character or an object (a hex) in sight; an other action's cost (1 AP, SK-6.1)."""
    if order.at is None:
        target = target_of(state, ch, order.target, "SK-6.2")
        _sight(state, ch, target, "SK-6.2")
        return tables().action_cost["grenade"]
    h = order.at
    if not state.board.contains(h):
        raise illegal(ch, "off_board", "SK-6.2", f"{h.label} is off the board", hex=h.label)
    if h in halfhex.hexes_of(ch):
        raise illegal(ch, "self_target", "SK-6.2", "cannot target itself", target=h.label)
    if not tables().grenade_any_hex and not holds_object(state, h):
        raise illegal(
            ch,
            "no_object",
            "SK-6.2",
            f"there is nothing at {h.label} to throw a grenade at (a character or an object)",
            hex=h.label,
        )
    if not can_see(state, ch, h):
        raise illegal(
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
