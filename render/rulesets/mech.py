"""The mech overlay (RULES.md §3.1): elevation (each raised hex shaded by level, its level in a tag: MECH-1.2,
MECH-2.1), every shot and physical attack of the step as the common firing lines (MECH-2.1/2.2), the torso twist
drawn apart from the legs' facing (MECH-1.3), heat, armour and structure in the side panel (MECH-3.1/3.2,
MECH-2.3; the doll by location is ``/unit info``'s), marks for a shut-down or prone mech, and for an air unit
(MECH-5) its shadow on the ground and an altitude mark (a ring when a fighter is out of control)."""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import replace

from data.i18n import t
from render import colours as C
from render.canvas import Canvas, text_width
from render.colours import RGB, Theme
from render.counters import bar_colour
from render.geometry import Point
from render.legend import LegendItem
from render.rulesets import Overlay, Scene, StatBar, View
from render.static_layer import hex_fill
from render.trails import draw_trails, trail_hexes, trail_legend
from rules.events import ShotResolved
from rules.hexgrid import Hex
from rules.mech.events import DamageDealt, FireSpent, PhysicalAttackMade, PhysicalSpent, WeaponFired
from rules.mech.geometry import ELEVATION
from rules.mech.model import Mech
from rules.mech.tables import tables
from rules.state import Unit

TORSO: RGB = (250, 250, 250)  # the torso tick: white over any side colour
SHUTDOWN: RGB = (90, 90, 100)
SHADOW: RGB = (40, 40, 48)  # an air unit's shadow on the ground (MECH-5)
ALTITUDE: RGB = (120, 200, 255)  # the altitude chevron over an air unit
OUT_OF_CONTROL: RGB = (230, 60, 40)
#: elevation (MECH-1.2, MECH-2.1: it costs movement and blocks sight): the hex darkened toward this slate, more
#: for each level (slate, not brown: rough ground is already tan), and its level in a tag of this colour
HILL: RGB = (62, 64, 78)
HILL_SHARE = (0.0, 0.22, 0.4, 0.55)  # by level; higher levels take the last


def _fraction(value: int, maximum: int) -> float:
    return max(0.0, min(1.0, value / maximum)) if maximum > 0 else 0.0


def heat_colour(heat: int) -> RGB:
    """Cool to hot: green under the first MECH-3.2 effect, amber, then red from the MP loss on."""
    return bar_colour(1.0 - _fraction(heat, tables().automatic_shutdown))


def hill_shade(fill: RGB, level: int) -> RGB:
    """A hex's fill (terrain or open ground) at ``level``: darker the higher it is."""
    return C.mix(fill, HILL, HILL_SHARE[min(level, len(HILL_SHARE) - 1)])


