"""The part of the picture that does not change between steps: background, hex grid, terrain, CCRR labels.

Built once per (theme, board geometry, terrain, viewport, image size) and kept in a small LRU keyed by those
values, not by object identity, so a state rebuilt from storage hits the same entry. The fast path keeps the layer
drawn with each board palette's indexes (``indexed``), so a step starts from a cheap 1-byte-per-pixel copy.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field

from PIL import Image

from render.canvas import Canvas
from render.colors import RGB, Theme, label_color, terrain_color
from render.geometry import hex_polygon
from render.layout import Layout
from render.palette import Palette
from rules.hexgrid import Hex
from rules.state import Board

CACHE_SIZE = 8
IMAGES_PER_LAYER = 4  # RGB plus a palette per set of side colours: one or two in practice
LABEL_MIN_SIZE = 17.0  # px: below this CCRR labels would be noise
GRID_MIN_SIZE = 6.0  # px: below this an empty grid is a grey blur; only terrain hexes are drawn


@dataclass(frozen=True, slots=True, eq=False)
class StaticLayer:
    """One board's unchanging picture, drawn lazily: in RGB for the naive path, per palette for the fast one."""

    theme: Theme
    board: Board
    layout: Layout
    terrain_kinds: tuple[str, ...]  # kinds present in the view, for the legend
    fills: tuple[RGB, ...]  # every hex fill used, for the palette
    _images: OrderedDict[Palette | None, Image.Image] = field(
        default_factory=lambda: OrderedDict[Palette | None, Image.Image]()
    )

    @property
    def image(self) -> Image.Image:
        """The layer in RGB; copy before drawing on it."""
        return self._image(None)

    def indexed(self, palette: Palette) -> Image.Image:
        """The layer drawn straight with ``palette``'s indexes (mode "P", exact colours); copy before drawing."""
        return self._image(palette)

    def _image(self, palette: Palette | None) -> Image.Image:
        hit = self._images.get(palette)
        if hit is None:
            hit = _draw(self, palette)
            self._images[palette] = hit
            while len(self._images) > IMAGES_PER_LAYER:
                self._images.popitem(last=False)
        return hit


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
    cv: Canvas, theme: Theme, vp_size: float, center: tuple[float, float], fill: RGB, label: str | None
) -> None:
    """One hex: fill, grid line and (when big enough) its CCRR label at the top."""
    cv.draw.polygon(hex_polygon(center, vp_size), fill=cv.ink(fill), outline=cv.ink(theme.grid))
    if label is not None and vp_size >= LABEL_MIN_SIZE:
        cv.text(
            (center[0], center[1] - vp_size * 0.6),
            label,
            size=round(vp_size * 0.34),
            fill=label_color(fill),
            anchor="mt",
            bg=fill,
        )


def _build(theme: Theme, board: Board, layout: Layout) -> StaticLayer:
    kinds: list[str] = []
    fills: list[RGB] = [theme.hex_fill]
    for h in _hexes_to_draw(board, layout):
        kind = board.terrain.get(h)
        if kind and kind not in kinds:
            kinds.append(kind)
            fills.append(terrain_color(kind))
    return StaticLayer(theme, board, layout, terrain_kinds=tuple(kinds), fills=tuple(fills))


def _draw(layer: StaticLayer, palette: Palette | None) -> Image.Image:
    theme, board, layout = layer.theme, layer.board, layer.layout
    size = (layout.width, layout.height)
    if palette is None:
        cv = Canvas(Image.new("RGB", size, theme.background), cached=False)
    else:
        cv = Canvas(Image.new("P", size, palette.index(theme.background)), palette=palette)
    vp = layout.viewport
    for h in _hexes_to_draw(board, layout):
        draw_hex(cv, theme, vp.size, vp.center(h), hex_fill(theme, board, h), h.label)
    return cv.img


def _hexes_to_draw(board: Board, layout: Layout) -> list[Hex]:
    vp = layout.viewport
    if vp.size >= GRID_MIN_SIZE:
        return vp.hexes(board)
    return sorted(h for h in board.terrain if vp.shows(h))
