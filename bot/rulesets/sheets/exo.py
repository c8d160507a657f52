"""The exo record sheet (EXO-1.2 … EXO-1.5): where the ship is and will be (its vector, EXO-1.1), its systems
now and at full, its crew by station with their skills, and its weapons by the firing section they cover."""

from __future__ import annotations

from bot.panels.model import Text
from bot.rulesets.sheets import (
    Line,
    Sheet,
    SheetPlugin,
    joined,
    listing,
    of_full,
    position_lines,
    where,
    word,
)
from rules.exo.arcs import SECTIONS, coverage
from rules.exo.crew import ACTIVE, STATION_SKILL, Crew
from rules.exo.model import Ship, SpaceObject
from rules.exo.turrets import turret_handler
from rules.state import EncounterState


def _vector(ship: Ship | SpaceObject) -> Line:
    # EXO-1.1: the vector counter is where the ship ends next round if nothing changes
    shown = Text.plain(ship.vector.label) if ship.vector is not None else Text.of("sheet.none")
    return Line(Text.of("sheet.exo.vector"), shown)


def _crew_line(member: Crew) -> Text:
    """``Rhea (pilot) · Piloting 15, Gunnery 13``: the station's own skill first (EXO-1.5); a crew the
    scenario did not list (an NPC crew) is named by its station and shows that skill alone."""
    station = word(f"term.{member.station}", member.station)
    own = STATION_SKILL.get(member.station, "")
    keys = [own] if member.npc else [own, *(k for k in member.skills if k != own)]
    skills = [
        Text.of("sheet.skill", skill=word(f"rolls.skill_name.{key}", key), value=str(member.skill(key)))
        for key in keys
        if key in member.skills
    ]
    who = station if member.npc else Text.plain("{name} ({station})", name=member.name, station=station)
    parts = [Text.plain("**{who}**", who=who)]
    if skills:
        parts.append(joined(skills, ", "))
    if member.status != ACTIVE:  # EXO-5.2: out of action until treated
        parts.append(word(f"term.{member.status}", member.status))
    return joined(parts, " · ")


def _weapons_by_section(ship: Ship) -> Text:
    """One row per firing section (EXO-1.4) with the weapons that cover it now: a turret with a gunner covers
    all four, without one it fires as bow (EXO-1.3)."""
    by_section: dict[str, list[Text]] = {s: [] for s in SECTIONS}
    for i, weapon in enumerate(ship.weapons):
        manned = turret_handler(ship.weapons, ship.crew, i) is not None
        label = Text.plain(ship.weapon_label(i))
        if weapon.beyond_repair:  # EXO-6.1
            label = Text.of("sheet.out", what=label, why=Text.of("term.beyond_repair"))
        elif weapon.disabled:  # EXO-3.5
            label = Text.of("sheet.out", what=label, why=Text.of("sheet.exo.disabled"))
        for section in coverage(weapon, manned=manned):
            by_section[section].append(label)
    return listing(
        [
            Text.plain(
                "{section}: {weapons}",
                section=word(f"arc.{section}", section),
                weapons=joined(found, ", ") if found else Text.of("sheet.none"),
            )
            for section, found in by_section.items()
        ]
    )


def _systems(ship: Ship) -> Text:
    """EXO-1.2: each system now and at full, two to a row."""
    pairs = [
        ("maneuverability", ship.maneuverability, ship.max_maneuverability),
        ("engines", ship.engines, ship.max_engines),
        ("armor", ship.armor, ship.max_armor),
        ("structure", ship.structure, ship.max_structure),
        ("cabin", ship.cabin, ship.max_cabin),
        ("cargo", ship.cargo, ship.max_cargo),
    ]
    shown = [
        Text.of("sheet.skill", skill=Text.of(f"stat.{key}"), value=of_full(now, full))
        for key, now, full in pairs
    ]
    return listing([joined(shown[i : i + 2]) for i in range(0, len(shown), 2)])


def record_sheet(state: EncounterState, unit_id: str, viewer: str) -> Sheet:
    unit = state.units[unit_id]
    if isinstance(unit, SpaceObject):
        lines = [
            Line(Text.of("sheet.hex"), where(unit)),
            Line(Text.of("stat.kind"), word(f"value.kind.{unit.kind}", unit.kind)),
        ]
        if unit.vector is not None:  # drifting debris
            lines.append(_vector(unit))
        return Sheet(tuple(lines))
    if not isinstance(unit, Ship):
        return Sheet(position_lines(unit))
    lines = [
        *position_lines(unit),
        _vector(unit),
        Line(Text.of("sheet.exo.manta"), Text.plain(str(unit.manta))),  # EXO-2.2: this round's
        Line(Text.of("sheet.exo.systems"), _systems(unit), wide=True),
        Line(Text.of("sheet.exo.weapons"), _weapons_by_section(unit), wide=True),
        Line(Text.of("sheet.exo.crew"), listing([_crew_line(c) for c in unit.crew]), wide=True),
    ]
    return Sheet(tuple(lines))


class ExoSheet(SheetPlugin):
    __slots__ = ()

    def record_sheet(self, state: EncounterState, unit_id: str, viewer: str) -> Sheet:
        return record_sheet(state, unit_id, viewer)


SHEET = ExoSheet()
