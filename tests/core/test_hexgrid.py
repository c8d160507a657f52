"""Hex geometry (HEX-1..3): coordinates, labels, directions, areas, pixels, lines and bearings."""

from __future__ import annotations

import itertools
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules.hexgrid import (
    SIDE_VECTORS,
    Hex,
    HexSide,
    Spot,
    Vertex,
    bearing,
    bearing_from_side,
    bearing_from_vertex,
    hex_corners,
    hex_to_pixel,
    hexes_crossed,
    hexes_touched,
    hexes_within,
    line_of_sight,
    line_traces,
    pixel_to_hex,
    ring,
    rotate,
    segment_touches_hex,
    side_angle,
    side_midpoint,
    side_toward,
    spiral,
    turn_distance,
    turn_steps,
    vertex_ahead,
    vertex_angle,
    vertex_behind,
    vertex_point,
    vertices_of_side,
)

coord = st.integers(min_value=-60, max_value=60)
hexes = st.builds(Hex, coord, coord)
sides = st.integers(min_value=0, max_value=5)
ZERO = Hex(0, 0)


# --- HEX-1 coordinates and labels --------------------------------------------------------------------------


def test_hex1_label_0505_is_q4_r2() -> None:
    assert Hex.parse("0505") == Hex(4, 2)
    assert Hex(4, 2).label == "0505"
    assert Hex(4, 2).to_offset() == (5, 5)


@pytest.mark.parametrize(
    ("label", "axial"),
    [
        ("0101", (0, 0)),
        ("0201", (1, 0)),
        ("0301", (2, -1)),
        ("0102", (0, 1)),
        ("0507", (4, 4)),
        ("9999", (98, 49)),
    ],
)
def test_hex1_odd_q_offset_examples(label: str, axial: tuple[int, int]) -> None:
    # Column 02 (0-based 1, odd) sits half a hex lower: its row-1 hex is axial (1, 0), south-east of 0101.
    assert Hex.parse(label) == Hex(*axial)
    assert Hex(*axial).label == label


def test_hex1_odd_column_is_shoved_down() -> None:
    assert Hex.parse("0101").neighbor(HexSide.SE) == Hex.parse("0201")
    assert Hex.parse("0201").neighbor(HexSide.NE) == Hex.parse("0301")


def test_hex1_parse_col_row_forms() -> None:
    assert Hex.parse("5,7") == Hex.parse("0507")
    assert Hex.parse(" 5 , 7 ") == Hex.parse("0507")
    assert Hex.parse("-1,3") == Hex.from_offset(-1, 3)
    assert Hex.parse("120,-4") == Hex.from_offset(120, -4)


def test_hex1_labels_outside_1_99_use_col_row() -> None:
    h = Hex.from_offset(-3, 12)
    assert h.label == "-3,12"
    assert Hex.from_offset(100, 5).label == "100,5"
    assert Hex.from_offset(0, 5).label == "0,5"


@pytest.mark.parametrize(
    "text", ["", "abc", "050", "05077", "5;7", "5,", ",7", "0007", "0500", "5.0,7", "q4r2"]
)
def test_hex1_bad_text_raises_clear_value_error(text: str) -> None:
    with pytest.raises(ValueError, match="bad hex"):
        Hex.parse(text)


@given(hexes)
def test_hex1_offset_round_trip(h: Hex) -> None:
    col, row = h.to_offset()
    assert Hex.from_offset(col, row) == h


@given(coord, coord)
def test_hex1_offset_to_axial_round_trip(col: int, row: int) -> None:
    assert Hex.from_offset(col, row).to_offset() == (col, row)


@given(hexes)
def test_hex1_label_round_trip_including_negatives(h: Hex) -> None:
    assert Hex.parse(h.label) == h


