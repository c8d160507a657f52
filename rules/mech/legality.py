"""Is a declaration legal? (MECH-1.2 movement, MECH-1.3 arcs, MECH-2.1 range and sight, MECH-2.2 physical,
MECH-3.2 shutdown). Every refusal is an ``IllegalOrderError`` naming the unit and the rule id.

A declaration is judged on the board its declarer sees (MECH-1.1): units that declared before it stand where
their declarations take them (movement resolves in declaration order, so that is where they will be), the others
where they are now. With secret declarations nobody's declaration is known, so everyone is where they are now;
a clash found only when the turn resolves stops the mover short (``resolution.py``), a shot whose target left its
arc or range is spent.
"""

from __future__ import annotations

from collections import OrderedDict
from contextlib import suppress
from dataclasses import dataclass

from rules.errors import IllegalOrderError
from rules.hexgrid import Hex, HexSide
from rules.mech.geometry import FRONT, LEFT, RIGHT, adjacent_arc_hexes, weapon_in_arc
from rules.mech.heat import mp_penalty
from rules.mech.model import Mech
from rules.mech.movement import (
    FAST_MODES,
    PathCost,
    modes_for,
    mp_available,
    out_of_control_order,
    path_cost,
    step_problem,
    turn_surcharge,
)
from rules.mech.orders import CRUISE, FLANK, JUMP, RUN, STAND, WALK, MechOrder, PhysicalEntry, stand_order
from rules.mech.state import ext_of, secret
from rules.mech.tables import WeaponType
from rules.mech.tohit import Motion, ShotOdds, fire_odds
from rules.state import EncounterState


@dataclass(frozen=True, slots=True)
class Placement:
    """Where a unit is (or will be, once its known declaration has moved it) and how it moved this turn."""

    at: Hex
    facing: int
    twist: int
    motion: Motion


def odds_at(
    state: EncounterState,
    unit: Mech,
    at: Hex,
    mode: str,
    spec: WeaponType,
    target: Mech,
    place: Placement,
    *,
    primary: bool,
) -> ShotOdds:
    """MECH-2.1: a shot from ``at`` at ``target`` where ``place`` says it stands and how it moved."""
    return fire_odds(
        state.board,
        unit,
        at,
        mode,
        spec,
        target,
        place.at,
        place.motion,
        primary=primary,
        target_facing=place.facing,
    )


def _illegal(unit: Mech, message: str, code: str, rule: str, **params: object) -> IllegalOrderError:
    return IllegalOrderError(
        f"{unit.name}: {message}", code=code, rule=rule, params={"unit": unit.id, "name": unit.name, **params}
    )


def end_of(state: EncounterState, unit: Mech, order: MechOrder) -> tuple[Hex, int, PathCost | None]:
    """Where a declaration leaves the unit: end hex, end facing and its path cost (None when standing)."""
    assert unit.at is not None
    if order.mode == STAND or unit.shutdown or unit.immobile:
        return unit.at, unit.facing, None
    cost = path_cost(
        state.board, unit, order.mode, order.path, order.facing, per_turn=turn_surcharge(state, unit)
    )
    return cost.end, cost.end_facing, cost


def placements(state: EncounterState, viewer: str = "") -> dict[str, Placement]:
    """Every unit on the board as ``viewer`` sees it while declaring: declared units (open declarations only)
    at their declared end with their declared movement, undeclared ones where they are, movement unknown.
    Enemies the director placed hidden are left out.

    A panel checks a declaration per destination, shot and press on the same state, so the answer is kept for
    the last few (state, viewer): states are immutable, and each caller gets its own copy of the dict."""
    key = (id(state), viewer)
    kept = _PLACEMENTS.get(key)
    if kept is None or kept[0] is not state:
        kept = (state, _placements(state, viewer))
        _PLACEMENTS[key] = kept
        if len(_PLACEMENTS) > PLACEMENTS_KEPT:
            with suppress(KeyError):  # another thread emptied it first
                _PLACEMENTS.popitem(last=False)
    return dict(kept[1])


#: (state, viewer) pairs whose placements are kept: the units of the few encounters declaring at once
PLACEMENTS_KEPT = 64
_PLACEMENTS: OrderedDict[tuple[int, str], tuple[EncounterState, dict[str, Placement]]] = OrderedDict()


