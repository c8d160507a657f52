"""The exo board at Discord's preview width: the camera frames the action, shots are arrows with
their head at the target, damage numbers sit clear of the counters, hex labels are one style (HEX-1) and never cut,
and the legend names every symbol drawn."""

from __future__ import annotations

import itertools
import math
import re

from PIL import Image

from render import BoardSnapshot, RenderOptions, render_board
from render.board import interest_hexes, trace_board, viewport_for
from render.colours import HIT, MISS, SIDE_DEFAULTS, SPACE, label_color
from render.legend import LegendItem, legend_height
from render.shots import ShotMark
from render.static_layer import hex_fill
from render.viewport import hex_box
from rules.events import ShotResolved
from rules.hexgrid import Hex
from rules.state import Board, EncounterState, Side
from tests.render_fixtures import H, Ship, decode, exo_state

RED, BLUE = SIDE_DEFAULTS[0], SIDE_DEFAULTS[1]


def duel(red_at: Hex, blue_at: Hex, **changes: object) -> EncounterState:
    """Two ships with their vectors one hex ahead, on an unbounded board."""
    units = [
        Ship(
            id="halcon",
            side="red",
            name="Halcón",
            label="HAL",
            at=red_at,
            facing=1,
            vector=red_at.neighbor(1),
        ),
        Ship(
            id="pirata",
            side="blue",
            name="Pirata",
            label="PIR",
            at=blue_at,
            facing=4,
            vector=blue_at.neighbor(4),
        ),
    ]
    state = EncounterState(
        ruleset="exo",
        name="Duel",
        board=Board(),
        sides=(Side("red", "Corsairs"), Side("blue", "Patrol")),
        units={u.id: u for u in units},
        round=4,
        phase="2",
    )
    return state.replace(**changes)


def exchange(damage: int = 14) -> tuple[ShotResolved, ...]:
    """Both ships fire both ways: a hit, a miss back, and a second pair of misses (four lanes)."""
    return (
        ShotResolved(rule="EXO-3.4", shooter="halcon", target="pirata", hit=True, damage=damage),
        ShotResolved(rule="EXO-3.4", shooter="pirata", target="halcon", hit=False),
        ShotResolved(rule="EXO-3.4", shooter="halcon", target="pirata", hit=False),
        ShotResolved(rule="EXO-3.4", shooter="pirata", target="halcon", hit=False),
    )


def action_share(snap: BoardSnapshot, viewer: str = "public") -> float:
    """How much of the board area the action's box (whole hexes of units and vectors) spans, in its tighter
    dimension."""
    vp = viewport_for(snap, viewer=viewer)
    box = hex_box(interest_hexes(snap, viewer=viewer))
    assert box is not None
    return max((box[2] - box[0]) * vp.size / vp.width, (box[3] - box[1]) * vp.size / vp.height)


def test_exo_camera_frames_the_action_so_it_fills_most_of_the_frame() -> None:
    """A hit at short range used to be a blob among ~200 empty hexes (a quarter of the frame)."""
    for red_at, blue_at in ((H("0509"), H("0708")), (H("0505"), H("1106")), (H("0310"), H("0604"))):
        snap = BoardSnapshot(duel(red_at, blue_at), events=exchange())
        assert action_share(snap) >= 0.55, (red_at.label, blue_at.label)
        vp = viewport_for(snap, viewer="public")
        assert vp.size >= 50  # counters and labels read at ~550 px wide (the image is 1280)


def test_framing_never_cuts_a_unit_and_keeps_a_minimum_field_of_view() -> None:
    lone = BoardSnapshot(duel(H("0505"), H("0506")).without_unit("pirata"))
    vp = viewport_for(lone, viewer="public")
    assert vp.width / vp.size >= 8.0  # a lone ship does not fill the picture: ~5 hex columns stay in view
    far = BoardSnapshot(duel(H("0505"), H("3040")), events=exchange())
    trace = trace_board(far, viewer="public")
    x0, y0, x1, y1 = trace.board_area
    for uid, ((cx, cy), r) in trace.counters.items():
        assert x0 <= cx - r and cx + r <= x1 and y0 <= cy - r and cy + r <= y1, uid


def test_every_hex_label_is_one_style_and_fully_inside_the_board_area() -> None:
    """HEX-1: only CCRR labels (hexes left of column 01 get none, not "-1,3"); none cut by the image edge, the
    side panel, header or legend."""
    snap = BoardSnapshot(duel(H("0102"), H("0304")), events=exchange())
    trace = trace_board(snap, viewer="public")
    assert trace.labels
    x0, y0, x1, y1 = trace.board_area
    for h, (bx0, by0, bx1, by1) in trace.labels:
        assert re.fullmatch(r"\d{4}", h.label), h.label
        assert bx0 >= 0 and bx1 <= trace.width and by0 >= 0 and by1 <= trace.height, h.label
        assert x0 <= bx0 and bx1 <= x1 and y0 <= by0 and by1 <= y1, h.label
    # the picture agrees: no label ink along the board area's edges (a cut label leaves its strokes there)
    img = decode(render_board(snap, viewer="public"))
    ink = label_color(hex_fill(SPACE, snap.state.board, H("0101")))
    edges = [(round(x0), y) for y in range(round(y0), round(y1))]
    edges += [(round(x1) - 1, y) for y in range(round(y0), round(y1))]
    edges += [(x, round(y0)) for x in range(round(x0), round(x1))]
    assert not [p for p in edges if img.getpixel(p) == ink]


def _run(img_px: list[object], colour: tuple[int, int, int]) -> int:
    return sum(1 for c in img_px if c == colour)


