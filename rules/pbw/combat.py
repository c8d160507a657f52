"""Attacks and their numbers (PBW-5, DICE-3), hit locations and damage (PBW-4).

:func:`to_hit` is the single place the difficulty and modifiers of an attack are worked out: the order panel shows
its numbers and the resolution rolls against the same ones.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from rules.dice import GRADE_STEP, Check2d6, Dice, Roll
from rules.events import Event, RollMade, UnitDestroyed
from rules.hexgrid import Hex
from rules.pbw.events import PbwDamage, PbwItemDropped, PbwLocationDisabled
from rules.pbw.geometry import cover_between
from rules.pbw.model import (
    CONDITIONS,
    DEAD,
    INCAPACITATED,
    MELEE,
    PRONE,
    SHOOT,
    UNCONSCIOUS,
    Character,
)
from rules.pbw.tables import ARMS, LEGS, WeaponType, tables
from rules.state import EncounterState, replace_unit

Outcome = tuple[EncounterState, list[Event]]


@dataclass(frozen=True, slots=True)
class ToHit:
    """What an attack needs (PBW-5, DICE-3): 2d6 + ``bonus`` ≥ ``difficulty``.

    ``parts`` explain the difficulty (range band or melee grade, cover, a skill at 0) and ``modifiers`` the bonus
    beyond attribute + skill (moved segments, aim, accuracy), each with its reason."""

    kind: str  # shoot | melee
    weapon: str
    attribute: int
    skill: int
    difficulty: int
    parts: tuple[tuple[str, int], ...]
    modifiers: tuple[tuple[str, int], ...]
    band: str = ""
    cover: int = 0

    @property
    def skill_zero(self) -> bool:
        return self.skill == 0

    @property
    def bonus(self) -> int:
        return self.attribute + self.skill + sum(v for _, v in self.modifiers)

    @property
    def needed(self) -> int:
        """The 2d6 roll needed: double 1 always fails, so at least 3; double 6 always succeeds, so at most 12."""
        return min(max(self.difficulty - self.bonus, 3), 12)


def to_hit(
    state: EncounterState,
    ch: Character,
    at: Hex,
    target: Character,
    weapon: WeaponType,
    *,
    target_at: Hex | None = None,
    aim: str = "",
    attacker_moved: int = 0,
    target_moved: int = 0,
) -> ToHit:
    """PBW-5 modifiers, the range band difficulty [HOUSE] and cover [HOUSE]; a skill at 0 adds a grade (DICE-3).
    ``target_at``: where the target will be (default: where it stands)."""
    tab = tables()
    where = target_at or target.at
    assert where is not None
    parts: list[tuple[str, int]] = []
    band, cover = "", 0
    if weapon.ranged:
        band = weapon.band(at.distance(where)) or "extreme"
        parts.append((band, tab.band_difficulty[band]))
        cover = cover_between(state, at, where)
        if cover:
            parts.append(("cover", cover))
    else:
        parts.append(("melee", tab.melee_difficulty))
    skill = ch.skill(weapon.skill)
    if skill == 0:
        parts.append(("skill_zero", GRADE_STEP))
    mods: list[tuple[str, int]] = []
    if attacker_moved:
        mods.append(("attacker_moved", tab.mod_attacker_moved * attacker_moved))
    if target_moved:
        mods.append(("target_moved", tab.mod_target_moved * target_moved))
    if aim:
        mods.append(("aim", tab.mod_aim))
    if weapon.accuracy:
        mods.append(("accuracy", weapon.accuracy))
    return ToHit(
        kind=SHOOT if weapon.ranged else MELEE,
        weapon=weapon.key,
        attribute=ch.attribute(weapon.attribute),
        skill=skill,
        difficulty=sum(v for _, v in parts),
        parts=tuple(parts),
        modifiers=tuple(mods),
        band=band,
        cover=cover,
    )


def defence_weapon(ch: Character) -> WeaponType:
    """The melee defence uses the melee weapon in hand, else the fists (Pelea) [HOUSE]."""
    if ch.held is not None:
        spec = ch.weapons[ch.held].spec
        if not spec.ranged:
            return spec
    return ch.weapons[ch.fists].spec


def defence_bonus(ch: Character) -> int:
    """Attribute + skill of the defence roll; a skill at 0 loses a grade [HOUSE turn.toml opposed_skill_zero]."""
    return sum(v for _, v in defence_modifiers(ch))


def defence_modifiers(ch: Character) -> tuple[tuple[str, int], ...]:
    """The defence roll's bonus named part by part (PBW-2, DICE-3), so a reader can add it up."""
    spec = defence_weapon(ch)
    skill = ch.skill(spec.skill)
    parts = [
        (f"pbw.attribute.{spec.attribute}", ch.attribute(spec.attribute)),
        (f"pbw.skill.{spec.skill}", skill),
    ]
    if skill == 0:
        parts.append(("pbw.skill_zero", tables().opposed_skill_zero))
    return tuple(parts)


def attack_modifiers(th: ToHit, weapon: WeaponType, *, opposed: bool = False) -> tuple[tuple[str, int], ...]:
    """The attack roll's bonus named part by part (PBW-5, DICE-3): the weapon's attribute and skill, then each
    modifier (moved, aimed, accuracy). An opposed roll with a skill at 0 loses a grade from its total, where an
    unopposed one has it in the difficulty."""
    parts = [
        (f"pbw.attribute.{weapon.attribute}", th.attribute),
        (f"pbw.skill.{weapon.skill}", th.skill),
        *((f"pbw.{reason}", value) for reason, value in th.modifiers),
    ]
    if opposed and th.skill_zero:
        parts.append(("pbw.skill_zero", tables().opposed_skill_zero))
    return tuple(parts)


