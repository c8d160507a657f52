"""Boards that read at Discord's preview width: a 1280 px board shown 550 px wide. Bounded boards are framed on
the action, and where the action spans the map the counters grow past their hex's share, so every unit's disc is
at least ~24 px and its short label at least 9 px (font size) at 550 px. The framing follows only what the viewer
sees (FOG-1): a hidden unit never moves another side's picture."""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import replace

import pytest
from PIL import Image

from render import BoardSnapshot, RenderOptions, render_board
from render.board import trace_board, viewport_for
from render.counters import label_font
from rules.hexgrid import Hex
from rules.scenario import load_scenario
from rules.state import EncounterState
from tests.paths import ROOT
from tests.render_fixtures import H, decode

EN = RenderOptions(locale="en")
PREVIEW = 550  # px: Discord's preview width of a board image
MIN_COUNTER = 24.0  # px across at the preview width
MIN_TEXT = 9.0  # px font size at the preview width


def _scenario(name: str) -> EncounterState:
    return load_scenario(ROOT / "data" / "scenarios" / f"{name}.toml").state


def _closed_in() -> EncounterState:
    """mech-duel once the four mechs have closed in, as by round 3 of the demo."""
    state = _scenario("mech-duel")
    places = {"hunter": "0709", "centurion": "1010", "wolverine": "0707", "griffin": "1106"}
    return replace(state, units={k: replace(u, at=H(places[k])) for k, u in state.units.items()})


def _at_preview(px: float, image_width: int) -> float:
    return px * PREVIEW / image_width


def _disc_area(img: Image.Image, centre: tuple[float, float], r: float) -> int:
    """Pixels of the counter's fill (the commonest colour in its disc's box) within ``r`` of ``centre``."""
    cx, cy = centre
    box = (round(cx - r), round(cy - r), round(cx + r) + 1, round(cy + r) + 1)
    pixels = [
        (x, y, img.getpixel((x, y)))
        for x in range(box[0], box[2])
        for y in range(box[1], box[3])
        if (x - cx) ** 2 + (y - cy) ** 2 <= r * r
    ]
    counts = Counter(p for _, _, p in pixels)
    return counts.most_common(1)[0][1]


@pytest.mark.parametrize("name", ["mech-duel", "pbw-street", "ocs-gazala"])
def test_every_lone_unit_counter_and_label_reads_at_550_px(name: str) -> None:
    """Counters of lone units ≥ 24 px across and labels ≥ 9 px at 550 px, probed on the drawn disc."""
    state = _scenario(name)
    snap = BoardSnapshot(state)
    trace = trace_board(snap, viewer="director", options=EN)
    img = decode(render_board(snap, viewer="director", options=EN)).convert("RGB")
    occupied: dict[Hex, int] = {}
    for u in state.units.values():
        if u.at is not None:
            occupied[u.at] = occupied.get(u.at, 0) + 1
    lone = [u for u in state.units.values() if u.at is not None and occupied[u.at] == 1]
    assert lone, name
    vp = trace.viewport
    assert vp is not None
    for u in lone:
        (cx, cy), r = trace.counters[u.id]
        assert _at_preview(2 * r, trace.width) >= MIN_COUNTER, (name, u.id, r)
        assert _at_preview(label_font(r, u.short, vp.min_label), trace.width) >= MIN_TEXT, (
            name,
            u.id,
            u.short,
        )
        # the disc really is drawn that large: its fill covers most of a 24 px disc at 550 px, label and marks
        # aside
        least = math.pi * (MIN_COUNTER / 2 * trace.width / PREVIEW) ** 2
        assert _disc_area(img, (cx, cy), r) >= 0.45 * least, (name, u.id)


def test_a_mech_duel_is_framed_on_the_action_not_the_whole_map() -> None:
    """mech-duel (16 × 17 hexes) once the four mechs have closed in, as by round 3 of the demo: hexes well past
    the whole-map size."""
    snap = BoardSnapshot(_closed_in())
    framed = viewport_for(snap, viewer="director", options=EN)
    whole = viewport_for(snap, viewer="director", options=RenderOptions(locale="en", whole_board=True))
    assert framed.size > whole.size * 1.2
    trace = trace_board(snap, viewer="director", options=EN)
    x0, y0, x1, y1 = trace.board_area
    for uid, ((cx, cy), r) in trace.counters.items():  # never a unit cut
        assert x0 <= cx - r and cx + r <= x1 and y0 <= cy - r and cy + r <= y1, uid


def test_pbw_street_spans_the_map_so_its_counters_grow_past_the_hex_share() -> None:
    """The shoot-out spans every column: the hexes stay small, the counters do not."""
    snap = BoardSnapshot(_scenario("pbw-street"))
    vp = viewport_for(snap, viewer="director", options=EN)
    assert vp.counter_scale > 1.0
    trace = trace_board(snap, viewer="director", options=EN)
    for uid, (_, r) in trace.counters.items():
        assert _at_preview(2 * r, trace.width) >= MIN_COUNTER, uid


def _hide_at(state: EncounterState, uid: str, at: Hex) -> EncounterState:
    units = dict(state.units)
    units[uid] = replace(units[uid], at=at, hidden=True)
    return replace(state, units=units)


def test_fog_1_a_hidden_unit_never_moves_the_other_sides_framing() -> None:
    """FOG-1: side red's picture of one step is the same bytes wherever blue's hidden mech stands, though the
    director's picture (which sees it) is framed round it."""
    state = _closed_in()
    near = _hide_at(state, "griffin", H("0908"))
    far = _hide_at(state, "griffin", H("1617"))
    red_near = render_board(BoardSnapshot(near), viewer="red", options=EN)
    red_far = render_board(BoardSnapshot(far), viewer="red", options=EN)
    assert red_near == red_far
    assert viewport_for(BoardSnapshot(near), viewer="red", options=EN) == viewport_for(
        BoardSnapshot(far), viewer="red", options=EN
    )
    director_near = viewport_for(BoardSnapshot(near), viewer="director", options=EN)
    director_far = viewport_for(BoardSnapshot(far), viewer="director", options=EN)
    assert director_near != director_far  # the director's crop does follow it: the probe has teeth


@pytest.mark.parametrize("name", ["mech-duel", "pbw-street", "ocs-gazala"])
def test_hex_1_every_occupied_hex_number_reads_at_550_px(name: str) -> None:
    """HEX-1: the number of every hex with a counter, tagged under its counters at 21 px (9 px at 550 px) where
    the grid's own number is smaller, inside the board and drawn."""
    state = _scenario(name)
    snap = BoardSnapshot(state)
    trace = trace_board(snap, viewer="director", options=EN)
    img = decode(render_board(snap, viewer="director", options=EN)).convert("RGB")
    tags = dict(trace.hex_tags)
    occupied = {u.at for u in state.units.values() if u.at is not None}
    assert set(tags) == occupied, name
    x0, y0, x1, y1 = trace.board_area
    for h, (bx0, by0, bx1, by1) in tags.items():
        assert _at_preview(by1 - by0, trace.width) >= MIN_TEXT, (name, h.label)
        assert x0 <= bx0 and bx1 <= x1 and y0 <= by0 and by1 <= y1, (name, h.label)
        colours = {img.getpixel((x, round((by0 + by1) / 2))) for x in range(round(bx0) + 2, round(bx1) - 2)}
        assert len(colours) > 2, (name, h.label)  # the number is drawn there (not a blank fill)
