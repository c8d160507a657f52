"""The combat procedure (OCS-2..6): open, choose the AR units, roll, apply the result.

Every step that needs nobody's answer is taken at once: a side with a single candidate AR unit names it, a loss
or retreat with one legal choice is applied. Whatever is left to choose stops the combat at that stage.
"""

from __future__ import annotations

import dataclasses
from collections import Counter

from rules.dice import Dice
from rules.events import Event, RollMade, UnitDestroyed, UnitMoved
from rules.hexgrid import Hex
from rules.ocs import arithmetic as ar
from rules.ocs.events import (
    OcsActionRatings,
    OcsArChosen,
    OcsColumn,
    OcsCombatCancelled,
    OcsCombatEnded,
    OcsCombatOpened,
    OcsCombatRoll,
    OcsOdds,
    OcsOptionSettled,
    OcsStepLost,
    OcsSurprise,
)
from rules.ocs.legality import hedgehog_of, loss_question, terrain_of
from rules.ocs.model import (
    AR_ATTACKER,
    AR_DEFENDER,
    ATTACKER,
    ATTACKER_LOSSES,
    DEFENDER,
    DEFENDER_LOSSES,
    READY,
    RETREAT,
    Combat,
    OcsUnit,
    attacking_units,
    defending_units,
    ext_of,
    role_units,
    units_in,
    with_combat,
    without_combat,
)
from rules.ocs.orders import ChooseAr, Losses, OpenCombat, Retreats
from rules.ocs.queries import loss_allocations, retreat_options
from rules.ocs.tables import tables
from rules.state import EncounterState, replace_unit

Outcome = tuple[EncounterState, list[Event]]


def open_combat(state: EncounterState, order: OpenCombat) -> Outcome:
    """OCS-2: the combat is declared; ARs given up front are taken, a side with one candidate names it."""
    cid = ext_of(state).next_id
    side = state.unit_as(order.attackers[0], OcsUnit).side
    combat = Combat(id=cid, kind=order.kind, attackers=order.attackers, at=order.at, side=side)
    events: list[Event] = [
        OcsCombatOpened(
            rule="OCS-2",
            combat=cid,
            kind=order.kind,
            at=order.at,
            attackers=order.attackers,
            defenders=tuple(u.id for u in units_in(state, order.at)),
        )
    ]
    state = with_combat(state, combat)
    for choice in (order.ar_attacker, order.ar_defender):
        if choice is not None:
            state, more = _take_ar(state, combat.id, choice, forced=False)
            events.extend(more)
    state, more = _forced_ar(state, cid)
    return state, [*events, *more]


def choose_ar(state: EncounterState, order: ChooseAr) -> Outcome:
    """OCS-2: the attacker names its AR unit first, then the defender."""
    state, events = _take_ar(state, order.combat, order.choice, forced=False)
    state, more = _forced_ar(state, order.combat)
    return state, [*events, *more]


def _combat(state: EncounterState, cid: int) -> Combat:
    return next(c for c in ext_of(state).combats if c.id == cid)


def _take_ar(state: EncounterState, cid: int, choice: str, *, forced: bool) -> Outcome:
    combat = _combat(state, cid)
    unit = state.unit_as(choice, OcsUnit)
    if combat.stage == AR_ATTACKER:
        role, combat = ATTACKER, dataclasses.replace(combat, ar_attacker=choice, stage=AR_DEFENDER)
    else:
        role, combat = DEFENDER, dataclasses.replace(combat, ar_defender=choice, stage=READY)
    event = OcsArChosen(
        rule="OCS-2", combat=cid, role=role, unit=choice, ar=unit.action_rating, mode=unit.mode, forced=forced
    )
    return with_combat(state, combat), [event]


def _forced_ar(state: EncounterState, cid: int) -> Outcome:
    """OCS-2: a side with a single unit that can give its AR names it without being asked."""
    events: list[Event] = []
    while (combat := _combat(state, cid)).stage in (AR_ATTACKER, AR_DEFENDER):
        role = ATTACKER if combat.stage == AR_ATTACKER else DEFENDER
        units = role_units(state, combat, role)
        if len(units) != 1:
            break
        state, more = _take_ar(state, cid, units[0].id, forced=True)
        events.extend(more)
    return state, events


# --- the roll ------------------------------------------------------------------------------------------------


