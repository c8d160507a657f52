"""Colours: two themes (space for unbounded boards, paper for maps), side colours, terrain and marker fills.

Every flat colour the renderer paints comes from here, so the fixed PNG palette (``render.palette``) can hold
each of them exactly and pixel probes in tests can ask for a side's colour at a hex centre.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable
from dataclasses import dataclass, replace

from PIL import ImageColor

from render.options import CONTRAST
from rules.state import EncounterState

RGB = tuple[int, int, int]


@dataclass(frozen=True, slots=True)
class Theme:
    name: str
    background: RGB  # outside the board and behind the header
    hex_fill: RGB  # an empty hex
    grid: RGB
    label: RGB  # CCRR labels
    panel: RGB
    panel_text: RGB
    panel_dim: RGB
    outline: RGB  # counter outlines
    fog: RGB  # hexes the viewer cannot see (night)
    terrain_mix: float = 0.0  # how far terrain fills are toned toward ``hex_fill`` (0: their own colour)


SPACE = Theme(
    name="space",
    background=(11, 16, 27),
    hex_fill=(18, 26, 42),
    grid=(44, 58, 84),
    label=(92, 108, 138),
    panel=(24, 28, 36),
    panel_text=(236, 238, 242),
    panel_dim=(150, 156, 170),
    outline=(8, 10, 14),
    fog=(6, 8, 12),
)

PAPER = Theme(
    name="paper",
    background=(30, 33, 38),
    hex_fill=(232, 226, 208),
    grid=(150, 144, 126),
    label=(122, 116, 100),
    panel=(24, 28, 36),
    panel_text=(236, 238, 242),
    panel_dim=(150, 156, 170),
    outline=(20, 20, 24),
    fog=(70, 72, 78),
)

# Strong, distinct side colours, in side order, used when a scenario gives none. The first three stay apart for
# readers with any dichromacy too (tests/render/test_palette_vision.py): green comes after amber, as red and green
# look alike to a deuteranope.
SIDE_DEFAULTS: tuple[RGB, ...] = (
    (214, 40, 57),  # red
    (30, 110, 220),  # blue
    (242, 160, 0),  # amber
    (40, 160, 70),  # green
    (142, 68, 173),  # purple
    (0, 165, 155),  # teal
    (235, 100, 20),  # orange
    (225, 70, 160),  # pink
)

# The high-contrast scheme: side colours chosen for the widest least difference over every colour vision
# (render/vision.py; tests/render/test_palette_vision.py measures it), on a dark neutral board where the terrain
# is toned most of the way to it, so the counters are what stands out.
CONTRAST_SIDES: tuple[RGB, ...] = (
    (255, 170, 0),  # amber
    (80, 170, 255),  # sky blue
    (255, 255, 255),  # white
    (160, 64, 0),  # rust
)
CONTRAST_GROUND: RGB = (40, 42, 46)


def scheme_theme(theme: Theme, scheme: str) -> Theme:
    """``theme`` in the colour ``scheme`` (render/options.py SCHEMES)."""
    if scheme != CONTRAST:
        return theme
    return replace(
        theme,
        name=f"{theme.name}-contrast",
        hex_fill=CONTRAST_GROUND,
        grid=(92, 96, 104),
        label=(150, 154, 162),
        fog=(14, 15, 17),
        terrain_mix=0.7,
    )


TERRAIN: dict[str, RGB] = {
    # space
    "asteroid": (112, 98, 86),
    "nebula": (70, 52, 110),
    "planet": (40, 110, 140),
    "station": (86, 96, 122),
    "debris": (96, 90, 80),
    # maps
    "obstacle": (88, 88, 92),
    "wall": (88, 88, 92),
    "obstruction": (176, 140, 86),
    "difficult": (200, 192, 118),
    "woods": (120, 170, 100),
    "forest": (120, 170, 100),
    "water": (120, 176, 218),
    "river": (120, 176, 218),
    "road": (214, 200, 160),
    "building": (150, 136, 122),
    "hill": (196, 168, 118),
    "rough": (182, 166, 136),
    "swamp": (140, 178, 156),
    "sand": (226, 206, 150),
    "clear": (232, 226, 208),
    # ocs terrain classes (OCS-4): the closer, the darker
    "open": (236, 224, 184),
    "close": (204, 184, 132),
    "very_close": (170, 150, 104),
    "extra_close": (138, 120, 84),
}

MARKER: dict[str, RGB] = {
    "fire": (255, 104, 0),
    "flare": (255, 236, 110),
    "illumination": (255, 236, 110),
    "gunflash": (255, 210, 30),
    "concealed": (138, 143, 152),
    "debris": (156, 147, 135),
    "equipment": (160, 82, 45),
}

# Counters that belong to no side (exo debris and asteroids, EXO-1.2): neutral greys, never a side colour.
NEUTRAL: dict[str, RGB] = {
    "debris": (156, 147, 135),
    "asteroid": (128, 112, 98),
}

WHITE: RGB = (255, 255, 255)
BLACK: RGB = (0, 0, 0)
HIT: RGB = (255, 59, 48)
MISS: RGB = (235, 235, 235)
SPENT: RGB = (140, 140, 140)
HIGHLIGHT: RGB = (255, 214, 0)
PREVIEW: RGB = (0, 220, 255)
WRECK: RGB = (74, 74, 78)
HIDDEN_TAG: RGB = (200, 120, 255)
BAR_BG: RGB = (52, 56, 66)
BAR_GOOD: RGB = (60, 190, 90)
BAR_MID: RGB = (240, 190, 40)
BAR_BAD: RGB = (230, 60, 50)

# /unit arcs: one distinct colour per firing section, in the ruleset's order (orange, cyan, violet, green, pink,
# yellow), blended into the hex fill: strongest in the nearest range band, fainter band by band.
ARC: tuple[RGB, ...] = (
    (255, 128, 0),
    (0, 190, 255),
    (190, 90, 255),
    (40, 200, 90),
    (255, 70, 150),
    (235, 215, 30),
)
ARC_MIX: tuple[float, ...] = (0.8, 0.6, 0.42, 0.28)
ARC_MIX_ALL = 0.65  # no weapon picked: one shade for the whole reach
ARC_TERRAIN = 0.5  # a hex with terrain takes half as much, so its terrain still reads

# Blends painted per step (lit area, fire glow, fog), as fractions of the overlay colour.
LIT_MIX = 0.45
FIRE_MIX = 0.35
FOG_MIX = 0.7


def theme_for(state: EncounterState) -> Theme:
    return PAPER if state.board.bounded else SPACE


def mix(a: RGB, b: RGB, t: float) -> RGB:
    """``a`` moved a fraction ``t`` toward ``b``."""
    return (round(a[0] + (b[0] - a[0]) * t), round(a[1] + (b[1] - a[1]) * t), round(a[2] + (b[2] - a[2]) * t))


def chip_fill(c: RGB) -> RGB:
    """A stat bar's colour behind the white text of its chip in the unit panel: darker, so the text reads."""
    return mix(c, BLACK, 0.35)


