"""The ocs record sheet (OCS-1): combat strength, the Action Rating as it stands now (DG one less, strategic
mode 0) and as printed, mode, steps left and the hedgehog level of the unit's hex."""

from __future__ import annotations

from bot.panels.model import Text
from bot.rulesets.sheets import Line, Sheet, SheetPlugin, where, word
from rules.ocs.model import OcsUnit
from rules.state import EncounterState


def record_sheet(state: EncounterState, unit_id: str, viewer: str) -> Sheet:
    unit = state.units[unit_id]
    lines = [Line(Text.of("sheet.hex"), where(unit))]
    if unit.destroyed:
        lines.append(Line(Text.of("sheet.state"), Text.of("sheet.destroyed")))
    if not isinstance(unit, OcsUnit):
        return Sheet(tuple(lines))
    ar = str(unit.action_rating)
    if unit.action_rating != unit.ar:
        ar = f"{unit.action_rating} ({unit.ar})"
    lines += [
        Line(Text.of("stat.ocs_strength"), Text.plain(f"{unit.strength:g}")),
        Line(Text.of("stat.ocs_ar"), Text.plain(ar)),
        Line(Text.of("stat.ocs_mode"), word(f"term.{unit.mode}", unit.mode)),
        Line(Text.of("stat.ocs_steps"), Text.plain(str(unit.steps))),
    ]
    if unit.at is not None:
        level = state.board.feature("hedgehog", unit.at)
        lines.append(
            Line(Text.of("sheet.ocs.hedgehog"), Text.plain(str(level)) if level else Text.of("sheet.none"))
        )
    return Sheet(tuple(lines))


class OcsSheet(SheetPlugin):
    __slots__ = ()

    def record_sheet(self, state: EncounterState, unit_id: str, viewer: str) -> Sheet:
        return record_sheet(state, unit_id, viewer)


SHEET = OcsSheet()
