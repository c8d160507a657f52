"""What a side's board draws at night (NGT-9): hexes beyond sight darkened, lit hexes tinted (the layer's own
radius), a '?' counter with its gunflash for a unit seen only by its flash, nothing for a unit in the dark."""

from __future__ import annotations

from render import BoardSnapshot, RenderOptions, render_board
from render import colours as C
from render.board import viewport_for
from render.static_layer import hex_fill
from rules.night.sight import lit_hexes
from tests.night_fixtures import H, decode, scene


def _picture(viewer: str):  # type: ignore[no-untyped-def]
    state = scene()
    snap = BoardSnapshot(state, ())
    opts = RenderOptions(locale="es", whole_board=True)
    return (
        state,
        decode(render_board(snap, viewer=viewer, options=opts)),
        viewport_for(snap, viewer=viewer, options=opts),
    )


def test_dark_hexes_are_darkened_and_lit_hexes_tinted_for_a_side() -> None:
    state, img, vp = _picture("a")
    theme = C.theme_for(state)

    def at(label: str) -> tuple[int, int]:
        x, y = vp.center(H(label))
        return round(x), round(y + vp.size * 0.45)  # low in the hex: clear of counters and labels

    dark = H("0909")
    assert img.getpixel(at(dark.label)) == C.mix(hex_fill(theme, state.board, dark), theme.fog, C.FOG_MIX)
    lit = sorted(lit_hexes(state))[0]
    assert img.getpixel(at(lit.label)) == C.mix(
        hex_fill(theme, state.board, lit), C.MARKER["flare"], C.LIT_MIX
    )
    assert len(lit_hexes(state)) == 7  # a flare: its hex and the six around (NGT-3, data/night/night.toml)


def test_a_unit_seen_only_by_its_gunflash_gets_a_question_mark_and_the_flash() -> None:
    _, img, vp = _picture("a")
    colours = {c for _, c in img.getcolors(1 << 20) or []}
    assert C.MARKER["gunflash"] in colours
    _, seen_by_b, _ = _picture("b")  # Tyranos' own Cora: no '?' needed, the flash on its own hex
    assert C.MARKER["gunflash"] in {c for _, c in seen_by_b.getcolors(1 << 20) or []}
    del vp


def test_a_ti_marker_is_drawn_on_a_unit_the_viewer_sees_and_never_on_one_it_does_not() -> None:
    from rules.state import Marker

    state = scene()
    opts = RenderOptions(locale="es", whole_board=True)

    def draw(s, viewer: str) -> bytes:  # type: ignore[no-untyped-def]
        return render_board(BoardSnapshot(s, ()), viewer=viewer, options=opts)

    alba = state.units["alba"].at
    ash = state.units["ash"].at
    assert alba is not None and ash is not None
    marked = state.replace(
        markers=(
            *state.markers,
            Marker(kind="ti", at=alba, owner="alba"),
            Marker(kind="ti", at=ash, owner="ash"),
        )
    )
    assert draw(marked, "a") != draw(state, "a")  # both are a's own: drawn
    only_alba = state.replace(markers=(*state.markers, Marker(kind="ti", at=alba, owner="alba")))
    assert draw(marked, "b") == draw(only_alba, "b")  # Ash is hidden from b: its TI draws nothing
