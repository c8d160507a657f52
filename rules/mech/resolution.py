"""One turn, once the last declaration is locked (MECH-4): movement in declaration order, then all fire at once
(damage applied at the end), then physical attacks (damage at the end), then heat (MECH-3.1/3.2).

Dice order (DESIGN §7.1): per shot in declaration order and weapon order, the to-hit 2d6, then (missiles) the
cluster 2d6, then each location (2d6; punch and kick tables 1d6); physical attacks the same (a charge or a death
from above rolls the target's location, then the attacker's; a death from above that misses rolls the attacker's
[HOUSE] Piloting 2d6 and, if it falls, its fall location 2d6). [HOUSE] falls for a leg destroyed in a phase come
after that phase's damage, per unit in file order: Piloting 2d6, then the fall location 2d6. At the end of the
turn, per unit in file order: each shutdown avoid roll, then each ammunition avoid roll its heat requires.

MECH-2.1a: by default a declaration's to-hit and Piloting 2d6 were rolled as it locked (``rolls.py``), so each
"to-hit 2d6" and "Piloting 2d6" above reuses that roll and takes no die here; only a unit without a declaration
of its own, or the [HOUSE] ``rolls = "weapon"`` variant, rolls them now.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass

from rules.dice import Check2d6, Dice, Roll
from rules.events import Event, GameOver, Note, RollMade, UnitMoved
from rules.hexgrid import Hex, HexSide
from rules.mech.damage import KICK, PUNCH, STANDARD, damage_unit, roll_location
from rules.mech.events import (
    AmmoExploded,
    AvoidRolled,
    ClusterRolled,
    DeclarationsRevealed,
    Fell,
    FireSpent,
    HeatChanged,
    MovementMade,
    PhysicalAttackMade,
    PhysicalSpent,
    PilotingRolled,
    Pushed,
    ShutdownChanged,
    WeaponFired,
)
from rules.mech.geometry import Sight, sight, weapon_in_arc
from rules.mech.heat import (
    ammo_rolls,
    heat_to_hit,
    movement_heat,
    mp_penalty,
    out_of_control_rolls,
    shutdown_rolls,
    weapons_heat,
)
from rules.mech.legality import physical_reach, straight_run
from rules.mech.model import VEHICLE, Mech
from rules.mech.movement import PathCost, mp_available, path_cost
from rules.mech.orders import JUMP, RUN, STAND, WALK, MechOrder, stand_order
from rules.mech.rolls import GUNNERY, PILOTING, declaration_rolled, declared_roll
from rules.mech.state import INITIATIVE, DeclarationRolls, MechState, ext_of, secret
from rules.mech.tables import tables
from rules.mech.tohit import (
    Motion,
    ceil_fraction,
    cluster_hits,
    damage_groups,
    fire_odds,
    physical_damage,
    physical_odds,
)
from rules.ruleset import surcharge
from rules.state import Board, EncounterState, Unit

PHYSICAL_TABLE = {"punch": PUNCH, "kick": KICK, "melee": STANDARD, "charge": STANDARD, "dfa": PUNCH}


@dataclass(frozen=True, slots=True)
class Executed:
    """How a unit actually moved this turn (what the fire and physical steps read)."""

    motion: Motion
    cost: PathCost | None = None  # the steps it really took
    stood_up: bool = False


@dataclass(slots=True)
class Pending:
    """Damage rolled during a phase, applied when the phase ends (MECH-4)."""

    target: str
    by: str
    location: str
    amount: int
    rule: str


class Turn:
    """The units of the turn being resolved, changed in place; the new state is built once, at the end."""

    __slots__ = ("board", "held", "per_turn", "rolls", "units")

    def __init__(self, state: EncounterState) -> None:
        self.board: Board = state.board
        self.per_turn = surcharge(state).per_turn  # NGT-5.1: what a vehicle pays more per hexside turned
        self.units: dict[str, Unit] = dict(state.units)
        #: MECH-2.1a: each declaration's Gunnery and Piloting roll, made as it locked
        self.rolls: Mapping[str, DeclarationRolls] = ext_of(state).rolls
        self.held: dict[Hex, str] = {
            u.at: u.id for u in self.units.values() if isinstance(u, Mech) and u.active and u.at is not None
        }

    def mech(self, uid: str) -> Mech:
        unit = self.units[uid]
        assert isinstance(unit, Mech)
        return unit

    def put(self, unit: Mech) -> None:
        old = self.units.get(unit.id)
        if old is not None and old.at is not None and self.held.get(old.at) == unit.id:
            del self.held[old.at]
        self.units[unit.id] = unit
        if unit.active and unit.at is not None:
            self.held[unit.at] = unit.id

    def occupant(self, h: Hex) -> Mech | None:
        uid = self.held.get(h)
        return self.mech(uid) if uid is not None else None


def resolve_turn(state: EncounterState, dice: Dice) -> tuple[EncounterState, list[Event]]:
    """Resolve the whole turn from the locked declarations; the next turn starts at ``initiative``."""
    ext = ext_of(state)
    events: list[Event] = []
    orders: dict[str, MechOrder] = {o.unit: o for o in ext.locked}
    if secret(state) and ext.locked:
        events.append(
            DeclarationsRevealed(
                rule="MECH-1.1",
                units=tuple(o.unit for o in ext.locked),
                declarations={o.unit: o.to_raw() for o in ext.locked},
            )
        )
        # MECH-2.1a: a secret declaration's rolls are shown with it, now that it is shown
        events.extend(
            declaration_rolled(state.unit_as(o.unit, Mech), ext.rolls[o.unit])
            for o in ext.locked
            if o.unit in ext.rolls
        )
    sequence = [u for u in ext.order if u in state.units]
    sequence += [u for u, x in state.units.items() if isinstance(x, Mech) and u not in sequence]
    turn = Turn(state)
    executed: dict[str, Executed] = {}
    for uid in sequence:
        moved, done = _move(turn, uid, orders.get(uid) or stand_order(uid))
        events.extend(moved)
        executed[uid] = done
    fired, fire_events = _fire(turn, sequence, orders, executed, dice)
    events.extend(fire_events)
    events.extend(_physical(turn, sequence, orders, executed, dice))
    events.extend(_heat(turn, executed, fired, dice))
    state = state.replace(units=turn.units, phase=INITIATIVE, round=state.round + 1, ext=MechState())
    return _game_over(state, events)


# --- movement (MECH-1.2) --------------------------------------------------------------------------------------
def _move(turn: Turn, uid: str, order: MechOrder) -> tuple[list[Event], Executed]:
    unit = turn.units[uid]
    if not isinstance(unit, Mech) or not unit.active or unit.at is None:
        return [], Executed(Motion())
    if unit.shutdown:
        if unit.twist:
            turn.put(dataclasses.replace(unit, twist=0))
        return [], Executed(Motion())
    twist = order.twist if unit.is_mech else 0
    start, start_facing = unit.at, unit.facing
    available = mp_available(unit)
    if order.mode == STAND or unit.immobile or order.mode not in available:
        if not twist:
            if unit.twist:
                turn.put(dataclasses.replace(unit, twist=0))
            return [], Executed(Motion())
        moved = dataclasses.replace(unit, twist=twist)
        event = MovementMade(
            rule="MECH-1.2",
            unit=uid,
            mode=STAND,
            hexes=0,
            mp=0,
            mp_available=0,
            facing=HexSide(unit.facing).name,
            torso=HexSide(moved.torso).name,
        )
        turn.put(moved)
        return [event], Executed(Motion())
    per_turn = turn.per_turn if unit.kind == VEHICLE else 0
    cost = path_cost(turn.board, unit, order.mode, order.path, order.facing, per_turn=per_turn)
    taken = _steps_possible(turn, unit, order.mode, cost)
    events: list[Event] = []
    if taken < len(cost.steps):
        events.append(
            Note(
                rule="MECH-1.2",
                key="mech.move_stopped",
                unit=uid,
                args=(
                    ("at", (cost.steps[taken - 1].hex if taken else start).label),
                    ("planned", cost.end.label),
                ),
            )
        )
        steps = cost.steps[:taken]
        end = steps[-1].hex if steps else start
        facing = steps[-1].facing if steps and order.mode != JUMP else start_facing
        cost = PathCost(
            order.mode, steps, cost.stand_up, end, facing, 0, cost.stand_up + sum(s.cost for s in steps)
        )
    stood_up = unit.prone and order.mode in (WALK, RUN)
    if stood_up:
        events.append(Note(rule="MECH-3.1", key="mech.stood_up", unit=uid, args=(("mp", cost.stand_up),)))
    moved = dataclasses.replace(
        unit, at=cost.end, facing=cost.end_facing, twist=twist, prone=False if stood_up else unit.prone
    )
    if not turn.board.contains(
        cost.end
    ):  # MECH-5 [HOUSE]: a fighter flew off the board; it is back next turn
        edge = cost.steps[-2].hex if len(cost.steps) > 1 else start
        moved = dataclasses.replace(moved, at=None, off_board=edge, facing=(cost.end_facing + 3) % 6)
        events.append(Note(rule="MECH-5", key="mech.left_board", unit=uid, args=(("at", edge.label),)))
    if cost.steps or cost.end_facing != start_facing:
        events.insert(
            0,
            UnitMoved(
                rule="MECH-1.2",
                unit=uid,
                frm=start,
                to=cost.end,
                facing_from=start_facing,
                facing_to=cost.end_facing,
                path=tuple(s.hex for s in cost.steps),
            ),
        )
    events.append(
        MovementMade(
            rule="MECH-1.2",
            unit=uid,
            mode=order.mode,
            hexes=len(cost.steps),
            mp=cost.total,
            mp_available=available[order.mode],
            facing=HexSide(moved.facing).name,
            torso=HexSide(moved.torso).name,
            stood_up=stood_up,
        )
    )
    turn.put(moved)
    return events, Executed(Motion(order.mode, len(cost.steps)), cost, stood_up)


def _steps_possible(turn: Turn, unit: Mech, mode: str, cost: PathCost) -> int:
    """How many steps of the path the unit can take on the board as it is now: it may not enter a hex an enemy
    holds (walking), nor end where any unit stands; it stops in the last hex it may end in (MECH-1.2)."""

    def held(h: Hex) -> Mech | None:
        other = turn.occupant(h)
        return other if other is not None and other.id != unit.id else None

    limit = len(cost.steps)
    if mode == JUMP:
        return limit if limit == 0 or held(cost.steps[-1].hex) is None else 0
    for i, step in enumerate(cost.steps):
        other = held(step.hex)
        if other is not None and other.side != unit.side:
            limit = i
            break
    while limit > 0 and held(cost.steps[limit - 1].hex) is not None:
        limit -= 1
    return limit


# --- fire (MECH-2.1, MECH-2.3) --------------------------------------------------------------------------------
def _fire(
    turn: Turn,
    sequence: list[str],
    orders: Mapping[str, MechOrder],
    executed: Mapping[str, Executed],
    dice: Dice,
) -> tuple[dict[str, list[int]], list[Event]]:
    events: list[Event] = []
    pending: list[Pending] = []
    fired: dict[str, list[int]] = {}
    lines: dict[tuple[Hex, Hex], Sight] = {}  # one trace per shooter and target, whatever the weapons
    for uid in sequence:
        unit = turn.units[uid]
        order = orders.get(uid)
        if not isinstance(unit, Mech) or not unit.active or unit.shutdown or order is None or unit.at is None:
            continue
        primary = order.fire[0].target if order.fire else ""
        for entry in order.fire:
            w = unit.weapons[entry.weapon - 1]
            target = turn.units.get(entry.target)
            reason = ""
            odds = None
            if not unit.weapon_usable(entry.weapon - 1):
                reason = "weapon_lost"
            elif not isinstance(target, Mech) or not target.active or target.at is None:
                reason = "target_gone"
            elif not weapon_in_arc(unit, w, unit.at, unit.facing, unit.twist, target.at):
                reason = "out_of_arc"
            else:
                pair = (unit.at, target.at)
                line = lines.get(pair)
                if line is None:
                    line = lines[pair] = sight(turn.board, unit.at, unit.kind, target.at, target.kind)
                odds = fire_odds(
                    turn.board,
                    unit,
                    unit.at,
                    executed[uid].motion.mode,
                    w.spec,
                    target,
                    target.at,
                    executed.get(target.id, Executed(Motion())).motion,
                    primary=entry.target == primary,
                    seen=line,
                )
                reason = "out_of_range" if odds.band is None else "" if odds.sight.clear else "no_sight"
            if reason or odds is None or not isinstance(target, Mech) or target.at is None:
                rule = "MECH-1.3" if reason == "out_of_arc" else "MECH-2.1"
                events.append(
                    FireSpent(
                        rule=rule,
                        unit=uid,
                        weapon=entry.weapon,
                        weapon_type=w.type,
                        target=entry.target,
                        reason=reason,
                    )
                )
                continue
            purpose = f"MECH-2.1 to-hit, {unit.name} #{entry.weapon} {w.type} → {target.name}"
            roll, check = _attack_roll(
                dice,
                unit,
                target,
                unit.gunnery,
                odds.target_number,
                "MECH-2.1",
                purpose,
                events,
                declared_roll(turn.rolls, uid, GUNNERY),
            )
            events.append(
                WeaponFired(
                    rule="MECH-2.1",
                    unit=uid,
                    weapon=entry.weapon,
                    weapon_type=w.type,
                    target=target.id,
                    target_number=odds.target_number,
                    roll=roll.total,
                    total=check.total,
                    hit=check.success,
                    distance=odds.distance,
                    result="hit" if check.success else "miss",
                    modifiers=tuple(m.pair() for m in odds.modifiers),
                    dice=roll.dice,
                )
            )
            fired.setdefault(uid, []).append(entry.weapon)
            if not check.success:
                continue
            spec = w.spec
            hits = 0
            if spec.missiles:
                cluster = dice.two_d6(
                    rule="MECH-2.3", purpose=f"MECH-2.3 missiles, {unit.name} #{entry.weapon} {w.type}"
                )
                hits = cluster_hits(spec.missiles, cluster.total)
                events.append(RollMade.of(cluster, actor=uid, target=target.id))
                events.append(
                    ClusterRolled(
                        rule="MECH-2.3",
                        unit=uid,
                        weapon=entry.weapon,
                        target=target.id,
                        missiles=spec.missiles,
                        roll=cluster.total,
                        hits=hits,
                    )
                )
            for amount in damage_groups(spec, hits):
                loc, _, rolled = roll_location(
                    dice,
                    target,
                    STANDARD,
                    attacker_at=unit.at,
                    purpose=f"MECH-2.3 location, {target.name} ({w.type})",
                )
                events.append(rolled)
                pending.append(Pending(target.id, uid, loc, amount, "MECH-2.3"))
    events.extend(_apply(turn, pending, dice))
    return fired, events


def _attack_roll(
    dice: Dice,
    unit: Mech,
    target: Mech,
    skill: int,
    number: int,
    rule: str,
    purpose: str,
    events: list[Event],
    declared: Roll | None = None,
) -> tuple[Roll, Check2d6]:
    """An attack's 2d6 + skill against its target number (DICE-3): the declaration's roll when it carries one
    (MECH-2.1a, already recorded as it locked), else a roll of its own, recorded as a ``RollMade``."""
    if declared is not None:
        return declared, Check2d6(declared, skill, number)
    roll = dice.two_d6(rule=rule, purpose=purpose)
    check = Check2d6(roll, skill, number)
    events.append(RollMade.of(roll, actor=unit.id, target=target.id, total=check.total, skill=skill))
    return roll, check


def _apply(turn: Turn, pending: list[Pending], dice: Dice) -> list[Event]:
    """Apply a phase's damage in the order it was rolled, then the [HOUSE] falls of mechs that lost a leg."""
    before = {u.id: u.immobile for u in turn.units.values() if isinstance(u, Mech)}
    events: list[Event] = []
    for p in pending:
        changed, applied = damage_unit(turn.mech(p.target), p.location, p.amount, by=p.by, rule=p.rule)
        turn.put(changed)
        events.extend(applied)
    for unit in list(turn.units.values()):
        if (
            isinstance(unit, Mech)
            and unit.is_mech
            and unit.active
            and unit.immobile
            and not before.get(unit.id, True)
            and not unit.prone
        ):
            events.extend(fall_check(turn, unit.id, "leg", dice, rule="MECH-2.3"))
    return events