def _placements(state: EncounterState, viewer: str) -> dict[str, Placement]:
    ext = ext_of(state)
    hidden = secret(state)
    viewer_unit = state.units.get(viewer)
    side = viewer_unit.side if viewer_unit is not None else None
    out: dict[str, Placement] = {}
    for unit in state.units.values():
        if not isinstance(unit, Mech) or not unit.active or unit.at is None:
            continue
        if unit.hidden and side is not None and unit.side != side:
            continue  # placed hidden by the director (FOG-1): a declaration never learns of it
        order = ext.declaration(unit.id)
        if order is not None and (not hidden or unit.id == viewer):
            try:
                at, facing, cost = end_of(state, unit, order)
            except IllegalOrderError:
                at, facing, cost = unit.at, unit.facing, None
            motion = Motion(order.mode, cost.hexes if cost else 0)
            out[unit.id] = Placement(at, facing, order.twist, motion)
        else:
            cannot_move = unit.shutdown or unit.immobile
            out[unit.id] = Placement(unit.at, unit.facing, 0, Motion(known=cannot_move or order is not None))
    return out


def check_declaration(state: EncounterState, order: MechOrder) -> PathCost | None:
    """Raise ``IllegalOrderError`` if ``order`` breaks a rule on the board its declarer sees; return its cost."""
    unit = state.unit_as(order.unit, Mech)
    if not unit.active:
        raise _illegal(unit, "is destroyed", "mech.destroyed", "MECH-2.3")
    seen = placements(state, unit.id)
    seen.pop(unit.id, None)
    cost = _check_movement(state, unit, order, seen)
    assert unit.at is not None
    end_at = cost.end if cost is not None else unit.at
    end_facing = cost.end_facing if cost is not None else unit.facing
    if order.fire and not state.board.contains(end_at):
        raise _illegal(
            unit, "flies off the board: it fires nothing this turn", "mech.fighter_off_fire", "MECH-5"
        )
    used: set[int] = set()
    for entry in order.fire:
        if entry.weapon in used:
            raise _illegal(
                unit,
                f"weapon {entry.weapon} is declared twice",
                "mech.weapon_twice",
                "MECH-1.2",
                weapon=entry.weapon,
            )
        used.add(entry.weapon)
        check_shot(state, unit, order.mode, end_at, end_facing, order.twist, entry.weapon, entry.target, seen)
    check_physical(state, unit, order, end_at, end_facing, cost, seen)
    return cost


def _check_movement(
    state: EncounterState, unit: Mech, order: MechOrder, seen: dict[str, Placement]
) -> PathCost | None:
    """MECH-1.2: the declared movement, checked by what it asks in turn: may the unit move at all, in this
    mode, along this path, through these hexes, for these movement points. None: it stays where it is."""
    assert unit.at is not None
    if not _moves(state, unit, order):
        return None
    available = mp_available(unit)
    _check_mode(unit, order, available)
    cost = _checked_path(state, unit, order, unit.at)
    _check_hexes_free(state, unit, order, cost, seen)
    _check_mp(unit, order, cost, available[order.mode])
    return cost


def _moves(state: EncounterState, unit: Mech, order: MechOrder) -> bool:
    """Whether the order moves the unit (False: it stays, as a shut-down mech, MECH-3.2, an out-of-control
    fighter, MECH-5, or a unit standing still must); its mode is one its kind has (MECH-1.2) and only a mech
    twists its torso (MECH-1.3)."""
    if unit.shutdown:
        if order.mode != STAND or order.path or order.fire or order.physical or order.twist:
            raise _illegal(unit, "is shut down: it can neither move nor fire", "mech.shutdown", "MECH-3.2")
        return False
    if order.twist and not unit.is_mech:
        raise _illegal(unit, "a vehicle has no torso to twist", "mech.twist_vehicle", "MECH-1.3")
    if unit.is_fighter and unit.out_of_control:
        if order != stand_order(unit.id) and order != out_of_control_order(state.board, unit):
            raise _illegal(
                unit,
                "is out of control: this turn it flies straight at flank speed and fires nothing; submit it as it is",
                "mech.out_of_control",
                "MECH-5",
            )
        return False
    if unit.is_fighter and order.mode == STAND:
        raise _illegal(unit, "a fighter flies at least one hex", "mech.fighter_still", "MECH-5")
    if order.mode not in modes_for(unit):
        allowed = ", ".join(modes_for(unit))
        raise _illegal(
            unit,
            f"a {unit.kind} moves {allowed}, not {order.mode}",
            "mech.mode_kind",
            "MECH-1.2",
            kind=unit.kind,
            modes=allowed,
            mode=order.mode,
        )
    if order.mode == STAND:
        if order.path or (order.facing is not None and order.facing != unit.facing):
            raise _illegal(
                unit,
                "standing still it cannot enter hexes or turn: declare walk (or cruise) to turn in place",
                "mech.stand_move",
                "MECH-1.2",
            )
        return False
    return True


