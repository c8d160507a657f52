"""The ocs board overlay (render/rulesets/ocs.py): open combats, hedgehogs, steps lost and retreats are drawn, the
legend names them, and the board image changes when a unit loses a step or changes mode."""

from __future__ import annotations

import io

from PIL import Image

from render import BoardSnapshot, RenderOptions, render_board
from render.rulesets import board_signature, overlays_for
from render.rulesets.ocs import ATTACK, HEDGEHOG_FILL, LOSS, OVERLAY
from rules.engine import resolve_phase
from rules.ruleset import DIRECTOR, DiceFactory
from rules.scenario import load_scenario
from rules.state import EncounterState, replace_unit
from tests.ocs_fixtures import OCS, TWO_COMBATS

PUBLIC = "public"


def colours(png: bytes) -> set[tuple[int, ...]]:
    img = Image.open(io.BytesIO(png)).convert("RGB")
    found = img.getcolors(maxcolors=1 << 20) or []
    return {c for _, c in found if isinstance(c, tuple)}


def give(state: EncounterState, actor: str, raw: object) -> tuple[EncounterState, tuple[object, ...]]:
    result = resolve_phase(OCS, state, {actor: OCS.parse_order(state, actor, raw)}, dice_for=DiceFactory())
    return result.state, result.events


def test_open_combats_losses_and_hedgehogs_are_drawn_and_named() -> None:
    """OCS-2 combats (ring, number, arrows), OCS-6 losses (red ring), OCS-1 hedgehog tag are on the picture."""
    text = TWO_COMBATS.replace("height = 10\n", 'height = 10\nhedgehog = { "0606" = 2 }\n', 1)
    state = load_scenario(text).state.replace(dice_script=(6, 5, 2, 6, 6))
    assert OVERLAY in overlays_for(state)
    state, _ = give(state, DIRECTOR, {"combat": {"attackers": ["a1", "a2"], "defender": "0403"}})
    state, _ = give(state, DIRECTOR, {"ar": "a1", "combat": 1})
    state, _ = give(state, DIRECTOR, {"ar": "d1", "combat": 1})
    rolled = resolve_phase(OCS, state, {}, dice_for=DiceFactory())  # DL2o2: Guards D loses its first step
    state, events = rolled.state, rolled.events
    assert any(e.type == "OcsStepLost" for e in events)
    png = render_board(BoardSnapshot(state, events), viewer=PUBLIC, options=RenderOptions(locale="en"))
    seen = colours(png)
    assert {ATTACK, LOSS, HEDGEHOG_FILL} <= seen
    width = Image.open(io.BytesIO(png)).width
    assert width >= 550, "drawn at least at Discord's preview width"


def test_steps_and_mode_change_the_picture() -> None:
    """The bot posts a new board when the signature changes: steps (OCS-6) and mode (OCS-1) are in it."""
    state = load_scenario(TWO_COMBATS).state
    before = board_signature(state)
    a1 = state.units["a1"]
    assert board_signature(state.with_units([replace_unit(a1, steps=1)])) != before
    assert board_signature(state.with_units([replace_unit(a1, mode="dg")])) != before
