"""Carrying out one character's action in a segment (PBW-2, PBW-4, PBW-5), against the board as it is now.

The same legality checks as the declaration are made again with the present positions: an action that has become
impossible (the target died or walked out of sight, the weapon was dropped) is spent without effect
(``PbwActionLost``). A move follows its declared path as far as it can.
"""

from __future__ import annotations

import dataclasses

from rules.dice import Dice
from rules.errors import IllegalOrderError
from rules.events import Event, UnitMoved
from rules.hexgrid import Hex, side_toward
from rules.pbw.combat import (
    Outcome,
    apply_damage,
    attack_modifiers,
    damage_roll,
    defence_bonus,
    defence_modifiers,
    hit_location,
    opposed_melee,
    roll_event,
    to_hit,
    unopposed,
)
from rules.pbw.events import (
    PbwActionLost,
    PbwAthletics,
    PbwAttack,
    PbwDefence,
    PbwFatigue,
    PbwHandsUsed,
    PbwMoveStopped,
)
from rules.pbw.geometry import enemies_within_reach, enterable, occupant, step_limit, within_movement
from rules.pbw.legality import check_action, ext_of, outlook, put_record
from rules.pbw.model import (
    ACTIVE,
    DRAW,
    INCAPACITATED,
    MELEE,
    MOVE,
    RELOAD,
    SHOOT,
    STOW,
    Character,
    SegmentAction,
    TurnRecord,
)
from rules.pbw.tables import tables
from rules.state import EncounterState, replace_unit


def record(state: EncounterState, uid: str) -> TurnRecord:
    return ext_of(state).records[uid]


def with_record(state: EncounterState, uid: str, **changes: object) -> EncounterState:
    return put_record(state, uid, dataclasses.replace(record(state, uid), **changes))  # type: ignore[arg-type]


def add_fatigue(state: EncounterState, uid: str, amount: int, reason: str) -> Outcome:
    """PBW-3: effortful actions raise fatigue ([HOUSE] turn.toml); the limits apply from the next declaration."""
    if amount == 0:
        return state, []
    ch = state.unit_as(uid, Character)
    now = ch.fatigue + amount
    event = PbwFatigue(rule="PBW-3", unit=uid, change=amount, fatigue=now, reason=reason)
    return state.with_units([replace_unit(ch, fatigue=now)]), [event]


def perform(state: EncounterState, dice: Dice, uid: str, act: SegmentAction, segment: int) -> Outcome:
    """One character's action in ``segment``; an active action is spent whatever happens (PBW-2)."""
    ch = state.unit_as(uid, Character)
    rec = record(state, uid)
    if act.action in ACTIVE:
        state = with_record(state, uid, spent=rec.spent + 1)
    state = with_record(state, uid, resolved=(*record(state, uid).resolved, segment))
    if act.action not in ACTIVE or not ch.awake:
        return state, []
    if act.action == MOVE:
        return move(state, dice, ch, act, segment)
    try:
        act = check_action(state, ch, outlook(state, ch), act)
    except IllegalOrderError as exc:
        reason = exc.code.removeprefix("pbw.")
        lost = PbwActionLost(
            rule=exc.rule or "PBW-2",
            unit=uid,
            segment=segment,
            action=act.action,
            reason=reason,
            target=act.target,
        )
        return state, [lost]
    if act.action in (SHOOT, MELEE):
        return attack(state, dice, ch, act)
    return hands(state, ch, act)


# --- moving (PBW-2, PBW-4, PBW-5) ------------------------------------------------------------------------------------


def move(state: EncounterState, dice: Dice, ch: Character, act: SegmentAction, segment: int) -> Outcome:
    """Follow the declared path from where the character is now: not while held in melee (PBW-5), a second move
    only after an Athletics roll (PBW-2), stopping before an occupied hex and where it runs into a melee."""
    assert ch.at is not None
    start = ch.at
    engaged = enemies_within_reach(state, ch.side, start)
    path = act.path[act.path.index(start) + 1 :] if start in act.path else act.path
    events: list[Event] = []
    if engaged and ch.id not in ext_of(state).free:
        return state, [stopped(ch, segment, "engaged", engaged[0])]
    if not path or path[0].distance(start) != 1:
        return state, [stopped(ch, segment, "path")]
    if record(state, ch.id).moves >= 1 and ch.condition != INCAPACITATED:
        state, events, ok = athletics(state, dice, ch)
        if not ok:
            return state, [*events, stopped(ch, segment, "athletics")]
        ch = state.unit_as(ch.id, Character)
    path = within_movement(state, path, step_limit(ch))
    entered: list[Hex] = []
    halt: tuple[str, str] | None = None
    for h in path:
        if not enterable(state, ch, h):
            blocker = occupant(state, h, besides=ch.id)
            halt = ("occupied", blocker.id) if blocker is not None else ("blocked", "")
            break
        entered.append(h)
        new = set(enemies_within_reach(state, ch.side, h)) - set(engaged)
        if new and h != path[-1]:
            halt = ("engaged", sorted(new)[0])
            break
    if entered:
        facing = side_toward(([start, *entered])[-2], entered[-1])
        ch = replace_unit(ch, at=entered[-1], facing=facing)
        path_taken = (start, *entered)
        events.append(
            UnitMoved(
                rule="PBW-2",
                unit=ch.id,
                frm=start,
                to=ch.at,
                facing_from=state.units[ch.id].facing,
                facing_to=facing,
                path=path_taken,
            )
        )
        rec = record(state, ch.id)
        state = with_record(state.with_units([ch]), ch.id, moves=rec.moves + 1, moved=(*rec.moved, segment))
    if halt is not None:
        events.append(stopped(ch, segment, *halt))
    return state, events


