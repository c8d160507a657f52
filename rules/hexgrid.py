"""Hex-board geometry shared by every ruleset (HEX-1..3).

Flat-top hexes in axial coordinates ``(q, r)`` with cube ``s = -q - r``; labels use 1-based odd-q offset columns
(odd 0-based columns sit half a hex lower). Written after the Red Blob Games notes on hexagonal grids.
Screen geometry: x grows right, y grows down; angles are compass degrees, clockwise from north.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Container, Iterable
from dataclasses import dataclass
from enum import IntEnum
from functools import lru_cache
from typing import Literal

SQRT3 = math.sqrt(3.0)
# Line-tracing nudge in cube space (HEX-3). The components sum to zero and their ratio is irrational-ish, so no
# line between hex centres runs parallel to it and stays exactly on a side or vertex after nudging.
_EPS = 1e-6
_NUDGE = (_EPS, _EPS * math.sqrt(2.0), -_EPS * (1.0 + math.sqrt(2.0)))
# Angles are rounded to this many decimals so boundary bearings (0, ±30, ±90, 180) compare exactly (HEX-3).
_ANGLE_DECIMALS = 9

_LABEL_RE = re.compile(r"^(\d{2})(\d{2})$")
_OFFSET_RE = re.compile(r"^(-?\d+)\s*,\s*(-?\d+)$")


@dataclass(frozen=True, slots=True, order=True)
class Hex:
    """One hex in axial coordinates (HEX-1)."""

    q: int
    r: int

    @property
    def s(self) -> int:
        return -self.q - self.r

    def __add__(self, other: Hex) -> Hex:
        return Hex(self.q + other.q, self.r + other.r)

    def __sub__(self, other: Hex) -> Hex:
        return Hex(self.q - other.q, self.r - other.r)

    def scale(self, k: int) -> Hex:
        return Hex(self.q * k, self.r * k)

    def neighbor(self, side: int) -> Hex:
        """The adjacent hex across ``side`` (any int, taken modulo 6; HEX-2)."""
        return self + SIDE_VECTORS[side % 6]

    def neighbors(self) -> tuple[Hex, ...]:
        """The six neighbours in side order N, NE, SE, S, SW, NW."""
        return tuple(self + v for v in SIDE_VECTORS)

    def distance(self, other: Hex) -> int:
        d = self - other
        return (abs(d.q) + abs(d.r) + abs(d.s)) // 2

    def to_offset(self) -> tuple[int, int]:
        """1-based odd-q offset ``(col, row)``."""
        col0 = self.q
        row0 = self.r + (self.q - (self.q & 1)) // 2
        return col0 + 1, row0 + 1

    @classmethod
    def from_offset(cls, col: int, row: int) -> Hex:
        """The hex at 1-based odd-q offset ``(col, row)``."""
        col0, row0 = col - 1, row - 1
        return cls(col0, row0 - (col0 - (col0 & 1)) // 2)

    @property
    def label(self) -> str:
        """``"CCRR"`` when both parts fit in 1..99, else ``"col,row"`` (unbounded boards); parses back."""
        return _label(self.q, self.r)

    @classmethod
    def parse(cls, text: str) -> Hex:
        """Parse ``"0507"`` (CCRR) or ``"5,7"`` / ``"-1,3"`` (1-based col,row); ``ValueError`` otherwise."""
        cleaned = text.strip()
        if m := _LABEL_RE.match(cleaned):
            col, row = int(m.group(1)), int(m.group(2))
            if col == 0 or row == 0:
                raise ValueError(
                    f"bad hex {text!r}: columns and rows in CCRR labels start at 01; write 'col,row' for others"
                )
            return cls.from_offset(col, row)
        if m := _OFFSET_RE.match(cleaned):
            return cls.from_offset(int(m.group(1)), int(m.group(2)))
        raise ValueError(f"bad hex {text!r}: expected a CCRR label such as '0507' or 'col,row' such as '5,7'")


#: labels kept: every hex of a few dozen boards (a panel writes each reachable hex's label into its actions)
LABELS_KEPT = 16384


@lru_cache(maxsize=LABELS_KEPT)
def _label(q: int, r: int) -> str:
    """:attr:`Hex.label` of the hex at axial ``(q, r)`` (pure, cached)."""
    col, row = Hex(q, r).to_offset()
    if 1 <= col <= 99 and 1 <= row <= 99:
        return f"{col:02d}{row:02d}"
    return f"{col},{row}"


#: Spanish side names typed by players (HEX-2): SO is SW (sudoeste), NO is NW (noroeste); N, NE, SE, S are shared
SPANISH_SIDES = {"SO": "SW", "NO": "NW"}


class HexSide(IntEnum):
    """Hex sides, clockwise from north (HEX-2)."""

    N = 0
    NE = 1
    SE = 2
    S = 3
    SW = 4
    NW = 5

    @classmethod
    def parse(cls, value: object) -> HexSide:
        """Accept 0-5 (int or digit string) or a side name, any case (``"ne"``), Spanish SO/NO too."""
        if isinstance(value, str):
            cleaned = value.strip().upper()
            if cleaned.isdigit():
                return cls.parse(int(cleaned))
            try:
                return cls[SPANISH_SIDES.get(cleaned, cleaned)]
            except KeyError:
                pass
        elif isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 5:
            return cls(value)
        names = ", ".join(s.name for s in cls)
        raise ValueError(f"bad hex side {value!r}: expected 0-5 or one of {names}")


class Vertex(IntEnum):
    """Hex vertices, clockwise; vertex ``v`` lies between sides ``v`` and ``v + 1`` (HEX-2)."""

    N_NE = 0
    NE_SE = 1
    SE_S = 2
    S_SW = 3
    SW_NW = 4
    NW_N = 5

    @property
    def label(self) -> str:
        return self.name.replace("_", "-")

    @classmethod
    def parse(cls, value: object) -> Vertex:
        """Accept 0-5 or a vertex name such as ``"N-NE"``, ``"n_ne"`` or ``"NE-N"``, any case (``"SO-NO"`` too)."""
        if isinstance(value, str):
            cleaned = value.strip().upper()
            if cleaned.isdigit():
                return cls.parse(int(cleaned))
            parts = tuple(SPANISH_SIDES.get(p, p) for p in re.split(r"[-_\s/]+", cleaned) if p)
            for vertex in cls:
                names = tuple(vertex.name.split("_"))
                if parts in (names, names[::-1]):
                    return vertex
        elif isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 5:
            return cls(value)
        labels = ", ".join(v.label for v in cls)
        raise ValueError(f"bad vertex {value!r}: expected 0-5 or one of {labels}")


# Axial direction of each side, index = HexSide (HEX-2).
SIDE_VECTORS: tuple[Hex, ...] = (Hex(0, -1), Hex(1, -1), Hex(1, 0), Hex(0, 1), Hex(-1, 1), Hex(-1, 0))
#: the side a neighbour lies across, by its axial offset ``(dq, dr)`` from the hex (HEX-2)
SIDE_OF: dict[tuple[int, int], int] = {(v.q, v.r): side for side, v in enumerate(SIDE_VECTORS)}


def side_angle(side: int) -> float:
    """Compass angle of a side's outward direction: 60° per side, clockwise from north."""
    return 60.0 * (side % 6)