def test_hex_arithmetic() -> None:
    a, b = Hex(2, -1), Hex(-3, 4)
    assert a + b == Hex(-1, 3)
    assert a - b == Hex(5, -5)
    assert a.scale(3) == Hex(6, -3)
    assert a.s == -1
    assert sorted([Hex(1, 0), Hex(0, 5), Hex(0, -1)]) == [Hex(0, -1), Hex(0, 5), Hex(1, 0)]


@given(hexes, hexes)
def test_hex3_distance_symmetric(a: Hex, b: Hex) -> None:
    assert a.distance(b) == b.distance(a)
    assert (a.distance(b) == 0) == (a == b)


@given(hexes, hexes, hexes)
def test_hex3_distance_triangle_inequality(a: Hex, b: Hex, c: Hex) -> None:
    assert a.distance(c) <= a.distance(b) + b.distance(c)


def test_hex3_distance_examples() -> None:
    assert ZERO.distance(Hex(2, -1)) == 2
    assert ZERO.distance(Hex(3, 3)) == 6
    assert Hex.parse("0505").distance(Hex.parse("0503")) == 2


# --- HEX-2 directions ---------------------------------------------------------------------------------------


def test_hex2_side_vectors_and_neighbors() -> None:
    assert (Hex(0, -1), Hex(1, -1), Hex(1, 0), Hex(0, 1), Hex(-1, 1), Hex(-1, 0)) == SIDE_VECTORS
    assert ZERO.neighbors() == SIDE_VECTORS
    assert ZERO.neighbor(HexSide.SE) == Hex(1, 0)
    assert ZERO.neighbor(7) == ZERO.neighbor(1)  # any int, modulo 6
    assert ZERO.neighbor(-1) == ZERO.neighbor(HexSide.NW)


@pytest.mark.parametrize(
    ("value", "side"),
    [
        (0, HexSide.N),
        (5, HexSide.NW),
        ("ne", HexSide.NE),
        ("SE", HexSide.SE),
        (" s ", HexSide.S),
        ("4", HexSide.SW),
    ],
)
def test_hex2_side_parse(value: int | str, side: HexSide) -> None:
    assert HexSide.parse(value) is side


@pytest.mark.parametrize("value", [6, -1, "north", "", "N-NE", True])
def test_hex2_side_parse_rejects(value: int | str) -> None:
    with pytest.raises(ValueError, match="bad hex side"):
        HexSide.parse(value)


@pytest.mark.parametrize(
    ("value", "vertex"),
    [
        (0, Vertex.N_NE),
        (5, Vertex.NW_N),
        ("N-NE", Vertex.N_NE),
        ("n_ne", Vertex.N_NE),
        ("ne-se", Vertex.NE_SE),
        ("SE-S", Vertex.SE_S),
        ("s-sw", Vertex.S_SW),
        ("SW_NW", Vertex.SW_NW),
        ("NW-N", Vertex.NW_N),
        ("3", Vertex.S_SW),
    ],
)
def test_hex2_vertex_parse(value: int | str, vertex: Vertex) -> None:
    assert Vertex.parse(value) is vertex


@pytest.mark.parametrize("value", [6, "N", "N-SE", "", "x-y"])
def test_hex2_vertex_parse_rejects(value: int | str) -> None:
    with pytest.raises(ValueError, match="bad vertex"):
        Vertex.parse(value)


def test_hex2_vertex_labels() -> None:
    assert [v.label for v in Vertex] == ["N-NE", "NE-SE", "SE-S", "S-SW", "SW-NW", "NW-N"]
    for v in Vertex:
        assert Vertex.parse(v.label) is v


def test_hex2_angles() -> None:
    assert [side_angle(s) for s in HexSide] == [0.0, 60.0, 120.0, 180.0, 240.0, 300.0]
    assert [vertex_angle(v) for v in Vertex] == [30.0, 90.0, 150.0, 210.0, 270.0, 330.0]


def test_hex2_vertices_of_side() -> None:
    assert vertices_of_side(HexSide.N) == (Vertex.NW_N, Vertex.N_NE)
    assert vertices_of_side(HexSide.S) == (Vertex.SE_S, Vertex.S_SW)
    for s in HexSide:
        a, b = vertices_of_side(s)
        # Each end vertex lies between this side and a neighbouring one.
        assert s in ((a + 1) % 6, a) and s in (b, (b + 1) % 6)


