"""Record sheets as plug-ins: what ``/unit info`` shows of a unit, one module per ruleset or layer,
``bot/rulesets/sheets/<id>.py``, found through the registry.

A sheet module is pure (no Discord) and exposes ``SHEET``, a :class:`SheetPlugin` (the same shape as an order panel
and a render overlay), whose ``record_sheet(state, unit_id, viewer) -> Sheet`` gives short named lines (a phone reads them as an embed's fields) and, when the ruleset has one, an armour doll drawn by
:mod:`render.doll`. A layer's module adds its own lines after the base ruleset's. ``viewer`` is who reads
(``director``, a side id or ``public``): a sheet says only what that reader may know (FOG-1), and the caller has
already refused a unit the reader cannot see.
"""

from __future__ import annotations

import importlib
from abc import ABC, abstractmethod
from dataclasses import dataclass

from bot.panels.model import Text
from data.i18n import has
from render.doll import DollBox, render_doll
from rules.hexgrid import HexSide
from rules.registry import plugin_module
from rules.state import EncounterState, Unit

#: Discord: fields in one embed (one is kept for a layer's lines)
MAX_LINES = 24
#: Discord: characters in one embed (6,000), less room for its title
EMBED_TEXT = 5700


@dataclass(frozen=True, slots=True)
class Line:
    """One figure of the sheet: a short name and its value, both words for the reader. ``wide`` lines (lists:
    weapons, crew, skills) take the embed's whole width."""

    name: Text
    value: Text
    wide: bool = False


@dataclass(frozen=True, slots=True)
class Box:
    """One location of an armour doll, in grid cells (see :class:`render.doll.DollBox`)."""

    name: Text
    armour: int
    max_armour: int
    structure: int
    max_structure: int
    col: float
    row: float
    width: float = 1
    height: float = 1


@dataclass(frozen=True, slots=True)
class Sheet:
    lines: tuple[Line, ...] = ()
    doll: tuple[Box, ...] = ()


class SheetPlugin(ABC):
    """A ruleset's or layer's record sheet. Subclass it and expose an instance as ``SHEET`` in
    ``bot/rulesets/sheets/<id>.py``."""

    __slots__ = ()

    @abstractmethod
    def record_sheet(self, state: EncounterState, unit_id: str, viewer: str) -> Sheet:
        """What ``viewer`` may read of ``unit_id`` (a layer: only the lines it adds)."""


def _module_sheet(pid: str) -> SheetPlugin | None:
    name = plugin_module(pid, "sheet")
    if not name:
        return None
    sheet: object = vars(importlib.import_module(name)).get("SHEET")
    if not isinstance(sheet, SheetPlugin):
        raise TypeError(f"{name}.SHEET must be a bot.rulesets.sheets.SheetPlugin, got {sheet!r}")
    return sheet


def record_sheet(state: EncounterState, unit_id: str, viewer: str) -> Sheet:
    """The sheet of ``unit_id`` for ``viewer``: the base ruleset's (or the hex and facing every unit has), then
    each layer's lines."""
    base = _module_sheet(state.ruleset)
    sheet = (
        base.record_sheet(state, unit_id, viewer)
        if base is not None
        else Sheet(position_lines(state.units[unit_id]))
    )
    lines, doll = list(sheet.lines), sheet.doll
    for lid in state.layers:
        layer = _module_sheet(lid)
        if layer is not None:
            lines.extend(layer.record_sheet(state, unit_id, viewer).lines)
    return Sheet(tuple(lines[:MAX_LINES]), doll)


def doll_png(sheet: Sheet, locale: str) -> bytes | None:
    """The sheet's armour doll as a PNG in the reader's words (None: the sheet has no doll)."""
    if not sheet.doll:
        return None
    return render_doll(
        [
            DollBox(
                b.name.render(locale),
                f"{b.armour}/{b.max_armour}",
                f"{b.structure}/{b.max_structure}",
                (b.armour + b.structure) / max(1, b.max_armour + b.max_structure),
                b.structure <= 0,
                b.col,
                b.row,
                b.width,
                b.height,
            )
            for b in sheet.doll
        ],
        Text.of("sheet.doll_legend").render(locale),
    )


# --- helpers the sheet modules share ------------------------------------------------------------------------


def hexside(facing: int) -> Text:
    """A hexside in the reader's spelling (HEX-2: N, NE … SO, NO)."""
    return Text.of(f"hexside.{HexSide(facing % 6).name}")


def where(unit: Unit) -> Text:
    """The unit's hex, or that it is off the board."""
    return Text.plain(unit.at.label) if unit.at is not None else Text.of("sheet.off_board")


def position_lines(unit: Unit, facing: Text | None = None) -> tuple[Line, ...]:
    """Hex and facing (a hexside unless the ruleset words it), and whether the unit is destroyed."""
    lines = [
        Line(Text.of("sheet.hex"), where(unit)),
        Line(Text.of("sheet.facing"), facing if facing is not None else hexside(unit.facing)),
    ]
    if unit.destroyed:
        lines.append(Line(Text.of("sheet.state"), Text.of("sheet.destroyed")))
    return tuple(lines)


def of_full(now: int | float, full: int | float) -> Text:
    """``3/4``: a figure now and at full strength."""
    return Text.plain(f"{now:g}/{full:g}")


def listing(items: list[Text] | tuple[Text, ...], empty: str = "sheet.none") -> Text:
    """Items one per line (a phone wraps a long line badly); ``empty`` when there are none."""
    if not items:
        return Text.of(empty)
    params = {f"i{n}": item for n, item in enumerate(items)}
    return Text.plain("\n".join(f"{{i{n}}}" for n in range(len(items))), **params)


def joined(items: list[Text] | tuple[Text, ...], sep: str = " · ") -> Text:
    """Items on one line."""
    params = {f"i{n}": item for n, item in enumerate(items)}
    return Text.plain(sep.join(f"{{i{n}}}" for n in range(len(items))), **params)


def word(key: str, fallback: str) -> Text:
    """``key`` in the reader's words when a catalog has it, else ``fallback`` as it is (a name a scenario
    brought that no catalog knows is shown as written, never as a key)."""
    return Text.of(key) if has(key, "en") else Text.plain(fallback)


def sheet_fields(sheet: Sheet, locale: str) -> tuple[tuple[str, str, bool], ...]:
    """The sheet's lines as (name, value, inline) in the reader's words, cut to an embed's limits: a field's
    name and value, and the whole embed's text (the lines that would pass it are left out, never cut halfway)."""
    out: list[tuple[str, str, bool]] = []
    total = 0
    for line in sheet.lines:
        name, value = line.name.render(locale)[:256], line.value.render(locale)[:1024] or "—"
        total += len(name) + len(value)
        if total > EMBED_TEXT:
            break
        out.append((name, value, not line.wide))
    return tuple(out)