def stays_up(
    unit: Mech, reason: str, dice: Dice, *, rule: str, declared: Roll | None = None
) -> tuple[bool, list[Event]]:
    """[HOUSE] a Piloting roll (2d6 + piloting, DICE-3) against the fall difficulty: True when the mech stays up.
    ``declared``: the declaration's Piloting roll (MECH-2.1a), which serves every fall check of its turn."""
    tb = tables()
    made: list[Event] = []
    if declared is not None:
        roll = declared
    else:
        roll = dice.two_d6(rule=rule, purpose=f"{rule} piloting roll to stay up, {unit.name}")
    check = Check2d6(roll, unit.piloting, tb.fall_difficulty)
    if declared is None:
        made.append(RollMade.of(roll, actor=unit.id, total=check.total, skill=unit.piloting))
    return check.success, [
        *made,
        PilotingRolled(
            rule=rule,
            unit=unit.id,
            reason=reason,
            target_number=tb.fall_difficulty,
            roll=roll.total,
            total=check.total,
            fell=not check.success,
            result="stayed_up" if check.success else "fell",
        ),
    ]


def fall_roll(unit: Mech, dice: Dice, *, rule: str) -> tuple[str, int, list[Event]]:
    """[HOUSE] a fall: tonnage/10 (rounded up) at one 2d6 location. Returns (location, damage, events)."""
    damage = ceil_fraction(tables().fall_damage, unit.tonnage)
    loc, _, rolled = roll_location(
        dice, unit, STANDARD, purpose=f"{rule} fall location, {unit.name}", rule=rule
    )
    return loc, damage, [Fell(rule=rule, unit=unit.id, damage=damage), rolled]