def test_hex2_vertex_ahead_and_behind() -> None:
    assert vertex_ahead(ZERO, Vertex.N_NE) == (Hex(0, -1), Hex(1, -1))
    assert vertex_behind(ZERO, Vertex.N_NE) == (Hex(0, 1), Hex(-1, 1))
    assert vertex_ahead(ZERO, Vertex.NW_N) == (Hex(-1, 0), Hex(0, -1))


@pytest.mark.parametrize(
    ("frm", "to", "steps"),
    [
        (0, 0, 0),
        (0, 1, 1),
        (0, 2, 2),
        (0, 3, 3),
        (0, 4, -2),
        (0, 5, -1),
        (5, 0, 1),
        (1, 4, 3),
        (4, 1, 3),
        (2, 0, -2),
    ],
)
def test_turn_steps(frm: int, to: int, steps: int) -> None:
    assert turn_steps(frm, to) == steps
    assert turn_distance(frm, to) == abs(steps)


@given(sides, sides)
def test_turn_steps_lands_on_target(frm: int, to: int) -> None:
    steps = turn_steps(frm, to)
    assert -2 <= steps <= 3
    assert (frm + steps) % 6 == to


# --- areas and rotation -------------------------------------------------------------------------------------


def test_ring_order_starts_north_and_runs_clockwise() -> None:
    assert ring(ZERO, 0) == [ZERO]
    assert ring(ZERO, 1) == list(SIDE_VECTORS)
    r2 = ring(Hex(3, -2), 2)
    assert len(r2) == 12
    assert r2[0] == Hex(3, -4)
    assert all(h.distance(Hex(3, -2)) == 2 for h in r2)
    assert len(set(r2)) == 12


def test_spiral_and_hexes_within_agree() -> None:
    c = Hex(-2, 5)
    sp = spiral(c, 3)
    assert sp[0] == c
    assert len(sp) == 1 + 6 + 12 + 18
    within = hexes_within(c, 3)
    assert set(sp) == set(within)
    assert len(within) == len(set(within))
    assert within == sorted(within)
    assert hexes_within(c, 0) == [c]


def test_negative_radius_rejected() -> None:
    with pytest.raises(ValueError):
        ring(ZERO, -1)
    with pytest.raises(ValueError):
        spiral(ZERO, -1)
    with pytest.raises(ValueError):
        hexes_within(ZERO, -1)


def test_rotate_clockwise_examples() -> None:
    assert rotate(Hex(0, -1), ZERO, 1) == Hex(1, -1)  # N -> NE
    assert rotate(Hex(0, -1), ZERO, -1) == Hex(-1, 0)  # N -> NW
    assert rotate(Hex(0, -2), ZERO, 3) == Hex(0, 2)
    c = Hex(5, 5)
    assert rotate(c + Hex(2, -1), c, 1) == c + Hex(1, 1)  # 90° -> 150°
    assert rotate(c + Hex(2, -1), c, 2) == c + Hex(-1, 2)  # 90° -> 210°


@given(hexes, hexes, st.integers(min_value=-20, max_value=20))
def test_rotation_preserves_distance(h: Hex, center: Hex, steps: int) -> None:
    rotated = rotate(h, center, steps)
    assert rotated.distance(center) == h.distance(center)
    assert rotate(rotated, center, -steps) == h
    assert rotate(h, center, steps + 6) == rotated


@given(hexes, sides)
def test_rotation_turns_neighbors_by_sides(center: Hex, side: int) -> None:
    assert rotate(center.neighbor(side), center, 1) == center.neighbor(side + 1)


# --- pixels --------------------------------------------------------------------------------------------------