def quality(success: bool, critical: bool, fumble: bool) -> str:
    """DICE-3 wording of a roll's result (``quality.*`` in the locale catalogs)."""
    if critical and success:
        return "critical"
    return "fumble" if fumble else "success" if success else "failure"


def stopped(ch: Character, segment: int, reason: str, other: str = "") -> PbwMoveStopped:
    rule = "PBW-5" if reason == "engaged" else "PBW-2"
    return PbwMoveStopped(rule=rule, unit=ch.id, segment=segment, reason=reason, at=ch.at, other=other)


def athletics(state: EncounterState, dice: Dice, ch: Character) -> tuple[EncounterState, list[Event], bool]:
    """PBW-2: one move per turn unless an Athletics roll allows another ([HOUSE] Routine, agility)."""
    tab = tables()
    skill = ch.skill("athletics")
    check = dice.check_2d6(
        ch.attribute(tab.athletics_attribute) + skill,
        tab.athletics_difficulty,
        skill_level=skill,
        rule="PBW-2",
        purpose=f"PBW-2 Athletics for another move, {ch.name}",
    )
    events: list[Event] = [
        roll_event(
            check.roll,
            actor=ch.id,
            bonus=check.bonus,
            difficulty=check.difficulty,
            total=check.total,
            modifiers=(
                (f"pbw.attribute.{tab.athletics_attribute}", ch.attribute(tab.athletics_attribute)),
                ("pbw.skill.athletics", skill),
            ),
            target_number=check.difficulty,
            need="ge",
            quality=quality(check.success, check.critical, check.fumble),
            purpose_key="pbw.athletics",
        ),
        PbwAthletics(
            rule="PBW-2",
            unit=ch.id,
            total=check.total,
            difficulty=check.difficulty,
            success=check.success,
            quality=quality(check.success, check.critical, check.fumble),
        ),
    ]
    state, more = add_fatigue(state, ch.id, tab.fatigue_athletics, "athletics")
    return state, [*events, *more], check.success


# --- attacking (PBW-5, PBW-4) ----------------------------------------------------------------------------------------


