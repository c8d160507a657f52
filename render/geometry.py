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


def dashes(a: Point, b: Point, dash: float, gap: float) -> list[tuple[Point, Point]]:
    """Segments of a dashed line from ``a`` to ``b``."""
    length = math.dist(a, b)
    out: list[tuple[Point, Point]] = []
    pos = 0.0
    while pos < length:
        end = min(pos + dash, length)
        out.append((toward(a, b, pos), toward(a, b, end)))
        pos = end + gap
    return out
