"""The toy rulesets' render overlay (``registry.plugin_module("toy-sim", "overlay")``): a plug-in that lives
outside ``render/`` draws under and over the counters and adds a legend entry, through the same loader as exo.

Under each pawn a magenta halo wider than its counter; over it a green badge on its centre; one legend entry,
a magenta hex outlined in green. Colours no other part of the picture uses, so a probe finds exactly these.
"""

from __future__ import annotations

from render.canvas import Canvas
from render.colours import RGB, Theme
from render.legend import LegendItem
from render.rulesets import Overlay, Scene

HALO: RGB = (255, 0, 255)
BADGE: RGB = (0, 255, 128)
HALO_SCALE = 1.4  # halo radius / counter radius: a ring of it shows around the counter
BADGE_SCALE = 0.3  # badge half-side / counter radius


class ToyOverlay(Overlay):
    __slots__ = ()

    def palette(self, theme: Theme) -> tuple[RGB, ...]:
        return HALO, BADGE

    def under(self, cv: Canvas, scene: Scene) -> None:
        for uid, (x, y) in _pawns(scene):
            r = scene.radius(uid) * HALO_SCALE
            cv.draw.ellipse((x - r, y - r, x + r, y + r), fill=cv.ink(HALO))

    def over(self, cv: Canvas, scene: Scene) -> None:
        for uid, (x, y) in _pawns(scene):
            k = scene.radius(uid) * BADGE_SCALE
            cv.draw.rectangle((x - k, y - k, x + k, y + k), fill=cv.ink(BADGE))

    def legend(self, scene: Scene) -> list[LegendItem]:
        return [LegendItem("toy pawn", "hex", HALO, extra=BADGE)] if any(_pawns(scene)) else []


def _pawns(scene: Scene) -> list[tuple[str, tuple[float, float]]]:
    return [(u.id, scene.centres[u.id]) for u in scene.view.seen if u.id in scene.centres]


OVERLAY = ToyOverlay()
