"""Key numbers of a unit for the side panel, read by field name so render/ never imports a ruleset.

Known fields come first in a fixed order (exo ships, skirmish characters); any other ``max_<x>`` / ``<x>`` pair a
future ruleset defines shows up too, so mech and ocs units get their bars without changes here.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from functools import lru_cache

from rules.state import Unit

# (field, max field, i18n key, higher is better)
_KNOWN: tuple[tuple[str, str, str, bool], ...] = (
    ("armor", "max_armor", "armor", True),
    ("structure", "max_structure", "structure", True),
    ("engines", "max_engines", "engines", True),
    ("manta", "maneuverability", "manta", True),
    ("cabin", "max_cabin", "cabin", True),
    ("cargo", "max_cargo", "cargo", True),
    ("ap_left", "ap", "ap", True),
    ("wounds", "max_wounds", "wounds", False),
)
_SKIP = {"maneuverability"}  # shown as Manta (this round's maneuverability, EXO-2.2)


@dataclass(frozen=True, slots=True)
class Stat:
    key: str  # i18n key under render.stat
    value: int
    maximum: int | None
    good_high: bool = True

    @property
    def health(self) -> float:
        """1.0 = as good as it gets, 0.0 = spent or dead (drives the bar colour)."""
        if not self.maximum:
            return 1.0
        frac = max(0.0, min(1.0, self.value / self.maximum))
        return frac if self.good_high else 1.0 - frac


def unit_stats(unit: Unit) -> list[Stat]:
    out: list[Stat] = []
    for name, max_name, key, good_high in _plan(type(unit)):
        value = _int(getattr(unit, name, None))
        if value is not None:
            out.append(Stat(key, value, _int(getattr(unit, max_name, None)), good_high))
    return out


@lru_cache(maxsize=256)
def _plan(cls: type) -> tuple[tuple[str, str, str, bool], ...]:
    """Which (field, max field, key, higher is better) a unit class has; worked out once per class."""
    names = {f.name for f in dataclasses.fields(cls)} if dataclasses.is_dataclass(cls) else set[str]()
    plan = [entry for entry in _KNOWN if entry[0] in names]
    used = {n for entry in plan for n in entry[:2]}
    for name in sorted(names):
        base = name.removeprefix("max_")
        if name.startswith("max_") and base in names and not {name, base} & used and base not in _SKIP:
            plan.append((base, name, base, True))
    return tuple(plan)


def health(unit: Unit) -> float:
    """The worst of the unit's bars: 1.0 undamaged; drives the damage bar on the counter."""
    if unit.destroyed:
        return 0.0
    values = [s.health for s in unit_stats(unit) if s.maximum and s.key not in ("ap", "manta", "engines")]
    return min(values, default=1.0)


def _int(v: object) -> int | None:
    if isinstance(v, bool) or not isinstance(v, int):
        return None
    return v
