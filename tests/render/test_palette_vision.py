"""Side colours stay apart for every reader: normal vision and simulated protanopia, deuteranopia, tritanopia.

Every bundled scenario's sides, and the default colours a scenario without its own gets, are checked pair by pair
and against the ground they are drawn on (render/vision.py: Machado 2009 simulation, CIEDE2000 difference).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from data import SCENARIO_DIR
from render import colours as C
from render.vision import VISIONS, closest_pair, delta_e, difference
from rules.scenario import load_scenario

MIN_APART = 20.0  # CIEDE2000: a glance tells them apart on a phone (2 is barely noticeable)
GROUNDS = (C.PAPER.hex_fill, C.PAPER.background, C.SPACE.hex_fill, C.SPACE.background)


def _hex(code: str) -> C.RGB:
    return (int(code[1:3], 16), int(code[3:5], 16), int(code[5:7], 16))


def test_ciede2000_matches_the_published_reference_pair() -> None:
    """Sharma, Wu and Dalal (2005), table 1, pair 1: ΔE00 = 2.0425."""
    assert delta_e((50.0, 2.6772, -79.7751), (50.0, 0.0, -82.7485)) == pytest.approx(2.0425, abs=1e-4)


def test_dichromacy_simulation_merges_red_and_green_for_a_deuteranope_only() -> None:
    red, green = (214, 40, 57), (40, 160, 70)
    assert difference(red, green) > 40
    assert difference(red, green, "deuteranopia") < 10
    assert difference((255, 255, 255), (0, 0, 0), "tritanopia") == pytest.approx(100, abs=0.1)


@pytest.mark.parametrize("path", sorted(SCENARIO_DIR.glob("*.toml")), ids=lambda p: p.stem)
def test_bundled_scenario_sides_are_apart_for_every_colour_vision(path: Path) -> None:
    state = load_scenario(path.read_text(encoding="utf-8")).state
    colours = list(C.side_colors(state).values())
    apart, vision, a, b = closest_pair(colours, GROUNDS)
    assert apart >= MIN_APART, f"{a} and {b} look alike ({apart:.1f}) with {vision}"


def test_default_side_colours_of_up_to_three_sides_are_apart_for_every_colour_vision() -> None:
    apart, vision, a, b = closest_pair(C.SIDE_DEFAULTS[:3], GROUNDS)
    assert apart >= MIN_APART, f"{a} and {b} look alike ({apart:.1f}) with {vision}"


def test_the_check_rejects_olive_against_red_brown_for_a_deuteranope() -> None:
    """The ocs Gazala sides were olive and red-brown: apart for normal vision, nearly one colour for a deuteranope."""
    olive, red_brown = _hex("#8a7a3a"), _hex("#b04a3a")
    assert difference(olive, red_brown) >= MIN_APART
    apart, vision, _, _ = closest_pair((olive, red_brown), GROUNDS)
    assert apart < MIN_APART and vision == "deuteranopia"
    assert set(VISIONS) == {"normal", "protanopia", "deuteranopia", "tritanopia"}


def test_the_high_contrast_sides_are_apart_by_a_wide_margin_for_every_colour_vision() -> None:
    """The ``/settings palette`` high-contrast scheme: two sides at least twice the minimum apart, and up to four
    sides well past it, against each other and every ground they are drawn on (its toned board and the themes'
    backgrounds). Measured: two sides 48.6 (the standard defaults: 25.4), three 29.3 (21.0), four 28.0 (5.1)."""
    grounds = (C.CONTRAST_GROUND, C.PAPER.background, C.SPACE.background)
    apart, vision, a, b = closest_pair(C.CONTRAST_SIDES[:2], grounds)
    assert apart >= 2 * MIN_APART, f"{a} and {b} look alike ({apart:.1f}) with {vision}"
    for n in (3, 4):
        apart, vision, a, b = closest_pair(C.CONTRAST_SIDES[:n], grounds)
        assert apart >= 1.25 * MIN_APART, f"{n} sides: {a} and {b} look alike ({apart:.1f}) with {vision}"
    standard, _, _, _ = closest_pair(C.SIDE_DEFAULTS[:2], GROUNDS)
    assert closest_pair(C.CONTRAST_SIDES[:2], grounds)[0] > standard + 15
