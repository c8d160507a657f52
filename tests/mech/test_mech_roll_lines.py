"""MECH-1.2: an open declaration spells its end facing, its torso twist and each weapon by name ("dispara CA/20 →
Wolverine"), never a hexside letter, "R" or "#1". Both languages."""

from __future__ import annotations

import pytest

from bot.text.account import describe
from data import SCENARIO_DIR
from rules.hexgrid import Hex
from rules.mech.events import DeclarationLocked
from rules.mech.orders import parse_order
from rules.mech.ruleset import declaration_event
from rules.scenario import load_scenario

EXPECTED = {
    "es": "[MECH-1.2] Hunchback declara: anda 0612→0611 encarado al SO con el torso girado a la derecha;"
    " dispara CA/20 → Wolverine, Láser Medio → Wolverine; ataque físico —",
    "en": "[MECH-1.2] Hunchback declares walks 0612→0611 facing SW with the torso twisted right;"
    " fire AC/20 → Wolverine, Medium Laser → Wolverine; physical —",
}


@pytest.mark.parametrize("lang", ["es", "en"])
def test_mech12_a_declaration_names_facing_twist_and_weapons(lang: str) -> None:
    state = load_scenario((SCENARIO_DIR / "mech-duel.toml").read_text(encoding="utf-8")).state
    order = parse_order(
        "hunter",
        {
            "mode": "walk",
            "path": ["0612", "0611"],
            "facing": "SW",
            "twist": "R",
            "fire": [{"weapon": 1, "target": "wolverine"}, {"weapon": 2, "target": "wolverine"}],
        },
    )
    event = declaration_event(state, order)
    assert isinstance(event, DeclarationLocked)
    assert dict(event.args)["path"] == (Hex.parse("0612"), Hex.parse("0611"))
    assert describe(event, state, lang, markdown=False) == EXPECTED[lang]