def test_hex_to_pixel_layout() -> None:
    assert hex_to_pixel(ZERO, 10.0) == (0.0, 0.0)
    x, y = hex_to_pixel(Hex(1, 0), 10.0, (100.0, 50.0))
    assert x == pytest.approx(115.0)
    assert y == pytest.approx(50.0 + 10.0 * math.sqrt(3) / 2)
    x, y = hex_to_pixel(Hex(0, -1), 10.0)
    assert (x, y) == pytest.approx((0.0, -10.0 * math.sqrt(3)))  # north is up


@given(hexes, st.floats(min_value=-0.4, max_value=0.4), st.floats(min_value=-0.4, max_value=0.4))
def test_pixel_to_hex_round_trip_inside_inner_circle(h: Hex, fx: float, fy: float) -> None:
    size, origin = 24.0, (7.0, -3.0)
    x, y = hex_to_pixel(h, size, origin)
    # Points within 0.4*size*√2 < inner radius (0.866*size) of the centre belong to the hex.
    assert pixel_to_hex(x + fx * size, y + fy * size, size, origin) == h


def test_corners_follow_vertex_index() -> None:
    corners = hex_corners(ZERO, 10.0)
    assert len(corners) == 6
    # Vertex 0 is the upper-right corner between N and NE; vertex 1 is the right-most point.
    assert corners[0] == pytest.approx((5.0, -10.0 * math.sqrt(3) / 2))
    assert corners[1] == pytest.approx((10.0, 0.0), abs=1e-9)
    assert corners[4] == pytest.approx((-10.0, 0.0), abs=1e-9)
    assert vertex_point(ZERO, Vertex.SE_S, 10.0) == pytest.approx(corners[2])
    # Every corner is shared with the two neighbours on its sides.
    for v in Vertex:
        for n in vertex_ahead(ZERO, v):
            assert any(p == pytest.approx(corners[v]) for p in hex_corners(n, 10.0))


def test_side_midpoint_is_halfway_to_neighbor() -> None:
    for s in HexSide:
        mid = side_midpoint(Hex(2, 1), s, 10.0, (3.0, 4.0))
        a = hex_to_pixel(Hex(2, 1), 10.0, (3.0, 4.0))
        b = hex_to_pixel(Hex(2, 1).neighbor(s), 10.0, (3.0, 4.0))
        assert mid == pytest.approx(((a[0] + b[0]) / 2, (a[1] + b[1]) / 2))


# --- HEX-3 lines ---------------------------------------------------------------------------------------------


@given(hexes, hexes)
def test_hex3_traces_have_distance_plus_one_adjacent_hexes(a: Hex, b: Hex) -> None:
    for trace in line_traces(a, b):
        assert len(trace) == a.distance(b) + 1
        assert trace[0] == a and trace[-1] == b
        assert all(p.distance(n) == 1 for p, n in itertools.pairwise(trace))


def test_hex3_straight_line_traces_agree() -> None:
    plus, minus = line_traces(ZERO, Hex(0, -3))
    assert plus == minus == [ZERO, Hex(0, -1), Hex(0, -2), Hex(0, -3)]
    assert line_traces(ZERO, ZERO) == ([ZERO], [ZERO])


def test_hex3_line_along_a_hex_side_splits_the_traces() -> None:
    # ZERO to (2,-1) runs exactly along the side shared by (1,-1) and (1,0): the nudges pick one each.
    plus, minus = line_traces(ZERO, Hex(2, -1))
    assert plus == [ZERO, Hex(1, 0), Hex(2, -1)]
    assert minus == [ZERO, Hex(1, -1), Hex(2, -1)]
    assert hexes_crossed(ZERO, Hex(2, -1)) == {ZERO, Hex(1, 0), Hex(1, -1), Hex(2, -1)}


def test_hex3_long_side_line_is_split_at_every_side() -> None:
    plus, minus = line_traces(ZERO, Hex(4, -2))
    assert plus == [ZERO, Hex(1, 0), Hex(2, -1), Hex(3, -1), Hex(4, -2)]
    assert minus == [ZERO, Hex(1, -1), Hex(2, -1), Hex(3, -2), Hex(4, -2)]