class MechOverlay(Overlay):
    __slots__ = ()

    def frame(self, view: View) -> Iterator[Hex]:
        yield from trail_hexes(view)

    def tints(self, scene: Scene) -> dict[Hex, RGB]:
        """Raised hexes shaded by level (the terrain's own colour still shows through)."""
        theme, board = scene.theme, scene.state.board
        return {
            h: hill_shade(hex_fill(theme, board, h), level)
            for h, level in board.features.get(ELEVATION, {}).items()
            if level > 0 and board.contains(h)
        }

    def under(self, cv: Canvas, scene: Scene) -> None:
        draw_trails(cv, scene)
        # MECH-5: an air unit casts its shadow down and to the right of its counter: it is flying over the hex
        for u in _air_units(scene):
            cx, cy = scene.centres[u.id]
            r = scene.radius(u.id)
            dx = r * (0.9 if u.is_fighter else 0.7)  # a fighter flies higher: its shadow falls further off
            box = (cx - r * 0.9 + dx, cy - r * 0.4 + dx, cx + r * 0.9 + dx, cy + r * 0.4 + dx)
            cv.draw.ellipse(box, fill=cv.ink(SHADOW))

    def over(self, cv: Canvas, scene: Scene) -> None:
        """Each raised or sunken hex's level at its foot, the torso's facing as a white tick where it differs
        from the legs' (the nose), the marks of an air unit and of a mech shut down or prone.

        Heat and the armour doll are not on the board: at 550 px a gauge beside a counter is a pixel wide and the
        panel's doll a dozen pixels tall, with no figure legible. The panel row keeps heat, armour and structure
        as numbers, and ``/unit info`` sends the doll with every location's figures (``render/doll.py``)."""
        vp = scene.viewport
        for h, level in sorted(scene.state.board.features.get(ELEVATION, {}).items()):
            if level != 0 and vp.shows(h):
                _level_tag(cv, vp.center(h), vp.size, level)
        for u in scene.view.seen:
            if not isinstance(u, Mech) or u.at is None or u.destroyed or u.id not in scene.centres:
                continue
            cx, cy = scene.centres[u.id]
            r = scene.radius(u.id)
            if u.is_mech and u.twist:
                angle = math.radians(60 * u.torso)  # hexside 0 = north, clockwise (HEX-2)
                dx, dy = math.sin(angle), -math.cos(angle)
                inner = (cx + dx * r * 0.2, cy + dy * r * 0.2)
                # 5 px wide and reaching a third of a hex past the disc: about 2 px by 4 px at 550 px
                reach = r + max(8.0, vp.size * 0.34)
                outer = (cx + dx * reach, cy + dy * reach)
                width = max(5, round(vp.size * 0.14))
                cv.draw.line((inner, outer), fill=cv.ink(C.BLACK), width=width + 2)
                cv.draw.line((inner, outer), fill=cv.ink(TORSO), width=width)
            if u.is_air:
                _altitude_mark(cv, u, cx, cy, r, vp.size)
            if u.shutdown or u.prone:
                cv.draw.line(
                    (cx - r, cy - r, cx + r, cy + r), fill=cv.ink(SHUTDOWN), width=max(3, round(r * 0.2))
                )

    def legend(self, scene: Scene) -> list[LegendItem]:
        items: list[LegendItem] = []
        vp = scene.viewport
        levels = scene.state.board.features.get(ELEVATION, {})
        if any(level != 0 and vp.shows(h) for h, level in levels.items()):
            items.append(
                LegendItem(
                    t("render.legend.elevation", scene.locale), "hex", hill_shade(scene.theme.hex_fill, 2)
                )
            )
        mechs = [u for u in scene.view.seen if isinstance(u, Mech) and u.is_mech and not u.destroyed]
        if any(u.twist for u in mechs):
            items.append(LegendItem(t("render.legend.torso", scene.locale), "line", TORSO))
        air = list(_air_units(scene))
        if air:
            items.append(LegendItem(t("render.legend.air", scene.locale), "line", ALTITUDE))
        if any(u.out_of_control for u in air):
            items.append(LegendItem(t("render.legend.out_of_control", scene.locale), "line", OUT_OF_CONTROL))
        return items + trail_legend(scene)

    def palette(self, theme: Theme) -> Sequence[RGB]:
        fills = (theme.hex_fill, *(C.terrain_color(kind) for kind in tables().terrain))
        hills = tuple(hill_shade(f, level) for f in fills for level in range(1, len(HILL_SHARE)))
        return (TORSO, SHUTDOWN, C.BLACK, C.BAR_BG, C.HIT, SHADOW, ALTITUDE, OUT_OF_CONTROL, HILL, *hills)

    def shots(self, view: View) -> list[ShotResolved]:
        """MECH-2.1/2.2: every shot and physical attack of the step as a firing line (hit, miss, or spent when it
        could not be made). Damage is dealt after all the fire (MECH-2.3), so what a unit did to a target goes on
        its first hit on it."""
        out: list[ShotResolved] = []
        first_hit: dict[tuple[str, str], int] = {}
        dealt: dict[tuple[str, str], int] = {}
        for e in view.events:
            if isinstance(e, WeaponFired | PhysicalAttackMade):
                if e.hit:
                    first_hit.setdefault((e.unit, e.target), len(out))
                weapon = e.weapon_type if isinstance(e, WeaponFired) else e.kind
                out.append(
                    ShotResolved(rule=e.rule, shooter=e.unit, target=e.target, weapon=weapon, hit=e.hit)
                )
            elif isinstance(e, FireSpent | PhysicalSpent):
                weapon = e.weapon_type if isinstance(e, FireSpent) else e.kind
                out.append(
                    ShotResolved(rule=e.rule, shooter=e.unit, target=e.target, weapon=weapon, spent=True)
                )
            elif isinstance(e, DamageDealt):
                dealt[(e.by, e.unit)] = dealt.get((e.by, e.unit), 0) + e.amount
        for pair, i in first_hit.items():
            if dealt.get(pair, 0) > 0:
                out[i] = replace(out[i], damage=dealt[pair])
        return out

    def hurt(self, view: View) -> set[str]:
        """MECH-2.3: every unit that took damage this step (falls and physical blows as well as fire)."""
        return {e.unit for e in view.events if isinstance(e, DamageDealt) and e.amount > 0}

    def stat_bars(self, unit: Unit) -> Sequence[StatBar]:
        if not isinstance(unit, Mech):
            return ()
        bars = [
            StatBar("render.stat.armor", sum(unit.armor.values()), sum(unit.max_armor.values())),
            StatBar("render.stat.structure", sum(unit.structure.values()), sum(unit.max_structure.values())),
        ]
        if unit.keeps_heat:
            cap = tables().automatic_shutdown
            bars.insert(
                0,
                StatBar(
                    "render.stat.heat",
                    unit.heat,
                    cap,
                    good_high=False,
                    damage=False,
                    colour=heat_colour(unit.heat),
                ),
            )
        return bars

    def signature(self, unit: Unit) -> tuple[object, ...]:
        if not isinstance(unit, Mech):
            return ()
        return (
            unit.twist,
            unit.heat,
            unit.shutdown,
            unit.prone,
            unit.out_of_control,
            tuple(sorted(unit.armor.items())),
            tuple(sorted(unit.structure.items())),
        )


