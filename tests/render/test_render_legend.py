"""The unit panel read as Discord shows the board (about 550 px wide): stat chips tall enough to read, and a key
that spells out every abbreviation they use, in the reader's language."""

from __future__ import annotations

import io

from PIL import Image

from data import SCENARIO_DIR
from data.i18n import catalog
from render import BoardSnapshot, RenderOptions, render_board
from render import colours as C
from render.rulesets.pbw import OVERLAY
from render.side_panel import PREVIEW_WIDTH, key_lines_for, stat_key
from rules.pbw.model import Character
from rules.scenario import load_scenario
from rules.state import EncounterState, replace_unit

BAR_COLOURS = {c for g in (C.BAR_GOOD, C.BAR_MID, C.BAR_BAD) for c in (g, C.chip_fill(g))}


def _street_with_a_broken_right_arm() -> EncounterState:
    state = load_scenario((SCENARIO_DIR / "pbw-street.toml").read_text(encoding="utf-8")).state
    first = state.units_of(Character)[0]
    return state.with_units([replace_unit(first, hp=first.hp - 9, resistance={**first.resistance, "ra": 0})])


def _tallest_bar(image: Image.Image, left: int) -> int:
    """The longest vertical run of a stat bar colour right of ``left`` (the unit panel)."""
    rgb = image.convert("RGB")
    px = rgb.load()
    assert px is not None
    best = 0
    for x in range(left, rgb.width, 3):
        run = 0
        for y in range(rgb.height):
            run = run + 1 if px[x, y] in BAR_COLOURS else 0
            best = max(best, run)
    return best


def test_pbw_4_stat_bars_are_at_least_10_px_high_at_discords_preview_width() -> None:
    state = _street_with_a_broken_right_arm()
    for locale in ("es", "en"):
        png = render_board(BoardSnapshot(state), viewer="director", options=RenderOptions(locale=locale))
        image = Image.open(io.BytesIO(png))
        scale = PREVIEW_WIDTH / image.width
        assert _tallest_bar(image, image.width * 2 // 3) * scale >= 10, locale


def test_pbw_4_the_key_explains_the_right_arm_abbreviation_in_each_language() -> None:
    bars = OVERLAY.stat_bars(_street_with_a_broken_right_arm().units_of(Character)[0])
    es = " · ".join(key_lines_for(bars, 320, "es"))
    en = " · ".join(key_lines_for(bars, 320, "en"))
    assert "BD: brazo derecho" in es and "PV: puntos de vida" in es
    assert "RArm: right arm" in en and "HP: hit points" in en
    assert "right arm" not in es and "brazo" not in en


def test_a_key_line_is_as_wide_as_the_panel_allows() -> None:
    bars = OVERLAY.stat_bars(_street_with_a_broken_right_arm().units_of(Character)[0])
    assert len(key_lines_for(bars, 2000, "es")) == 1
    assert len(key_lines_for(bars, 150, "es")) == 3  # one entry a line: PV, Fat, BD


def test_every_stat_abbreviation_has_its_spelled_out_key_in_both_languages() -> None:
    for lang in ("es", "en"):
        labels = [k for k in catalog(lang) if k.startswith("render.stat.")]
        assert labels, lang
        missing = [k for k in labels if stat_key(k) not in catalog(lang)]
        assert not missing, (lang, missing)