def roll_combat(state: EncounterState, cid: int, dice: Dice) -> Outcome:
    """OCS-2..6 in order, every figure an event (OCS-7); dice: surprise 2d6, shift 1d6 on surprise, combat 2d6
    (DESIGN §7.2)."""
    tab = tables()
    combat = _combat(state, cid)
    assert combat.ar_attacker is not None and combat.ar_defender is not None
    att_unit = state.unit_as(combat.ar_attacker, OcsUnit)
    def_unit = state.unit_as(combat.ar_defender, OcsUnit)
    drm = ar.drm(att_unit.action_rating, def_unit.action_rating)
    events: list[Event] = [
        OcsActionRatings(
            rule="OCS-2",
            combat=cid,
            attacker=att_unit.id,
            defender=def_unit.id,
            attacker_mode=att_unit.mode,
            defender_mode=def_unit.mode,
            attacker_ar=att_unit.action_rating,
            defender_ar=def_unit.action_rating,
            drm=drm,
        )
    ]
    attack = ar.total_strength(u.strength for u in attacking_units(state, combat))
    defense = ar.total_strength(u.strength for u in defending_units(state, combat))
    odds = ar.odds(attack, defense)
    events.append(
        OcsOdds(
            rule="OCS-3",
            combat=cid,
            attack=float(attack),
            defense=float(defense),
            ratio=round(float(ar.ratio(attack, defense)), 2),
            odds=odds.text,
        )
    )
    terrain = terrain_of(state, combat.at)
    column = ar.column(tab, terrain, odds)
    heads = tab.columns[terrain]
    events.append(
        OcsColumn(
            rule="OCS-4", combat=cid, terrain=terrain, column=column, column_odds=heads[column - 1].text
        )
    )
    hedgehog = hedgehog_of(state, combat.at)
    where = f"combat {cid} on {combat.at.label}"
    surprise_roll = dice.two_d6(rule="OCS-5", purpose=f"OCS-5 surprise, {where}")
    at = combat.at.label
    events.append(
        RollMade.of(
            surprise_roll,
            actor=att_unit.id,
            target=def_unit.id,
            purpose_key="ocs.surprise",
            combat=cid,
            at=at,
        )
    )
    modified = ar.surprise_modified(surprise_roll.total, drm, hedgehog)
    thresholds = tab.surprise[combat.kind]
    who = ar.surprise(modified, thresholds)
    shift_roll: int | None = None
    if who is not None:
        roll = dice.d6(rule="OCS-5", purpose=f"OCS-5 column shift ({who} surprise), {where}")
        events.append(
            RollMade.of(
                roll,
                actor=att_unit.id,
                target=def_unit.id,
                purpose_key="ocs.shift",
                combat=cid,
                at=at,
                by=who,
            )
        )
        shift_roll = roll.total
    shift = ar.signed_shift(who, shift_roll or 0)
    final = ar.shifted(column, shift, tab.width)
    events.append(
        OcsSurprise(
            rule="OCS-5",
            combat=cid,
            kind=combat.kind,
            roll=surprise_roll.total,
            drm=drm,
            hedgehog_modifier=ar.surprise_hedgehog(hedgehog),
            modified=modified,
            threshold_attacker=thresholds.attacker,
            threshold_defender=thresholds.defender,
            surprise=who,
            surprise_by=f"{who}_surprise" if who else "no_surprise",
            shift_roll=shift_roll,
            shift=shift,
            final_column=final,
            final_odds=heads[final - 1].text,
        )
    )
    combat_roll = dice.two_d6(rule="OCS-6", purpose=f"OCS-6 combat roll, {where}")
    events.append(
        RollMade.of(
            combat_roll, actor=att_unit.id, target=def_unit.id, purpose_key="ocs.combat", combat=cid, at=at
        )
    )
    unclamped = ar.combat_modified(combat_roll.total, drm, hedgehog)
    clamped = ar.clamp_roll(unclamped)
    result = tab.result(clamped, final)
    events.append(
        OcsCombatRoll(
            rule="OCS-6",
            combat=cid,
            roll=combat_roll.total,
            drm=drm,
            hedgehog=hedgehog,
            unclamped=unclamped,
            modified=clamped,
            column=final,
            result=result.text,
            attacker_loss=result.attacker_loss,
            defender_loss=result.defender_loss,
            option=result.option,
            exploit=result.exploit,
        )
    )
    state = with_combat(state, dataclasses.replace(combat, result=result))
    state, more = _first_step(state, cid, ATTACKER)
    events.extend(more)
    state, more = _ask_losses(state, cid, ATTACKER)
    return state, [*events, *more]


# --- applying the result -------------------------------------------------------------------------------------


def _lose_step(state: EncounterState, cid: int, unit_id: str, cause: str, rule: str) -> Outcome:
    unit = state.unit_as(unit_id, OcsUnit)
    left = unit.steps - 1
    events: list[Event] = [OcsStepLost(rule=rule, combat=cid, unit=unit.id, cause=cause, steps=left)]
    if left <= 0:
        events.append(UnitDestroyed(rule=rule, unit=unit.id, at=unit.at))
        return state.with_units([replace_unit(unit, steps=0, destroyed=True)]), events
    return state.with_units([replace_unit(unit, steps=left)]), events


