"""The fixed PNG palette: every flat colour exactly, plus a few anti-aliasing steps between text and background.

Mapping an RGB frame onto a known palette costs about a millisecond and makes the PNG a third of the size and
much faster to compress than RGB. Pillow's palette lookup works on 6-bit buckets, so two entries closer than
``MIN_SEPARATION`` could steal each other's pixels; the builder keeps entries apart, named colours first, so a
side colour stays exactly itself in the output (tests probe it).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from functools import lru_cache

from PIL import Image

from render.colors import RGB, mix

MAX_COLOURS = 256
MIN_SEPARATION = 10.0
AA_STEPS = (0.25, 0.5, 0.75)


def palette_colours(flat: Sequence[RGB], text_pairs: Iterable[tuple[RGB, RGB]]) -> tuple[RGB, ...]:
    """Flat colours first (kept exactly), then anti-aliasing steps and a grey ramp while room is left."""
    chosen: list[RGB] = []

    def add(c: RGB) -> None:
        if len(chosen) < MAX_COLOURS and all(math.dist(c, o) >= MIN_SEPARATION for o in chosen):
            chosen.append(c)

    for c in flat:
        add(c)
    for fg, bg in text_pairs:
        for step in AA_STEPS:
            add(mix(bg, fg, step))
    for g in range(0, 256, 12):
        add((g, g, g))
    return tuple(chosen)


@lru_cache(maxsize=32)
def palette_image(colours: tuple[RGB, ...]) -> Image.Image:
    flat: list[int] = []
    for c in colours:
        flat.extend(c)
    flat.extend([0, 0, 0] * (MAX_COLOURS - len(colours)))
    pal = Image.new("P", (1, 1))
    pal.putpalette(flat)
    return pal


def to_palette(frame: Image.Image, colours: tuple[RGB, ...]) -> Image.Image:
    """Map an RGB frame onto ``colours`` (nearest colour, no dithering: flat areas stay flat)."""
    return frame.quantize(palette=palette_image(colours), dither=Image.Dither.NONE)
