"""The skirmish overlay (RULES.md §2): burning hexes and equipment left by the dead, last-move trails, and a
character's AP and wound bars."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from data.i18n import t
from render import colours as C
from render.canvas import Canvas
from render.colours import MARKER, RGB
from render.geometry import Point
from render.legend import LegendItem, Symbol
from render.rulesets import Overlay, Scene, StatBar, View
from render.static_layer import hex_fill
from render.trails import draw_trails, trail_hexes, trail_legend
from rules.hexgrid import Hex
from rules.skirmish.activation import waiting_characters
from rules.skirmish.geometry import EQUIPMENT, FIRE
from rules.skirmish.model import Character
from rules.state import Unit


def flame(cv: Canvas, at: Point, size: float, outline: RGB) -> None:
    """A burning hex (SK-6.2 grenade fire), drawn a little below the hex centre."""
    x, y = at[0], at[1] + size * 0.15
    h = max(6.0, size * 0.5)
    outer = [
        (x, y - h),
        (x + h * 0.55, y + h * 0.1),
        (x + h * 0.35, y + h * 0.6),
        (x - h * 0.35, y + h * 0.6),
        (x - h * 0.55, y + h * 0.1),
    ]
    cv.draw.polygon(outer, fill=cv.ink(MARKER["fire"]), outline=cv.ink(outline))
    inner = [(x, y - h * 0.3), (x + h * 0.25, y + h * 0.3), (x - h * 0.25, y + h * 0.3)]
    cv.draw.polygon(inner, fill=cv.ink(MARKER["gunflash"]))


def crate(cv: Canvas, at: Point, size: float, outline: RGB) -> None:
    """Equipment a dead character left (SK-3.4), in the lower left of the hex."""
    k = max(4.0, size * 0.3)
    px, py = at[0] - size * 0.42, at[1] + size * 0.3
    cv.draw.rectangle(
        (px - k * 0.6, py - k * 0.6, px + k * 0.6, py + k * 0.6),
        fill=cv.ink(MARKER["equipment"]),
        outline=cv.ink(outline),
    )
    cv.draw.line((px - k * 0.6, py, px + k * 0.6, py), fill=cv.ink(outline), width=1)


GLYPHS: dict[str, Symbol] = {EQUIPMENT: crate, FIRE: flame}


class SkirmishOverlay(Overlay):
    __slots__ = ()

    def acting(self, view: View) -> list[str]:
        """SK-1.1: the characters of the drawn chit that may still act (its player picks one), then the one
        whose activation runs: each one the viewer sees."""
        seen = {u.id for u in view.seen}
        return [uid for uid in waiting_characters(view.state) if uid in seen]

    def frame(self, view: View) -> Iterator[Hex]:
        yield from (m.at for m in view.markers if m.kind in GLYPHS)
        yield from trail_hexes(view)

    def tints(self, scene: Scene) -> dict[Hex, RGB]:
        theme, board = scene.theme, scene.state.board
        return {
            m.at: C.mix(hex_fill(theme, board, m.at), MARKER[FIRE], C.FIRE_MIX)
            for m in scene.view.markers
            if m.kind == FIRE and board.contains(m.at)
        }

    def under(self, cv: Canvas, scene: Scene) -> None:
        vp = scene.viewport
        for m in scene.view.markers:
            glyph = GLYPHS.get(m.kind)
            if glyph is not None and vp.shows(m.at):
                glyph(cv, vp.center(m.at), vp.size, scene.theme.outline)
        draw_trails(cv, scene)

    def legend(self, scene: Scene) -> list[LegendItem]:
        kinds = sorted({m.kind for m in scene.view.markers if m.kind in GLYPHS})
        items = [
            LegendItem(t(f"render.legend.{k}", scene.locale), "glyph", MARKER[k], glyph=GLYPHS[k])
            for k in kinds
        ]
        return items + trail_legend(scene)

    def stat_bars(self, unit: Unit) -> Sequence[StatBar]:
        if not isinstance(unit, Character):
            return ()
        return (
            StatBar("render.stat.ap", unit.ap_left, unit.ap, damage=False),
            StatBar("render.stat.wounds", unit.wounds, unit.max_wounds, good_high=False),
        )


OVERLAY = SkirmishOverlay()