def vertex_angle(vertex: int) -> float:
    """Compass angle of a vertex: halfway between its two sides."""
    return 60.0 * (vertex % 6) + 30.0


def vertices_of_side(side: int) -> tuple[int, int]:
    """The two vertices at the ends of ``side``: ``side - 1`` (counter-clockwise end) and ``side``."""
    return (side - 1) % 6, side % 6


# --- areas -------------------------------------------------------------------------------------------------


def ring(center: Hex, radius: int) -> list[Hex]:
    """Hexes at exactly ``radius`` from ``center``, clockwise starting due north."""
    if radius < 0:
        raise ValueError(f"ring radius must be >= 0, got {radius}")
    if radius == 0:
        return [center]
    out: list[Hex] = []
    h = center + SIDE_VECTORS[HexSide.N].scale(radius)
    # From the north corner the ring's edge runs SE, then each following side direction in turn.
    for side in range(2, 8):
        for _ in range(radius):
            out.append(h)
            h = h.neighbor(side)
    return out


def spiral(center: Hex, radius: int) -> list[Hex]:
    """``center`` first, then each ring outwards up to ``radius``."""
    if radius < 0:
        raise ValueError(f"spiral radius must be >= 0, got {radius}")
    out = [center]
    for k in range(1, radius + 1):
        out.extend(ring(center, k))
    return out


