"""Firing lines (``ShotResolved``) as arrows, and the damage badges of hits.

Every shot is an arrow from the shooter's counter to the target's, its head just outside the target's disc, so
who shot whom reads from the shape alone. Hit and miss differ in more than colour: a hit is a solid red line with
a filled head, a miss a dashed white line with an open chevron head, a shot that could not hit (spent) a thin grey
dotted line. Several shots between the same two counters — both ways, or two weapons — run in parallel lanes
instead of on top of each other.

A hit's damage goes in a badge next to the target, drawn over the counters and placed where it covers no
counter, no facing nose and no arrow arriving or leaving, and inside the board area.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from render.canvas import Canvas, text_width
from render.colours import HIT, MISS, RGB, SPENT, WHITE
from render.geometry import Point, angle_of, compass, dashes, toward

Box = tuple[float, float, float, float]

HEAD_ANGLE = 26.0  # degrees either side of the shaft


@dataclass(frozen=True, slots=True)
class ShotMark:
    """One firing line as drawn: from ``tail`` (the shooter's edge) to ``tip`` (the target's edge)."""

    shooter: str
    target: str
    hit: bool
    spent: bool
    damage: int
    tail: Point
    tip: Point
    head: float  # head length, px

    @property
    def head_polygon(self) -> list[Point]:
        ang = angle_of(self.tail, self.tip)
        return [
            self.tip,
            compass(self.tip, ang + 180 - HEAD_ANGLE, self.head),
            compass(self.tip, ang + 180 + HEAD_ANGLE, self.head),
        ]


@dataclass(frozen=True, slots=True)
class Badge:
    """A hit's damage number: a red burst at ``centre`` holding ``text``; ``box`` is what it covers."""

    target: str
    text: str
    centre: Point
    radius: float
    font: int

    @property
    def box(self) -> Box:
        x, y, r = self.centre[0], self.centre[1], self.radius
        return x - r, y - r, x + r, y + r


@dataclass(frozen=True, slots=True)
class Shot:
    """What :func:`plan_shots` needs of a ``ShotResolved`` whose two counters are on the picture."""

    shooter: str
    target: str
    hit: bool
    spent: bool
    damage: int
    frm: Point  # shooter counter centre
    to: Point  # target counter centre
    r_from: float
    r_to: float


def widths(size: float) -> tuple[int, int, float]:
    """(hit line width, miss line width, head length) for a hex size."""
    return max(3, round(size * 0.08)), max(2, round(size * 0.06)), max(11.0, size * 0.3)


def plan_shots(shots: Sequence[Shot], size: float) -> list[ShotMark]:
    """Where each shot's arrow goes: a lane per shot between the same two counters, ends on their edges."""
    groups: dict[tuple[str, str], list[int]] = {}
    for i, s in enumerate(shots):
        groups.setdefault((min(s.shooter, s.target), max(s.shooter, s.target)), []).append(i)
    gap = max(7.0, size * 0.16)
    marks: list[ShotMark | None] = [None] * len(shots)
    head = widths(size)[2]
    for (a, _b), members in groups.items():
        for lane, i in enumerate(members):
            s = shots[i]
            if math.dist(s.frm, s.to) < 1:
                continue
            # one perpendicular for the pair, whichever way a shot goes, so opposite shots take opposite lanes
            first, second = (s.frm, s.to) if s.shooter == a else (s.to, s.frm)
            length = math.dist(first, second)
            px, py = -(second[1] - first[1]) / length, (second[0] - first[0]) / length
            off = (lane - (len(members) - 1) / 2) * gap
            frm = (s.frm[0] + px * off, s.frm[1] + py * off)
            to = (s.to[0] + px * off, s.to[1] + py * off)
            tail = toward(frm, to, _along(s.r_from + 2, off))
            tip = toward(to, frm, _along(s.r_to + 3, off))
            if math.dist(tail, frm) >= math.dist(to, frm) - head:  # counters touch: no room for a shaft
                tail = toward(tip, frm, head * 1.5)
            marks[i] = ShotMark(s.shooter, s.target, s.hit, s.spent, s.damage, tail, tip, head)
    return [m for m in marks if m is not None]


def _along(radius: float, off: float) -> float:
    """How far along a lane ``off`` px beside a centre the lane leaves a disc of ``radius``."""
    return math.sqrt(max(0.0, radius * radius - off * off))


def draw_shot(cv: Canvas, mark: ShotMark, size: float, *, shaft: bool = True, head: bool = True) -> None:
    """The arrow; ``shaft``/``head`` draw one part only (the board puts shafts under counters, heads over)."""
    hit_w, miss_w, _ = widths(size)
    poly = mark.head_polygon
    base = ((poly[1][0] + poly[2][0]) / 2, (poly[1][1] + poly[2][1]) / 2)
    if mark.spent:
        if shaft:
            for s, e in dashes(mark.tail, base, 3.0, 5.0, cv.bounds):
                cv.draw.line((s, e), fill=cv.ink(SPENT), width=2)
        if head:
            _chevron(cv, poly, SPENT, 2)
    elif mark.hit:
        if shaft:
            cv.draw.line((mark.tail, base), fill=cv.ink(HIT), width=hit_w)
        if head:
            cv.draw.polygon(poly, fill=cv.ink(HIT), outline=cv.ink(WHITE))
    else:
        if shaft:
            for s, e in dashes(mark.tail, base, max(7.0, size * 0.2), max(5.0, size * 0.13), cv.bounds):
                cv.draw.line((s, e), fill=cv.ink(MISS), width=miss_w)
        if head:
            _chevron(cv, poly, MISS, miss_w + 1)


