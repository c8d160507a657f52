"""The OCS-7 card shows the division as the rules make it (OCS-3: the larger strength over the smaller), so a
defender stronger than its attackers reads "6 ÷ 4", never "4 ÷ 6 → 1.5"."""

from __future__ import annotations

import pytest

from bot.panels import panel_for, step_cards
from data import SCENARIO_DIR
from rules.engine import resolve_phase
from rules.registry import get_ruleset
from rules.ruleset import DIRECTOR, DiceFactory
from rules.scenario import load_scenario

OCS = get_ruleset("ocs")
PLUGIN = panel_for("ocs")

RATIO = {
    "es": ("Cociente", "6 ÷ 4 = 1.5 (la fuerza mayor entre la menor)"),
    "en": ("Raw ratio", "6 ÷ 4 = 1.5 (the larger strength over the smaller)"),
}


@pytest.mark.parametrize("lang", ["es", "en"])
def test_ocs3_card_divides_the_larger_strength_by_the_smaller_when_the_defender_is_stronger(
    lang: str,
) -> None:
    state = load_scenario((SCENARIO_DIR / "ocs-gazala.toml").read_text(encoding="utf-8")).state
    for raw in (
        {"combat": {"attackers": ["ariete"], "defender": "0608"}},  # 4 against ffl1 4 + ind3 2
        {"ar": "ariete", "combat": 1},
        {"ar": "ffl1", "combat": 1},
    ):
        state = resolve_phase(
            OCS, state, {DIRECTOR: OCS.parse_order(state, DIRECTOR, raw)}, dice_for=DiceFactory()
        ).state
    state = state.replace(dice_script=(4, 4, 4, 4))
    result = resolve_phase(OCS, state, {}, dice_for=DiceFactory())
    (card,) = step_cards(PLUGIN, result.state, result.events)
    fields = {name.render(lang): value.render(lang) for name, value in card.fields}
    label, value = RATIO[lang]
    assert fields[label] == value
    assert fields["Proporción redondeada" if lang == "es" else "Rounded odds"] == "1:2"
