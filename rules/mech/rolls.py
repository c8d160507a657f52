"""One Gunnery roll and one Piloting roll per declaration (MECH-2.1a; seed: "Siempre se incluirá una tirada de la
habilidad de Pilotar apropiada y una tirada de Artillería apropiada, con las que el director calculará los
impactos, caídas o accidentes").

Both 2d6 are rolled as the declaration locks and are kept with the turn (``MechState.rolls``); the resolution
reads them instead of rolling: every shot compares the one Gunnery total with its own target number, every
physical attack, fall and accident check of the unit the one Piloting total. A unit with no declaration of its
own this turn (shut down, or a state from before the rule) rolls each check as it comes, as does the [HOUSE]
variant ``rolls = "weapon"``.
"""

from __future__ import annotations

from collections.abc import Mapping

from rules.dice import Dice, Roll
from rules.events import Event, RollMade
from rules.mech.events import DeclarationRolled
from rules.mech.model import Mech
from rules.mech.state import DeclarationRolls, secret
from rules.state import EncounterState

RULE = "MECH-2.1a"
GUNNERY, PILOTING = "gunnery", "piloting"


def roll_declaration(state: EncounterState, uid: str, dice: Dice) -> tuple[DeclarationRolls, list[Event]]:
    """The declaration's Gunnery 2d6 then its Piloting 2d6 (the seed's player rolls them as they post, so nobody
    picks weapons after seeing the dice). Open declarations show them at once (``DeclarationRolled``); secret
    ones keep them sealed (``RollMade`` marked ``sealed``, read by the director only) until the reveal."""
    unit = state.unit_as(uid, Mech)
    sealed = secret(state)
    gunnery = dice.two_d6(rule=RULE, purpose=f"{RULE} gunnery roll, {unit.name}")
    piloting = dice.two_d6(rule=RULE, purpose=f"{RULE} piloting roll, {unit.name}")
    rolls = DeclarationRolls(gunnery=gunnery.dice, piloting=piloting.dice)
    events: list[Event] = []
    for roll, skill in ((gunnery, unit.gunnery), (piloting, unit.piloting)):
        if sealed:
            events.append(RollMade.of(roll, actor=uid, total=roll.total + skill, skill=skill, sealed=True))
        else:
            events.append(RollMade.of(roll, actor=uid, total=roll.total + skill, skill=skill))
    if not sealed:
        events.append(declaration_rolled(unit, rolls))
    return rolls, events


def declaration_rolled(unit: Mech, rolls: DeclarationRolls) -> DeclarationRolled:
    """The event that shows a declaration's two rolls (DESIGN §7.1: unit, gunnery_roll, gunnery_total,
    piloting_roll, piloting_total)."""
    return DeclarationRolled(
        rule=RULE,
        unit=unit.id,
        gunnery_roll=sum(rolls.gunnery),
        gunnery_total=sum(rolls.gunnery) + unit.gunnery,
        piloting_roll=sum(rolls.piloting),
        piloting_total=sum(rolls.piloting) + unit.piloting,
        gunnery=unit.gunnery,
        piloting=unit.piloting,
        gunnery_dice=rolls.gunnery,
        piloting_dice=rolls.piloting,
    )


def declared_roll(rolls: Mapping[str, DeclarationRolls], uid: str, which: str) -> Roll | None:
    """The declaration's ``gunnery`` or ``piloting`` roll of ``uid`` this turn, or None when it has none (the
    check then rolls its own 2d6)."""
    found = rolls.get(uid)
    if found is None:
        return None
    faces = found.gunnery if which == GUNNERY else found.piloting
    return Roll(-1, 6, faces, f"{RULE} {which} roll", RULE, "seeded")
