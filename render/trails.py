"""Last-move trails (``UnitMoved``): a dashed line through every hex entered, for the overlays that draw them."""

from __future__ import annotations

from data.i18n import t
from render import colours as C
from render.canvas import Canvas
from render.geometry import Point
from render.legend import LegendItem
from render.scene import Scene, View
from render.shapes import trail
from rules.events import UnitMoved
from rules.hexgrid import Hex


def trail_hexes(view: View) -> list[Hex]:
    """Every hex the viewer's visible units moved through this step (to frame them)."""
    return [h for mv in view.moves for h in (mv.frm, *mv.path, mv.to) if h is not None]


def draw_trails(cv: Canvas, scene: Scene) -> None:
    vp = scene.viewport
    for mv in scene.view.moves:
        if any(vp.shows(h) for h in (mv.frm, *mv.path, mv.to) if h is not None):
            _draw_trail(cv, scene, mv)


def trail_legend(scene: Scene) -> list[LegendItem]:
    if not scene.view.moves:
        return []
    return [LegendItem(t("render.legend.trail", scene.locale), "dash", scene.theme.panel_dim)]


def _draw_trail(cv: Canvas, scene: Scene, mv: UnitMoved) -> None:
    unit = scene.state.units.get(mv.unit)
    hexes = [h for h in (mv.frm, *mv.path, mv.to) if h is not None]
    pts: list[Point] = []
    for h in hexes:
        p = scene.viewport.center(h)
        if not pts or pts[-1] != p:
            pts.append(p)
    if mv.unit in scene.centres and pts:
        pts[-1] = scene.centres[mv.unit]
    colour = C.mix(scene.colour_of(unit) if unit else C.MISS, C.WHITE, 0.4)
    trail(cv, pts, scene.viewport.size, colour, scene.radius(mv.unit))
