"""A drawing surface: an RGB image (the naive path) or a palette image drawn with palette indexes (the fast path).

Rasterising a string is the slowest thing the renderer does, and the same strings ("HAL", "Arm 8/10", unit names)
come back every step. Each (text, size, weight, anchor) is rasterised once into an "L" mask. On an RGB canvas the
mask is pasted in any colour. On a palette canvas the mask is turned once into a sprite of palette indexes — four
anti-aliasing steps between the text colour and the colour behind it — so text stays smooth without ever mapping
a whole RGB frame onto the palette.
"""

from __future__ import annotations

from functools import lru_cache

from PIL import Image, ImageDraw

from render.colours import RGB, Palette, TextInks
from render.fonts import font

Point = tuple[float, float]
MARGIN = 16.0  # px: wider than any line the renderer draws
Ink = RGB | int

# Mask levels that become each anti-aliasing step: < 32 stays background, then 25 %, 50 %, 75 %, full colour.
_AA_EDGES = (32, 96, 160, 224)
_NO_BG_CUT = 128  # background unknown: a pixel is text from half coverage on, without blending


@lru_cache(maxsize=8192)
def _sprite(text: str, size: int, bold: bool, anchor: str) -> tuple[Image.Image, int, int]:
    f = font(size, bold=bold)
    left, top, right, bottom = (int(v) for v in f.getbbox(text, anchor=anchor))
    mask = Image.new("L", (max(1, right - left), max(1, bottom - top)), 0)
    ImageDraw.Draw(mask).text((-left, -top), text, font=f, fill=255, anchor=anchor)
    return mask, left, top


def apply_lut(img: Image.Image, table: list[int]) -> Image.Image:
    """``img.point(table)`` for an "L" image; Pillow's stub types ``point`` partly unknown, hence the ignore."""
    return img.point(table)  # pyright: ignore[reportUnknownMemberType]


@lru_cache(maxsize=8192)
def _indexed_sprite(
    text: str, size: int, bold: bool, anchor: str, inks: TextInks
) -> tuple[Image.Image, Image.Image, int, int]:
    """(palette-index sprite, 0/255 paste mask, left, top) of a string in the given anti-aliasing inks."""
    mask, left, top = _sprite(text, size, bold, anchor)
    steps, blended = inks
    lut = [0] * 256
    cut = _AA_EDGES[0] if blended else _NO_BG_CUT
    for level in range(cut, 256):
        lut[level] = steps[sum(level >= e for e in _AA_EDGES) - 1] if blended else steps[-1]
    indexes = Image.frombytes("P", mask.size, apply_lut(mask, lut).tobytes())
    paste_mask = apply_lut(mask, [0] * cut + [255] * (256 - cut))
    return indexes, paste_mask, left, top


@lru_cache(maxsize=8192)
def text_width(text: str, size: int, bold: bool = False) -> float:
    return font(size, bold=bold).getlength(text)


class Canvas:
    """An image, its ImageDraw, ``ink`` (colour → what ImageDraw wants) and ``text`` that reuses sprites."""

    __slots__ = ("cached", "draw", "img", "palette")

    def __init__(self, img: Image.Image, *, cached: bool = True, palette: Palette | None = None) -> None:
        if (palette is not None) != (img.mode == "P"):
            raise ValueError("a palette canvas needs a mode 'P' image and a Palette, an RGB canvas neither")
        self.img = img
        self.draw = ImageDraw.Draw(img)
        self.cached = cached  # False: rasterise every string (the naive baseline)
        self.palette = palette

    @property
    def bounds(self) -> tuple[float, float, float, float]:
        """The image rectangle with a margin for line widths, for skipping shapes drawn off the image."""
        return -MARGIN, -MARGIN, self.img.width + MARGIN, self.img.height + MARGIN

    def ink(self, colour: RGB) -> Ink:
        """The colour itself on RGB, its palette index on a palette canvas (nearest entry if not listed)."""
        return colour if self.palette is None else self.palette.index(colour)

    def text(
        self,
        xy: Point,
        text: str,
        *,
        size: int,
        fill: RGB,
        bold: bool = False,
        anchor: str = "la",
        bg: RGB | None = None,
    ) -> None:
        """Draw ``text``; ``bg`` is the colour behind it, which palette canvases blend toward at the edges."""
        if not text:
            return
        if self.palette is not None:
            sprite, mask, left, top = _indexed_sprite(
                text, size, bold, anchor, self.palette.text_inks(fill, bg)
            )
            self.img.paste(sprite, (round(xy[0]) + left, round(xy[1]) + top), mask)
            return
        if not self.cached:
            self.draw.text(xy, text, font=font(size, bold=bold), fill=fill, anchor=anchor)
            return
        mask, left, top = _sprite(text, size, bold, anchor)
        self.img.paste(fill, (round(xy[0]) + left, round(xy[1]) + top), mask)