def attack(state: EncounterState, dice: Dice, ch: Character, act: SegmentAction) -> Outcome:
    """An attack already checked against the present board: roll, defence, location, damage (DESIGN §7.4 order)."""
    assert ch.at is not None
    target = state.unit_as(act.target, Character)
    idx = act.weapon - 1
    weapon = ch.weapons[idx].spec
    rec = record(state, ch.id)
    trec = ext_of(state).records.get(target.id)
    th = to_hit(
        state,
        ch,
        ch.at,
        target,
        weapon,
        aim=act.aim,
        attacker_moved=len(rec.moved),
        target_moved=len(trec.moved) if trec else 0,
    )
    events: list[Event] = []
    if act.action == SHOOT:
        weapons = list(ch.weapons)
        weapons[idx] = dataclasses.replace(weapons[idx], ammo=weapons[idx].ammo - 1)
        ch = replace_unit(ch, weapons=tuple(weapons))
        state = state.with_units([ch])
    verb = "shot" if act.action == SHOOT else "melee attack"
    roll = dice.two_d6(rule="PBW-5", purpose=f"PBW-5 {verb}, {ch.name} → {target.name} ({weapon.key})")
    defence: int | None = None
    if (
        act.action == MELEE
        and target.fighting
        and trec is not None
        and trec.defences_left(ext_of(state).segment) > 0
    ):
        # PBW-2: a skipped segment gives one melee defence; the defender spends it and rolls against the attack
        d_roll = dice.two_d6(rule="PBW-2", purpose=f"PBW-2 melee defence, {target.name} against {ch.name}")
        defence = d_roll.total + defence_bonus(target)
        left = trec.defences_left(ext_of(state).segment) - 1
        state = with_record(state, target.id, spent=trec.spent + 1, defences_used=trec.defences_used + 1)
        result = opposed_melee(
            roll, th.bonus + (tables().opposed_skill_zero if th.skill_zero else 0), d_roll, defence
        )
        hit, total, difficulty, critical, fumble = (
            result.hit,
            result.total,
            result.difficulty,
            result.critical,
            result.fumble,
        )
        # the attack's line names its parts; the defence's line carries what the attacker had to beat and the
        # result, so the account reads attack, defence, result before the location and damage (PBW-2, DICE-3)
        events.append(
            roll_event(
                roll,
                actor=ch.id,
                target=target.id,
                bonus=total - roll.total,
                total=total,
                modifiers=attack_modifiers(th, weapon, opposed=True),
                weapon=weapon.key,
                purpose_key=f"pbw.{act.action}",
            )
        )
        events.append(
            roll_event(
                d_roll,
                actor=target.id,
                target=ch.id,
                bonus=defence - d_roll.total,
                total=defence,
                modifiers=defence_modifiers(target),
                target_number=difficulty,
                need="pbw.beat" if difficulty > defence else "pbw.match",
                quality=quality(hit, critical, fumble),
                purpose_key="pbw.defence",
            )
        )
        events.append(PbwDefence(rule="PBW-2", unit=target.id, attacker=ch.id, left=left))
    else:
        check = unopposed(roll, th)
        hit, total, difficulty, critical, fumble = (
            check.success,
            check.total,
            check.difficulty,
            check.critical,
            check.fumble,
        )
        events.append(
            roll_event(
                roll,
                actor=ch.id,
                target=target.id,
                bonus=th.bonus,
                difficulty=th.difficulty,
                total=total,
                modifiers=attack_modifiers(th, weapon),
                target_number=th.difficulty,
                need="ge",
                quality=quality(hit, critical, fumble),
                weapon=weapon.key,
                purpose_key=f"pbw.{act.action}",
            )
        )
    location: str | None = None
    damage = 0
    if hit:
        if act.aim:
            location = act.aim
        else:
            location, loc_event = hit_location(dice, act.action, actor=ch.id, target=target)
            events.append(loc_event)
        damage, dmg_event = damage_roll(dice, weapon, actor=ch.id, target=target)
        events.append(dmg_event)
    events.append(
        PbwAttack(
            rule="PBW-5",
            shooter=ch.id,
            target=target.id,
            weapon=weapon.key,
            hit=hit,
            damage=damage,
            unit=ch.id,
            kind=act.action,
            roll=roll.total,
            total=total,
            difficulty=difficulty,
            location=location,
            bonus=total - roll.total,
            modifiers=dict(th.modifiers),
            band=th.band,
            cover=th.cover,
            critical=critical,
            fumble=fumble,
            defence=defence,
            aimed=bool(act.aim),
            quality=quality(hit, critical, fumble),
        )
    )
    state = with_record(state, ch.id, attacked=True)
    if hit and location is not None:
        state, more = apply_damage(state, target.id, ch.id, location, damage)
        events.extend(more)
    tab = tables()
    if act.action == MELEE:
        state, more = add_fatigue(state, ch.id, tab.fatigue_melee_attack, "melee_attack")
        events.extend(more)
    if defence is not None:
        state, more = add_fatigue(state, target.id, tab.fatigue_melee_defence, "melee_defence")
        events.extend(more)
    return state, events


# --- hands (PBW-2) ------------------------------------------------------------------------------------------------------


def hands(state: EncounterState, ch: Character, act: SegmentAction) -> Outcome:
    """Draw, stow or reload (already checked against the present state)."""
    idx = act.weapon - 1
    weapons = list(ch.weapons)
    spec = weapons[idx].spec
    if act.action == DRAW:
        hand = "both" if spec.hands == 2 else ("ra" if ch.arm_works("ra") else "la")
        ch = replace_unit(ch, held=idx, hand=hand)
    elif act.action == STOW:
        ch = replace_unit(ch, held=None, hand="")
    elif act.action == RELOAD:
        weapons[idx] = dataclasses.replace(weapons[idx], ammo=spec.capacity)
        ch = replace_unit(ch, weapons=tuple(weapons))
    event = PbwHandsUsed(
        rule="PBW-2",
        key=f"pbw.hands.{act.action}",
        unit=ch.id,
        action=act.action,
        weapon=spec.key,
        ammo=ch.weapons[idx].ammo,
    )
    return state.with_units([ch]), [event]