def _level_tag(cv: Canvas, at: Point, size: float, level: int) -> None:
    """The hex's level, white on slate at the foot of the hex (over any counter there: the level is what line of
    sight and movement read, MECH-1.2/2.1), large enough to read when Discord shows the board 550 px wide."""
    fs = max(14, round(size * 0.6))
    text = str(level)
    x, y = at[0], at[1] + size * 0.6
    half_w, half_h = text_width(text, fs, True) / 2 + fs * 0.3, fs * 0.55
    cv.draw.rounded_rectangle(
        (x - half_w, y - half_h, x + half_w, y + half_h),
        radius=fs * 0.25,
        fill=cv.ink(HILL),
        outline=cv.ink(C.WHITE),
    )
    cv.text((x, y), text, size=fs, fill=C.WHITE, bold=True, anchor="mm", bg=HILL)


def _air_units(scene: Scene) -> Iterator[Mech]:
    for u in scene.view.seen:
        if (
            isinstance(u, Mech)
            and u.is_air
            and u.at is not None
            and not u.destroyed
            and u.id in scene.centres
        ):
            yield u


def _altitude_mark(cv: Canvas, unit: Mech, cx: float, cy: float, r: float, size: float) -> None:
    """MECH-5: a chevron above the counter says the unit flies (two for a fighter, which flies higher); a red ring
    round it, that the fighter is out of control."""
    w = max(4.0, size * 0.14)
    x = cx + r + w * 0.4  # beside the counter's upper right, clear of its nose and of the heat gauge
    chevrons = 2 if unit.is_fighter else 1
    for i in range(chevrons):
        y = cy - r * 0.2 - i * w * 0.7
        points = [(x - w * 0.6, y), (x, y - w * 0.6), (x + w * 0.6, y)]
        cv.draw.line(points, fill=cv.ink(C.BLACK), width=max(2, round(size * 0.06)) + 2)
        cv.draw.line(points, fill=cv.ink(ALTITUDE), width=max(2, round(size * 0.06)))
    if unit.out_of_control:
        ring = r + max(2.0, size * 0.05)
        cv.draw.ellipse((cx - ring, cy - ring, cx + ring, cy + ring), outline=cv.ink(OUT_OF_CONTROL), width=2)


OVERLAY = MechOverlay()