@dataclass(frozen=True, slots=True)
class MeleeResult:
    hit: bool
    total: int
    difficulty: int  # the total the attacker had to reach
    critical: bool
    fumble: bool


def opposed_melee(attack: Roll, attack_bonus: int, defence: Roll, defence_total: int) -> MeleeResult:
    """DICE-3 opposed roll (PBW-2 melee defence). Double 1 always fails and double 6 always succeeds, for either
    side: when both or neither are automatic, the higher total wins; a tie goes as ``turn.toml`` says [HOUSE]."""
    tie_to_defender = tables().melee_tie_defender
    total = attack.total + attack_bonus
    a_crit, a_fumble = attack.dice == (6, 6), attack.dice == (1, 1)
    d_crit, d_fumble = defence.dice == (6, 6), defence.dice == (1, 1)
    a_auto = 1 if a_crit else -1 if a_fumble else 0
    d_auto = 1 if d_crit else -1 if d_fumble else 0
    if a_auto != d_auto:
        hit = a_auto > d_auto
    else:
        hit = total > defence_total or (total == defence_total and not tie_to_defender)
    needed = defence_total + 1 if tie_to_defender else defence_total
    return MeleeResult(hit=hit, total=total, difficulty=needed, critical=a_crit, fumble=a_fumble)


def unopposed(roll: Roll, th: ToHit) -> Check2d6:
    """DICE-3: 2d6 + bonus ≥ difficulty (the skill-0 grade is already in the difficulty)."""
    return Check2d6(roll, th.bonus, th.difficulty)


def roll_event(roll: Roll, *, actor: str, target: str = "", **detail: object) -> RollMade:
    return RollMade.of(roll, actor=actor, target=target, **detail)


def hit_location(dice: Dice, kind: str, *, actor: str, target: Character) -> tuple[str, RollMade]:
    """PBW-4: 1d10 on the ranged or the melee column."""
    column = "ranged" if kind == SHOOT else "melee"
    roll = dice.d10(rule="PBW-4", purpose=f"PBW-4 hit location ({column}), {target.name}")
    location = tables().locations[column][roll.total]
    return location, roll_event(
        roll, actor=actor, target=target.id, column=column, location=location, purpose_key="pbw.location"
    )


def damage_roll(dice: Dice, weapon: WeaponType, *, actor: str, target: Character) -> tuple[int, RollMade]:
    d = weapon.damage
    roll = dice.roll(
        d.count, d.sides, rule="PBW-4", purpose=f"PBW-4 damage {d.text} ({weapon.key}), {target.name}"
    )
    amount = max(0, roll.total + d.bonus)
    return amount, roll_event(
        roll,
        actor=actor,
        target=target.id,
        bonus=d.bonus,
        damage=amount,
        total=amount,
        weapon=weapon.key,
        formula=d.text,
        modifiers=(("pbw.weapon_bonus", d.bonus),) if d.bonus else (),
        purpose_key="pbw.damage",
    )


def worse(a: str, b: str) -> str:
    return a if CONDITIONS.index(a) >= CONDITIONS.index(b) else b


_EFFECTS = {"head": ("unconscious", UNCONSCIOUS), "torso": ("incapacitated", INCAPACITATED)}


def apply_damage(state: EncounterState, target_id: str, by: str, location: str, amount: int) -> Outcome:
    """PBW-4: the damage comes off the hit points and the location's resistance; a location at 0 or less is
    useless (arm: drops what it holds; leg: falls; torso: incapacitated; head: unconscious); HP ≤ 0 is dead."""
    t = state.unit_as(target_id, Character)
    resistance = dict(t.resistance)
    before = resistance[location]
    resistance[location] = before - amount
    hp = t.hp - amount
    events: list[Event] = [
        PbwDamage(
            rule="PBW-4",
            unit=t.id,
            by=by,
            location=location,
            amount=amount,
            hp=hp,
            resistance=resistance[location],
        )
    ]
    t = replace_unit(t, hp=hp, resistance=resistance)
    if before > 0 >= resistance[location]:
        if location in ARMS:
            effect, condition = "arm_useless", t.condition
            if t.held is not None and t.hand in (location, "both"):
                weapons = list(t.weapons)
                weapons[t.held] = dataclasses.replace(weapons[t.held], dropped=True)
                events.append(PbwItemDropped(rule="PBW-4", unit=t.id, weapon=weapons[t.held].type, at=t.at))
                t = replace_unit(t, weapons=tuple(weapons), held=None, hand="")
        elif location in LEGS:
            effect, condition = "falls", PRONE
        else:
            effect, condition = _EFFECTS[location]
        events.insert(1, PbwLocationDisabled(rule="PBW-4", unit=t.id, location=location, effect=effect))
        t = replace_unit(t, condition=worse(t.condition, condition))
    if hp <= 0 and t.condition != DEAD:
        t = replace_unit(t, condition=DEAD, destroyed=True)
        events.append(UnitDestroyed(rule="PBW-4", unit=t.id, at=t.at))
    return state.with_units([t]), events