@given(hexes, st.integers(min_value=0, max_value=5), st.integers(min_value=1, max_value=8))
def test_hex3_every_side_running_line_is_split_by_the_nudges(origin: Hex, vertex: int, k: int) -> None:
    # A line toward a vertex direction (here k·(1,-2) rotated) runs along hex sides; the two traces must take
    # the two hexes on either side of every side it runs along, starting with the hexes sharing that vertex.
    target = rotate(origin + Hex(1, -2).scale(k), origin, vertex)
    plus, minus = line_traces(origin, target)
    assert {plus[1], minus[1]} == set(vertex_ahead(origin, vertex))
    for i in range(1, len(plus) - 1, 2):
        assert plus[i] != minus[i]
        assert plus[i].distance(minus[i]) == 1
    assert plus[::2] == minus[::2]


@pytest.mark.parametrize(
    ("wall", "either", "both"),
    [
        ({Hex(1, 0)}, False, True),  # grazed by the + trace only
        ({Hex(1, -1)}, False, True),  # grazed by the - trace only
        ({Hex(1, 0), Hex(1, -1)}, False, False),  # both traces blocked
        ({Hex(3, 3)}, True, True),  # off the line
        ({ZERO, Hex(2, -1)}, True, True),  # the end hexes never block
    ],
)
def test_hex3_line_of_sight_either_both_along_a_side(wall: set[Hex], either: bool, both: bool) -> None:
    b = Hex(2, -1)
    assert line_of_sight(ZERO, b, wall, "either") is either
    assert line_of_sight(ZERO, b, wall, "both") is both
    assert line_of_sight(ZERO, b, wall.__contains__, "either") is either  # callable form
    assert line_of_sight(b, ZERO, wall, "both") is both  # symmetric for this line


def test_hex3_line_of_sight_straight_line() -> None:
    wall = frozenset({Hex(0, -2)})
    assert line_of_sight(ZERO, Hex(0, -4), wall, "both") is False
    assert line_of_sight(ZERO, Hex(0, -2), wall, "either") is True
    assert line_of_sight(ZERO, Hex(0, -1), lambda h: True, "either") is True  # adjacent: nothing between


# --- HEX-3 exact touch (SK-3.2: "tocando" pero no atravesando → no visibility) -------------------------------


def _orient(p: tuple[float, float], q: tuple[float, float], r: tuple[float, float]) -> float:
    return (q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0])


def _point_segment(p: tuple[float, float], u: tuple[float, float], v: tuple[float, float]) -> float:
    dx, dy = v[0] - u[0], v[1] - u[1]
    length2 = dx * dx + dy * dy
    t = 0.0 if length2 == 0 else max(0.0, min(1.0, ((p[0] - u[0]) * dx + (p[1] - u[1]) * dy) / length2))
    return math.hypot(p[0] - u[0] - t * dx, p[1] - u[1] - t * dy)


def _pixel(spot: Spot) -> tuple[float, float]:
    if isinstance(spot, Hex):
        return hex_to_pixel(spot, 1.0)
    (x1, y1), (x2, y2) = hex_to_pixel(spot[0], 1.0), hex_to_pixel(spot[1], 1.0)
    return (x1 + x2) / 2, (y1 + y2) / 2


def reference_touches(a: Spot, b: Spot, h: Hex, tol: float = 1e-9) -> bool:
    """Brute-force reference in real pixel geometry (floats, √3 and all): the distance from the segment between
    the two spots to the closed hexagon is at most ``tol``. Independent of the integer separating-axis test."""
    p, q = _pixel(a), _pixel(b)
    corners = hex_corners(h, 1.0)
    edges = list(itertools.pairwise([*corners, corners[0]]))
    for point in (p, q):  # an end inside: every edge on the same side (corners run clockwise on screen)
        if all(_orient(u, v, point) >= -tol for u, v in edges):
            return True
    for u, v in edges:
        d1, d2, d3, d4 = _orient(u, v, p), _orient(u, v, q), _orient(p, q, u), _orient(p, q, v)
        if d1 * d2 < 0 and d3 * d4 < 0:
            return True  # proper crossing
        gap = min(
            _point_segment(p, u, v), _point_segment(q, u, v), _point_segment(u, p, q), _point_segment(v, p, q)
        )
        if gap <= tol:
            return True
    return False


