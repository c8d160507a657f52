"""Which part of the board the image shows, and at what hex size (DESIGN §5).

Geometry works in "unit" coordinates: a hex of size 1 (centre to corner) has its centre at
``(1.5·q, √3·(r + q/2))``, the flat-top layout of ``rules.hexgrid.hex_to_pixel``. A viewport is a window in those
coordinates scaled by ``size`` pixels and placed on the image's board area.

- Bounded boards: framed on the action too — the hexes of interest with a margin of about two hexes (room for a
  move or a shot next step), at the largest size of the ladder (no larger than ``MAX_SIZE``) at which all of it
  fits, the window centred on it and kept inside the board; the whole board when that shows it as large anyway
  (or when asked). A mech duel on a 16 × 17 map is then drawn at hexes of ~46 px instead of ~28. Where the action
  spans the whole map the hexes stay small, so the counters are drawn larger than the hex's share
  (``counter_scale``, up to ``MAX_COUNTER_SCALE``): a unit's disc and short label keep the size that reads at
  550 px, overflowing the hex a little; a label wider than its disc keeps ``READABLE_FONT`` on a tag
  (``min_label``) rather than shrinking.
- The area of interest is only what the viewer may see (FOG-1, NGT-9): a crop that followed a hidden unit would tell
  where it is, so every viewer's picture of one step is framed from its own view.
- Unbounded boards (exo): the camera frames the action — the units, their vectors, last moves and shots — with a
  margin of about a hex: the largest size from a fixed ladder at which all of it fits (never cutting a unit), no
  larger than a window of ``MIN_SPAN`` unit lengths allows (a lone ship does not fill the picture), and a window
  position snapped to a coarse grid, so the scale and the picture stay put from step to step while the ships
  allow it. At Discord's preview width (~550 px for a 1280 px image) a duel at short range then shows hexes of
  about 40 px, counters and labels that read, instead of a blob among ~200 empty hexes.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from rules.hexgrid import Hex
from rules.state import Board

SQRT3 = math.sqrt(3.0)
MAX_SIZE = 46.0
LADDER = (
    120.0, 104.0, 90.0, 78.0, 68.0, 59.0, 51.0,
    46.0, 40.0, 34.0, 29.0, 25.0, 21.0, 18.0, 15.0, 13.0, 11.0, 9.0, 8.0, 7.0, 6.0, 5.0, 4.0, 3.0, 2.0,
)  # fmt: skip
MIN_SPAN = 8.0  # unit lengths (about 5 hex columns): the narrowest window an unbounded board zooms to
PAD = 10.0  # px between the board edge and the board area edge
AOI_MARGIN = 1.6  # unit lengths around the area of interest (about one hex)
SNAP_PARTS = 8  # unbounded windows move in eighths of their size
BOUNDED_MARGIN = 3.0  # unit lengths round a bounded board's action: two hex columns, about two rows
COUNTER_RATIO = 0.62  # a lone counter's disc radius / hex size (``render.counters`` draws it so)
READABLE_RADIUS = 28.5  # px: a disc of ~57 px in a 1280 px image is ~24 px at Discord's 550 px preview
READABLE_FONT = 21  # px: 9 px at Discord's 550 px preview of a 1280 px image
MAX_COUNTER_SCALE = 1.55  # counters grow at most to ~0.96 of the hex size (adjacent discs may just touch)


Box = tuple[float, float, float, float]


def unit_center(h: Hex) -> tuple[float, float]:
    return 1.5 * h.q, SQRT3 * (h.r + h.q / 2.0)


def hex_box(hexes: Iterable[Hex]) -> Box | None:
    """Bounding box of whole hexes (not just centres), in unit coordinates."""
    xs: list[float] = []
    ys: list[float] = []
    for h in hexes:
        x, y = unit_center(h)
        xs.append(x)
        ys.append(y)
    if not xs:
        return None
    return min(xs) - 1.0, min(ys) - SQRT3 / 2, max(xs) + 1.0, max(ys) + SQRT3 / 2


def board_box(board: Board) -> Box:
    w, h = board.width or 1, board.height or 1
    corners = [Hex.from_offset(c, r) for c in {1, min(2, w), w - 1 if w > 1 else 1, w} for r in (1, h)]
    box = hex_box(corners)
    assert box is not None
    return box


@dataclass(frozen=True, slots=True)
class Area:
    """Where the board goes on the image, in pixels."""

    left: int
    top: int
    width: int
    max_height: int


@dataclass(frozen=True, slots=True)
class Viewport:
    size: float  # px, centre to corner
    wx: float  # window origin, unit coordinates
    wy: float
    left: int  # board area on the image, px
    top: int
    width: int
    height: int
    counter_scale: float = 1.0  # counters drawn this much larger than a hex of ``size`` gives them
    min_label: int = 7  # px: the smallest font a counter's label shrinks to when it fits its disc no more

    def center(self, h: Hex) -> tuple[float, float]:
        x, y = unit_center(h)
        return self.left + (x - self.wx) * self.size, self.top + (y - self.wy) * self.size

    def window(self) -> Box:
        return self.wx, self.wy, self.wx + self.width / self.size, self.wy + self.height / self.size

    def hexes(self, board: Board) -> list[Hex]:
        """Hexes at least partly inside the board area (and on the board), column by column."""
        x0, y0, x1, y1 = self.window()
        out: list[Hex] = []
        for q in range(math.floor((x0 - 1.0) / 1.5), math.ceil((x1 + 1.0) / 1.5) + 1):
            r_lo = math.floor((y0 - SQRT3) / SQRT3 - q / 2.0)
            r_hi = math.ceil((y1 + SQRT3) / SQRT3 - q / 2.0)
            for r in range(r_lo, r_hi + 1):
                h = Hex(q, r)
                if board.contains(h):
                    out.append(h)
        return out

    def shows(self, h: Hex) -> bool:
        x, y = self.center(h)
        return (
            self.left - self.size <= x <= self.left + self.width + self.size
            and self.top - self.size <= y <= self.top + self.height + self.size
        )


def fit(board: Board, interest: list[Hex], area: Area, *, whole_board: bool) -> Viewport:
    if board.bounded:
        return _fit_bounded(board, interest, area, whole_board=whole_board)
    return _fit_unbounded(interest, area)


def _fit_bounded(board: Board, interest: list[Hex], area: Area, *, whole_board: bool) -> Viewport:
    bx0, by0, bx1, by1 = board_box(board)
    bw, bh = bx1 - bx0, by1 - by0
    full = min((area.width - 2 * PAD) / bw, (area.max_height - 2 * PAD) / bh)
    box = hex_box(interest)
    if whole_board or box is None:
        return _whole(board, area, min(full, MAX_SIZE))
    # The action with its margin, clipped to the board: the window never needs to show past the board's edge.
    x0, y0 = max(bx0, box[0] - BOUNDED_MARGIN), max(by0, box[1] - BOUNDED_MARGIN)
    x1, y1 = min(bx1, box[2] + BOUNDED_MARGIN), min(by1, box[3] + BOUNDED_MARGIN)
    inner_w, inner_h = area.width - 2 * PAD, area.max_height - 2 * PAD
    size = next(
        (s for s in LADDER if s <= MAX_SIZE and (x1 - x0) * s <= inner_w and (y1 - y0) * s <= inner_h),
        LADDER[-1],
    )
    if size <= full:
        return _whole(board, area, min(full, MAX_SIZE))
    height = min(area.max_height, math.ceil(bh * size + 2 * PAD))
    ww, wh = area.width / size, height / size
    pad = PAD / size
    wx = _clamp((x0 + x1) / 2 - ww / 2, bx0 - pad, bx1 + pad - ww)
    wy = _clamp((y0 + y1) / 2 - wh / 2, by0 - pad, by1 + pad - wh)
    return Viewport(
        size, wx, wy, area.left, area.top, area.width, height, counter_scale_for(size), READABLE_FONT
    )


def _whole(board: Board, area: Area, size: float) -> Viewport:
    """The whole board at ``size``, centred across the area."""
    bx0, by0, bx1, by1 = board_box(board)
    bw, bh = bx1 - bx0, by1 - by0
    height = min(area.max_height, math.ceil(bh * size + 2 * PAD))
    wx = bx0 - (area.width / size - bw) / 2
    wy = by0 - PAD / size
    return Viewport(
        size, wx, wy, area.left, area.top, area.width, height, counter_scale_for(size), READABLE_FONT
    )


def counter_scale_for(size: float) -> float:
    """How much larger than a hex of ``size`` gives it a counter is drawn on a bounded board, so that its disc
    and label still read at Discord's preview width."""
    return max(1.0, min(MAX_COUNTER_SCALE, READABLE_RADIUS / (COUNTER_RATIO * size)))


