"""The part of the picture that does not change between steps: background, hex grid, terrain, CCRR labels.

Labels (HEX-1): one style only, the ``CCRR`` label; a hex outside 01..99 (unbounded boards) has none rather than a
"col,row" one. A label is drawn only when its whole box lies inside the board area (nothing cut by the image edge,
the side panel, header or legend) and only from a size that still reads at Discord's preview width.

Built once per (theme, board geometry, terrain, viewport, image size) and kept in a small LRU keyed by those
values, not by object identity, so a state rebuilt from storage hits the same entry. The fast path keeps the layer
drawn with each board palette's indexes (``indexed``), so a step starts from a cheap 1-byte-per-pixel copy.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field
from functools import lru_cache

from PIL import Image

from render.canvas import Canvas
from render.colours import RGB, Palette, Theme, label_color, terrain_in
from render.fonts import font
from render.geometry import hex_polygon
from render.layout import Layout
from rules.hexgrid import Hex
from rules.state import Board

CACHE_SIZE = 8
IMAGES_PER_LAYER = 4  # RGB plus a palette per set of side colours: one or two in practice
LABEL_MIN_SIZE = 20.0  # px: below this a label is noise even in the full-size image
LABEL_RATIO = 0.38  # label font / hex size
LABEL_MAX_FONT = 24  # px: on zoomed-in boards a bigger label would only compete with the counters
LABEL_RISE = 0.6  # label top this × hex size above the hex centre

Box = tuple[float, float, float, float]
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
    return terrain_in(theme, kind) if kind else theme.hex_fill


def board_label(h: Hex) -> str | None:
    """The label drawn on ``h``: its CCRR label (HEX-1), or none when the hex has no CCRR form."""
    col, row = h.to_offset()
    return h.label if 1 <= col <= 99 and 1 <= row <= 99 else None


def label_font(vp_size: float) -> int:
    return min(LABEL_MAX_FONT, round(vp_size * LABEL_RATIO))


@lru_cache(maxsize=4096)
def _label_extent(text: str, size: int) -> Box:
    return font(size).getbbox(text, anchor="mt")


def label_box(center: tuple[float, float], vp_size: float, text: str) -> Box:
    """Where the label ``text`` of the hex centred at ``center`` goes, in pixels (x0, y0, x1, y1)."""
    left, top, right, bottom = _label_extent(text, label_font(vp_size))
    x, y = round(center[0]), round(center[1] - vp_size * LABEL_RISE)
    return x + left, y + top, x + right, y + bottom


def label_fits(box: Box, clip: Box | None) -> bool:
    return clip is None or (
        clip[0] <= box[0] and clip[1] <= box[1] and box[2] <= clip[2] and box[3] <= clip[3]
    )


def draw_hex(
    cv: Canvas,
    theme: Theme,
    vp_size: float,
    center: tuple[float, float],
    fill: RGB,
    label: str | None,
    clip: Box | None = None,
) -> None:
    """One hex: fill, grid line and (when big enough, and inside ``clip`` when given) its label at the top."""
    cv.draw.polygon(hex_polygon(center, vp_size), fill=cv.ink(fill), outline=cv.ink(theme.grid))
    if (
        label is not None
        and vp_size >= LABEL_MIN_SIZE
        and label_fits(label_box(center, vp_size, label), clip)
    ):
        cv.text(
            (center[0], center[1] - vp_size * LABEL_RISE),
            label,
            size=label_font(vp_size),
            fill=label_color(fill),
            anchor="mt",
            bg=fill,
        )


def board_area(layout: Layout) -> Box:
    """The board's rectangle on the image: labels stay inside it."""
    vp = layout.viewport
    return vp.left, vp.top, vp.left + vp.width, min(vp.top + vp.height, layout.legend[1])


def label_boxes(board: Board, layout: Layout) -> list[tuple[Hex, Box]]:
    """Every hex label the static layer draws, with its box (for tests and callers)."""
    vp, clip = layout.viewport, board_area(layout)
    if vp.size < LABEL_MIN_SIZE:
        return []
    out: list[tuple[Hex, Box]] = []
    for h in _hexes_to_draw(board, layout):
        text = board_label(h)
        if text is not None:
            box = label_box(vp.center(h), vp.size, text)
            if label_fits(box, clip):
                out.append((h, box))
    return out


def _build(theme: Theme, board: Board, layout: Layout) -> StaticLayer:
    kinds: list[str] = []
    fills: list[RGB] = [theme.hex_fill]
    for h in _hexes_to_draw(board, layout):
        kind = board.terrain.get(h)
        if kind and kind not in kinds:
            kinds.append(kind)
            fills.append(terrain_in(theme, kind))
    return StaticLayer(theme, board, layout, terrain_kinds=tuple(kinds), fills=tuple(fills))


def _draw(layer: StaticLayer, palette: Palette | None) -> Image.Image:
    theme, board, layout = layer.theme, layer.board, layer.layout
    size = (layout.width, layout.height)
    if palette is None:
        cv = Canvas(Image.new("RGB", size, theme.background), cached=False)
    else:
        cv = Canvas(Image.new("P", size, palette.index(theme.background)), palette=palette)
    vp, clip = layout.viewport, board_area(layout)
    for h in _hexes_to_draw(board, layout):
        draw_hex(cv, theme, vp.size, vp.center(h), hex_fill(theme, board, h), board_label(h), clip)
    return cv.img


def _hexes_to_draw(board: Board, layout: Layout) -> list[Hex]:
    vp = layout.viewport
    if vp.size >= GRID_MIN_SIZE:
        return vp.hexes(board)
    return sorted(h for h in board.terrain if vp.shows(h))