def hexes_within(center: Hex, radius: int) -> list[Hex]:
    """All hexes at distance <= ``radius``, sorted by (q, r)."""
    if radius < 0:
        raise ValueError(f"radius must be >= 0, got {radius}")
    return [
        Hex(center.q + dq, center.r + dr)
        for dq in range(-radius, radius + 1)
        for dr in range(max(-radius, -dq - radius), min(radius, -dq + radius) + 1)
    ]


def rotate(h: Hex, center: Hex, steps: int) -> Hex:
    """Rotate ``h`` about ``center`` clockwise by ``60° * steps`` (negative = counter-clockwise)."""
    d = h - center
    q, r, s = d.q, d.r, d.s
    for _ in range(steps % 6):
        # One clockwise step in cube space maps (q, r, s) to (-r, -s, -q): N -> NE -> SE ...
        q, r, s = -r, -s, -q
    return Hex(center.q + q, center.r + r)


# --- pixel layout ------------------------------------------------------------------------------------------

Point = tuple[float, float]


def hex_to_pixel(h: Hex, size: float, origin: Point = (0.0, 0.0)) -> Point:
    """Centre of ``h`` on screen; ``size`` is centre-to-corner."""
    return origin[0] + size * 1.5 * h.q, origin[1] + size * SQRT3 * (h.r + h.q / 2.0)


def _cube_round(q: float, r: float) -> Hex:
    s = -q - r
    rq, rr, rs = round(q), round(r), round(s)
    dq, dr, ds = abs(rq - q), abs(rr - r), abs(rs - s)
    # Recompute the coordinate with the largest rounding error so q + r + s stays 0.
    if dq > dr and dq > ds:
        rq = -rr - rs
    elif dr > ds:
        rr = -rq - rs
    return Hex(rq, rr)


def pixel_to_hex(x: float, y: float, size: float, origin: Point = (0.0, 0.0)) -> Hex:
    """The hex containing screen point ``(x, y)``."""
    px, py = (x - origin[0]) / size, (y - origin[1]) / size
    return _cube_round(px * 2.0 / 3.0, -px / 3.0 + py / SQRT3)


def _compass_point(center: Point, angle_deg: float, radius: float) -> Point:
    a = math.radians(angle_deg)
    return center[0] + radius * math.sin(a), center[1] - radius * math.cos(a)


def vertex_point(h: Hex, vertex: int, size: float, origin: Point = (0.0, 0.0)) -> Point:
    """Screen position of corner ``vertex`` of ``h``."""
    return _compass_point(hex_to_pixel(h, size, origin), vertex_angle(vertex), size)


def hex_corners(h: Hex, size: float, origin: Point = (0.0, 0.0)) -> list[Point]:
    """The six corners; index = vertex index (0 = upper-right corner between N and NE, clockwise)."""
    return [vertex_point(h, v, size, origin) for v in range(6)]


