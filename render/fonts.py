"""Fonts from ``data/fonts``, loaded once per (size, weight)."""

from __future__ import annotations

from functools import lru_cache

from PIL import ImageFont

from data import FONT_DIR

FontT = ImageFont.FreeTypeFont


@lru_cache(maxsize=64)
def font(size: int, *, bold: bool = False) -> FontT:
    name = "DejaVuSans-Bold.ttf" if bold else "DejaVuSans.ttf"
    return ImageFont.truetype(str(FONT_DIR / name), max(6, size))


def text_width(text: str, size: int, *, bold: bool = False) -> float:
    return font(size, bold=bold).getlength(text)
