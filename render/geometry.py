"""Pixel shapes on a viewport: hex polygons, compass points, arrow heads."""

from __future__ import annotations

import math

Point = tuple[float, float]

# Corner v of a flat-top hex is at compass angle 60·v + 30 (HEX-2: vertex 0 between N and NE).
_CORNER_UNIT = tuple(
    (math.sin(math.radians(60 * v + 30)), -math.cos(math.radians(60 * v + 30))) for v in range(6)
)


def hex_polygon(center: Point, size: float) -> list[Point]:
    cx, cy = center
    return [(cx + size * dx, cy + size * dy) for dx, dy in _CORNER_UNIT]


def compass(center: Point, angle_deg: float, radius: float) -> Point:
    """The point ``radius`` away from ``center`` at a compass angle (0 = up, clockwise)."""
    a = math.radians(angle_deg)
    return center[0] + radius * math.sin(a), center[1] - radius * math.cos(a)


def angle_of(a: Point, b: Point) -> float:
    """Compass angle from ``a`` to ``b``."""
    return math.degrees(math.atan2(b[0] - a[0], -(b[1] - a[1])))


def toward(a: Point, b: Point, dist: float) -> Point:
    """The point ``dist`` px from ``a`` on the way to ``b``."""
    length = math.dist(a, b)
    if length == 0:
        return a
    t = dist / length
    return a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t


def arrow_head(tip: Point, frm: Point, length: float) -> list[Point]:
    ang = angle_of(frm, tip)
    return [tip, compass(tip, ang + 180 - 26, length), compass(tip, ang + 180 + 26, length)]


def clip_range(a: Point, b: Point, box: tuple[float, float, float, float]) -> tuple[float, float] | None:
    """The part of segment ``a``→``b`` inside ``box`` as fractions (t0, t1) of its length (Liang–Barsky)."""
    t0, t1 = 0.0, 1.0
    dx, dy = b[0] - a[0], b[1] - a[1]
    for p, q in ((-dx, a[0] - box[0]), (dx, box[2] - a[0]), (-dy, a[1] - box[1]), (dy, box[3] - a[1])):
        if p == 0:
            if q < 0:
                return None
            continue
        t = q / p
        if p < 0:
            t0 = max(t0, t)
        else:
            t1 = min(t1, t)
        if t0 > t1:
            return None
    return t0, t1


def dashes(
    a: Point, b: Point, dash: float, gap: float, clip: tuple[float, float, float, float] | None = None
) -> list[tuple[Point, Point]]:
    """Segments of a dashed line from ``a`` to ``b``; with ``clip`` (x0, y0, x1, y1), only those touching it.

    Clipping keeps the dash pattern where it is: it only skips dashes that would be drawn off the image.
    """
    length = math.dist(a, b)
    lo, hi = 0.0, length
    if clip is not None:
        inside = clip_range(a, b, clip)
        if inside is None:
            return []
        lo, hi = inside[0] * length, inside[1] * length
    period = dash + gap
    out: list[tuple[Point, Point]] = []
    pos = max(0.0, math.floor((lo - dash) / period) * period)
    while pos < length and pos <= hi:
        end = min(pos + dash, length)
        out.append((toward(a, b, pos), toward(a, b, end)))
        pos += period
    return out