def side_midpoint(h: Hex, side: int, size: float, origin: Point = (0.0, 0.0)) -> Point:
    """Screen position of the middle of ``side`` of ``h``."""
    return _compass_point(hex_to_pixel(h, size, origin), side_angle(side), size * SQRT3 / 2.0)


# --- lines (HEX-3) -----------------------------------------------------------------------------------------


def _trace(a: Hex, b: Hex, sign: float) -> list[Hex]:
    n = a.distance(b)
    nq, nr = sign * _NUDGE[0], sign * _NUDGE[1]
    aq, ar = a.q + nq, a.r + nr
    bq, br = b.q + nq, b.r + nr
    if n == 0:
        return [a]
    return [_cube_round(aq + (bq - aq) * i / n, ar + (br - ar) * i / n) for i in range(n + 1)]


def line_traces(a: Hex, b: Hex) -> tuple[list[Hex], list[Hex]]:
    """The centre-to-centre line traced with a +ε and a -ε nudge (HEX-3); each has ``distance + 1`` hexes."""
    return _trace(a, b, 1.0), _trace(a, b, -1.0)


def hexes_crossed(a: Hex, b: Hex) -> set[Hex]:
    """Every hex either trace passes through, ends included."""
    plus, minus = line_traces(a, b)
    return set(plus) | set(minus)


def line_of_sight(
    a: Hex,
    b: Hex,
    blocked: Callable[[Hex], bool] | Container[Hex],
    rule: Literal["either", "both", "touch"] = "either",
) -> bool:
    """True when the line a→b is clear (HEX-3).

    Only hexes strictly between ``a`` and ``b`` can block. ``"either"``: a blocking hex on either ε-trace blocks;
    ``"both"``: blocked only when both traces cross a blocking hex; ``"touch"``: exact geometry, a blocking hex
    blocks when the centre-to-centre segment has any point in common with its closed hexagon, a single corner
    included (:func:`line_clear`; skirmish SK-3.2: "tocando" pero no atravesando → no visibility).
    """
    if rule == "touch":
        return line_clear(a, b, blocked)
    is_blocked = _predicate(blocked)
    traces_blocked = [any(is_blocked(h) for h in trace[1:-1]) for trace in line_traces(a, b)]
    if rule == "either":
        return not any(traces_blocked)
    if rule == "both":
        return not all(traces_blocked)
    raise ValueError(f"line_of_sight rule must be 'either', 'both' or 'touch', got {rule!r}")


def _predicate(blocked: Callable[[Hex], bool] | Container[Hex]) -> Callable[[Hex], bool]:
    return blocked if callable(blocked) else blocked.__contains__


# --- exact segment against hexagon (HEX-3, SK-3.2) ----------------------------------------------------------
# A line starts and ends at a *spot*: a hex centre, or the midpoint of the side two adjacent hexes share (a
# skirmish character astride two half hexes, SK-2.5), written as the pair of hexes.
# The map (x, y) -> (4x / size, 4y / (√3 · size)) is affine, so it keeps every intersection and every touch, and it
# puts centres, side midpoints and corners on integers: centre (6q, 4r + 2q), corners at the offsets below (vertex
# 0..5, HEX-2), a midpoint at the sum of the two centres' halves. The tests below are therefore exact integer
# arithmetic: the tolerance is zero and a corner can never be misjudged.
Spot = Hex | tuple[Hex, Hex]
_CORNERS4: tuple[tuple[int, int], ...] = ((2, -2), (4, 0), (2, 2), (-2, 2), (-4, 0), (-2, -2))
# Normals of the hexagon's three side directions in that frame (opposite sides are parallel).
_SIDE_NORMALS: tuple[tuple[int, int], ...] = ((1, -1), (1, 1), (0, 1))


def _frame2(h: Hex) -> tuple[int, int]:
    return 3 * h.q, 2 * h.r + h.q


