"""The part of the picture that does not change between steps: background, hex grid, terrain, CCRR labels.

Built once per (theme, board geometry, terrain, viewport, image size) and kept in a small LRU keyed by those
values, not by object identity, so a state rebuilt from storage hits the same entry.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass

from PIL import Image, ImageDraw

from render.colors import RGB, Theme, label_color, terrain_color
from render.fonts import font
from render.geometry import hex_polygon
from render.layout import Layout
from rules.hexgrid import Hex
from rules.state import Board

CACHE_SIZE = 8
LABEL_MIN_SIZE = 17.0  # px: below this CCRR labels would be noise
GRID_MIN_SIZE = 6.0  # px: below this an empty grid is a grey blur; only terrain hexes are drawn


@dataclass(frozen=True, slots=True)
class StaticLayer:
    image: Image.Image  # RGB, full image size; copy before drawing on it
    terrain_kinds: tuple[str, ...]  # kinds present in the view, for the legend
    fills: tuple[RGB, ...]  # every hex fill used, for the palette


_cache: OrderedDict[tuple[object, ...], StaticLayer] = OrderedDict()


def clear_cache() -> None:
    _cache.clear()


def cache_len() -> int:
    return len(_cache)


def static_layer(theme: Theme, board: Board, layout: Layout, *, use_cache: bool = True) -> StaticLayer:
    terrain_key = tuple(sorted((h.q, h.r, k) for h, k in board.terrain.items()))
    key: tuple[object, ...] = (
        theme,
        board.width,
        board.height,
        terrain_key,
        layout.viewport,
        layout.width,
        layout.height,
    )
    if use_cache:
        hit = _cache.get(key)
        if hit is not None:
            _cache.move_to_end(key)
            return hit
    layer = _build(theme, board, layout)
    if use_cache:
        _cache[key] = layer
        while len(_cache) > CACHE_SIZE:
            _cache.popitem(last=False)
    return layer


def hex_fill(theme: Theme, board: Board, h: Hex) -> RGB:
    kind = board.terrain.get(h)
    return terrain_color(kind) if kind else theme.hex_fill


def draw_hex(
    draw: ImageDraw.ImageDraw,
    theme: Theme,
    vp_size: float,
    center: tuple[float, float],
    fill: RGB,
    label: str | None,
) -> None:
    """One hex: fill, grid line and (when big enough) its CCRR label at the top."""
    draw.polygon(hex_polygon(center, vp_size), fill=fill, outline=theme.grid)
    if label is not None and vp_size >= LABEL_MIN_SIZE:
        f = font(round(vp_size * 0.34))
        draw.text((center[0], center[1] - vp_size * 0.6), label, font=f, fill=label_color(fill), anchor="mt")


def _build(theme: Theme, board: Board, layout: Layout) -> StaticLayer:
    img = Image.new("RGB", (layout.width, layout.height), theme.background)
    draw = ImageDraw.Draw(img)
    vp = layout.viewport
    kinds: list[str] = []
    fills: list[RGB] = [theme.hex_fill]
    for h in _hexes_to_draw(board, layout):
        fill = hex_fill(theme, board, h)
        kind = board.terrain.get(h)
        if kind and kind not in kinds:
            kinds.append(kind)
            fills.append(fill)
        draw_hex(draw, theme, vp.size, vp.center(h), fill, h.label)
    return StaticLayer(image=img, terrain_kinds=tuple(kinds), fills=tuple(fills))


def _hexes_to_draw(board: Board, layout: Layout) -> list[Hex]:
    vp = layout.viewport
    if vp.size >= GRID_MIN_SIZE:
        return vp.hexes(board)
    return sorted(h for h in board.terrain if vp.shows(h))
