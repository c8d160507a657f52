"""Night roll lines say what was rolled (NGT-1, NGT-5): who checks what, each die by its meaning, what it takes and
the result, before what follows; TI is spelled out. Both languages."""

from __future__ import annotations

import pytest

from bot.text.account import describe
from rules.events import RollMade
from rules.night import light, stray
from rules.ruleset import MoveIntent
from tests.night_fixtures import SKIRMISH, char, dice, night_state, with_terrain

KEPT = {
    "es": [
        "[NGT-5] Vedd (normal) comprueba si se extravía: dado de color 2, blanco 6"
        " — se extravía con color 6 y blanco 3 o más: no se extravía",
        "[NGT-5] Vedd mantiene el rumbo",
    ],
    "en": [
        "[NGT-5] Vedd (normal) checks for straying: coloured die 2, white 6"
        " — strays on coloured 6 and white 3 or more: keeps its way",
        "[NGT-5] Vedd keeps its way",
    ],
}

STRAYED = {
    "es": [
        "[NGT-5] Vedd (sigilosa) comprueba si se extravía: dado de color 6, blanco 5"
        " — se extravía con color 6 y blanco 5 o más: se extravía",
        "[NGT-5] Vedd: dirección del extravío: dado de color 4 → S, blanco 3",
        "[NGT-5] Vedd se extravía hacia el S: se detiene en 0804 (terreno infranqueable) y queda TI"
        " (tarea incompleta)",
    ],
    "en": [
        "[NGT-5] Vedd (stealthy) checks for straying: coloured die 6, white 5"
        " — strays on coloured 6 and white 5 or more: strays",
        "[NGT-5] Vedd: straying direction: coloured die 4 → S, white 3",
        "[NGT-5] Vedd strays S: stops on 0804 (impassable terrain) and is marked TI (task incomplete)",
    ],
}


@pytest.mark.parametrize("lang", ["es", "en"])
def test_ngt5_a_kept_way_reads_who_checks_both_dice_what_strays_and_the_result(lang: str) -> None:
    state = night_state(char("vedd", "a", "0505", discipline="normal"), char("far", "b", "1010"))
    _, events, taken = stray.check(SKIRMISH, state, MoveIntent(unit="vedd", points=6), dice(2, 6))
    assert not taken
    assert [describe(e, state, lang, markdown=False) for e in events] == KEPT[lang]


@pytest.mark.parametrize("lang", ["es", "en"])
def test_ngt5_a_stray_reads_the_check_then_the_direction_then_where_it_stops_and_what_ti_is(
    lang: str,
) -> None:
    state = night_state(char("vedd", "a", "0802", discipline="stealthy"), height=12)
    state = with_terrain(state, {"0805": "obstruction"})
    _, events, taken = stray.check(SKIRMISH, state, MoveIntent(unit="vedd", points=6), dice(6, 5, 4, 3))
    assert taken
    lines = [describe(e, state, lang, markdown=False) for e in events]
    assert lines[:3] == STRAYED[lang]


def test_ngt1_the_wind_roll_is_reported_with_its_purpose_so_no_bare_dice_line_is_left() -> None:
    state = night_state(char("vedd", "a", "0505"), nvr=2, wind=True)
    _, events = light.wind(state, dice(6))
    roll = events[0]
    assert isinstance(roll, RollMade) and roll.get("purpose_key") == "night.wind"
    assert describe(roll, state, "es", markdown=False) == "[NGT-1] Viento: 1d6 6"
