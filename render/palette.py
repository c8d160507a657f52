"""The fixed PNG palette: every flat colour exactly, plus a few anti-aliasing steps between text and background.

The fast path draws straight onto a palette image with these indexes (static layer, pieces, text sprites), so no
RGB frame is ever mapped onto the palette and every listed colour comes out exactly (tests probe side colours).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

from render.colors import RGB, mix

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
