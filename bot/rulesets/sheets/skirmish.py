"""The skirmish record sheet (SK-7, the character card): action points, wounds against the wound boxes,
resistance, the Ranged, Melee (with its damage bonus, SK-3.3) and Action skills, and for its own side the
overwatch it keeps (SK-4.1)."""

from __future__ import annotations

from bot.panels.model import Text
from bot.rulesets.sheets import Line, Sheet, SheetPlugin, joined, of_full, position_lines
from rules.hexgrid import Vertex
from rules.ruleset import DIRECTOR
from rules.skirmish.model import Character
from rules.state import EncounterState


def _vertex(facing: int) -> Text:
    """A vertex (SK-2.1) as its two hexsides in the reader's spelling: ``S-SO``."""
    first, second = Vertex(facing % 6).name.split("_")
    return Text.plain("{a}-{b}", a=Text.of(f"hexside.{first}"), b=Text.of(f"hexside.{second}"))


def _skills(ch: Character) -> Text:
    melee = str(ch.melee) if not ch.melee_bonus else f"{ch.melee} ({ch.melee_bonus:+d})"
    skills = [
        Text.of(
            "sheet.skill", skill=Text.of("sheet.skirmish.ranged"), value=str(ch.ranged) if ch.ranged else "—"
        ),
        Text.of("sheet.skill", skill=Text.of("sheet.skirmish.melee"), value=melee),
        Text.of("sheet.skill", skill=Text.of("sheet.skirmish.action"), value=str(ch.action)),
    ]
    return joined(skills, ", ")


def record_sheet(state: EncounterState, unit_id: str, viewer: str) -> Sheet:
    ch = state.units[unit_id]
    if not isinstance(ch, Character):
        return Sheet(position_lines(ch))
    lines = [
        *(line for line in position_lines(ch, _vertex(ch.facing)) if line.name.key != "sheet.state"),
        Line(Text.of("sheet.state"), Text.of("sheet.skirmish.alive" if ch.alive else "sheet.skirmish.dead")),
        Line(Text.of("sheet.skirmish.ap"), of_full(ch.ap_left, ch.ap)),
        Line(Text.of("stat.wounds"), of_full(ch.wounds, ch.max_wounds)),
        Line(Text.of("sheet.skirmish.resistance"), Text.plain(str(ch.resistance))),
        Line(Text.of("sheet.skirmish.skills"), _skills(ch), wide=True),
    ]
    if ch.astride is not None and ch.at is not None:  # SK-2.5: across two half hexes
        lines.append(
            Line(Text.of("sheet.skirmish.astride"), Text.plain(f"{ch.at.label} + {ch.astride.label}"))
        )
    if ch.overwatch and viewer in (DIRECTOR, ch.side):  # SK-4.1: the policy is its own side's choice
        lines.append(
            Line(
                Text.of("stat.overwatch"),
                joined(
                    [
                        Text.of(f"policy.{ch.overwatch}"),
                        Text.of("sheet.skirmish.shots_left", shots=str(ch.overwatch_shots_left)),
                    ]
                ),
            )
        )
    return Sheet(tuple(lines))


class SkirmishSheet(SheetPlugin):
    __slots__ = ()

    def record_sheet(self, state: EncounterState, unit_id: str, viewer: str) -> Sheet:
        return record_sheet(state, unit_id, viewer)


SHEET = SkirmishSheet()
