"""The pbw record sheet: Hit Points and resistance per location (PBW-4), fatigue against the two thresholds
(PBW-3: tired at the Fatigue attribute, exhausted at twice it), attributes and skills, weapons with damage and
range bands (PBW-5), what is in hand, items and a treatment under way (PBW-6)."""

from __future__ import annotations

from bot.panels.model import Text
from bot.rulesets.sheets import Line, Sheet, SheetPlugin, joined, listing, of_full, position_lines, word
from data.i18n import term_key
from rules.engine import visibility
from rules.pbw.model import Carried, Character
from rules.pbw.tables import BANDS, LOCATIONS, tables
from rules.registry import ruleset_for
from rules.ruleset import DIRECTOR
from rules.state import EncounterState


def _fatigue(ch: Character) -> Text:
    tab = tables()
    return Text.of(
        "sheet.pbw.fatigue_value",
        now=str(ch.fatigue),
        tired=str(ch.fatigue_attribute),
        exhausted=str(tab.exhausted_at * ch.fatigue_attribute),
        actions=str(ch.actions_per_turn()),
    )


def _resistance(ch: Character) -> Text:
    return listing(
        [
            Text.of(
                "sheet.pbw.location",
                loc=word(f"sheet.pbw.where.{loc}", loc),
                value=of_full(
                    ch.resistance.get(loc, 0), ch.max_resistance.get(loc, ch.resistance.get(loc, 0))
                ),
            )
            for loc in LOCATIONS
            if loc in ch.resistance or loc in ch.max_resistance
        ]
    )


def _skills(ch: Character) -> Text:
    found = [
        Text.of("sheet.skill", skill=word(f"panel.pbw.attribute.{key}", key), value=str(value))
        for key, value in ch.attributes.items()
    ] + [
        Text.of("sheet.skill", skill=word(f"panel.pbw.skill.{key}", key), value=str(value))
        for key, value in ch.skills.items()
    ]
    return joined(found, ", ") if found else Text.of("sheet.none")


def _weapon(ch: Character, index: int, carried: Carried) -> Text:
    spec = carried.spec
    parts = [
        Text.of(
            "sheet.pbw.weapon",
            weapon=word(f"sheet.pbw.arms.{carried.type}", carried.type),
            damage=spec.damage.text,
            accuracy=f"{spec.accuracy:+d}",
        )
    ]
    if spec.ranged:  # PBW-5: the farthest hex of each band, short to extreme
        parts.append(
            Text.of("sheet.pbw.bands", **dict(zip(BANDS, (str(r) for r in spec.ranges), strict=True)))
        )
        parts.append(Text.of("sheet.pbw.ammo", now=str(carried.ammo), full=str(spec.capacity)))
    if ch.held == index and not spec.fists:
        parts.append(Text.of("sheet.pbw.in_hand"))
    if carried.dropped:  # PBW-4: dropped by a useless arm
        parts.append(Text.of("sheet.pbw.dropped"))
    return joined(parts, " · ")


def _treatment(state: EncounterState, ch: Character, viewer: str) -> list[Line]:
    """PBW-6: the count of a treatment under way, on the healer's sheet and on the patient's, for the director
    and the character's own side; a character the reader cannot see is never named."""
    if viewer not in (DIRECTOR, ch.side):
        return []
    seen = visibility(ruleset_for(state), state, viewer).units
    out: list[Line] = []
    t = ch.treating
    if t is not None and t.target in seen:
        out.append(
            Line(
                Text.of("stat.pbw_treating"),
                Text.of(
                    "panel.pbw.treating",
                    target=state.units[t.target].name,
                    loc=word(f"sheet.pbw.where.{t.location}", t.location),
                    turns=str(t.turns),
                ),
            )
        )
    for healer in state.units_of(Character):
        t = healer.treating
        if t is None or t.target != ch.id or healer.id == ch.id or healer.id not in seen:
            continue
        loc = word(f"sheet.pbw.where.{t.location}", t.location)
        text = Text.of("panel.pbw.treated_by", healer=healer.name, loc=loc, turns=str(t.turns))
        out.append(Line(Text.of("stat.pbw_treated"), text))
    return out


def record_sheet(state: EncounterState, unit_id: str, viewer: str) -> Sheet:
    ch = state.units[unit_id]
    if not isinstance(ch, Character):
        return Sheet(position_lines(ch))
    lines = [
        *(line for line in position_lines(ch) if line.name.key != "sheet.state"),
        Line(Text.of("sheet.state"), word(term_key(ch.condition, "pbw"), ch.condition)),
        Line(Text.of("stat.pbw_hp"), of_full(ch.hp, ch.max_hp or ch.hp)),
        Line(Text.of("stat.pbw_fatigue"), _fatigue(ch)),
        Line(Text.of("stat.pbw_initiative"), Text.plain(str(ch.initiative))),
        Line(Text.of("sheet.pbw.movement"), Text.of("sheet.pbw.hexes", hexes=str(ch.movement))),
        Line(Text.of("sheet.pbw.resistance"), _resistance(ch), wide=True),
        Line(Text.of("sheet.pbw.skills"), _skills(ch), wide=True),
        Line(
            Text.of("sheet.pbw.weapons"),
            listing([_weapon(ch, i, w) for i, w in enumerate(ch.weapons)]),
            wide=True,
        ),
    ]
    if ch.items:
        items = [word(f"sheet.pbw.item.{item}", item) for item in ch.items]
        lines.append(Line(Text.of("sheet.pbw.items"), joined(items, ", ")))
    lines.extend(_treatment(state, ch, viewer))
    return Sheet(tuple(lines))


class PbwSheet(SheetPlugin):
    __slots__ = ()

    def record_sheet(self, state: EncounterState, unit_id: str, viewer: str) -> Sheet:
        return record_sheet(state, unit_id, viewer)


SHEET = PbwSheet()
