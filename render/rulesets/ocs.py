"""The ocs overlay (RULES.md §4): hedgehog levels (OCS-1), the open combats (the defender hex ringed, an arrow
from each attacker, the combat number), each counter's strength and AR, steps and mode (DG, strategic: OCS-1),
the steps lost in this step (OCS-6) and retreats as trails (OCS-6), and the side panel's steps and AR.

Sizes follow the hex size with floors, so the marks stay readable when Discord shows the board ~550 px wide."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from data.i18n import t
from render import colours as C
from render.canvas import Canvas, text_width
from render.colours import RGB
from render.geometry import Point, arrow_head, toward
from render.legend import LegendItem
from render.rulesets import Overlay, Scene, StatBar, View
from render.trails import draw_trails, trail_hexes, trail_legend
from rules.hexgrid import Hex
from rules.ocs.events import OcsStepLost
from rules.ocs.legality import HEDGEHOG
from rules.ocs.model import DG, NORMAL, STRATEGIC, Combat, OcsUnit, ext_of, role_units
from rules.ocs.queries import questions
from rules.state import Unit

ATTACK: RGB = (214, 30, 40)  # open combats: the defender hex ring and the attack arrows
LOSS: RGB = (230, 20, 20)  # steps lost this step
HEDGEHOG_INK: RGB = (60, 50, 30)
HEDGEHOG_FILL: RGB = (250, 240, 200)
MODE_FILL: dict[str, RGB] = {DG: (250, 210, 40), STRATEGIC: (90, 170, 250)}
MODE_TAG = {DG: "DG", STRATEGIC: "S"}


def _font(size: float, share: float, floor: int = 10) -> int:
    return max(floor, round(size * share))


class OcsOverlay(Overlay):
    __slots__ = ()

    def frame(self, view: View) -> Iterator[Hex]:
        yield from (c.at for c in _combats(view))
        yield from trail_hexes(view)

    def acting(self, view: View) -> list[str]:
        """OCS-2/6: the stack whose answer a combat waits for (its AR unit, its losses, its retreat): every unit
        of that side in the combat, when one combat waits (several at once: nobody singled out)."""
        asked = questions(view.state)
        if len(asked) != 1:
            return []
        combat = next(c for c in ext_of(view.state).combats if c.id == asked[0].combat)
        seen = {u.id for u in view.seen}
        return [u.id for u in role_units(view.state, combat, asked[0].role) if u.id in seen]

    def under(self, cv: Canvas, scene: Scene) -> None:
        draw_trails(cv, scene)
        for combat in _combats(scene.view):
            if scene.viewport.shows(combat.at):
                _arrows(cv, scene, combat)

    def over(self, cv: Canvas, scene: Scene) -> None:
        vp = scene.viewport
        for combat in _combats(scene.view):
            if vp.shows(combat.at):
                _ring(cv, scene, combat)
        levels = scene.state.board.features.get(HEDGEHOG, {})
        for h, level in sorted(levels.items(), key=lambda x: x[0].label):
            if level > 0 and vp.shows(h) and _visible_hex(scene.view, h):
                _hedgehog(cv, vp.center(h), vp.size, level)
        lost: dict[str, int] = {}
        for e in scene.view.events:
            if isinstance(e, OcsStepLost):
                lost[e.unit] = lost.get(e.unit, 0) + 1
        for unit in scene.view.seen:
            if not isinstance(unit, OcsUnit) or unit.at is None or unit.id not in scene.centres:
                continue
            centre, r = scene.centres[unit.id], scene.radius(unit.id)
            if not unit.destroyed:
                _strength(cv, centre, r, unit, scene)
                _steps(cv, centre, r, unit.steps, scene)
                if unit.mode != NORMAL:
                    _mode(cv, centre, r, unit.mode, scene)
            if unit.id in lost:
                _loss(cv, centre, r, lost[unit.id], scene)

    def foot(self, unit: Unit) -> float:
        """The strength-AR tag reaches about a third of a radius under the disc (:func:`_strength`)."""
        return 0.4 if isinstance(unit, OcsUnit) and not unit.destroyed else 0.0

    def legend(self, scene: Scene) -> list[LegendItem]:
        items: list[LegendItem] = []
        loc = scene.locale
        if any(isinstance(u, OcsUnit) and not u.destroyed and u.id in scene.centres for u in scene.view.seen):
            items.append(
                LegendItem(t("render.legend.ocs.counter", loc), "glyph", C.WHITE, glyph=_counter_symbol)
            )
        if _combats(scene.view):
            items.append(LegendItem(t("render.legend.ocs.attack", loc), "line", ATTACK))
        if any(isinstance(e, OcsStepLost) for e in scene.view.events):
            items.append(LegendItem(t("render.legend.ocs.loss", loc), "ring", LOSS))
        if any(level > 0 for level in scene.state.board.features.get(HEDGEHOG, {}).values()):
            items.append(LegendItem(t("render.legend.ocs.hedgehog", loc), "hex", HEDGEHOG_FILL))
        if any(isinstance(u, OcsUnit) and u.mode != NORMAL and not u.destroyed for u in scene.view.seen):
            items.append(
                LegendItem(t("render.legend.ocs.dg", loc), "hex", MODE_FILL[DG], MODE_FILL[STRATEGIC])
            )
        return items + trail_legend(scene)

    def palette(self, theme: C.Theme) -> list[RGB]:
        return [ATTACK, LOSS, HEDGEHOG_INK, HEDGEHOG_FILL, *MODE_FILL.values()]

    def stat_bars(self, unit: Unit) -> Sequence[StatBar]:
        if not isinstance(unit, OcsUnit):
            return ()
        return (
            StatBar("render.stat.ocs_steps", unit.steps, damage=False),
            StatBar("render.stat.ocs_ar", unit.action_rating, damage=False),
        )

    def signature(self, unit: Unit) -> tuple[object, ...]:
        return (unit.steps, unit.mode) if isinstance(unit, OcsUnit) else ()


OVERLAY = OcsOverlay()


def _combats(view: View) -> tuple[Combat, ...]:
    """Open combats whose defender hex the viewer sees."""
    return tuple(c for c in ext_of(view.state).combats if _visible_hex(view, c.at))


def _visible_hex(view: View, h: Hex) -> bool:
    return view.vis.hexes is None or h in view.vis.hexes


def _hedgehog(cv: Canvas, at: Point, size: float, level: int) -> None:
    """OCS-1: the hedgehog level in a tag at the top of the hex."""
    fs = _font(size, 0.32)
    x, y = at[0], at[1] - size * 0.7
    w, h = fs * 1.5, fs * 0.75
    cv.draw.rectangle((x - w, y - h, x + w, y + h), fill=cv.ink(HEDGEHOG_FILL), outline=cv.ink(HEDGEHOG_INK))
    cv.text((x, y), f"H{level}", size=fs, fill=HEDGEHOG_INK, bold=True, anchor="mm", bg=HEDGEHOG_FILL)


RING = 0.8  # the defender hex ring's radius, in hex sizes


def _arrows(cv: Canvas, scene: Scene, combat: Combat) -> None:
    """An arrow from each attacker to the defender hex (under the counters: it shows between them)."""
    vp = scene.viewport
    centre = vp.center(combat.at)
    w = max(3, round(vp.size * 0.12))
    for uid in combat.attackers:
        if uid not in scene.centres:
            continue
        start = scene.centres[uid]
        tip = toward(centre, start, vp.size * RING)
        cv.draw.line((start, tip), fill=cv.ink(ATTACK), width=w)
        cv.draw.polygon(arrow_head(tip, start, max(9.0, vp.size * 0.4)), fill=cv.ink(ATTACK))


def _ring(cv: Canvas, scene: Scene, combat: Combat) -> None:
    """The defender hex ringed (over the counters), with the combat number under it."""
    vp = scene.viewport
    centre = vp.center(combat.at)
    w = max(2, round(vp.size * 0.09))
    rr = vp.size * RING
    cv.draw.ellipse(
        (centre[0] - rr, centre[1] - rr, centre[0] + rr, centre[1] + rr), outline=cv.ink(ATTACK), width=w
    )
    fs = _font(vp.size, 0.36, floor=11)
    x, y = centre[0], centre[1] + rr
    d = fs * 0.75
    cv.draw.rectangle((x - d * 1.3, y - d * 0.75, x + d * 1.3, y + d * 0.75), fill=cv.ink(ATTACK))
    cv.text((x, y), f"#{combat.id}", size=fs, fill=C.WHITE, bold=True, anchor="mm", bg=ATTACK)


def _strength(cv: Canvas, centre: Point, r: float, unit: OcsUnit, scene: Scene) -> None:
    """OCS-1: combat strength and Action Rating (as modified by the mode, the figure the dice read), "4-3" in a
    tag across the counter's lower left, as a printed counter carries them."""
    text = f"{unit.strength:g}-{unit.action_rating}"
    fs = _font(r, 0.62)
    half_w, half_h = text_width(text, fs, True) / 2 + fs * 0.25, fs * 0.6
    x, y = centre[0] + r * 0.3 - half_w, centre[1] + r * 0.92  # its right end clear of the steps disc
    box = (x - half_w, y - half_h, x + half_w, y + half_h)
    cv.draw.rectangle(box, fill=cv.ink(C.WHITE), outline=cv.ink(scene.theme.outline))
    cv.text((x, y), text, size=fs, fill=C.BLACK, bold=True, anchor="mm", bg=C.WHITE)