def fall_check(turn: Turn, uid: str, reason: str, dice: Dice, *, rule: str) -> list[Event]:
    """A mech that lost a leg rolls to stay up; failing it, it falls at once: prone, and the fall's damage."""
    unit = turn.mech(uid)
    up, events = stays_up(unit, reason, dice, rule=rule, declared=declared_roll(turn.rolls, uid, PILOTING))
    if up:
        return events
    loc, damage, fell = fall_roll(unit, dice, rule=rule)
    changed, applied = damage_unit(dataclasses.replace(unit, prone=True, twist=0), loc, damage, rule=rule)
    turn.put(changed)
    return events + fell + list(applied)


# --- physical attacks (MECH-2.2) ------------------------------------------------------------------------------
def _physical(
    turn: Turn,
    sequence: list[str],
    orders: Mapping[str, MechOrder],
    executed: Mapping[str, Executed],
    dice: Dice,
) -> list[Event]:
    events: list[Event] = []
    pending: list[Pending] = []
    pushes: list[tuple[str, str, int]] = []  # target, attacker, direction
    falls: list[tuple[str, str, int]] = []  # unit, location, damage (a death from above that missed)
    for uid in sequence:
        unit = turn.units[uid]
        order = orders.get(uid)
        if not isinstance(unit, Mech) or order is None or not order.physical or unit.at is None:
            continue
        done = executed[uid]
        for entry in order.physical:
            target = turn.units.get(entry.target)
            reason = ""
            if not unit.active or unit.shutdown or unit.prone:
                reason = "attacker_down"
            elif entry.limb and not unit.limb_usable(entry.limb):
                reason = "limb_lost"
            elif not isinstance(target, Mech) or not target.active or target.at is None:
                reason = "target_gone"
            elif target.at not in physical_reach(
                unit, entry, done.motion.mode, unit.at, unit.facing, unit.twist, done.cost
            ):
                reason = "out_of_reach"
            if reason or not isinstance(target, Mech) or target.at is None:
                events.append(
                    PhysicalSpent(
                        rule="MECH-2.2", unit=uid, kind=entry.kind, target=entry.target, reason=reason
                    )
                )
                continue
            mods, number = physical_odds(
                done.motion.mode, target, executed.get(target.id, Executed(Motion())).motion
            )
            purpose = f"MECH-2.2 {entry.kind}, {unit.name} → {target.name}"
            roll, check = _attack_roll(
                dice,
                unit,
                target,
                unit.piloting,
                number,
                "MECH-2.2",
                purpose,
                events,
                declared_roll(turn.rolls, uid, PILOTING),
            )
            straight, _ = straight_run(done.cost)
            to_target, to_self = physical_damage(entry.kind, unit, target, straight)
            events.append(
                PhysicalAttackMade(
                    rule="MECH-2.2",
                    unit=uid,
                    kind=entry.kind,
                    limb=entry.limb,
                    target=target.id,
                    target_number=number,
                    roll=roll.total,
                    total=check.total,
                    hit=check.success,
                    damage=to_target if check.success else 0,
                    result="hit" if check.success else "miss",
                    modifiers=tuple(m.pair() for m in mods),
                    dice=roll.dice,
                )
            )
            if check.success:
                if entry.kind == "push":
                    direction = next(s for s in range(6) if unit.at.neighbor(s) == target.at)
                    pushes.append((target.id, uid, direction))
                    continue
                loc, _, rolled = roll_location(
                    dice,
                    target,
                    PHYSICAL_TABLE[entry.kind],
                    attacker_at=unit.at,
                    purpose=f"MECH-2.2 {entry.kind} location, {target.name}",
                    rule="MECH-2.2",
                )
                events.append(rolled)
                pending.append(Pending(target.id, uid, loc, to_target, "MECH-2.2"))
                if entry.kind in ("charge", "dfa"):
                    own = STANDARD if entry.kind == "charge" else KICK
                    loc, _, rolled = roll_location(
                        dice,
                        unit,
                        own,
                        attacker_at=target.at,
                        purpose=f"MECH-2.2 {entry.kind} location, {unit.name} (attacker)",
                        rule="MECH-2.2",
                    )
                    events.append(rolled)
                    pending.append(Pending(uid, target.id, loc, to_self, "MECH-2.2"))
            elif entry.kind == "dfa":
                events.extend(_dfa_miss(turn, uid, dice, falls))
    for uid, loc, damage in falls:
        turn.put(dataclasses.replace(turn.mech(uid), prone=True, twist=0))
        pending.append(Pending(uid, "", loc, damage, "MECH-2.2"))
    events.extend(_apply(turn, pending, dice))
    for target_id, by, direction in pushes:
        events.extend(_push(turn, target_id, by, direction))
    return events


