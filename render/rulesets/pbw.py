"""The pbw overlay (RULES.md §3.2): a character's Hit Points and fatigue bars, its damaged locations and the turns
of a treatment it is giving in the side panel (PBW-3, PBW-4, PBW-6), and a badge on the counter for a character that is prone, incapacitated or unconscious
(PBW-4); the dead are wrecks with the common renderer's cross; each move of the step leaves its trail."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence

from data.i18n import t
from render.canvas import Canvas
from render.colours import HIT, RGB, WHITE, Theme
from render.geometry import Point
from render.legend import LegendItem
from render.rulesets import Overlay, Scene, StatBar, View
from render.trails import draw_trails, trail_hexes, trail_legend
from rules.hexgrid import Hex
from rules.pbw.model import DEAD, INCAPACITATED, OK, PRONE, UNCONSCIOUS, Character
from rules.pbw.tables import LOCATIONS
from rules.pbw.turn import TREAT_TURNS
from rules.state import Unit

BADGE: dict[str, RGB] = {
    PRONE: (240, 170, 40),  # amber: down, still fighting
    INCAPACITATED: (235, 100, 35),  # orange: crawls only
    UNCONSCIOUS: (120, 110, 220),  # violet: out
}
FATIGUE_BAR: RGB = (95, 150, 235)
TREAT_BAR: RGB = (60, 175, 95)  # PBW-6: the turns of a treatment under way, of ten


def _ring(cv: Canvas, at: Point, k: float, colour: RGB, outline: RGB) -> None:
    cv.draw.ellipse(
        (at[0] - k, at[1] - k, at[0] + k, at[1] + k), fill=cv.ink(colour), outline=cv.ink(outline)
    )


def prone(cv: Canvas, at: Point, size: float, outline: RGB) -> None:
    """PBW-4 a useless leg: the character is on the ground (a bar lying flat)."""
    k = max(5.0, size * 0.26)
    _ring(cv, at, k, BADGE[PRONE], outline)
    w = max(2, round(k / 3))
    cv.draw.line((at[0] - k * 0.6, at[1], at[0] + k * 0.6, at[1]), fill=cv.ink(outline), width=w)


def incapacitated(cv: Canvas, at: Point, size: float, outline: RGB) -> None:
    """PBW-4 a useless torso: it can only crawl (a cross)."""
    k = max(5.0, size * 0.26)
    _ring(cv, at, k, BADGE[INCAPACITATED], outline)
    w = max(2, round(k / 3))
    cv.draw.line((at[0] - k * 0.6, at[1], at[0] + k * 0.6, at[1]), fill=cv.ink(WHITE), width=w)
    cv.draw.line((at[0], at[1] - k * 0.6, at[0], at[1] + k * 0.6), fill=cv.ink(WHITE), width=w)


def unconscious(cv: Canvas, at: Point, size: float, outline: RGB) -> None:
    """PBW-4 a useless head: knocked out (a hollow eye)."""
    k = max(5.0, size * 0.26)
    _ring(cv, at, k, BADGE[UNCONSCIOUS], outline)
    w = max(2, round(k / 3))
    cv.draw.line(
        (at[0] - k * 0.6, at[1] + k * 0.1, at[0] + k * 0.6, at[1] + k * 0.1), fill=cv.ink(WHITE), width=w
    )


def dead(cv: Canvas, at: Point, size: float, outline: RGB) -> None:
    """For the legend: the common renderer crosses out a dead character's counter."""
    k = max(5.0, size * 0.26)
    w = max(2, round(k / 3))
    cv.draw.line((at[0] - k, at[1] - k, at[0] + k, at[1] + k), fill=cv.ink(HIT), width=w)
    cv.draw.line((at[0] - k, at[1] + k, at[0] + k, at[1] - k), fill=cv.ink(HIT), width=w)


GLYPHS: dict[str, Callable[[Canvas, Point, float, RGB], None]] = {
    PRONE: prone,
    INCAPACITATED: incapacitated,
    UNCONSCIOUS: unconscious,
    DEAD: dead,
}


def _characters(scene: Scene) -> Iterable[Character]:
    return (u for u in scene.view.seen if isinstance(u, Character) and u.at is not None)


class PbwOverlay(Overlay):
    __slots__ = ()

    def frame(self, view: View) -> Iterator[Hex]:
        yield from trail_hexes(view)

    def under(self, cv: Canvas, scene: Scene) -> None:
        """Where each character moved this step (a move action, PBW-2), as the other rulesets' trails."""
        draw_trails(cv, scene)

    def over(self, cv: Canvas, scene: Scene) -> None:
        """A badge at the upper right of the counter of a character that is down (PBW-4)."""
        for ch in _characters(scene):
            glyph = GLYPHS.get(ch.condition)
            if glyph is None or ch.condition == DEAD or ch.id not in scene.centres:
                continue
            cx, cy = scene.centres[ch.id]
            r = scene.radius(ch.id)
            glyph(cv, (cx + r * 0.8, cy - r * 0.8), scene.viewport.size, scene.theme.outline)

    def legend(self, scene: Scene) -> list[LegendItem]:
        shown = {ch.condition for ch in _characters(scene)}
        return [
            LegendItem(t(f"render.legend.pbw_{c}", scene.locale), "glyph", BADGE.get(c, HIT), glyph=GLYPHS[c])
            for c in (PRONE, INCAPACITATED, UNCONSCIOUS, DEAD)
            if c in shown
        ] + trail_legend(scene)

    def palette(self, theme: Theme) -> Iterable[RGB]:
        return (*BADGE.values(), FATIGUE_BAR, TREAT_BAR)

    def stat_bars(self, unit: Unit) -> Sequence[StatBar]:
        """Hit Points (the counter's damage bar), fatigue up to exhaustion at twice the attribute (PBW-3), and each
        damaged location's resistance (PBW-4), so a row stays short while the character is whole."""
        if not isinstance(unit, Character):
            return ()
        bars = [
            StatBar("render.stat.pbw_hp", unit.hp, max(unit.max_hp, unit.hp)),
            StatBar(
                "render.stat.pbw_fatigue",
                unit.fatigue,
                2 * unit.fatigue_attribute,
                good_high=False,
                damage=False,
                colour=FATIGUE_BAR,
            ),
        ]
        for loc in LOCATIONS:
            now, full = unit.resistance.get(loc, 0), unit.max_resistance.get(loc, 0)
            if full and now < full:
                bars.append(StatBar(f"render.stat.pbw_{loc}", max(now, 0), full, damage=False))
        if unit.treating is not None and unit.treating.turns:
            turns = unit.treating.turns
            bars.append(StatBar("render.stat.pbw_treat", turns, TREAT_TURNS, damage=False, colour=TREAT_BAR))
        return bars

    def signature(self, unit: Unit) -> tuple[object, ...]:
        if not isinstance(unit, Character):
            return ()
        return (
            unit.hp,
            unit.fatigue,
            unit.condition != OK and unit.condition,
            tuple(sorted(unit.resistance.items())),
            unit.treating,
        )


OVERLAY = PbwOverlay()
