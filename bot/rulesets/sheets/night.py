"""The night layer's lines on any record sheet: the unit's discipline (NGT-5, how it strays) and who sees it in
the dark (NGT-2), told only as far as the reader knows: a player hears which of their own units see an enemy,
never which enemies see their units; the director hears every side's spotters."""

from __future__ import annotations

from bot.panels.model import Text
from bot.rulesets.sheets import Line, Sheet, SheetPlugin, joined, word
from rules.night.sight import lit_hexes, unit_sees
from rules.night.state import night_of
from rules.ruleset import DIRECTOR
from rules.state import EncounterState, Unit


def _spotters(state: EncounterState, target: Unit, side: str) -> list[Unit]:
    lit = lit_hexes(state)
    return [
        u for u in state.units.values() if u.side == side and u.on_board and unit_sees(state, u, target, lit)
    ]


def _seen_by(state: EncounterState, unit: Unit, viewer: str) -> Line | None:
    if unit.at is None or unit.destroyed:
        return None
    if viewer == DIRECTOR:
        parts: list[Text] = []
        for side in state.sides:
            if side.id == unit.side:
                continue
            names = [Text.plain(u.name) for u in _spotters(state, unit, side.id)]
            shown = joined(names, ", ") if names else Text.of("sheet.night.nobody")
            parts.append(Text.plain("{side}: {names}", side=side.name, names=shown))
        return Line(Text.of("sheet.night.seen_by"), joined(parts, "\n") if parts else Text.of("sheet.none"))
    if viewer == unit.side or viewer not in {s.id for s in state.sides}:
        return None  # what the enemy sees is the enemy's to know
    names = [Text.plain(u.name) for u in _spotters(state, unit, viewer)]
    return Line(
        Text.of("sheet.night.seen_by"), joined(names, ", ") if names else Text.of("sheet.night.nobody")
    )


def record_sheet(state: EncounterState, unit_id: str, viewer: str) -> Sheet:
    unit = state.units[unit_id]
    discipline = night_of(state).discipline_of(unit_id)
    lines = [Line(Text.of("sheet.night.discipline"), word(f"sheet.night.{discipline}", discipline))]
    if (seen := _seen_by(state, unit, viewer)) is not None:
        lines.append(seen)
    return Sheet(tuple(lines))


class NightSheet(SheetPlugin):
    __slots__ = ()

    def record_sheet(self, state: EncounterState, unit_id: str, viewer: str) -> Sheet:
        return record_sheet(state, unit_id, viewer)


SHEET = NightSheet()
