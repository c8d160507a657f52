"""Shapes drawn over the grid each step: trails, firing lines, stars, highlights, the order preview."""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

from render.canvas import Canvas
from render.colours import HIGHLIGHT, HIT, MISS, PREVIEW, RGB, SPENT, WHITE
from render.geometry import Point, arrow_head, compass, dashes, hex_polygon, toward


def line_width(size: float, k: float, low: int = 2) -> int:
    return max(low, round(size * k))


def trail(cv: Canvas, points: Sequence[Point], size: float, colour: RGB, r_end: float) -> None:
    """Last move (UnitMoved): a dashed line through every hex entered, dots on the way, ring where it began."""
    if len(points) < 2:
        return
    w = line_width(size, 0.07)
    pts = list(points)
    pts[-1] = toward(pts[-1], pts[-2], r_end + 2)
    for a, b in itertools.pairwise(pts):
        for s, e in dashes(a, b, max(6.0, size * 0.3), max(4.0, size * 0.18), cv.bounds):
            cv.draw.line((s, e), fill=cv.ink(colour), width=w)
    dot = max(2.0, size * 0.08)
    for x, y in points[1:-1]:
        cv.draw.ellipse((x - dot, y - dot, x + dot, y + dot), fill=cv.ink(colour))
    x, y = points[0]
    ring = max(4.0, size * 0.22)
    cv.draw.ellipse((x - ring, y - ring, x + ring, y + ring), outline=cv.ink(colour), width=w)


def shot(
    cv: Canvas, frm: Point, to: Point, size: float, r: float, *, hit: bool, spent: bool, damage: int
) -> None:
    """A firing line (ShotResolved): solid red with a burst on a hit, dashed white with a cross on a miss."""
    if math.dist(frm, to) < 1:
        return
    start = toward(frm, to, r + 1)
    end = toward(to, frm, r * 0.55)
    if spent:
        for s, e in dashes(start, end, 3.0, 5.0, cv.bounds):
            cv.draw.line((s, e), fill=cv.ink(SPENT), width=2)
        return
    if hit:
        cv.draw.line((start, end), fill=cv.ink(HIT), width=line_width(size, 0.1, 3))
        cv.draw.polygon(arrow_head(end, start, max(9.0, size * 0.38)), fill=cv.ink(HIT))
        _burst(cv, to, max(8.0, size * 0.42), damage)
        return
    for s, e in dashes(start, end, max(7.0, size * 0.32), max(5.0, size * 0.2), cv.bounds):
        cv.draw.line((s, e), fill=cv.ink(MISS), width=line_width(size, 0.07))
    k = max(5.0, size * 0.2)
    x, y = toward(to, frm, r + k + 2)
    w = line_width(size, 0.08)
    cv.draw.line((x - k, y - k, x + k, y + k), fill=cv.ink(MISS), width=w)
    cv.draw.line((x - k, y + k, x + k, y - k), fill=cv.ink(MISS), width=w)


def _burst(cv: Canvas, at: Point, radius: float, damage: int) -> None:
    x, y = at[0] + radius * 0.9, at[1] - radius * 0.9  # top-right of the target, off its label
    star = [compass((x, y), i * 22.5, radius if i % 2 == 0 else radius * 0.55) for i in range(16)]
    cv.draw.polygon(star, fill=cv.ink(HIT), outline=cv.ink(WHITE))
    if damage > 0 and radius >= 8:
        cv.text((x, y), str(damage), size=round(radius * 0.8), bold=True, fill=WHITE, anchor="mm", bg=HIT)


def star(cv: Canvas, at: Point, radius: float, points: int, fill: RGB, outline: RGB) -> None:
    poly = [
        compass(at, i * 180.0 / points, radius if i % 2 == 0 else radius * 0.45) for i in range(points * 2)
    ]
    cv.draw.polygon(poly, fill=cv.ink(fill), outline=cv.ink(outline))


def highlight_ring(cv: Canvas, center: Point, size: float) -> None:
    poly = hex_polygon(center, size - 2)
    cv.draw.line([*poly, poly[0]], fill=cv.ink(HIGHLIGHT), width=line_width(size, 0.12, 3), joint="curve")


def preview_path(cv: Canvas, points: Sequence[Point], size: float) -> None:
    """The projected path of the order being written (private preview)."""
    w = line_width(size, 0.1, 3)
    for a, b in itertools.pairwise(points):
        for s, e in dashes(a, b, max(8.0, size * 0.34), max(5.0, size * 0.16), cv.bounds):
            cv.draw.line((s, e), fill=cv.ink(PREVIEW), width=w)
    dot = max(3.0, size * 0.1)
    for x, y in points[1:]:
        cv.draw.ellipse((x - dot, y - dot, x + dot, y + dot), fill=cv.ink(PREVIEW))


def ghost_vector(cv: Canvas, ship: Point, vector: Point, size: float, r_ship: float) -> None:
    rv = max(4.0, size * 0.36)
    w = line_width(size, 0.09)
    if math.dist(ship, vector) >= 1:
        start, tip = toward(ship, vector, r_ship + 4), toward(vector, ship, rv + 1)
        for s, e in dashes(start, tip, 6.0, 4.0, cv.bounds):
            cv.draw.line((s, e), fill=cv.ink(PREVIEW), width=w)
        cv.draw.polygon(arrow_head(tip, start, max(7.0, size * 0.32)), fill=cv.ink(PREVIEW))
    cv.draw.ellipse(
        (vector[0] - rv, vector[1] - rv, vector[0] + rv, vector[1] + rv), outline=cv.ink(PREVIEW), width=w + 1
    )