near = st.integers(min_value=-9, max_value=9)


@given(hexes, near, near)
def test_hex3_touch_matches_a_brute_force_reference(a: Hex, dq: int, dr: int) -> None:
    b = a + Hex(dq, dr)
    expected = {h for h in hexes_within(a, a.distance(b) + 2) if reference_touches(a, b, h)}
    touched = hexes_touched(a, b)
    assert set(touched) == expected
    assert len(touched) == len(expected), "each hex once"
    assert touched[0] == a and touched[-1] == b
    assert hexes_crossed(a, b) <= expected, "the exact test never misses a hex a trace crosses"


@given(hexes, near, near, st.frozensets(st.builds(Hex, near, near), max_size=12))
def test_hex3_line_of_sight_touch_matches_the_reference(
    a: Hex, dq: int, dr: int, walls: frozenset[Hex]
) -> None:
    b = a + Hex(dq, dr)
    blocked = {a + w for w in walls}
    between = (h for h in hexes_within(a, a.distance(b) + 2) if h not in (a, b) and h in blocked)
    expected = not any(reference_touches(a, b, h) for h in between)
    assert line_of_sight(a, b, blocked, "touch") is expected
    assert line_of_sight(b, a, blocked, "touch") is expected, "sight is symmetric"


@given(hexes, near, near, sides, st.booleans(), sides)
def test_hex3_touch_from_a_side_midpoint_matches_the_reference(
    a: Hex, dq: int, dr: int, side_a: int, b_astride: bool, side_b: int
) -> None:
    """SK-2.5: a line may start or end at the midpoint of a side (a character astride two half hexes)."""
    b = a + Hex(dq, dr)
    start: Spot = (a, a.neighbor(side_a))
    end: Spot = (b, b.neighbor(side_b)) if b_astride else b
    expected = {h for h in hexes_within(a, a.distance(b) + 3) if reference_touches(start, end, h)}
    assert set(hexes_touched(start, end)) == expected
    assert {a, a.neighbor(side_a)} <= expected


def test_hex3_sampled_traces_miss_48_of_210_corner_touches() -> None:
    """Counted: of the 210 hexes at distance 2-8, the ε-traces miss a touched hex for 48 targets; the
    exact test finds them and never drops a traced hex."""
    missed = 0
    for d in range(2, 9):
        for target in ring(ZERO, d):
            touched = set(hexes_touched(ZERO, target))
            crossed = hexes_crossed(ZERO, target)
            assert crossed <= touched
            missed += bool(touched - crossed)
    assert missed == 48


def test_hex3_touch_counts_a_single_corner_and_both_sides_of_a_side() -> None:
    a, b = Hex.parse("0505"), Hex.parse("0902")
    corner = Hex.parse("0603")  # only its corner is on the line: both traces step over it
    assert segment_touches_hex(a, b, corner) and corner not in hexes_crossed(a, b)
    assert line_of_sight(a, b, {corner}, "either") is True, "the sampled traces miss it"
    assert line_of_sight(a, b, {corner}, "touch") is False
    assert hexes_touched(ZERO, Hex(2, -1)) == [ZERO, Hex(1, -1), Hex(1, 0), Hex(2, -1)]  # along a side
    assert not segment_touches_hex(ZERO, Hex(0, -3), Hex(1, -2))  # a side away from a straight line
    assert segment_touches_hex(ZERO, ZERO, ZERO) and hexes_touched(ZERO, ZERO) == [ZERO]


