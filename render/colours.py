"""Colours: two themes (space for unbounded boards, paper for maps), side colours, terrain and marker fills, and
the fixed PNG palette that holds them.

Every flat colour the renderer paints comes from here, so the fixed PNG palette (``Palette``, built per board by
``board_palette``) can hold each of them exactly and pixel probes in tests can ask for a side's colour at a hex
centre. The fast path draws straight onto a palette image with these indexes (static layer, pieces, text
sprites), so no RGB frame is ever mapped onto the palette and every listed colour comes out exactly.
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache

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


# --- the fixed PNG palette: every flat colour exactly, plus a few anti-aliasing steps between text and background

MAX_COLOURS = 256
CLEAR = 255  # never a colour: sprites drawn with indexes use it for "nothing here" (their paste mask)
SEPARATION = 3.0  # entries closer than this are near-duplicates: the first one listed wins
AA_STEPS = (0.25, 0.5, 0.75)

# Indexes for (25 %, 50 %, 75 %, 100 %) of a text colour over its background, and whether they blend at all.
TextInks = tuple[tuple[int, int, int, int], bool]


def palette_colours(flat: Sequence[RGB], text_pairs: Iterable[tuple[RGB, RGB]]) -> tuple[RGB, ...]:
    """Flat colours first (kept exactly), then anti-aliasing steps and a grey ramp while room is left.

    At most 255 entries: index ``CLEAR`` stays free for sprite transparency.
    """
    chosen: list[RGB] = []

    def add(c: RGB) -> None:
        if len(chosen) < CLEAR and all(math.dist(c, o) >= SEPARATION for o in chosen):
            chosen.append(c)

    for c in flat:
        add(c)
    for fg, bg in text_pairs:
        for step in AA_STEPS:
            add(mix(bg, fg, step))
    for g in range(0, 256, 12):
        add((g, g, g))
    return tuple(chosen)


class Palette:
    """Colour → index for drawing on a mode "P" image; a colour not listed gets its nearest entry."""

    __slots__ = ("_index", "_inks", "colours", "plte")

    def __init__(self, colours: tuple[RGB, ...]) -> None:
        if not 0 < len(colours) <= CLEAR:
            raise ValueError(
                f"a palette holds 1-{CLEAR} colours (index {CLEAR} is kept clear), got {len(colours)}"
            )
        self.colours = colours
        self._index: dict[RGB, int] = {}
        for i, c in enumerate(colours):
            self._index.setdefault(c, i)
        self._inks: dict[tuple[RGB, RGB | None], TextInks] = {}
        # The PNG PLTE chunk body, padded to 256 black entries like ``palette_image``.
        self.plte = bytes(v for c in colours for v in c).ljust(3 * MAX_COLOURS, b"\0")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Palette) and other.colours == self.colours

    def __hash__(self) -> int:
        return hash(self.colours)

    def index(self, colour: RGB) -> int:
        found = self._index.get(colour)
        if found is None:
            found = min(range(len(self.colours)), key=lambda i: math.dist(self.colours[i], colour))
            self._index[colour] = found
        return found

    def text_inks(self, fg: RGB, bg: RGB | None) -> TextInks:
        key = (fg, bg)
        inks = self._inks.get(key)
        if inks is None:
            full = self.index(fg)
            if bg is None:
                inks = ((full, full, full, full), False)
            else:
                a, b, c = (self.index(mix(bg, fg, s)) for s in AA_STEPS)
                inks = ((a, b, c, full), True)
            self._inks[key] = inks
        return inks


# --- one board's palette: fixed before anything is drawn so pieces can be drawn with its indexes. It depends only
# on the theme, the side colours and the hex fills in view, so it is built once per board and viewer set. Every
# colour a step may paint is listed up front: hexes tinted by fog, flares and fire (FOG-1, NGT-2, NGT-3) with their
# labels, trails and vectors (side colours lightened), neutral objects, markers and bars.

TINTS = ((FOG_MIX, None), (LIT_MIX, MARKER["flare"]), (FIRE_MIX, MARKER["fire"]))


def tints(theme: Theme, fill: RGB) -> tuple[RGB, ...]:
    """The colours ``fill`` may turn into this step: unseen (fog), lit (flare) and burning (fire)."""
    return tuple(mix(fill, overlay or theme.fog, t) for t, overlay in TINTS)


@lru_cache(maxsize=64)
def board_palette(
    theme: Theme, sides: tuple[RGB, ...], fills: tuple[RGB, ...], extra: tuple[RGB, ...] = ()
) -> Palette:
    """``extra``: colours the state's overlays paint besides these (``Overlay.palette``), kept exact too."""
    flat: list[RGB] = [
        theme.background,
        theme.hex_fill,
        theme.grid,
        theme.panel,
        theme.panel_text,
        theme.panel_dim,
        theme.outline,
        WHITE,
        BLACK,
    ]
    for c in sides:
        flat.extend((c, mix(c, WHITE, 0.4), text_on(c)))
    flat.extend(fills)
    flat.extend(label_color(f) for f in fills)
    flat.extend(
        (
            HIT,
            MISS,
            mix(MISS, WHITE, 0.4),
            SPENT,
            HIGHLIGHT,
            PREVIEW,
            WRECK,
            HIDDEN_TAG,
            BAR_BG,
            BAR_GOOD,
            BAR_MID,
            BAR_BAD,
        )
    )
    # stat chips: every bar colour a shade darker, an overlay's own bar colours (``extra``) too
    flat.extend(chip_fill(c) for c in (BAR_GOOD, BAR_MID, BAR_BAD, *extra))
    flat.extend(MARKER.values())
    for c in NEUTRAL.values():
        flat.extend((c, mix(c, WHITE, 0.4), text_on(c)))
    tinted = [t for f in fills for t in tints(theme, f)]
    flat.extend(tinted)
    flat.extend(label_color(t) for t in tinted)
    flat.extend(extra)
    pairs: list[tuple[RGB, RGB]] = [(theme.panel_text, theme.panel), (theme.panel_dim, theme.panel)]
    pairs.extend((text_on(c), c) for c in sides)
    pairs.extend((label_color(f), f) for f in fills)
    pairs.extend((c, theme.panel) for c in sides)
    pairs.extend(((WHITE, HIT), (WHITE, WRECK), (WHITE, MARKER["concealed"])))
    pairs.extend((text_on(c), c) for c in NEUTRAL.values())
    pairs.extend(((HIT, theme.panel), (HIDDEN_TAG, theme.panel)))
    pairs.extend((WHITE, chip_fill(c)) for c in (BAR_GOOD, BAR_MID, BAR_BAD))
    pairs.append((WHITE, BAR_BG))
    pairs.extend((label_color(t), t) for t in tinted)
    return Palette(palette_colours(unique(flat), pairs))
