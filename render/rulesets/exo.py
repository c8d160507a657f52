"""The exo overlay (RULES.md §1): vector counters and velocity arrows (EXO-1.1), last-move trails, debris and
asteroids as neutral pieces (EXO-1.2), and a ship's stat bars."""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence

from data.i18n import t
from render import colours as C
from render.canvas import Canvas
from render.colours import RGB
from render.geometry import Point, arrow_head, toward
from render.legend import LegendItem
from render.rulesets import Overlay, Scene, StatBar, View
from render.trails import draw_trails, trail_hexes, trail_legend
from rules.exo import Ship, SpaceObject
from rules.hexgrid import Hex
from rules.state import Unit


def _vector(unit: Unit) -> Hex | None:
    return unit.vector if isinstance(unit, Ship | SpaceObject) else None


class ExoOverlay(Overlay):
    __slots__ = ()

    def frame(self, view: View) -> Iterator[Hex]:
        for u in view.seen:
            vec = _vector(u)
            if vec is not None and u.at is not None and not u.destroyed:
                yield vec
        yield from trail_hexes(view)

    def under(self, cv: Canvas, scene: Scene) -> None:
        draw_trails(cv, scene)
        for u in scene.view.seen:
            vec = _vector(u)
            if vec is None or u.at is None or u.destroyed or u.id not in scene.centres:
                continue
            colour = scene.colour_of(u)
            ship = scene.centres[u.id]
            target = scene.viewport.center(vec) if vec != u.at else ship
            light = C.mix(colour, C.WHITE, 0.4)
            vector_token(cv, ship, target, scene.viewport.size, colour, light, scene.radii[u.id])

    def legend(self, scene: Scene) -> list[LegendItem]:
        items: list[LegendItem] = []
        if any(_vector(u) is not None for u in scene.view.seen):
            items.append(LegendItem(t("render.legend.vector", scene.locale), "ring", scene.theme.panel_text))
        return items + trail_legend(scene)

    def stat_bars(self, unit: Unit) -> Sequence[StatBar]:
        if not isinstance(unit, Ship):
            return ()
        return (
            StatBar("render.stat.armor", unit.armor, unit.max_armor),
            StatBar("render.stat.structure", unit.structure, unit.max_structure),
            StatBar("render.stat.engines", unit.engines, unit.max_engines, damage=False),
            # EXO-2.2: this round's maneuverability out of the ship's current one
            StatBar("render.stat.manta", unit.manta, unit.maneuverability, damage=False),
            StatBar("render.stat.cabin", unit.cabin, unit.max_cabin),
            StatBar("render.stat.cargo", unit.cargo, unit.max_cargo),
        )

    def neutral_colour(self, unit: Unit) -> RGB | None:
        return C.NEUTRAL.get(unit.kind)  # debris and asteroids belong to no one (EXO-1.2)

    def signature(self, unit: Unit) -> tuple[object, ...]:
        if isinstance(unit, Ship):
            return unit.vector, unit.armor, unit.structure
        return (_vector(unit),)


OVERLAY = ExoOverlay()


def vector_token(
    cv: Canvas, ship: Point, vector: Point, size: float, colour: RGB, light: RGB, r_ship: float
) -> None:
    """Exo vector counter (EXO-1.1) and the velocity arrow from the ship to it."""
    rv = max(4.0, size * 0.36)
    w = max(2, round(size * 0.09))
    dist = math.dist(ship, vector)
    if dist < 1.0:  # speed 0: the vector sits under the ship
        cv.draw.ellipse(
            (ship[0] - r_ship - 4, ship[1] - r_ship - 4, ship[0] + r_ship + 4, ship[1] + r_ship + 4),
            outline=cv.ink(light),
            width=w,
        )
        return
    start = toward(ship, vector, r_ship + 2)
    tip = toward(vector, ship, rv + 1)
    if math.dist(start, tip) > 4:
        cv.draw.line((start, tip), fill=cv.ink(light), width=w)
        cv.draw.polygon(arrow_head(tip, start, max(7.0, size * 0.32)), fill=cv.ink(light))
    cv.draw.ellipse(
        (vector[0] - rv, vector[1] - rv, vector[0] + rv, vector[1] + rv), outline=cv.ink(colour), width=w + 1
    )
    cv.draw.ellipse((vector[0] - 2, vector[1] - 2, vector[0] + 2, vector[1] + 2), fill=cv.ink(colour))