def _chevron(cv: Canvas, head: list[Point], colour: RGB, width: int) -> None:
    """An open arrow head: the two barbs, no fill (a miss reads as a miss without its colour)."""
    tip, left, right = head
    cv.draw.line((left, tip, right), fill=cv.ink(colour), width=width, joint="curve")


def badge_font(size: float) -> int:
    return max(18, min(30, round(size * 0.32)))


def plan_badges(
    marks: Sequence[ShotMark],
    counters: dict[str, tuple[Point, float]],
    noses: dict[str, float],
    area: Box,
    size: float,
) -> list[Badge]:
    """A badge per hit with damage, beside its target: clear of every counter, nose, arrow and earlier badge."""
    fs = badge_font(size)
    placed: list[Badge] = []
    for m in marks:
        if not m.hit or m.spent or m.damage <= 0 or m.target not in counters:
            continue
        text = str(m.damage)
        radius = max(fs * 0.95, text_width(text, fs, True) / 2 + fs * 0.45)
        centre, r = counters[m.target]
        if not area[0] <= centre[0] <= area[2] or not area[1] <= centre[1] <= area[3]:
            continue  # the target is off the picture (a cropped map): no badge stranded at the edge
        avoid = [angle_of(centre, x.tail) for x in marks if x.target == m.target]
        avoid += [angle_of(centre, x.tip) for x in marks if x.shooter == m.target]
        if m.target in noses:
            avoid.append(noses[m.target])
        placed.append(_place(m.target, text, centre, r, radius, fs, avoid, counters, placed, area))
    return placed


def _place(
    target: str,
    text: str,
    centre: Point,
    r: float,
    radius: float,
    fs: int,
    avoid: Iterable[float],
    counters: dict[str, tuple[Point, float]],
    placed: Sequence[Badge],
    area: Box,
) -> Badge:
    avoid = list(avoid)
    reach = r + 3.8 * radius + 6  # the farthest a candidate's box reaches from the target's centre
    near = [(c, cr) for c, cr in counters.values() if math.dist(c, centre) < reach + cr]
    best: tuple[float, Badge] | None = None
    for step in (0.0, 0.35, 0.7):
        dist = r + radius + 3 + step * radius
        for angle in range(0, 360, 15):
            badge = Badge(target, text, compass(centre, angle, dist), radius, fs)
            if not _inside(badge.box, area) or any(_overlaps(badge, c, cr + 2) for c, cr in near):
                continue
            if any(math.dist(badge.centre, b.centre) < badge.radius + b.radius + 2 for b in placed):
                continue
            clear = min((_angle_gap(angle, a) for a in avoid), default=180.0)
            score = clear - step * 40 + (5 if angle in (45, 315) else 0)  # upper corners read first
            if best is None or score > best[0]:
                best = (score, badge)
        if best is not None and best[0] >= 40:
            return best[1]
    if best is not None:
        return best[1]
    # nowhere clear (a crowded corner): above the target, pulled inside the board area
    x, y = compass(centre, 0, r + radius + 3)
    x = min(max(x, area[0] + radius), area[2] - radius)
    y = min(max(y, area[1] + radius), area[3] - radius)
    return Badge(target, text, (x, y), radius, fs)


def _inside(box: Box, area: Box) -> bool:
    return area[0] <= box[0] and area[1] <= box[1] and box[2] <= area[2] and box[3] <= area[3]


def _overlaps(badge: Badge, centre: Point, r: float) -> bool:
    """Whether the badge's box meets a disc."""
    x0, y0, x1, y1 = badge.box
    nx, ny = min(max(centre[0], x0), x1), min(max(centre[1], y0), y1)
    return math.dist((nx, ny), centre) < r


def _angle_gap(a: float, b: float) -> float:
    d = abs(a - b) % 360
    return min(d, 360 - d)


def draw_badge(cv: Canvas, badge: Badge) -> None:
    x, y = badge.centre
    r = badge.radius
    star = [compass((x, y), i * 22.5, r if i % 2 == 0 else r * 0.78) for i in range(16)]
    cv.draw.polygon(star, fill=cv.ink(HIT), outline=cv.ink(WHITE))
    cv.text((x, y), badge.text, size=badge.font, bold=True, fill=WHITE, anchor="mm", bg=HIT)


# --- legend symbols (render.legend.Symbol: canvas, centre, hex size, outline) --------------------------------


def hit_symbol(cv: Canvas, at: Point, size: float, outline: RGB) -> None:
    _symbol(cv, at, hit=True, spent=False)


def miss_symbol(cv: Canvas, at: Point, size: float, outline: RGB) -> None:
    _symbol(cv, at, hit=False, spent=False)


def spent_symbol(cv: Canvas, at: Point, size: float, outline: RGB) -> None:
    _symbol(cv, at, hit=False, spent=True)


def _symbol(cv: Canvas, at: Point, *, hit: bool, spent: bool) -> None:
    x, y = at
    mark = ShotMark("", "", hit, spent, 0, (x - 13, y), (x + 14, y), 10.0)
    draw_shot(cv, mark, 30.0)


def damage_symbol(cv: Canvas, at: Point, size: float, outline: RGB) -> None:
    draw_badge(cv, Badge("", "3", at, 12.0, 14))