def _point4(spot: Spot) -> tuple[int, int]:
    """A spot in the integer frame (4x, 4y/√3 of the pixel layout with size 1)."""
    first, second = (spot, spot) if isinstance(spot, Hex) else spot
    (ax, ay), (bx, by) = _frame2(first), _frame2(second)
    return ax + bx, ay + by


def spot_hexes(spot: Spot) -> tuple[Hex, ...]:
    """The hexes a spot belongs to: the hex itself, or both hexes of a side midpoint."""
    return (spot,) if isinstance(spot, Hex) else spot


def segment_touches_hex(a: Spot, b: Spot, h: Hex) -> bool:
    """True when the segment between spots ``a`` and ``b`` has a point in common with the closed hexagon ``h``.

    Exact (no sampling, no float): a separating-axis test in the integer frame above. The segment and the hexagon
    are convex, so they are disjoint exactly when their projections on one of the hexagon's side normals or on
    the segment's normal do not overlap; projections that meet at a single value (a corner on the line, a line
    along a side) count as touching.
    """
    ax, ay = _point4(a)
    bx, by = _point4(b)
    cx, cy = _point4(h)
    corners = [(cx + dx, cy + dy) for dx, dy in _CORNERS4]
    axes = list(_SIDE_NORMALS)
    if (ax, ay) != (bx, by):
        axes.append((ay - by, bx - ax))
    for nx, ny in axes:
        s0, s1 = ax * nx + ay * ny, bx * nx + by * ny
        proj = [x * nx + y * ny for x, y in corners]
        if max(s0, s1) < min(proj) or max(proj) < min(s0, s1):
            return False
    return True


def hexes_touched(a: Spot, b: Spot) -> list[Hex]:
    """Every hex whose closed hexagon the segment between spots ``a`` and ``b`` touches, ends included, ordered
    from ``a`` to ``b`` (by the projection of each centre on the line, then by (q, r)).

    A line along a side touches both hexes of that side; a line through a corner touches the three hexes that
    share it. This is the one exact answer to "does this line touch that hex" for every ruleset (skirmish sight,
    woods and cover counts, night sight). Candidates are the ε-traces between the spots' hexes and their
    neighbours (two rings for a midpoint): a touched hex is never farther from a traced one.
    """
    return list(_touched(a, b))


#: segments kept: a line of sight (HEX-3) is asked of the same segments again and again, night sight most (every
#: hex within each unit's NVR, at every step of a game whose units move a few hexes at a time)
TOUCHED_KEPT = 16384


@lru_cache(maxsize=TOUCHED_KEPT)
def _touched(a: Spot, b: Spot) -> tuple[Hex, ...]:
    """:func:`hexes_touched` (pure geometry, cached)."""
    ends_a, ends_b = spot_hexes(a), spot_hexes(b)
    if a == b and isinstance(a, Hex):
        return (a,)
    traced = {h for x in ends_a for y in ends_b for trace in line_traces(x, y) for h in trace}
    rings = 1 if len(ends_a) == len(ends_b) == 1 else 2
    candidates = set(traced)
    for _ in range(rings):
        candidates |= {n for h in candidates for n in h.neighbors()}
    ax, ay = _point4(a)
    bx, by = _point4(b)
    dx, dy = bx - ax, by - ay

    def along(h: Hex) -> tuple[int, int, int]:
        x, y = _point4(h)
        return (x - ax) * dx + (y - ay) * dy, h.q, h.r

    return tuple(sorted((h for h in candidates if segment_touches_hex(a, b, h)), key=along))


def line_clear(a: Spot, b: Spot, blocked: Callable[[Hex], bool] | Container[Hex]) -> bool:
    """True when no blocking hex other than the spots' own hexes touches the segment a→b (exact, HEX-3)."""
    is_blocked = _predicate(blocked)
    own = {*spot_hexes(a), *spot_hexes(b)}
    return not any(is_blocked(h) for h in _touched(a, b) if h not in own)


# --- bearings and facing (HEX-3) ---------------------------------------------------------------------------