def _first_step(state: EncounterState, cid: int, role: str) -> Outcome:
    """OCS-2: the first step a side loses comes from its AR unit; a loss of every step it has takes them all."""
    combat = _combat(state, cid)
    assert combat.result is not None
    loss = combat.result.attacker_loss if role == ATTACKER else combat.result.defender_loss
    units = role_units(state, combat, role)
    events: list[Event] = []
    if loss <= 0 or not units:
        return state, events
    if loss >= sum(u.steps for u in units):
        for unit in units:
            for _ in range(unit.steps):
                state, more = _lose_step(state, cid, unit.id, "every_step", "OCS-6")
                events.extend(more)
        return state, events
    ar_unit = combat.ar_attacker if role == ATTACKER else combat.ar_defender
    assert ar_unit is not None
    return _lose_step(state, cid, ar_unit, "action_rating", "OCS-2")


def _ask_losses(state: EncounterState, cid: int, role: str) -> Outcome:
    """The steps beyond the first: asked of the owner, unless only one choice is legal."""
    combat = _combat(state, cid)
    if loss_question(state, combat, role) is None:
        return _after_losses(state, cid, role, retreat=0)
    stage = ATTACKER_LOSSES if role == ATTACKER else DEFENDER_LOSSES
    state = with_combat(state, dataclasses.replace(combat, stage=stage))
    options = loss_allocations(state, cid)
    if len(options) == 1:
        return apply_losses(state, cid, options[0])
    return state, []


def apply_losses(state: EncounterState, cid: int, losses: tuple[str, ...]) -> Outcome:
    """OCS-6: the owner's losses (and, for the defender, the option taken as steps, the rest retreated)."""
    combat = _combat(state, cid)
    role = ATTACKER if combat.stage == ATTACKER_LOSSES else DEFENDER
    question = loss_question(state, combat, role)
    assert question is not None
    events: list[Event] = []
    for i, uid in enumerate(losses):
        option_step = i >= question.base
        state, more = _lose_step(state, cid, uid, "option_step" if option_step else "owner_choice", "OCS-6")
        events.extend(more)
    retreat = 0
    if question.option:
        taken = len(losses) - question.base
        retreat = question.option - taken
        events.append(
            OcsOptionSettled(rule="OCS-6", combat=cid, option=question.option, steps=taken, retreat=retreat)
        )
    state, more = _after_losses(state, cid, role, retreat=retreat)
    return state, [*events, *more]


def _after_losses(state: EncounterState, cid: int, role: str, *, retreat: int) -> Outcome:
    if role == ATTACKER:
        state, events = _first_step(state, cid, DEFENDER)
        state, more = _ask_losses(state, cid, DEFENDER)
        return state, [*events, *more]
    combat = dataclasses.replace(_combat(state, cid), retreat=retreat)
    state = with_combat(state, combat)
    if retreat <= 0 or not defending_units(state, combat):
        return end_combat(state, cid)
    state = with_combat(state, dataclasses.replace(combat, stage=RETREAT))
    options = retreat_options(state, cid)
    if all(len(hexes) == 1 for hexes in options.values()):
        return apply_retreats(state, cid, tuple((uid, hexes[0]) for uid, hexes in options.items()))
    return state, []


def apply_retreats(state: EncounterState, cid: int, retreats: tuple[tuple[str, Hex], ...]) -> Outcome:
    """OCS-6: each surviving defender unit moves to the hex its owner chose."""
    events: list[Event] = []
    moved: list[OcsUnit] = []
    for uid, to in retreats:
        unit = state.unit_as(uid, OcsUnit)
        events.append(
            UnitMoved(
                rule="OCS-6", unit=uid, frm=unit.at, to=to, facing_from=unit.facing, facing_to=unit.facing
            )
        )
        moved.append(replace_unit(unit, at=to))
    state, more = end_combat(state.with_units(moved), cid)
    return state, [*events, *more]


def end_combat(state: EncounterState, cid: int) -> Outcome:
    combat = _combat(state, cid)
    return without_combat(state, cid), [OcsCombatEnded(rule="OCS-6", combat=cid, at=combat.at)]


def cancel_combat(state: EncounterState, cid: int, reason: str) -> Outcome:
    combat = _combat(state, cid)
    event = OcsCombatCancelled(rule="OCS-2", combat=cid, at=combat.at, reason=reason)
    return without_combat(state, cid), [event]


def answer(state: EncounterState, order: ChooseAr | Losses | Retreats) -> Outcome:
    """A side's (or the director's) answer, already checked."""
    if isinstance(order, ChooseAr):
        return choose_ar(state, order)
    if isinstance(order, Losses):
        return apply_losses(state, order.combat, _in_unit_order(state, order.combat, order.losses))
    return apply_retreats(state, order.combat, order.retreats)


def _in_unit_order(state: EncounterState, cid: int, losses: tuple[str, ...]) -> tuple[str, ...]:
    """The steps as listed: a multiset, so the order of the list never matters to the outcome."""
    combat = _combat(state, cid)
    order = [u.id for u in role_units(state, combat, combat.asks or ATTACKER)]
    counts = Counter(losses)
    return tuple(uid for uid in order for _ in range(counts[uid]))