def _across(img: Image.Image, mark: ShotMark, back: float, half: int) -> list[object]:
    """Pixels on a segment across the shaft, ``back`` px before the tip."""
    (tx, ty), (sx, sy) = mark.tip, mark.tail
    length = math.dist(mark.tip, mark.tail)
    ux, uy = (sx - tx) / length, (sy - ty) / length
    cx, cy = tx + ux * back, ty + uy * back
    out: list[object] = []
    for i in range(-half * 4, half * 4 + 1):
        k = i / 4
        out.append(img.getpixel((round(cx - uy * k), round(cy + ux * k))))
    return out


def test_a_shot_is_an_arrow_with_its_head_at_the_target_end() -> None:
    """Who shot whom reads from the shape: the head (wider than the shaft) sits just outside the target's disc."""
    snap = BoardSnapshot(duel(H("0505"), H("0904")), events=exchange())
    trace = trace_board(snap, viewer="public")
    img = decode(render_board(snap, viewer="public"))
    hit = next(m for m in trace.shots if m.hit)
    (tc, tr) = trace.counters["pirata"]
    assert tr < math.dist(hit.tip, tc) < tr + 8  # the tip touches the target's edge, outside its disc
    assert math.dist(hit.tail, trace.counters["halcon"][0]) < trace.counters["halcon"][1] + 8
    head = _run(_across(img, hit, hit.head * 0.75, 20), HIT)
    shaft = _run(_across(img, hit, math.dist(hit.tip, hit.tail) / 2, 20), HIT)
    assert shaft > 0 and head >= 2 * shaft  # a head, at the target end
    tail_side = _run(_across(img, hit, math.dist(hit.tip, hit.tail) - 4, 20), HIT)
    assert tail_side <= shaft + 4  # and none at the shooter's end
    # a miss has a head too (an open chevron), at its own target
    miss = next(m for m in trace.shots if not m.hit and m.target == "halcon")
    barb = _across(img, miss, miss.head * 0.8, 20)
    assert _run(barb, MISS) >= 2
    # shots between the same two ships run in separate lanes, not on top of each other
    lanes = sorted(
        {round(_offset(m, trace.counters["halcon"][0], trace.counters["pirata"][0])) for m in trace.shots}
    )
    assert len(lanes) == 4 and min(b - a for a, b in itertools.pairwise(lanes)) >= 6


def _offset(m: ShotMark, a: tuple[float, float], b: tuple[float, float]) -> float:
    """Signed distance of a shot's tip from the line through the two counter centres."""
    length = math.dist(a, b)
    return ((b[0] - a[0]) * (m.tip[1] - a[1]) - (b[1] - a[1]) * (m.tip[0] - a[0])) / length


def test_damage_number_is_clear_of_every_counter_and_inside_the_board() -> None:
    cases = [
        duel(H("0509"), H("0708")),
        duel(H("0505"), H("0506")),  # adjacent ships
        exo_state(),
    ]
    for state in cases:
        events = (
            exchange(12)
            if "sombra" not in state.units
            else (ShotResolved(rule="EXO-3.4", shooter="halcon", target="pirata", hit=True, damage=7),)
        )
        snap = BoardSnapshot(state, events=events)
        trace = trace_board(snap, viewer="director")
        assert [b.text for b in trace.badges] == [str(e.damage) for e in events if e.hit]
        x0, y0, x1, y1 = trace.board_area
        for badge in trace.badges:
            bx0, by0, bx1, by1 = badge.box
            assert x0 <= bx0 and bx1 <= x1 and y0 <= by0 and by1 <= y1
            for uid, (centre, r) in trace.counters.items():
                nx, ny = min(max(centre[0], bx0), bx1), min(max(centre[1], by0), by1)
                assert math.dist((nx, ny), centre) >= r, (uid, badge)
        # the number is on top and the target's counter still shows its colour at its centre
        img = decode(render_board(snap, viewer="director"))
        badge = trace.badges[0]
        assert img.getpixel((round(badge.centre[0]), round(badge.centre[1] - badge.radius * 0.6))) in (
            HIT,
            (255, 255, 255),
        )
        centre, r = trace.counters["pirata"]
        assert img.getpixel((round(centre[0]), round(centre[1] + r * 0.7))) in (BLUE, (255, 255, 255))


def test_the_legend_names_every_symbol_drawn_and_grows_a_row_rather_than_drop_one() -> None:
    state = exo_state(
        units={
            **exo_state().units,
            "lobo": Ship(
                id="lobo", side="blue", name="Lobo", label="LOB", at=H("0910"), facing=0, destroyed=True
            ),
        }
    )
    events = (
        ShotResolved(rule="EXO-3.4", shooter="halcon", target="pirata", hit=True, damage=5),
        ShotResolved(rule="EXO-3.4", shooter="pirata", target="halcon", hit=False),
        ShotResolved(rule="EXO-3.1", shooter="sombra", target="halcon", hit=False, spent=True),
    )
    trace = trace_board(BoardSnapshot(state, events=events), viewer="director")
    for text in (
        "vector",
        "hit",
        "damage dealt",
        "miss",
        "shot without effect",
        "destroyed",
        "hidden",
        "asteroid",
    ):
        assert text in trace.legend, text
    assert trace.legend_box[2:] == (trace.width, trace.height)
    es = trace_board(
        BoardSnapshot(state, events=events), viewer="director", options=RenderOptions(locale="es")
    )
    assert "disparo sin efecto" in es.legend and "daño causado" in es.legend
    # more entries than one row holds: the strip grows rows, none is dropped
    many = [LegendItem(f"terrain kind number {i}", "hex", (90, 90, 90)) for i in range(14)]
    assert legend_height(many, 1280) >= legend_height(many[:2], 1280) + 2 * 30
