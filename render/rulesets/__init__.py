"""Render overlays: each ruleset's and layer's own part of the board picture (DESIGN §5).

The common renderer (``render/board.py``) draws what every ruleset has: the grid and terrain, fog, counters with
their facing, '?' counters, firing arrows and damage badges from ``ShotResolved`` events (``render/shots.py``),
highlights and order previews. Everything else comes from the overlay of the state's ruleset, then of each of
its layers, in that order: the module named by ``registry.plugin_module(id, "overlay")``
(``render/rulesets/<id>.py`` by convention), which holds ``OVERLAY``, an :class:`Overlay`. A ruleset or layer with no overlay module, or one the registry does not know
(the night layer before its engine lands), adds nothing. Only ``render/rulesets/<id>.py`` imports ``rules.<id>``.

An overlay is asked, per picture (each hook has a do-nothing default):

- :meth:`Overlay.frame`: more hexes the viewport must show (exo: vector counters; moves' trails);
- :meth:`Overlay.tints`: hexes repainted in another fill this step (night: lit areas; skirmish: burning hexes);
- :meth:`Overlay.under`: what it draws over the board and under the counters (trails, vectors, marker glyphs);
- :meth:`Overlay.over`: what it draws over the counters (only arrow heads and damage badges go on top of it);
- :meth:`Overlay.legend`: a legend entry for every symbol it drew;
- :meth:`Overlay.palette`: colours it paints that the board palette must hold exactly;

- :meth:`Overlay.shots`: the ruleset's own attack events as the common firing lines (mech ``WeaponFired``);
- :meth:`Overlay.acting`: the units whose turn it is, marked on the board (by default the awaited units the viewer
  sees, when they stand in one hex: one unit or one stack acts);
- :meth:`Overlay.hurt`: units damaged this step by the ruleset's own events (hits of the firing lines count
  already), each marked on its counter;

and per unit: :meth:`Overlay.stat_bars` (the side panel and the counter's damage bar), :meth:`Overlay.doll`
(a damage doll by location in the side panel),
:meth:`Overlay.foot` (how far under the disc the overlay draws on it),
:meth:`Overlay.neutral_colour` (a piece of no side: its own colour, no facing nose) and
:meth:`Overlay.signature` (what else of a unit the picture shows, for :func:`board_signature`).

Fog (FOG-1, NGT-9) is the overlay's to keep: draw units, markers and events only from the
:class:`~render.scene.View`, which holds what the viewer may see. The whole state is there too, for what is
public anyway (NGT-2: lights are seen from anywhere).
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Mapping, Sequence

from render.canvas import Canvas
from render.colours import RGB, Theme
from render.legend import LegendItem
from render.scene import Scene, View
from render.stats import DollCell, StatBar
from rules.events import ShotResolved
from rules.hexgrid import Hex
from rules.registry import plugin_module, ruleset_for
from rules.state import EncounterState, Unit

__all__ = [
    "DollCell",
    "Overlay",
    "Scene",
    "StatBar",
    "View",
    "awaited_in_one_hex",
    "board_signature",
    "overlays_for",
]


class Overlay:
    """A ruleset's or layer's part of the picture. Subclass it, override the hooks you need, and expose an
    instance as ``OVERLAY`` in ``render/rulesets/<id>.py``."""

    __slots__ = ()

    def frame(self, view: View) -> Iterable[Hex]:
        """Hexes the viewport must show besides the units, markers and highlights."""
        return ()

    def tints(self, scene: Scene) -> Mapping[Hex, RGB]:
        """Hexes to repaint in another fill (with their grid line and label) before anything else is drawn."""
        return {}

    def under(self, cv: Canvas, scene: Scene) -> None:
        """Draw over the board and under the counters (and under the firing lines)."""

    def over(self, cv: Canvas, scene: Scene) -> None:
        """Draw over the counters."""

    def legend(self, scene: Scene) -> Iterable[LegendItem]:
        """One entry for every symbol :meth:`under`, :meth:`over` or :meth:`tints` put in this picture."""
        return ()

    def palette(self, theme: Theme) -> Iterable[RGB]:
        """Colours this overlay paints that the board palette does not already hold."""
        return ()

    def shots(self, view: View) -> Iterable[ShotResolved]:
        """The ruleset's own attack events of this step as firing lines, between units the viewer sees (the
        common ``ShotResolved`` ones are drawn already)."""
        return ()

    def acting(self, view: View) -> Iterable[str]:
        """The units whose turn it is, among those the viewer sees: by default the awaited ones, when they stand
        in one hex (one unit or one stack acts; when many act at once nobody is singled out)."""
        return awaited_in_one_hex(view)

    def hurt(self, view: View) -> Iterable[str]:
        """Units the viewer sees that this step's own events damaged (hits of :meth:`shots` count already)."""
        return ()

    def stat_bars(self, unit: Unit) -> Sequence[StatBar]:
        """The unit's bars in the side panel; the damage ones also set the damage bar on its counter."""
        return ()

    def doll(self, unit: Unit) -> Sequence[DollCell]:
        """The unit's damage doll in the side panel, location by location (mech armour is by location); none by
        default."""
        return ()

    def foot(self, unit: Unit) -> float:
        """How far below its counter's disc, in radii, :meth:`over` draws on ``unit`` (a strength tag): the hex
        number tagged under the counters goes below that."""
        return 0.0

    def neutral_colour(self, unit: Unit) -> RGB | None:
        """A piece that belongs to no side (exo debris, asteroids): its colour; it gets no facing nose."""
        return None

    def signature(self, unit: Unit) -> tuple[object, ...]:
        """What of ``unit`` this overlay shows besides its place, facing and state (exo: vector, armor)."""
        return ()