def _dfa_miss(turn: Turn, uid: str, dice: Dice, falls: list[tuple[str, str, int]]) -> list[Event]:
    """[HOUSE] a death from above that misses: a Piloting roll, and on a failure the attacker falls (its fall
    location is rolled now, the damage applied with the phase's)."""
    unit = turn.mech(uid)
    up, events = stays_up(
        unit, "dfa", dice, rule="MECH-2.2", declared=declared_roll(turn.rolls, uid, PILOTING)
    )
    if not up:
        loc, damage, fell = fall_roll(unit, dice, rule="MECH-2.2")
        events += fell
        falls.append((uid, loc, damage))
    return events


def _push(turn: Turn, target_id: str, by: str, direction: int) -> list[Event]:
    """MECH-2.2: the target goes one hex on, away from the attacker, if that hex is on the board, free and
    enterable by its kind; otherwise it stays."""
    target = turn.mech(target_id)
    if not target.active or target.at is None:
        return []
    dest = target.at.neighbor(direction)
    free = turn.board.contains(dest) and turn.occupant(dest) is None
    if free and not target.is_mech and not tables().terrain_kind(turn.board.terrain_at(dest)).vehicles:
        free = False
    if not free:
        return [Pushed(rule="MECH-2.2", unit=target_id, by=by, frm=target.at, to=None)]
    turn.put(dataclasses.replace(target, at=dest))
    return [
        Pushed(rule="MECH-2.2", unit=target_id, by=by, frm=target.at, to=dest),
        UnitMoved(
            rule="MECH-2.2",
            unit=target_id,
            frm=target.at,
            to=dest,
            facing_from=target.facing,
            facing_to=target.facing,
            path=(dest,),
        ),
    ]