def _counter_symbol(cv: Canvas, at: Point, size: float, outline: RGB) -> None:
    """The legend's sample of a counter's figures: strength-AR under it, steps beside it."""
    x, y = at
    cv.draw.rectangle((x - 13, y - 7, x + 13, y + 7), fill=cv.ink(C.WHITE), outline=cv.ink(outline))
    cv.text((x, y), "4-3", size=12, fill=C.BLACK, bold=True, anchor="mm", bg=C.WHITE)


def _steps(cv: Canvas, centre: Point, r: float, steps: int, scene: Scene) -> None:
    """Steps left, in a small disc at the counter's lower right."""
    fs = _font(r, 0.62)
    x, y = centre[0] + r * 0.78, centre[1] + r * 0.72
    d = fs * 0.62
    cv.draw.ellipse((x - d, y - d, x + d, y + d), fill=cv.ink(C.WHITE), outline=cv.ink(scene.theme.outline))
    cv.text((x, y), str(steps), size=fs, fill=C.BLACK, bold=True, anchor="mm", bg=C.WHITE)


def _mode(cv: Canvas, centre: Point, r: float, mode: str, scene: Scene) -> None:
    """OCS-1: DG or strategic mode, a tag at the counter's upper left."""
    fill = MODE_FILL[mode]
    fs = _font(r, 0.55)
    x, y = centre[0] - r * 0.7, centre[1] - r * 0.78
    w, h = fs * 0.85, fs * 0.62
    cv.draw.rectangle((x - w, y - h, x + w, y + h), fill=cv.ink(fill), outline=cv.ink(scene.theme.outline))
    cv.text((x, y), MODE_TAG[mode], size=fs, fill=C.BLACK, bold=True, anchor="mm", bg=fill)


def _loss(cv: Canvas, centre: Point, r: float, count: int, scene: Scene) -> None:
    """OCS-6: the steps lost in this step, a red ring and a "−n" over the counter."""
    w = max(2, round(r * 0.18))
    rr = r + w
    cv.draw.ellipse(
        (centre[0] - rr, centre[1] - rr, centre[0] + rr, centre[1] + rr), outline=cv.ink(LOSS), width=w
    )
    fs = _font(r, 0.7, floor=11)
    cv.text(
        (centre[0] + r * 0.8, centre[1] - r * 0.9),
        f"−{count}",
        size=fs,
        fill=LOSS,
        bold=True,
        anchor="mm",
        bg=scene.theme.hex_fill,
    )
