"""The pbw board (render/rulesets/pbw.py): Hit Points and fatigue bars and damaged locations in the side panel
(PBW-3, PBW-4), a badge on the counter of a prone, incapacitated or unconscious character and a legend for them,
and a new board whenever damage changes what the side panel shows."""

from __future__ import annotations

import io

from PIL import Image

from data import SCENARIO_DIR
from render import BoardSnapshot, RenderOptions
from render.board import render_board
from render.rulesets import board_signature, overlays_for
from render.rulesets.pbw import BADGE, OVERLAY
from rules.pbw.model import Character
from rules.scenario import load_scenario
from rules.state import EncounterState, replace_unit


def street() -> EncounterState:
    return load_scenario((SCENARIO_DIR / "pbw-street.toml").read_text(encoding="utf-8")).state


def hurt(state: EncounterState) -> EncounterState:
    a, b, c, d, e, *_ = state.units_of(Character)
    return state.with_units(
        [
            replace_unit(a, hp=a.hp - 9, resistance={**a.resistance, "ra": 0}, fatigue=3),
            replace_unit(b, condition="prone", resistance={**b.resistance, "ll": 0}),
            replace_unit(c, condition="incapacitated", resistance={**c.resistance, "torso": 0}, hp=5),
            replace_unit(d, condition="unconscious", resistance={**d.resistance, "head": -2}, hp=8),
            replace_unit(e, condition="dead", destroyed=True, hp=-3),
        ]
    )


def test_the_pbw_overlay_is_the_registered_one() -> None:
    assert overlays_for(street()) == (OVERLAY,)


def test_pbw_3_4_bars_show_hit_points_fatigue_and_only_the_damaged_locations() -> None:
    state = street()
    whole = state.units_of(Character)[0]
    assert [b.label for b in OVERLAY.stat_bars(whole)] == ["render.stat.pbw_hp", "render.stat.pbw_fatigue"]
    a = hurt(state).units_of(Character)[0]
    bars = {b.label: b for b in OVERLAY.stat_bars(a)}
    assert bars["render.stat.pbw_hp"].value == a.max_hp - 9 and bars["render.stat.pbw_hp"].maximum == a.max_hp
    assert bars["render.stat.pbw_fatigue"].maximum == 2 * a.fatigue_attribute  # PBW-3: exhausted at twice
    assert bars["render.stat.pbw_ra"].value == 0 and not bars["render.stat.pbw_ra"].damage
    assert "render.stat.pbw_la" not in bars


def test_pbw_4_damage_changes_the_board_signature() -> None:
    state = street()
    assert board_signature(state) != board_signature(hurt(state))


def test_pbw_4_the_board_with_states_draws_badges_in_both_languages() -> None:
    state = hurt(street())
    for locale in ("es", "en"):
        snapshot = BoardSnapshot(state, (), title="Calle")
        png = render_board(snapshot, viewer="public", options=RenderOptions(locale=locale))
        image = Image.open(io.BytesIO(png)).convert("RGB")
        assert image.width >= 550
        colours = {c for _, c in image.getcolors(maxcolors=1 << 20) or ()}
        for condition, colour in BADGE.items():  # prone, incapacitated, unconscious: counter and legend
            assert colour in colours, condition
