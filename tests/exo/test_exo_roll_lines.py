"""EXO-4.1: the piloting roll's line comes first (who, dice, need, result), then what it left of the written
manoeuvres as a sentence, "nothing" when nothing was carried out. Both languages."""

from __future__ import annotations

import pytest

from bot.text.account import describe
from data import SCENARIO_DIR
from rules.exo.events import PilotingResolved
from rules.scenario import load_scenario

LINES = {
    "es": {
        "": "[EXO-4.1] Pirata: anotado I, ejecutado nada (fallo al pilotar)",
        "DA": "[EXO-4.1] Pirata: anotado DA, ejecutado DA (éxito al pilotar)",
    },
    "en": {
        "": "[EXO-4.1] Pirata: written I, carried out nothing (piloting failure)",
        "DA": "[EXO-4.1] Pirata: written DA, carried out DA (piloting success)",
    },
}


@pytest.mark.parametrize("lang", ["es", "en"])
def test_exo41_what_the_piloting_roll_left_reads_as_a_sentence(lang: str) -> None:
    state = load_scenario((SCENARIO_DIR / "exo-duel.toml").read_text(encoding="utf-8")).state
    failed = PilotingResolved(
        rule="EXO-4.1", unit="pirata", crew="pilot", written="I", executed="", quality="failure"
    )
    kept = PilotingResolved(
        rule="EXO-4.1", unit="pirata", crew="pilot", written="DA", executed="DA", quality="success"
    )
    assert describe(failed, state, lang, markdown=False) == LINES[lang][""]
    assert describe(kept, state, lang, markdown=False) == LINES[lang]["DA"]