def awaited_in_one_hex(view: View) -> tuple[str, ...]:
    """The awaited units the viewer sees, when they all stand in one hex; none otherwise. Filtered before the
    test, so a hidden awaited unit changes nothing in the picture (FOG-1)."""
    try:
        awaited = ruleset_for(view.state).awaiting(view.state)
    except KeyError:  # a state of no registered ruleset (a bare picture): nobody to single out
        return ()
    seen = {u.id: u for u in view.seen}
    units = [seen[uid] for uid in awaited if uid in seen and seen[uid].on_board]
    if not units or len({u.at for u in units}) != 1:
        return ()
    return tuple(u.id for u in units)


def overlays_for(state: EncounterState) -> tuple[Overlay, ...]:
    """The overlay of the state's ruleset, then of each of its layers; those without one are skipped."""
    found: list[Overlay] = []
    for pid in (state.ruleset, *state.layers):
        overlay = _load(pid)
        if overlay is not None:
            found.append(overlay)
    return tuple(found)


def _load(pid: str) -> Overlay | None:
    try:
        name = plugin_module(pid, "overlay")
    except KeyError:  # not registered: nothing of its own to draw
        return None
    if not name:
        return None
    try:
        module = importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if (
            exc.name == name
        ):  # the plug-in has no overlay module (yet); a broken import inside one still raises
            return None
        raise
    overlay: object = vars(module).get("OVERLAY")
    if not isinstance(overlay, Overlay):
        raise TypeError(f"{name}.OVERLAY must be a render.rulesets.Overlay, got {overlay!r}")
    return overlay


def board_signature(state: EncounterState) -> tuple[object, ...]:
    """What the board image shows of ``state``: equal signatures, same picture of the pieces and markers.

    The bot posts a new board only when the signature changed (or something was shot at). Per unit: its place,
    facing, destroyed and hidden state, and what each overlay adds (:meth:`Overlay.signature`).
    """
    overlays = overlays_for(state)
    pieces = tuple(
        (u.id, u.at, u.facing, u.destroyed, u.hidden, *(x for o in overlays for x in o.signature(u)))
        for _, u in sorted(state.units.items())
    )
    return pieces, state.markers
