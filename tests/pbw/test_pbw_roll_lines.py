"""pbw roll lines explain themselves (DICE-3, PBW-2, PBW-5): who rolls for what, the dice, each part of the bonus
by name and sign, the total, what was needed and the result, in that order, before the location and damage."""

from __future__ import annotations

import pytest

from bot.text.account import describe
from tests.pbw_fixtures import act, make, person, play_turn

MELEE_LINES = {
    "es": (
        "[PBW-5] Ana ataca cuerpo a cuerpo a Bob con los puños: 2d6 6+5 = 11, +3 (Fuerza) +2 (Pelea) = 16",
        "[PBW-2] Bob se defiende cuerpo a cuerpo de Ana: 2d6 2+2 = 4, +3 (Fuerza) +2 (Pelea) = 9"
        " — Ana necesita más de 9: éxito",
    ),
    "en": (
        "[PBW-5] Ana attacks Bob in melee with fists: 2d6 6+5 = 11, +3 (Strength) +2 (Brawling) = 16",
        "[PBW-2] Bob defends in melee against Ana: 2d6 2+2 = 4, +3 (Strength) +2 (Brawling) = 9"
        " — Ana needs more than 9: success",
    ),
}

AIMED_LINE = {
    "es": "[PBW-5] Ana dispara a Bob con la pistola: 2d6 6+5 = 11, +3 (Percepción) +3 (Armas a Distancia)"
    " -5 (apunta) = 12 — necesita ≥ 10: éxito",
    "en": "[PBW-5] Ana shoots at Bob with pistol: 2d6 6+5 = 11, +3 (Perception) +3 (Ranged Weapons)"
    " -5 (aimed) = 12 — needs ≥ 10: success",
}


@pytest.mark.parametrize("lang", ["es", "en"])
def test_pbw2_opposed_melee_names_both_totals_and_the_result_before_location_and_damage(lang: str) -> None:
    state = make([person("ana", "a", "0303", initiative=6), person("bob", "b", "0304", initiative=2)])
    state = state.replace(dice_script=(6, 5, 2, 2, 6, 3, 3))
    state, events = play_turn(state, {"ana": [act("melee", target="bob")], "bob": [act("defend")]})
    lines = [describe(e, state, lang) for e in events]
    attack, defence = MELEE_LINES[lang]
    assert attack in lines and defence in lines
    first_location = next(i for i, line in enumerate(lines) if line.startswith("[PBW-4]"))
    assert lines.index(attack) < lines.index(defence) < first_location


@pytest.mark.parametrize("lang", ["es", "en"])
def test_pbw5_aimed_shot_shows_the_aim_modifier_need_and_result_before_damage(lang: str) -> None:
    state = make([person("ana", "a", "0303", initiative=6), person("bob", "b", "0306", initiative=2)])
    state = state.replace(dice_script=(6, 5, 4, 6))
    state, events = play_turn(
        state, {"ana": [act("shoot", target="bob", weapon=1, aim="torso")], "bob": [act("defend")]}
    )
    lines = [describe(e, state, lang) for e in events]
    assert AIMED_LINE[lang] in lines
    first_damage = next(i for i, line in enumerate(lines) if line.startswith("[PBW-4]"))
    assert lines.index(AIMED_LINE[lang]) < first_damage
