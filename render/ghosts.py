"""Where units stood before (a catch-up's picture, ``bot/catchup.py``): a faded outline counter at the hex a unit
left, in its side's colour, and a dashed line from there to where it stands now.

Only units the viewer sees now are ghosted (FOG-1, NGT-9): the picture never draws where a unit it cannot see
was. The caller names only moves whose both ends the viewer saw.
"""

from __future__ import annotations

from data.i18n import t
from render import colours as C
from render.canvas import Canvas
from render.counters import CounterLook, draw_counter
from render.legend import LegendItem
from render.scene import Scene, View
from render.shapes import trail
from rules.hexgrid import Hex


def ghost_hexes(view: View) -> list[Hex]:
    """The hexes units left, to frame them with where they are now."""
    return [h for _, h in view.ghosts]


def draw_ghosts(cv: Canvas, scene: Scene) -> None:
    """Under the counters: each ghost's outline and its line to the unit's counter."""
    vp = scene.viewport
    for unit, frm in scene.view.ghosts:
        if unit.at is None or unit.id not in scene.centres or unit.at == frm:
            continue
        colour = scene.colour_of(unit)
        start = vp.center(frm)
        trail(
            cv, [start, scene.centres[unit.id]], vp.size, C.mix(colour, C.WHITE, 0.4), scene.radius(unit.id)
        )
        if not vp.shows(frm):
            continue
        look = CounterLook(
            colour=colour,
            outline=scene.theme.outline,
            label=unit.short,
            facing=None,
            vertex_facing=scene.vertex_facing,
            ghost=True,
        )
        draw_counter(cv, start, vp.size, look, vp.counter_scale, start, vp.counter_scale, vp.min_label)


def ghost_legend(scene: Scene) -> list[LegendItem]:
    if not scene.view.ghosts:
        return []
    return [LegendItem(t("render.legend.ghost", scene.locale), "ring", C.PREVIEW)]