def _check_mode(unit: Mech, order: MechOrder, available: dict[str, int]) -> None:
    """The unit can move in the declared mode now: no destroyed leg (MECH-2.3), jump jets to jump and not prone
    (a prone unit stands up in its hex instead of moving, MECH-1.2), a jump enters a hex (MECH-1.2)."""
    if unit.immobile:
        raise _illegal(unit, "a destroyed leg leaves it immobile", "mech.immobile", "MECH-2.3")
    if order.mode not in available:
        if unit.prone:
            raise _illegal(unit, "cannot jump: it is prone", "mech.prone_jump", "MECH-1.2")
        raise _illegal(unit, "cannot jump: it has no jump jets", "mech.no_jump", "MECH-1.2")
    if unit.prone and order.path:
        raise _illegal(
            unit,
            "is prone: declaring walk or run it stands up in its hex this turn and enters no hex",
            "mech.prone_path",
            "MECH-1.2",
        )
    if order.mode == JUMP and not order.path:
        raise _illegal(unit, "a jump enters at least one hex", "mech.jump_empty", "MECH-1.2")


def _checked_path(state: EncounterState, unit: Mech, order: MechOrder, start: Hex) -> PathCost:
    """The path's cost, each step one the terrain allows (MECH-1.2), never in reverse at run or max speed."""
    cost = path_cost(
        state.board, unit, order.mode, order.path, order.facing, per_turn=turn_surcharge(state, unit)
    )
    problem = step_problem(state.board, unit, order.mode, cost, start)
    if problem is not None:
        raise problem
    if order.mode in FAST_MODES and cost.reverse:
        back = next(s.hex.label for s in cost.steps if s.reverse)
        raise _illegal(
            unit,
            f"entering {back} means moving in reverse, which is not allowed at {order.mode}",
            "mech.reverse_at_run",
            "MECH-1.2",
            hex=back,
            mode=order.mode,
        )
    return cost


def _check_hexes_free(
    state: EncounterState, unit: Mech, order: MechOrder, cost: PathCost, seen: dict[str, Placement]
) -> None:
    """MECH-1.2, as the declarer sees the board: a walk or run passes through no enemy unit's hex (a jump flies
    over) and no move ends in a hex a unit holds."""
    occupied: dict[Hex, Mech] = {}
    for uid, place in seen.items():
        other = state.units[uid]
        if isinstance(other, Mech):
            occupied[place.at] = other
    if order.mode != JUMP:
        for step in cost.steps[:-1]:
            other = occupied.get(step.hex)
            if other is not None and other.side != unit.side:
                raise _illegal(
                    unit,
                    f"{step.hex.label} is held by {other.name}",
                    "mech.path_blocked",
                    "MECH-1.2",
                    hex=step.hex.label,
                    other=other.name,
                )
    if cost.steps and cost.end in occupied:
        raise _illegal(
            unit,
            f"cannot end in {cost.end.label}: {occupied[cost.end].name} is there",
            "mech.end_occupied",
            "MECH-1.2",
            hex=cost.end.label,
            other=occupied[cost.end].name,
        )


def _check_mp(unit: Mech, order: MechOrder, cost: PathCost, mp: int) -> None:
    """The path costs no more than the mode's movement points (MECH-1.2), fewer for a hot mech (MECH-3.2)."""
    if cost.total > mp:
        penalty = mp_penalty(unit.heat) if unit.is_mech else 0
        note = f" (heat {unit.heat}: −{penalty} MP, MECH-3.2)" if penalty else ""
        raise _illegal(
            unit,
            f"the path costs {cost.total} MP but {order.mode} gives {mp}{note}",
            "mech.over_mp_heat" if penalty else "mech.over_mp",
            "MECH-1.2",
            cost=cost.total,
            mp=mp,
            mode=order.mode,
            heat=unit.heat,
            penalty=penalty,
        )


