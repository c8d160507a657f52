"""Stat bars: the key numbers of a unit in the side panel, as its ruleset's overlay lists them.

The renderer reads no unit field by name: each overlay (``render/rulesets/<id>.py``) says which bars a unit has
(:meth:`render.rulesets.Overlay.stat_bars`). The counter's damage bar is the worst of the bars that count as
damage.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from render.colours import RGB


@dataclass(frozen=True, slots=True)
class StatBar:
    """One stat of a unit: ``Arm 6/8`` and a bar under it.

    ``label`` is an i18n key (``"render.stat.armor"``). ``colour`` fixes the bar's colour; ``None`` paints it
    green, amber or red by how good the value is. ``damage``: it counts toward the damage bar on the counter.
    """

    label: str
    value: int
    maximum: int | None = None
    good_high: bool = True
    damage: bool = True
    colour: RGB | None = None

    @property
    def health(self) -> float:
        """1.0 = as good as it gets, 0.0 = spent or dead (drives the bar colour)."""
        if not self.maximum:
            return 1.0
        frac = max(0.0, min(1.0, self.value / self.maximum))
        return frac if self.good_high else 1.0 - frac


@dataclass(frozen=True, slots=True)
class DollCell:
    """One location of a unit's damage doll in the side panel (a mech's arm, a vehicle's front): a box on a small
    grid (``x``, ``y``, ``w``, ``h`` in grid units; the doll is scaled to the row) filled by how much armour is
    left, with an inner box for the structure once the armour is gone; ``destroyed`` draws it empty."""

    x: float
    y: float
    w: float
    h: float
    armor: float  # 1.0 full … 0.0 none
    structure: float
    destroyed: bool = False


def health(bars: Iterable[StatBar], *, destroyed: bool) -> float:
    """The worst of the damage bars: 1.0 undamaged; drives the damage bar on the counter."""
    if destroyed:
        return 0.0
    return min((b.health for b in bars if b.maximum and b.damage), default=1.0)