def _fit_unbounded(interest: list[Hex], area: Area) -> Viewport:
    box = hex_box(interest or [Hex(0, 0)])
    assert box is not None
    x0, y0, x1, y1 = box[0] - AOI_MARGIN, box[1] - AOI_MARGIN, box[2] + AOI_MARGIN, box[3] + AOI_MARGIN
    size = LADDER[-1]
    cap = min(area.width, area.max_height) / MIN_SPAN
    for step in LADDER:
        if step > cap:
            continue
        if (x1 - x0) * step <= area.width and (y1 - y0) * step <= area.max_height:
            size = step
            break
    ww, wh = area.width / size, area.max_height / size
    wx = _snapped(x0, x1, ww)
    wy = _snapped(y0, y1, wh)
    return Viewport(size, wx, wy, area.left, area.top, area.width, area.max_height)


def _snapped(lo: float, hi: float, span: float) -> float:
    """A window start on a grid of ``span / SNAP_PARTS`` that contains [lo, hi]; centred if none does."""
    grid = span / SNAP_PARTS
    start = math.floor(((lo + hi) / 2 - span / 2) / grid) * grid
    for candidate in (start, start + grid, start - grid):
        if candidate <= lo and hi <= candidate + span:
            return candidate
    return (lo + hi) / 2 - span / 2


def _clamp(v: float, lo: float, hi: float) -> float:
    if hi < lo:
        return (lo + hi) / 2
    return max(lo, min(hi, v))