def check_shot(
    state: EncounterState,
    unit: Mech,
    mode: str,
    at: Hex,
    facing: int,
    twist: int,
    weapon: int,
    target_id: str,
    seen: dict[str, Placement],
    *,
    primary: bool = True,
) -> ShotOdds:
    """One weapon at one target from an end position: weapon there (MECH-2.3), enemy target (MECH-1.2), arc
    (MECH-1.3), range and line of sight (MECH-2.1). Returns the odds."""
    if not 1 <= weapon <= len(unit.weapons):
        raise _illegal(
            unit,
            f"has no weapon {weapon} (it has {len(unit.weapons)})",
            "mech.weapon_index",
            "MECH-2.3",
            weapon=weapon,
            count=len(unit.weapons),
        )
    w = unit.weapons[weapon - 1]
    if not unit.weapon_usable(weapon - 1):
        raise _illegal(
            unit,
            f"weapon {weapon} ({w.type}) was lost with its location {w.loc}",
            "mech.weapon_destroyed",
            "MECH-2.3",
            weapon=weapon,
            type=w.type,
            loc=w.loc,
        )
    target = state.units.get(target_id)
    if not isinstance(target, Mech) or not target.active or target_id not in seen:
        raise _illegal(
            unit, f"{target_id!r} is not a unit in play", "mech.target", "MECH-1.2", target=target_id
        )
    if target.side == unit.side:
        raise _illegal(
            unit, f"{target.name} is on its own side", "mech.target_friend", "MECH-1.2", target=target.name
        )
    place = seen[target_id]
    if not weapon_in_arc(unit, w, at, facing, twist, place.at):
        raise _illegal(
            unit,
            f"{target.name} at {place.at.label} is out of the arc of weapon {weapon} ({w.type}, {w.loc}"
            f"{', rear' if w.rear else ''}) from {at.label} facing {HexSide(facing).name}"
            f"{', torso ' + HexSide((facing + twist) % 6).name if twist else ''}",
            "mech.out_of_arc",
            "MECH-1.3",
            weapon=weapon,
            type=w.type,
            target=target.name,
            hex=place.at.label,
            at=at.label,
            facing=HexSide(facing).name,
            torso=HexSide((facing + twist) % 6).name,
        )
    odds = odds_at(state, unit, at, mode, w.spec, target, place, primary=primary)
    if odds.band is None:
        raise _illegal(
            unit,
            f"{target.name} is {odds.distance} hexes away, beyond the long range ({w.spec.long}) of weapon {weapon}"
            f" ({w.type})",
            "mech.out_of_range",
            "MECH-2.1",
            weapon=weapon,
            type=w.type,
            target=target.name,
            distance=odds.distance,
            long=w.spec.long,
        )
    if not odds.sight.clear:
        raise _illegal(
            unit,
            f"no line of sight from {at.label} to {target.name} at {place.at.label}",
            "mech.no_sight",
            "MECH-2.1",
            target=target.name,
            at=at.label,
            hex=place.at.label,
        )
    return odds


def straight_run(cost: PathCost | None) -> tuple[int, int | None]:
    """MECH-2.2 charge: (hexes moved straight, their direction) — the last run of forward steps in one
    direction; (0, None) when the path ends in reverse or is empty."""
    if cost is None or not cost.steps or cost.steps[-1].reverse:
        return 0, None
    direction = cost.steps[-1].facing
    n = 0
    for step in reversed(cost.steps):
        if step.reverse or step.facing != direction:
            break
        n += 1
    return n, direction


def physical_reach(
    unit: Mech, entry: PhysicalEntry, mode: str, at: Hex, facing: int, twist: int, cost: PathCost | None
) -> tuple[Hex, ...]:
    """The hexes a physical attack can reach from the attacker's end position (MECH-1.3, MECH-2.2):
    punch the torso's three front hexes and its arm's side hex; kick the legs' three front hexes; push the hex
    straight ahead of the torso; melee the torso's front hexes; charge the hex ahead of its last straight run;
    death from above any neighbour."""
    torso = (facing + twist) % 6
    if entry.kind == "punch":
        side = LEFT if entry.limb == "la" else RIGHT
        return adjacent_arc_hexes(at, torso, (FRONT, side))
    if entry.kind == "kick":
        return adjacent_arc_hexes(at, facing, (FRONT,))
    if entry.kind == "push":
        return (at.neighbor(torso),)
    if entry.kind == "melee":
        return adjacent_arc_hexes(at, torso, (FRONT,))
    if entry.kind == "charge":
        n, direction = straight_run(cost)
        return (at.neighbor(direction),) if n and direction is not None and mode not in (STAND, JUMP) else ()
    return at.neighbors()


