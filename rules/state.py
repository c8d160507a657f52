"""Immutable encounter state (DESIGN §2).

State is frozen data: ``resolve`` returns a new state, so undo and replay are free. Rulesets subclass
:class:`Unit` (a ship, a character) and :class:`RulesetState` (what only they need: chit bags, pending decisions)
and register the subclasses with ``@serializable`` so snapshots round-trip through JSON.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from rules.errors import IllegalOrderError
from rules.hexgrid import Hex
from rules.serial import serializable

U = TypeVar("U", bound="Unit")


@serializable
@dataclass(frozen=True, slots=True)
class Side:
    """``name``: the side's name as the scenario resolved it (logs and exports keep this one); ``names``: the name
    in each language the scenario gives, as (language, text), when it gives it per language."""

    id: str
    name: str
    color: str | None = None
    names: tuple[tuple[str, str], ...] = ()

    def name_in(self, locale: str | None) -> str:
        """The name for a reader of ``locale`` (``es``, ``en-GB``): theirs, else the English one, else ``name``."""
        found = dict(self.names)
        lang = (locale or "").split("-")[0].lower()
        for wanted in (lang, "en"):
            if wanted and wanted in found:
                return found[wanted]
        return self.name


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class Unit:
    """A piece on the board. ``facing`` is a hexside (0-5) or a vertex (0-5) as the ruleset says (HEX-2)."""

    id: str
    side: str
    name: str
    at: Hex | None
    facing: int = 0
    label: str = ""
    kind: str = "unit"
    destroyed: bool = False
    hidden: bool = False  # placed hidden by the director (FOG-1)

    @property
    def short(self) -> str:
        return self.label or self.name[:4]

    @property
    def on_board(self) -> bool:
        return self.at is not None and not self.destroyed


@serializable
@dataclass(frozen=True, slots=True)
class Board:
    """Bounded (width × height hexes, labels 0101..WWHH) or unbounded (exo); terrain by hex.

    ``features`` holds a ruleset's or layer's own per-hex numbers, by name: ``{"elevation": {hex: 2}}`` (mech),
    ``{"hedgehog": {hex: 1}}`` (ocs). The shared code never reads them; the plug-in that wrote them does."""

    width: int | None = None
    height: int | None = None
    terrain: Mapping[Hex, str] = field(default_factory=lambda: dict[Hex, str]())
    features: Mapping[str, Mapping[Hex, int]] = field(default_factory=lambda: dict[str, Mapping[Hex, int]]())

    def feature(self, name: str, h: Hex, default: int = 0) -> int:
        return self.features.get(name, {}).get(h, default)

    @property
    def bounded(self) -> bool:
        return self.width is not None and self.height is not None

    def contains(self, h: Hex) -> bool:
        if self.width is None or self.height is None:
            return True
        col, row = h.to_offset()
        return 1 <= col <= self.width and 1 <= row <= self.height

    def terrain_at(self, h: Hex) -> str | None:
        return self.terrain.get(h)

    def hexes(self) -> Iterator[Hex]:
        if self.width is None or self.height is None:
            raise ValueError("an unbounded board has no finite list of hexes")
        for col in range(1, self.width + 1):
            for row in range(1, self.height + 1):
                yield Hex.from_offset(col, row)


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class Marker:
    """A counter that is not a unit: fire, flare, gunflash, debris, equipment, concealed '?' ..."""

    kind: str
    at: Hex
    radius: int = 0
    owner: str = ""  # side or unit it belongs to, if any
    expires_round: int | None = None  # removed at the end of this round
    label: str = ""


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class RulesetState:
    """Base for ruleset-specific state kept in ``EncounterState.ext``."""


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class Decision:
    """A question the engine needs answered before it can go on (pilot critical, overwatch 'ask')."""

    id: str
    side: str
    unit: str
    kind: str
    options: tuple[str, ...] = ()
    default: str = ""
    prompt: str = ""


@serializable
@dataclass(
    frozen=True, slots=True, kw_only=True, weakref_slot=True
)  # memos keyed by a state forget it with it
class EncounterState:
    ruleset: str
    name: str
    board: Board
    sides: tuple[Side, ...]
    units: Mapping[str, Unit]
    round: int = 1
    phase: str = ""
    step: int = 0  # resolutions so far; the storage phase number follows it
    seed: int | str = 0
    dice_script: tuple[int, ...] = ()
    layers: tuple[str, ...] = ()
    markers: tuple[Marker, ...] = ()
    options: Mapping[str, Any] = field(default_factory=lambda: dict[str, Any]())
    ext: RulesetState | None = None
    #: each layer's own data (``night``: visibility range, markers' memory, unit discipline), by layer id
    layer_state: Mapping[str, RulesetState] = field(default_factory=lambda: dict[str, RulesetState]())
    pending: Decision | None = None
    winner: str | None = None
    over: bool = False

    # --- lookups -----------------------------------------------------------------------------------------
    def unit(self, unit_id: str) -> Unit:
        try:
            return self.units[unit_id]
        except KeyError:
            raise IllegalOrderError(
                f"There is no unit called {unit_id!r} in this encounter.",
                code="unit.unknown",
                params={"unit": unit_id},
            ) from None

    def unit_as(self, unit_id: str, cls: type[U]) -> U:
        u = self.unit(unit_id)
        if not isinstance(u, cls):
            raise IllegalOrderError(
                f"{u.name} is not a {cls.__name__.lower()}.", code="unit.wrong_kind", params={"unit": unit_id}
            )
        return u

    def units_of(self, cls: type[U]) -> list[U]:
        return [u for u in self.units.values() if isinstance(u, cls)]

    def side(self, side_id: str) -> Side:
        for s in self.sides:
            if s.id == side_id:
                return s
        raise IllegalOrderError(
            f"There is no side called {side_id!r}.", code="side.unknown", params={"side": side_id}
        )

    def side_ids(self) -> tuple[str, ...]:
        return tuple(s.id for s in self.sides)

    def units_at(self, h: Hex) -> list[Unit]:
        return [u for u in self.units.values() if u.at == h and not u.destroyed]

    def option(self, key: str, default: Any = None) -> Any:
        return self.options.get(key, default)

    # --- updates (always new objects) --------------------------------------------------------------------
    def replace(self, **changes: Any) -> EncounterState:
        return dataclasses.replace(self, **changes)

    def with_units(self, units: Iterable[Unit]) -> EncounterState:
        merged = dict(self.units)
        for u in units:
            merged[u.id] = u
        return dataclasses.replace(self, units=merged)

    def without_unit(self, unit_id: str) -> EncounterState:
        merged = {k: v for k, v in self.units.items() if k != unit_id}
        return dataclasses.replace(self, units=merged)


def replace_unit(unit: U, **changes: Any) -> U:
    return dataclasses.replace(unit, **changes)