# --- heat (MECH-3.1, MECH-3.2) --------------------------------------------------------------------------------
def _heat(
    turn: Turn, executed: Mapping[str, Executed], fired: Mapping[str, list[int]], dice: Dice
) -> list[Event]:
    tb = tables()
    events: list[Event] = []
    for uid in list(turn.units):
        unit = turn.units[uid]
        if not isinstance(unit, Mech) or not unit.keeps_heat or not unit.active:
            continue
        done = executed.get(uid, Executed(Motion()))
        generated = (
            movement_heat(done.motion.mode, done.motion.hexes)
            + (tb.movement_heat["stand_up"] if done.stood_up else 0)
            + weapons_heat(unit, tuple(fired.get(uid, ())))
        )
        heat = max(0, unit.heat + generated - unit.heat_sinks)
        events.append(
            HeatChanged(
                rule="MECH-3.1",
                unit=uid,
                generated=generated,
                heat=heat,
                before=unit.heat,
                sinks=unit.heat_sinks,
                to_hit=heat_to_hit(heat),
                mp=mp_penalty(heat) if unit.is_mech else 0,  # a fighter loses control instead (MECH-5)
            )
        )
        if unit.is_fighter:
            # MECH-5: where the seed's scale takes a BattleMech's MP, a fighter rolls against losing control
            lost = _avoid(unit, "out_of_control", out_of_control_rolls(heat), dice, events)
            unit = dataclasses.replace(unit, out_of_control=lost)
        automatic = heat >= tb.automatic_shutdown
        shut = _avoid(unit, "shutdown", shutdown_rolls(heat), dice, events) or automatic
        if shut != unit.shutdown:
            change = ("shut_down_automatic" if automatic else "shut_down") if shut else "started_up"
            events.append(
                ShutdownChanged(
                    rule="MECH-3.2", unit=uid, shutdown=shut, automatic=automatic and shut, change=change
                )
            )
        unit = dataclasses.replace(unit, heat=heat, shutdown=shut, twist=0 if shut else unit.twist)
        turn.put(unit)
        events.extend(_ammo(turn, unit, heat, dice))
    return events