def luminance(c: RGB) -> float:
    return (0.299 * c[0] + 0.587 * c[1] + 0.114 * c[2]) / 255.0


def text_on(c: RGB) -> RGB:
    """Black or white, whichever reads better on ``c``."""
    return BLACK if luminance(c) > 0.62 else WHITE


def terrain_color(kind: str) -> RGB:
    """Known kinds have fixed colours; any other name gets a stable muted colour from its hash."""
    known = TERRAIN.get(kind.lower())
    if known is not None:
        return known
    h = zlib.crc32(kind.encode("utf-8"))
    return (90 + h % 110, 90 + (h >> 8) % 110, 90 + (h >> 16) % 110)


def terrain_in(theme: Theme, kind: str) -> RGB:
    """A terrain's fill on ``theme``: its colour, toned toward the empty hex as the theme says."""
    return (
        mix(terrain_color(kind), theme.hex_fill, theme.terrain_mix)
        if theme.terrain_mix
        else terrain_color(kind)
    )


def side_colors(state: EncounterState, scheme: str = "") -> dict[str, RGB]:
    """Each side's colour: the scenario's ``color`` when it parses, else the default for its position; in the
    high-contrast scheme, that scheme's colour for its position (the scenario's could be any)."""
    out: dict[str, RGB] = {}
    if scheme == CONTRAST:
        return {s.id: CONTRAST_SIDES[i % len(CONTRAST_SIDES)] for i, s in enumerate(state.sides)}
    for i, side in enumerate(state.sides):
        colour = SIDE_DEFAULTS[i % len(SIDE_DEFAULTS)]
        if side.color:
            try:
                parsed = ImageColor.getrgb(side.color)
                colour = (parsed[0], parsed[1], parsed[2])
            except ValueError:
                pass
        out[side.id] = colour
    return out


def unique(colours: Iterable[RGB]) -> list[RGB]:
    seen: set[RGB] = set()
    out: list[RGB] = []
    for c in colours:
        if c not in seen:
            seen.add(c)
            out.append(c)
    return out


def label_color(fill: RGB) -> RGB:
    """CCRR label colour for a hex fill: a quieter shade that still reads on it."""
    return mix(fill, BLACK, 0.42) if luminance(fill) > 0.5 else mix(fill, WHITE, 0.42)
