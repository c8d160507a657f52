"""Board renderer: what a person sees — colours at hex centres, fog, determinism, sizes, previews."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from PIL import Image

from render import BoardSnapshot, RenderOptions, render_board, render_order_preview
from render import static_layer as static
from render.board import viewport_for
from render.colours import PREVIEW, SIDE_DEFAULTS, Palette, palette_colours, side_colors
from render.counters import radius_for
from render.files import step_stem, write_step_images
from rules.events import ShotResolved, UnitMoved
from rules.hexgrid import Hex
from rules.ruleset import SimStep
from rules.state import Board, EncounterState, Marker, Side, Unit
from tests.render_fixtures import (
    UPLOAD_LIMIT,
    H,
    Ship,
    decode,
    exo_state,
    probe_box,
    share_of,
    skirmish_state,
)

RED, BLUE = SIDE_DEFAULTS[0], SIDE_DEFAULTS[1]


def test_unit_shows_its_side_colour_at_its_hex_centre() -> None:
    snap = BoardSnapshot(exo_state())
    img = decode(render_board(snap, viewer="director"))
    for uid, colour in (("halcon", RED), ("pirata", BLUE)):
        at = snap.state.units[uid].at
        assert at is not None
        centre, half = probe_box(snap, "director", at)
        assert share_of(img, centre, half, colour) > 0.4, uid
    empty_centre, half = probe_box(snap, "director", H("0305"))
    assert share_of(img, empty_centre, half, RED) == 0


def test_hidden_unit_is_not_drawn_for_the_other_side() -> None:
    """FOG-1: no counter, no vector, no panel row, no firing line; the picture is as if it were not there."""
    shots = (ShotResolved(rule="EXO-3.4", shooter="sombra", target="halcon", hit=True, damage=3),)
    moves = (
        UnitMoved(rule="EXO-4.3", unit="sombra", frm=H("1311"), to=H("1209"), facing_from=5, facing_to=5),
    )
    fogged = BoardSnapshot(exo_state(), events=shots + moves)
    absent = BoardSnapshot(exo_state().without_unit("sombra"))
    red_view = render_board(fogged, viewer="red")
    assert red_view == render_board(absent, viewer="red")
    assert render_board(fogged, viewer="public") == render_board(absent, viewer="public")
    img = decode(red_view)
    centre, half = probe_box(fogged, "red", H("1209"))
    inside = half <= centre[0] < img.width - half and half <= centre[1] < img.height - half
    assert not inside or share_of(img, centre, half, BLUE) == 0  # the camera frames only what red sees
    # Its own side and the director do see it (and so the image differs).
    blue = decode(render_board(fogged, viewer="blue"))
    centre, half = probe_box(fogged, "blue", H("1209"))
    assert share_of(blue, centre, half, BLUE) > 0.3
    assert render_board(fogged, viewer="director") != render_board(absent, viewer="director")


def test_same_input_same_bytes_with_and_without_the_static_cache() -> None:
    snap = BoardSnapshot(
        exo_state(), events=(ShotResolved(rule="X", shooter="halcon", target="pirata", hit=True),)
    )
    first = render_board(snap, viewer="director")
    assert render_board(snap, viewer="director") == first
    static.clear_cache()
    assert render_board(snap, viewer="director") == first


def test_static_cache_is_keyed_by_value_not_identity() -> None:
    static.clear_cache()
    render_board(BoardSnapshot(exo_state()), viewer="director")
    render_board(BoardSnapshot(exo_state()), viewer="director")  # a fresh, equal state
    assert static.cache_len() == 1


@pytest.mark.parametrize("width", [1024, 1280, 1600])
def test_image_width_and_minimum(width: int) -> None:
    img = decode(
        render_board(BoardSnapshot(exo_state()), viewer="public", options=RenderOptions(width=width))
    )
    assert img.width == width
    assert render_board.__defaults__ is None  # keyword-only API
    with pytest.raises(ValueError, match="width"):
        RenderOptions(width=800)


def test_default_width_is_at_least_1024() -> None:
    assert decode(render_board(BoardSnapshot(exo_state()), viewer="public")).width >= 1024


def test_largest_board_stays_under_the_upload_limit() -> None:
    units = [
        Ship(
            id=f"u{i}",
            side=("red", "blue")[i % 2],
            name=f"Unit {i}",
            at=Hex.from_offset(1 + i % 99, 1 + (i * 7) % 99),
        )
        for i in range(300)
    ]
    terrain = {Hex.from_offset(c, r): "woods" for c in range(1, 100, 3) for r in range(1, 100, 2)}
    state = EncounterState(
        ruleset="exo",
        name="Huge",
        board=Board(width=99, height=99, terrain=terrain),
        sides=(Side("red", "R"), Side("blue", "B")),
        units={u.id: u for u in units},
    )
    for opts in (RenderOptions(), RenderOptions(width=4096, whole_board=True), RenderOptions(palette=False)):
        data = render_board(BoardSnapshot(state), viewer="director", options=opts)
        assert len(data) < UPLOAD_LIMIT


def test_bounded_board_crops_to_the_action_unless_whole_board_is_asked() -> None:
    far = Hex.from_offset(60, 50)
    units = [
        Unit(id="a", side="red", name="A", at=far),
        Unit(id="b", side="blue", name="B", at=far.neighbor(0)),
    ]
    state = EncounterState(
        ruleset="render-test",
        name="Big",
        board=Board(width=80, height=60),
        sides=(Side("red", "R"), Side("blue", "B")),
        units={u.id: u for u in units},
    )
    snap = BoardSnapshot(state)
    cropped = viewport_for(snap, viewer="director")
    x, y = cropped.center(far)
    assert (
        cropped.left <= x <= cropped.left + cropped.width and cropped.top <= y <= cropped.top + cropped.height
    )
    assert cropped.size >= 24  # readable counters
    whole = viewport_for(snap, viewer="director", options=RenderOptions(whole_board=True))
    for corner in (Hex.from_offset(1, 1), Hex.from_offset(80, 60)):
        cx, cy = whole.center(corner)
        assert whole.left <= cx <= whole.left + whole.width and whole.top <= cy <= whole.top + whole.height


def test_unbounded_viewport_fits_ships_and_vectors_and_keeps_its_scale() -> None:
    snap = BoardSnapshot(exo_state())
    vp = viewport_for(snap, viewer="director")
    for u in snap.state.units.values():
        for h in (u.at, getattr(u, "vector", None)):
            assert isinstance(h, Hex)
            x, y = vp.center(h)
            assert vp.left + vp.size <= x <= vp.left + vp.width - vp.size
            assert vp.top + vp.size <= y <= vp.top + vp.height - vp.size
    # the whole action drifting together (ships with their vectors) keeps the scale: only its extent sets it
    moved = snap.state.with_units(
        [
            replace(
                u, at=u.at.neighbor(0) if u.at else None, vector=u.vector.neighbor(0) if u.vector else None
            )
            for u in snap.state.units.values()
            if isinstance(u, Ship)
        ]
    )
    assert viewport_for(BoardSnapshot(moved), viewer="director").size == vp.size
    spread = snap.state.with_units([replace(snap.state.units["pirata"], at=H("1006") + Hex(60, 0))])
    assert viewport_for(BoardSnapshot(spread), viewer="director").size < vp.size


def test_order_preview_draws_a_ghost_and_refuses_a_viewer_who_cannot_see_the_unit() -> None:
    snap = BoardSnapshot(exo_state())
    end = H("0703")
    data = render_order_preview(
        snap, viewer="red", unit_id="halcon", path=(H("0604"), end), end_facing=0, ghost_vector=H("0901")
    )
    img = decode(data)
    vp = viewport_for(snap, viewer="red", preview_hexes=(H("0604"), end, H("0901")))
    x, y = vp.center(end)
    r = radius_for(vp.size)
    assert share_of(img, (x - r - 2, y), 3, PREVIEW) > 0  # the ghost's outer ring
    assert data != render_board(snap, viewer="red")
    with pytest.raises(ValueError, match="cannot see"):
        render_order_preview(snap, viewer="red", unit_id="sombra", path=(), end_facing=0)


def test_unknown_viewer_is_refused() -> None:
    with pytest.raises(ValueError, match="viewer"):
        render_board(BoardSnapshot(exo_state()), viewer="nobody")


def test_markers_and_concealed_counters_are_drawn() -> None:
    """A '?' counter on any board; burning hexes (the skirmish overlay) on a skirmish board."""
    state = exo_state(markers=(Marker(kind="concealed", at=H("0309")),))
    snap = BoardSnapshot(state)
    img = decode(render_board(snap, viewer="public"))
    centre, half = probe_box(snap, "public", H("0309"))
    assert share_of(img, centre, half, (138, 143, 152)) > 0.3  # the grey '?' counter
    burning = BoardSnapshot(skirmish_state(markers=(Marker(kind="fire", at=H("0310")),)))
    img = decode(render_board(burning, viewer="public"))
    fire_centre, _ = probe_box(burning, "public", H("0310"))
    assert share_of(img, fire_centre, 4, (255, 104, 0)) > 0  # the flame


def test_side_colour_from_the_scenario_is_used() -> None:
    state = exo_state(
        sides=(Side("red", "Corsairs", color="#00ff00"), Side("blue", "Patrol", color="nonsense"))
    )
    assert side_colors(state) == {"red": (0, 255, 0), "blue": BLUE}


def test_palette_keeps_every_listed_colour_exact() -> None:
    flat = [RED, BLUE, (214, 41, 57), (120, 170, 100), (232, 226, 208), (0, 0, 0), (3, 3, 3)]
    colours = palette_colours(flat, [((255, 255, 255), RED)])
    assert RED in colours and BLUE in colours and (214, 41, 57) not in colours  # a near-duplicate of red
    assert len(colours) <= 255  # index 255 stays free for sprite transparency
    pal = Palette(colours)
    assert [pal.index(c) for c in colours] == list(range(len(colours)))
    assert pal.index((214, 41, 57)) == colours.index(RED)  # unlisted: the nearest entry
    assert len(pal.plte) == 3 * 256 and pal.plte[:3] == bytes(RED)


def test_step_images_are_named_per_round_and_phase(tmp_path: Path) -> None:
    state = exo_state()
    written = write_step_images(tmp_path, SimStep(round=1, phase="2", state=state, events=()))
    # Sombra is hidden (FOG-1): each side's own view too
    assert [p.name for p in written] == [
        "r01-p2.png",
        "r01-p2-director.png",
        "r01-p2-red.png",
        "r01-p2-blue.png",
    ]
    assert all(Image.open(p).width == 1280 for p in written)
    assert step_stem(SimStep(round=0, phase="start", state=state, events=())) == "r00-start"
    assert step_stem(SimStep(round=3, phase="a3/x y", state=state, events=())) == "r03-pa3_x_y"


def test_spanish_and_english_render_strings_match() -> None:
    import tomllib

    from data import LOCALE_DIR

    def keys(lang: str) -> set[str]:
        def walk(d: dict[str, object], prefix: str) -> set[str]:
            out: set[str] = set()
            for k, v in d.items():
                out |= walk(v, f"{prefix}{k}.") if isinstance(v, dict) else {prefix + k}  # type: ignore[arg-type]
            return out

        return walk(tomllib.loads((LOCALE_DIR / lang / "render.toml").read_text(encoding="utf-8")), "")

    assert keys("en") == keys("es")