def _ammo(turn: Turn, unit: Mech, heat: int, dice: Dice) -> list[Event]:
    """MECH-3.2: the ammunition explosion avoid rolls ``heat`` requires of a unit carrying ammunition."""
    tb = tables()
    events: list[Event] = []
    ammo = [i for i, w in enumerate(unit.weapons) if w.spec.ammo and unit.weapon_usable(i)]
    if not ammo:
        return events
    if _avoid(unit, "ammo", ammo_rolls(heat), dice, events):
        loc = unit.weapons[ammo[0]].loc
        events.append(
            AmmoExploded(rule="MECH-3.2", unit=unit.id, location=loc, damage=tb.ammo_explosion_damage)
        )
        changed, applied = damage_unit(unit, loc, tb.ammo_explosion_damage, internal=True, rule="MECH-3.2")
        turn.put(changed)
        events.extend(applied)
    return events


def _avoid(
    unit: Mech, what: str, rolls: tuple[tuple[int, int], ...], dice: Dice, events: list[Event]
) -> bool:
    """MECH-3.2: make every avoid roll listed (2d6 ≥ N avoids it); True when any failed."""
    failed = False
    for level, need in rolls:
        check = dice.avoid(
            need, rule="MECH-3.2", purpose=f"MECH-3.2 {what} avoid ({level}: {need}+), {unit.name}"
        )
        events.append(RollMade.of(check.roll, actor=unit.id))
        events.append(
            AvoidRolled(
                rule="MECH-3.2",
                unit=unit.id,
                what=what,
                level=level,
                needed=need,
                roll=check.total,
                avoided=check.success,
                result="avoided" if check.success else "not_avoided",
            )
        )
        failed = failed or not check.success
    return failed


def _game_over(state: EncounterState, events: list[Event]) -> tuple[EncounterState, list[Event]]:
    # a fighter off the board (MECH-5) is still in the fight: it comes back next turn
    alive = {
        u.side
        for u in state.units.values()
        if isinstance(u, Mech) and (u.active or (u.off_board is not None and not u.destroyed))
    }
    if len(state.sides) >= 2 and len(alive) <= 1:
        winner = next(iter(alive)) if alive else None
        reason = "last side standing" if winner else "no unit left"
        events.append(GameOver(rule="MECH-2.3", winner=winner, reason=reason))
        state = state.replace(over=True, winner=winner)
    return state, events
