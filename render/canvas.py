"""A drawing surface with cached text sprites.

Rasterising a string is the slowest thing the renderer does, and the same strings ("HAL", "Arm 8/10", unit names)
come back every step. Each (text, size, weight, anchor) is rasterised once into an "L" mask and then pasted in
any colour, which keeps anti-aliased text while cutting per-step text cost several times over.
"""

from __future__ import annotations

from functools import lru_cache

from PIL import Image, ImageDraw

from render.colors import RGB
from render.fonts import font

Point = tuple[float, float]


@lru_cache(maxsize=8192)
def _sprite(text: str, size: int, bold: bool, anchor: str) -> tuple[Image.Image, int, int]:
    f = font(size, bold=bold)
    left, top, right, bottom = (int(v) for v in f.getbbox(text, anchor=anchor))
    mask = Image.new("L", (max(1, right - left), max(1, bottom - top)), 0)
    ImageDraw.Draw(mask).text((-left, -top), text, font=f, fill=255, anchor=anchor)
    return mask, left, top


@lru_cache(maxsize=8192)
def text_width(text: str, size: int, bold: bool = False) -> float:
    return font(size, bold=bold).getlength(text)


class Canvas:
    """An RGB image, its ImageDraw, and ``text`` that reuses rasterised strings."""

    __slots__ = ("cached", "draw", "img")

    def __init__(self, img: Image.Image, *, cached: bool = True) -> None:
        self.img = img
        self.draw = ImageDraw.Draw(img)
        self.cached = cached  # False: rasterise every string (the naive baseline)

    def text(
        self, xy: Point, text: str, *, size: int, fill: RGB, bold: bool = False, anchor: str = "la"
    ) -> None:
        if not text:
            return
        if not self.cached:
            self.draw.text(xy, text, font=font(size, bold=bold), fill=fill, anchor=anchor)
            return
        mask, left, top = _sprite(text, size, bold, anchor)
        self.img.paste(fill, (round(xy[0]) + left, round(xy[1]) + top), mask)
