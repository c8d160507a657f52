"""Rolls and their results: ranged and melee attacks (SK-3.3, SK-5.1), wounds and death (SK-3.4), the optional
long-range penalty (SK-3.5), other actions (SK-6.1) and grenades (SK-6.2)."""

from __future__ import annotations

from rules.dice import Dice, SombraRoll
from rules.events import Event, RollMade, ShotResolved, UnitDestroyed, UnitMoved
from rules.hexgrid import Hex
from rules.skirmish.events import SkActionResolved, SkGrenadeThrown, SkWounded
from rules.skirmish.geometry import EQUIPMENT, FIRE, melee_facing
from rules.skirmish.halfhex import gap, hexes_of, position
from rules.skirmish.model import Character
from rules.skirmish.tables import tables
from rules.state import EncounterState, Marker, replace_unit

Outcome = tuple[EncounterState, list[Event]]


def wounds_for(damage: int, resistance: int) -> int:
    """SK-3.4: one wound per whole multiple of Resistance the damage *exceeds* (7 vs 7 → 0, 10 → 1, 16 → 2)."""
    return max(0, (damage - 1) // resistance) if damage > 0 else 0


def sombra(
    dice: Dice,
    skill: int,
    modifiers: tuple[tuple[str, int], ...],
    *,
    rule: str,
    purpose: str,
    purpose_key: str,
    actor: str,
    target: str = "",
    **extra: object,
) -> tuple[SombraRoll, RollMade]:
    """A Sombra roll and its event. Skirmish knows only success (total ≤ skill) and failure (SK-3.3).

    ``modifiers`` are (reason, value) pairs (zero ones left out), so the account shows each with its reason;
    ``need = "le"``: the roll succeeds at or under the skill (DICE-2)."""
    modifiers = tuple((reason, value) for reason, value in modifiers if value)
    modifier = sum(v for _, v in modifiers)
    sr = dice.sombra(skill, modifier, rule=rule, purpose=purpose)
    event = RollMade.of(
        sr.roll,
        actor=actor,
        target=target,
        skill=skill,
        modifier=modifier,
        total=sr.total,
        quality="success" if sr.success else "failure",
        purpose_key=purpose_key,
        modifiers=modifiers,
        need="le",
        **extra,
    )
    return sr, event


def apply_damage(state: EncounterState, target_id: str, damage: int, rule: str) -> Outcome:
    """SK-3.4: wounds from one hit; at full wound boxes the character dies and leaves its equipment."""
    target = state.unit_as(target_id, Character)
    wounds = wounds_for(damage, target.resistance)
    total = min(target.max_wounds, target.wounds + wounds)
    events: list[Event] = [
        SkWounded(
            rule="SK-3.4",
            unit=target.id,
            damage=damage,
            resistance=target.resistance,
            wounds=wounds,
            total=total,
            boxes=target.max_wounds,
        )
    ]
    if total >= target.max_wounds:
        target = replace_unit(target, wounds=total, alive=False, destroyed=True, overwatch=None, ap_left=0)
        markers = state.markers
        if target.at is not None:
            markers = (*markers, Marker(kind=EQUIPMENT, at=target.at, owner=target.id, label=target.short))
        state = state.with_units([target]).replace(markers=markers)
        events.append(UnitDestroyed(rule="SK-3.4", unit=target.id, at=target.at))
        return state, events
    return state.with_units([replace_unit(target, wounds=total)]), events


def long_range_modifier(state: EncounterState, shooter: Character, target: Character) -> int:
    """SK-3.5 (scenario option ``long_range``): +5 at 7 hexes or more, overwatch shots included."""
    tab = tables()
    if state.option("long_range", False) and gap(shooter, target) >= tab.long_from:
        return tab.long_penalty
    return 0


def ranged_attack(
    state: EncounterState, dice: Dice, shooter_id: str, target_id: str, *, weapon: str
) -> Outcome:
    """SK-3.3: Sombra roll ≤ ranged skill; damage d+ + d−. ``weapon`` is ``ranged`` or ``overwatch`` (SK-4.1)."""
    shooter = state.unit_as(shooter_id, Character)
    target = state.unit_as(target_id, Character)
    rule = "SK-4.1" if weapon == "overwatch" else "SK-3.3"
    modifier = long_range_modifier(state, shooter, target)
    purpose = f"{rule} {weapon} shot, {shooter.name} → {target.name}"
    sr, roll_event = sombra(
        dice,
        shooter.ranged,
        (("long_range", modifier),),
        rule=rule,
        purpose=purpose,
        purpose_key=f"sk.{weapon}",
        actor=shooter.id,
        target=target.id,
    )
    events: list[Event] = [roll_event]
    damage = sr.damage if sr.success else 0
    events.append(
        ShotResolved(
            rule=rule, shooter=shooter.id, target=target.id, weapon=weapon, hit=sr.success, damage=damage
        )
    )
    if sr.success:
        state, more = apply_damage(state, target.id, damage, rule)
        events.extend(more)
    return state, events


def melee_attack(state: EncounterState, dice: Dice, attacker_id: str, defender_id: str) -> Outcome:
    """SK-5.1: the defender turns to face the attacker at once, then the roll ≤ melee skill; damage d+ + bonus."""
    attacker = state.unit_as(attacker_id, Character)
    defender = state.unit_as(defender_id, Character)
    assert attacker.at is not None and defender.at is not None
    events: list[Event] = []
    facing = melee_facing(defender, position(attacker))
    if facing != defender.facing:
        events.append(
            UnitMoved(
                rule="SK-5.1",
                unit=defender.id,
                frm=defender.at,
                to=defender.at,
                facing_from=defender.facing,
                facing_to=facing,
            )
        )
        defender = replace_unit(defender, facing=facing)
        state = state.with_units([defender])
    purpose = f"SK-5.1 melee, {attacker.name} → {defender.name}"
    sr, roll_event = sombra(
        dice,
        attacker.melee,
        (),
        rule="SK-5.1",
        purpose=purpose,
        purpose_key="sk.melee",
        actor=attacker.id,
        target=defender.id,
    )
    events.append(roll_event)
    damage = max(0, sr.high + attacker.melee_bonus) if sr.success else 0  # SK-3.3: d+ plus the C/C modifier
    events.append(
        ShotResolved(
            rule="SK-5.1",
            shooter=attacker.id,
            target=defender.id,
            weapon="melee",
            hit=sr.success,
            damage=damage,
        )
    )
    if sr.success:
        state, more = apply_damage(state, defender.id, damage, "SK-5.1")
        events.extend(more)
    return state, events


def other_action(state: EncounterState, dice: Dice, actor_id: str, description: str) -> Outcome:
    """SK-6.1: Sombra roll ≤ Action skill."""
    actor = state.unit_as(actor_id, Character)
    purpose = f"SK-6.1 {actor.name}: {description}"
    sr, roll_event = sombra(
        dice,
        actor.action,
        (),
        rule="SK-6.1",
        purpose=purpose,
        purpose_key="sk.action",
        actor=actor.id,
        description=description,
    )
    return state, [
        roll_event,
        SkActionResolved(rule="SK-6.1", actor=actor.id, description=description, success=sr.success),
    ]


def grenade(
    state: EncounterState, dice: Dice, thrower_id: str, target_id: str = "", at: Hex | None = None
) -> Outcome:
    """SK-6.2: Action roll (an other action, SK-6.1); hit → the target hex takes 2 × (d+ + d−) and each neighbour
    d+ + d−, and all seven hexes burn for dE rounds (fire blocks sight like an obstacle and movement like an
    obstruction). The target is a character (``target_id``) or an object, that is a hex (``at``)."""
    thrower = state.unit_as(thrower_id, Character)
    if at is None:
        target = state.unit_as(target_id, Character)
        assert target.at is not None
        center, aimed = target.at, target.name  # SK-2.5 [HOUSE]: astride, the hex it is drawn in
    else:
        center, aimed, target_id = at, at.label, ""
    tab = tables()
    purpose = f"SK-6.2 grenade, {thrower.name} → {aimed}"
    sr, roll_event = sombra(
        dice,
        thrower.action,
        (),
        rule="SK-6.2",
        purpose=purpose,
        purpose_key="sk.grenade",
        actor=thrower.id,
        target=target_id,
        at=center,
    )
    events: list[Event] = [roll_event]
    hexes = [center, *center.neighbors()]
    fire_until = 0
    if sr.success or tab.fire_on_miss:
        fire_until = state.round + sr.de - (1 if tab.fire_counts_current_round else 0)
        fires = tuple(
            Marker(kind=FIRE, at=h, owner=thrower.id, expires_round=fire_until)
            for h in hexes
            if state.board.contains(h)
        )
        state = state.replace(markers=(*state.markers, *fires))
    center_damage = tab.grenade_center * sr.damage if sr.success else 0
    ring_damage = tab.grenade_ring * sr.damage if sr.success else 0
    events.append(
        SkGrenadeThrown(
            rule="SK-6.2",
            actor=thrower.id,
            target=target_id,
            at=center,
            hit=sr.success,
            center_damage=center_damage,
            ring_damage=ring_damage,
            fire_until=fire_until,
        )
    )
    if sr.success:
        for victim in [u for u in state.units_of(Character) if u.acting and set(hexes_of(u)) & set(hexes)]:
            # SK-2.5 [HOUSE]: a character astride is hit once, by the worse of its two hexes
            damage = center_damage if center in hexes_of(victim) else ring_damage
            state, more = apply_damage(state, victim.id, damage, "SK-6.2")
            events.extend(more)
    return state, events