# --- HEX-3 bearings ------------------------------------------------------------------------------------------


@given(st.integers(min_value=0, max_value=5), st.integers(min_value=1, max_value=30), hexes)
def test_hex3_dead_ahead_is_0_and_astern_is_180(side: int, k: int, origin: Hex) -> None:
    ahead = origin + SIDE_VECTORS[side].scale(k)
    astern = origin + SIDE_VECTORS[side].scale(-k)
    assert bearing_from_side(origin, side, ahead) == 0.0
    assert bearing_from_side(origin, side, astern) == 180.0


@given(st.integers(min_value=0, max_value=5), st.integers(min_value=1, max_value=30), hexes)
def test_hex3_abeam_is_exactly_plus_minus_90(side: int, k: int, origin: Hex) -> None:
    # For facing N the abeam hexes are (2,-1)·k (starboard) and (-2,1)·k (port); rotate for other sides.
    starboard = rotate(origin + Hex(2, -1).scale(k), origin, side)
    port = rotate(origin + Hex(-2, 1).scale(k), origin, side)
    assert bearing_from_side(origin, side, starboard) == 90.0
    assert bearing_from_side(origin, side, port) == -90.0


def test_hex3_abeam_examples_facing_north() -> None:
    assert bearing_from_side(ZERO, HexSide.N, Hex(2, -1)) == 90.0
    assert bearing_from_side(ZERO, HexSide.N, Hex(-2, 1)) == -90.0
    assert bearing_from_side(ZERO, HexSide.N, Hex(1, 0)) == 120.0
    assert bearing_from_side(ZERO, HexSide.N, Hex(1, -1)) == 60.0


@given(st.integers(min_value=0, max_value=5), hexes)
def test_hex3_vertex_ahead_hexes_are_at_plus_minus_30(vertex: int, origin: Hex) -> None:
    left, right = vertex_ahead(origin, vertex)
    assert bearing_from_vertex(origin, vertex, left) == -30.0
    assert bearing_from_vertex(origin, vertex, right) == 30.0
    for behind in vertex_behind(origin, vertex):
        assert abs(bearing_from_vertex(origin, vertex, behind)) == 150.0


@given(st.floats(min_value=-720, max_value=720, allow_nan=False), hexes, hexes)
def test_hex3_bearing_range(facing: float, a: Hex, b: Hex) -> None:
    if a == b:
        return
    value = bearing(a, facing, b)
    assert -180.0 < value <= 180.0


def test_hex3_bearing_minus_180_maps_to_180() -> None:
    assert bearing(ZERO, 0.0, Hex(0, 3)) == 180.0
    assert bearing(ZERO, 180.0, Hex(0, -3)) == 180.0
    assert bearing(ZERO, -180.0, Hex(0, -3)) == 180.0
    assert bearing(ZERO, 360.0, Hex(0, -3)) == 0.0


def test_hex3_bearing_same_hex_raises() -> None:
    with pytest.raises(ValueError):
        bearing(ZERO, 0.0, ZERO)
    with pytest.raises(ValueError):
        side_toward(ZERO, ZERO)


def test_side_toward() -> None:
    for s in HexSide:
        assert side_toward(ZERO, ZERO.neighbor(s).scale(4)) == s
    assert side_toward(ZERO, Hex(3, -2)) == HexSide.NE  # about 79°: nearer NE (60) than SE (120)
    assert side_toward(ZERO, Hex(3, -1)) == HexSide.SE  # about 101°
    # Exactly on a vertex line, half way between two sides: ties go clockwise.
    assert side_toward(ZERO, Hex(2, -1)) == HexSide.SE  # 90°, between NE and SE
    assert side_toward(ZERO, Hex(1, -2)) == HexSide.NE
    assert side_toward(ZERO, Hex(-1, -1)) == HexSide.N  # 330°, between NW and N
    assert side_toward(Hex(5, 5), Hex(5, 5) + Hex(-1, 2)) == HexSide.SW  # 210°, between S and SW
