"""Board renderer fast path: palette drawing, sprite caches and the PNG writer show the same picture."""

from __future__ import annotations

import io
import struct
import zlib
from dataclasses import replace

from PIL import Image, ImageChops

from render import BoardSnapshot, RenderOptions, render_board
from render import static_layer as static
from render.board import render_board_uncached, viewport_for
from render.colours import NEUTRAL, SIDE_DEFAULTS, SPACE
from render.counters import _counter_sprite, radius_for  # pyright: ignore[reportPrivateUsage]
from render.geometry import compass, dashes
from render.png import encode_palette_png
from render.side_panel import _row_sprite  # pyright: ignore[reportPrivateUsage]
from rules.events import ShotResolved
from tests.render_fixtures import H, Ship, decode, exo_state, probe_box, share_of

RED, BLUE = SIDE_DEFAULTS[0], SIDE_DEFAULTS[1]
NAIVE = RenderOptions(palette=False, png_level=6)


def _clear_caches() -> None:
    static.clear_cache()
    _counter_sprite.cache_clear()
    _row_sprite.cache_clear()


def _idat(data: bytes) -> bytes:
    pos, out = 8, b""
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind = data[pos + 4 : pos + 8]
        body = data[pos + 8 : pos + 8 + length]
        assert (
            zlib.crc32(body, zlib.crc32(kind))
            == struct.unpack(">I", data[pos + 8 + length : pos + 12 + length])[0]
        )
        if kind == b"IDAT":
            out += body
        pos += 12 + length
    return out


def test_fast_and_naive_paths_show_the_same_picture() -> None:
    snap = BoardSnapshot(
        exo_state(),
        events=(ShotResolved(rule="EXO-3.4", shooter="halcon", target="pirata", hit=True, damage=2),),
    )
    fast = decode(render_board(snap, viewer="director"))
    naive = decode(render_board_uncached(snap, viewer="director", options=NAIVE))
    assert fast.size == naive.size
    hist = ImageChops.difference(fast, naive).convert("L").histogram()
    total = sum(hist)
    assert hist[0] / total > 0.9  # identical pixels; the rest is text anti-aliasing in four steps
    assert sum(hist[:40]) / total > 0.99


def test_caches_never_serve_a_stale_picture() -> None:
    """A changed stat, facing or position must show; each cached result must equal a fresh draw."""
    base = exo_state()
    hal = base.units["halcon"]
    assert isinstance(hal, Ship)
    changed = base.with_units([replace(hal, armor=3, facing=4, at=H("0506"))])
    render_board(BoardSnapshot(base), viewer="director")
    warm = render_board(BoardSnapshot(changed), viewer="director")
    _clear_caches()
    assert render_board(BoardSnapshot(changed), viewer="director") == warm
    assert warm != render_board(BoardSnapshot(base), viewer="director")
    # Armor alone lives only in the panel row (and the counter's damage bar): it must still show.
    armor_only = base.with_units([replace(hal, armor=3)])
    assert render_board(BoardSnapshot(armor_only), viewer="director") != render_board(
        BoardSnapshot(base), viewer="director"
    )


def test_panel_and_header_text_is_drawn_on_the_fast_path() -> None:
    img = decode(render_board(BoardSnapshot(exo_state()), viewer="director"))
    title = img.crop((0, 0, 300, 40))
    assert SPACE.panel_text in {c for _, c in title.getcolors(4096) or []}
    panel = img.crop((img.width * 7 // 10, 70, img.width, 140))
    colours = {c for _, c in panel.getcolors(4096) or []}
    assert RED in colours and SPACE.panel_text in colours and SPACE.panel in colours


def test_debris_and_asteroids_are_neutral_and_have_no_facing_nose() -> None:
    rock = Ship(id="rock", side="blue", name="Rock", label="AST", at=H("0808"), facing=0, kind="asteroid")
    snap = BoardSnapshot(exo_state().with_units([rock]))
    img = decode(render_board(snap, viewer="director"))
    centre, half = probe_box(snap, "director", H("0808"))
    assert share_of(img, centre, half, NEUTRAL["asteroid"]) > 0.4
    assert share_of(img, centre, half, BLUE) == 0
    # Where a facing-0 nose would poke out above the disc there is nothing of the counter.
    vp = viewport_for(snap, viewer="director")
    r = radius_for(vp.size)
    tip = compass(centre, 0, r + 4)
    assert share_of(img, tip, 2, NEUTRAL["asteroid"]) == 0
    # A ship with the same facing does get its nose there.
    ship_snap = BoardSnapshot(exo_state().with_units([replace(rock, kind="unit")]))
    ship_img = decode(render_board(ship_snap, viewer="director"))
    assert share_of(ship_img, tip, 2, BLUE) > 0


def test_png_writer_round_trips_bands_and_checksums() -> None:
    img = Image.new("P", (1300, 900), 0)
    img.putpalette([v for i in range(256) for v in (i, 255 - i, (i * 7) % 256)])
    for y in range(0, 900, 3):
        img.paste((y * 13) % 250, (0, y, 1300 - y, y + 2))
    data = encode_palette_png(img, bytes(range(256)) * 3, level=1)
    raw = zlib.decompress(_idat(data))  # checks the combined Adler-32 of the bands
    assert len(raw) == 900 * 1301 and raw[0] == 0 and raw[1301] == 0
    back = Image.open(io.BytesIO(data))
    back.load()
    assert back.mode == "P" and back.tobytes() == img.tobytes()


def test_dashes_skip_only_what_lies_off_the_image() -> None:
    a, b = (-2000.0, 50.0), (3000.0, 50.0)
    every = dashes(a, b, 7.0, 5.0)
    kept = dashes(a, b, 7.0, 5.0, (0.0, 0.0, 1280.0, 1000.0))
    on_image = {(s, e) for s, e in every if max(s[0], e[0]) >= 0 and min(s[0], e[0]) <= 1280}
    assert on_image <= set(kept) <= set(every)
    assert len(kept) <= len(on_image) + 2  # at most a dash at each end just off the edge
    assert dashes((0.0, -50.0), (100.0, -60.0), 7.0, 5.0, (0.0, 0.0, 1280.0, 1000.0)) == []


def test_whole_largest_board_fast_path_is_a_small_png() -> None:
    snap = BoardSnapshot(exo_state())
    data = render_board(snap, viewer="public", options=RenderOptions(width=4096))
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) < 10 * 1024 * 1024
    assert decode(data).width == 4096