def _round_angle(angle: float) -> float:
    """Normalise to (-180, 180] and round so boundary values compare exactly."""
    a = round((angle + 180.0) % 360.0 - 180.0, _ANGLE_DECIMALS)
    if a <= -180.0:
        a += 360.0
    return a + 0.0  # turns -0.0 into 0.0


def _compass_angle(origin: Spot, target: Spot) -> float:
    (ox, oy), (tx, ty) = _point4(origin), _point4(target)
    if (ox, oy) == (tx, ty):
        shown = "+".join(h.label for h in spot_hexes(origin))
        raise ValueError(f"bearing needs two different places, got {shown} twice")
    # Pixel vector scaled by 4/size: x = X, y = √3·Y in the integer frame; compass angle = atan2(x, -y).
    return math.degrees(math.atan2(float(tx - ox), -SQRT3 * (ty - oy)))


def bearing(origin: Hex, facing_angle_deg: float, target: Hex) -> float:
    """Angle from the facing direction to the centre-to-centre vector, in (-180, 180], positive clockwise."""
    return _round_angle(_compass_angle(origin, target) - facing_angle_deg)


def bearing_from_side(origin: Hex, side: int, target: Hex) -> float:
    """Bearing of ``target`` for a unit facing hexside ``side`` (exo, mech)."""
    return bearing(origin, side_angle(side), target)


def bearing_from_vertex(origin: Spot, vertex: int, target: Spot) -> float:
    """Bearing of ``target`` for a unit facing vertex ``vertex`` (skirmish); either may be a side midpoint."""
    return _round_angle(_compass_angle(origin, target) - vertex_angle(vertex))


def side_toward(origin: Hex, target: Spot) -> int:
    """The hexside whose direction is nearest the target; a target exactly on a vertex line takes the clockwise side."""
    angle = _round_angle(_compass_angle(origin, target)) % 360.0
    return math.floor((angle + 30.0) / 60.0) % 6


def turn_steps(frm: int, to: int) -> int:
    """Signed shortest rotation from ``frm`` to ``to`` in 60° steps, -2..3 (exactly opposite = 3)."""
    d = (to - frm) % 6
    return d - 6 if d > 3 else d


def turn_distance(frm: int, to: int) -> int:
    """Number of 60° steps between two facings, 0..3."""
    return abs(turn_steps(frm, to))


#: :func:`turn_distance` between facings 0..5, by ``[frm][to]``: movement searches ask it at every step
TURN_DISTANCES: tuple[tuple[int, ...], ...] = tuple(
    tuple(turn_distance(a, b) for b in range(6)) for a in range(6)
)


def vertex_ahead(h: Hex, vertex: int) -> tuple[Hex, Hex]:
    """The two neighbours sharing ``vertex`` (sides ``vertex`` and ``vertex + 1``; SK-2.2)."""
    around = neighbors_of(h)
    return around[vertex % 6], around[(vertex + 1) % 6]


def vertex_behind(h: Hex, vertex: int) -> tuple[Hex, Hex]:
    """The two neighbours sharing the opposite vertex (sides ``vertex + 3`` and ``vertex + 4``; SK-2.3)."""
    around = neighbors_of(h)
    return around[(vertex + 3) % 6], around[(vertex + 4) % 6]


#: hexes whose neighbours are kept: every hex of a few dozen boards of a few hundred hexes
NEIGHBORS_KEPT = 16384


@lru_cache(maxsize=NEIGHBORS_KEPT)
def neighbors_of(h: Hex) -> tuple[Hex, ...]:
    """:meth:`Hex.neighbors` (pure geometry, cached): movement searches step to the same hexes again and again,
    and a step costs a dictionary look-up instead of six new hexes."""
    return h.neighbors()


def labels(hexes: Iterable[Hex]) -> list[str]:
    """Labels of ``hexes`` in order (handy in messages and test failures)."""
    return [h.label for h in hexes]