def check_physical(
    state: EncounterState,
    unit: Mech,
    order: MechOrder,
    at: Hex,
    facing: int,
    cost: PathCost | None,
    seen: dict[str, Placement],
) -> None:
    """MECH-2.2 (and MECH-1.3 for where limbs reach). [HOUSE] one physical attack a turn, except that each arm
    may punch (not together with a kick); a prone mech makes none; vehicles only charge."""
    entries = order.physical
    if not entries:
        return
    kinds = [e.kind for e in entries]
    single = {"push", "melee", "charge", "dfa"}
    if (
        (len(entries) > 1 and any(k in single for k in kinds))
        or kinds.count("kick") > 1
        or ("kick" in kinds and "punch" in kinds)
        or len({e.limb for e in entries if e.kind == "punch"}) < kinds.count("punch")
    ):
        raise _illegal(
            unit,
            "one physical attack a turn: a push, kick, melee weapon, charge or death from above, or a punch with"
            " each arm",
            "mech.physical_combo",
            "MECH-2.2",
        )
    if unit.is_air:
        raise _illegal(unit, "an air unit makes no physical attack", "mech.air_physical", "MECH-5")
    standing_up = unit.prone and order.mode in (WALK, RUN)
    for entry in entries:
        if not unit.is_mech and entry.kind != "charge":
            raise _illegal(
                unit,
                f"a vehicle cannot {entry.kind}; it may charge",
                "mech.vehicle_physical",
                "MECH-2.2",
                kind=entry.kind,
            )
        if unit.prone and not standing_up:
            raise _illegal(unit, "is prone and makes no physical attack", "mech.prone_physical", "MECH-2.2")
        if entry.kind in ("punch", "kick"):
            limbs = ("la", "ra") if entry.kind == "punch" else ("ll", "rl")
            if entry.limb not in limbs:
                raise _illegal(
                    unit,
                    f"a {entry.kind} names its limb: {' or '.join(limbs)}",
                    "mech.limb_needed",
                    "MECH-2.2",
                    kind=entry.kind,
                    limbs=" / ".join(limbs),
                )
            if not unit.limb_usable(entry.limb) or (entry.kind == "kick" and unit.immobile):
                raise _illegal(
                    unit, f"its {entry.limb} is destroyed", "mech.limb_destroyed", "MECH-2.2", limb=entry.limb
                )
        elif entry.limb:
            raise _illegal(
                unit, f"a {entry.kind} takes no limb", "mech.limb_extra", "MECH-2.2", kind=entry.kind
            )
        if entry.kind == "charge" and order.mode not in (WALK, RUN, CRUISE, FLANK):
            raise _illegal(unit, "a charge is made walking or running", "mech.charge_mode", "MECH-2.2")
        if entry.kind == "dfa" and order.mode != JUMP:
            raise _illegal(unit, "death from above needs a jump", "mech.dfa_mode", "MECH-2.2")
        target = state.units.get(entry.target)
        if not isinstance(target, Mech) or not target.active or entry.target not in seen:
            raise _illegal(
                unit,
                f"{entry.target!r} is not a unit in play",
                "mech.target",
                "MECH-1.2",
                target=entry.target,
            )
        if target.side == unit.side:
            raise _illegal(
                unit,
                f"{target.name} is on its own side",
                "mech.target_friend",
                "MECH-1.2",
                target=target.name,
            )
        if target.is_air:
            raise _illegal(
                unit,
                f"{target.name} flies: no physical attack reaches it",
                "mech.air_target",
                "MECH-5",
                target=target.name,
            )
        there = seen[entry.target].at
        if at.distance(there) != 1:
            raise _illegal(
                unit,
                f"must end its move next to {target.name} ({there.label}) to {entry.kind} it",
                "mech.not_adjacent",
                "MECH-2.2",
                target=target.name,
                hex=there.label,
                kind=entry.kind,
            )
        if there not in physical_reach(unit, entry, order.mode, at, facing, order.twist, cost):
            rule, code = (
                ("MECH-2.2", "mech.charge_line")
                if entry.kind == "charge"
                else ("MECH-1.3", "mech.out_of_reach")
            )
            raise _illegal(
                unit,
                f"{target.name} at {there.label} is not where its {entry.kind}"
                f"{' (' + entry.limb + ')' if entry.limb else ''} reaches from {at.label} facing"
                f" {HexSide(facing).name}",
                code,
                rule,
                target=target.name,
                hex=there.label,
                kind=entry.kind,
                at=at.label,
                facing=HexSide(facing).name,
            )
