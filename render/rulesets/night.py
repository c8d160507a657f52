"""The night layer's overlay (RULES.md NGT): lit areas around flares and illuminating rounds (NGT-3) and
gunflashes (NGT-4). Light is seen from anywhere (NGT-2), so lights are drawn and framed even where the viewer
sees nothing else; a gunflash only on a hex the viewer sees, or on a unit it sees as a '?'. The lit hexes come from
the layer itself (``rules.night.sight.lit_hexes``, radii in ``data/night/night.toml``), never a radius of its own."""

from __future__ import annotations

from collections.abc import Iterator

from data.i18n import t
from render import colours as C
from render.canvas import Canvas
from render.colours import MARKER, RGB
from render.geometry import Point
from render.legend import LegendItem
from render.rulesets import Overlay, Scene, View
from render.shapes import star
from render.static_layer import hex_fill
from rules.hexgrid import Hex
from rules.night.sight import lit_hexes
from rules.night.tables import GUNFLASH, LIGHTS, TI
from rules.state import Marker, Unit


def light(cv: Canvas, at: Point, size: float, outline: RGB) -> None:
    star(cv, at, max(6.0, size * 0.42), 4, MARKER["flare"], outline)


def gunflash(cv: Canvas, at: Point, size: float, outline: RGB) -> None:
    """In the upper right of the hex, clear of the counter's label."""
    star(cv, (at[0] + size * 0.45, at[1] - size * 0.3), max(5.0, size * 0.3), 8, MARKER[GUNFLASH], outline)


def ti(cv: Canvas, at: Point, size: float, outline: RGB) -> None:
    """NGT-5: a unit marked TI after straying, "TI" in the lower left of its hex."""
    cv.text(
        (at[0] - size * 0.5, at[1] + size * 0.3),
        "TI",
        size=max(8, round(size * 0.3)),
        fill=outline,
        bold=True,
        anchor="lm",
    )


def _ti_units(view: View) -> list[Unit]:
    """Units marked TI that the viewer sees in full (a TI marker never hints at anyone else)."""
    owners = {m.owner for m in view.state.markers if m.kind == TI}
    return [u for u in view.seen if u.id in owners and u.at is not None]


def _markers(view: View) -> Iterator[Marker]:
    """Lights wherever they are (NGT-2), gunflashes on hexes the viewer sees or of units it sees as a '?' (a
    gunflash beyond NVR is what gives them away, NGT-2); in the state's order."""
    for m in view.state.markers:
        if m.kind in LIGHTS or (m.kind == GUNFLASH and (m in view.markers or m.owner in view.vis.concealed)):
            yield m


class NightOverlay(Overlay):
    __slots__ = ()

    def frame(self, view: View) -> Iterator[Hex]:
        return (m.at for m in _markers(view))

    def tints(self, scene: Scene) -> dict[Hex, RGB]:
        """NGT-3: the lit hexes exactly as the layer computes them (radius from ``data/night/night.toml``)."""
        theme, board = scene.theme, scene.state.board
        return {
            h: C.mix(hex_fill(theme, board, h), MARKER["flare"], C.LIT_MIX) for h in lit_hexes(scene.state)
        }

    def under(self, cv: Canvas, scene: Scene) -> None:
        vp = scene.viewport
        for m in _markers(scene.view):
            if vp.shows(m.at):
                glyph = gunflash if m.kind == GUNFLASH else light
                glyph(cv, vp.center(m.at), vp.size, scene.theme.outline)

    def over(self, cv: Canvas, scene: Scene) -> None:
        vp = scene.viewport
        for u in _ti_units(scene.view):
            if u.at is not None and vp.shows(u.at):
                ti(cv, vp.center(u.at), vp.size, scene.theme.outline)

    def legend(self, scene: Scene) -> list[LegendItem]:
        items: list[LegendItem] = []
        if _ti_units(scene.view):
            items.append(
                LegendItem(t("render.legend.ti", scene.locale), "glyph", scene.theme.outline, glyph=ti)
            )
        for kind in sorted({m.kind for m in _markers(scene.view)}):
            text = t(f"render.legend.{kind}", scene.locale)
            if kind == GUNFLASH:
                items.append(LegendItem(text, "glyph", MARKER[GUNFLASH], glyph=gunflash))
            else:
                items.append(LegendItem(text, "hex", C.mix(scene.theme.hex_fill, MARKER["flare"], C.LIT_MIX)))
        return items


OVERLAY = NightOverlay()
