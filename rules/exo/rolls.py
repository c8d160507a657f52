"""Sombra rolls of crew stations, with assistants (EXO-1.5), reported as events (DICE-1)."""

from __future__ import annotations

from rules.dice import Dice, SombraRoll
from rules.events import Event, RollMade
from rules.exo.crew import Crew, roster
from rules.exo.events import CrewEffect
from rules.exo.model import Ship
from rules.exo.tables import tables

Modifiers = tuple[tuple[str, int], ...]


def reasons(*pairs: tuple[str, int]) -> Modifiers:
    """The modifiers of a roll with their reasons (language-free keys), the zero ones left out (DICE-2)."""
    return tuple((reason, value) for reason, value in pairs if value)


def roll_event(
    roll: SombraRoll,
    ship: Ship,
    crew: Crew,
    *,
    target: str = "",
    purpose_key: str,
    modifiers: Modifiers = (),
    **extra: object,
) -> RollMade:
    """A Sombra roll as an event with what a reader needs to check it with a pencil (DICE-2): the dice, each
    modifier with its reason (``modifiers``, summing to ``modifier``), the total, the skill, and ``need = "le"``
    (a Sombra roll succeeds when the total is at most the skill)."""
    assert sum(v for _, v in modifiers) == roll.modifier, (modifiers, roll.modifier)
    return RollMade.of(
        roll.roll,
        actor=ship.id,
        target=target,
        crew=crew.name,
        skill=roll.skill,
        modifier=roll.modifier,
        total=roll.total,
        quality=roll.quality.name.lower(),
        purpose_key=purpose_key,
        modifiers=modifiers,
        need="le",
        **extra,
    )


def effect_event(
    rule: str, ship: Ship, crew: Crew, station: str, roll: SombraRoll, effect: int, applies_to: str
) -> CrewEffect:
    """What a crew member's roll does to another roll or stat (EXO-1.5 assistants, EXO-2.1 station rolls)."""
    return CrewEffect(
        rule=rule,
        unit=ship.id,
        crew=crew.name,
        station=station,
        quality=roll.quality.name.lower(),
        effect=effect,
        applies_to=applies_to,
    )


def station_roll(
    dice: Dice,
    ship: Ship,
    station: str,
    skill: str,
    modifiers: Modifiers,
    round_no: int,
    *,
    rule: str,
    purpose: str,
    purpose_key: str,
    events: list[Event],
) -> tuple[Crew, SombraRoll] | None:
    """Station 1 rolls ``skill``; its assistants roll first and shift its total (EXO-1.5, [HOUSE] table).

    ``modifiers`` are (reason, value) pairs; each assistant adds its own. Returns None when nobody able is at
    the station.
    """
    members = roster(ship.crew, station, round_no)
    if not members:
        return None
    lead, assistants = members[0], members[1:]
    effect_table = tables().assistant_effect
    mods = list(modifiers)
    for helper in assistants:
        r = dice.sombra(
            helper.skill(skill),
            0,
            rule="EXO-1.5",
            purpose=f"EXO-1.5 assistant roll, {ship.name} {helper.name} helps {lead.name} ({station})",
        )
        events.append(roll_event(r, ship, helper, purpose_key="exo.assist", lead=lead.name, station=station))
        effect = effect_table[r.quality]
        mods.extend(reasons((f"assistant:{helper.name}", effect)))
        events.append(effect_event("EXO-1.5", ship, helper, station, r, -effect, lead.name))
    total_mod = sum(v for _, v in mods)
    roll = dice.sombra(
        lead.skill(skill), total_mod, rule=rule, purpose=f"{rule} {purpose}, {ship.name} {lead.name}"
    )
    events.append(
        roll_event(
            roll,
            ship,
            lead,
            purpose_key=purpose_key,
            modifiers=tuple(mods),
            station=station,
            skill_name=skill,
        )
    )
    return lead, roll
