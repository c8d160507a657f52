"""What one picture is made of, handed to the overlays (``render/rulesets/``): a :class:`View` (what the viewer
may see of a snapshot, FOG-1, NGT-9) and, once the board is laid out, a :class:`Scene` (where it all goes)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from render.colours import MISS, RGB, Theme
from render.counters import radius_for
from render.geometry import Point
from render.options import BoardSnapshot
from render.stats import DollCell, StatBar
from render.viewport import Viewport
from rules.events import Event, ShotResolved, UnitMoved
from rules.hexgrid import Hex
from rules.ruleset import Visibility
from rules.state import EncounterState, Marker, Unit

if TYPE_CHECKING:
    from render.rulesets import Overlay


@dataclass(frozen=True, slots=True)
class View:
    """What the viewer may see of a snapshot; nothing else is drawn, framed or listed."""

    state: EncounterState
    vis: Visibility
    seen: tuple[Unit, ...]  # drawn in full, by id
    concealed: tuple[Unit, ...]  # drawn as '?' counters only
    markers: tuple[Marker, ...]  # on hexes the viewer sees
    moves: tuple[UnitMoved, ...]  # of units the viewer sees
    shots: tuple[ShotResolved, ...]  # between units the viewer sees
    #: every event of the step about units the viewer sees (an overlay's own: ocs step losses)
    events: tuple[Event, ...] = ()
    #: units the viewer sees and the hex each stood on before (a catch-up's picture)
    ghosts: tuple[tuple[Unit, Hex], ...] = ()

    @classmethod
    def of(cls, snapshot: BoardSnapshot, vis: Visibility) -> View:
        state = snapshot.state
        units = sorted(state.units.items())
        return cls(
            state=state,
            vis=vis,
            seen=tuple(u for uid, u in units if uid in vis.units),
            concealed=tuple(u for uid, u in units if uid in vis.concealed and u.at is not None),
            markers=tuple(m for m in state.markers if vis.hexes is None or m.at in vis.hexes),
            moves=tuple(e for e in snapshot.events if isinstance(e, UnitMoved) and vis.sees(e.unit)),
            shots=tuple(
                e
                for e in snapshot.events
                if isinstance(e, ShotResolved) and vis.sees(e.shooter) and vis.sees(e.target)
            ),
            events=tuple(
                e for e in snapshot.events if all(vis.sees(u) for u in e.involved() if u in state.units)
            ),
            ghosts=tuple(
                (state.units[uid], h) for uid, h in snapshot.ghosts if uid in state.units and vis.sees(uid)
            ),
        )


@dataclass(slots=True)
class Scene:
    """A :class:`View` laid out: the viewport, colours, where each counter sits (stacks fan out round their
    hex), the step's firing lines, who acts and who was hurt."""

    view: View
    overlays: tuple[Overlay, ...]
    theme: Theme
    viewport: Viewport
    side_colours: dict[str, RGB]
    vertex_facing: bool
    locale: str
    centres: dict[str, Point] = field(default_factory=lambda: dict[str, Point]())
    radii: dict[str, float] = field(default_factory=lambda: dict[str, float]())
    #: every firing line of the step: the common ``ShotResolved`` ones, then each overlay's own (mech fire)
    shots: tuple[ShotResolved, ...] = ()
    #: the units whose turn it is (a ring round each counter)
    acting: frozenset[str] = frozenset()
    #: the units damaged this step (a mark on each counter)
    hurt: frozenset[str] = frozenset()
    _bars: dict[str, tuple[StatBar, ...]] = field(default_factory=lambda: dict[str, tuple[StatBar, ...]]())

    @property
    def state(self) -> EncounterState:
        return self.view.state

    def radius(self, key: str) -> float:
        """The counter radius of a unit (smaller in a stack), or a lone counter's."""
        return self.radii.get(key, radius_for(self.viewport.size))

    def neutral_colour(self, unit: Unit) -> RGB | None:
        """The colour of a piece that belongs to no side (no facing nose), if an overlay says it is one."""
        for overlay in self.overlays:
            colour = overlay.neutral_colour(unit)
            if colour is not None:
                return colour
        return None

    def colour_of(self, unit: Unit) -> RGB:
        """The side colour, or a neutral piece's own colour."""
        return self.neutral_colour(unit) or self.side_colours.get(unit.side, MISS)

    def stat_bars(self, unit: Unit) -> tuple[StatBar, ...]:
        """Every overlay's bars for ``unit``, base ruleset first (asked once per unit and picture)."""
        bars = self._bars.get(unit.id)
        if bars is None:
            bars = self._bars[unit.id] = tuple(b for o in self.overlays for b in o.stat_bars(unit))
        return bars

    def doll(self, unit: Unit) -> tuple[DollCell, ...]:
        """The first overlay's damage doll for ``unit`` (none when no overlay draws one)."""
        for overlay in self.overlays:
            cells = tuple(overlay.doll(unit))
            if cells:
                return cells
        return ()
