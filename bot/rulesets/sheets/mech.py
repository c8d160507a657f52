"""The mech record sheet: armour and structure per location (numbers, and a doll image), weapons with their
location, damage, range bands (MECH-2.3), heat and ammunition, heat against the sinks (MECH-3.1), the pilot's
Gunnery and Piloting, movement points and the unit's condition (MECH-2.3 immobile, MECH-3.1 shutdown)."""

from __future__ import annotations

from bot.panels.model import Text
from bot.rulesets.sheets import (
    Box,
    Line,
    Sheet,
    SheetPlugin,
    hexside,
    joined,
    listing,
    of_full,
    position_lines,
    word,
)
from data.i18n import term_key
from rules.mech.model import Mech, MechWeapon
from rules.mech.movement import mp_available
from rules.state import EncounterState

#: where each location sits on the doll (column, row), as a record sheet draws a BattleMech seen from behind
#: (its left arm on the left) and a vehicle seen from above, front up; a location no layout knows (a kind of
#: unit added later) goes on a row of its own below
LAYOUT: dict[str, tuple[float, float]] = {
    "head": (2, 0),
    "la": (0, 1),
    "lt": (1, 1),
    "ct": (2, 1),
    "rt": (3, 1),
    "ra": (4, 1),
    "ll": (1, 2),
    "rl": (3, 2),
    "front": (1, 0),
    "left": (0, 1),
    "turret": (1, 1),
    "right": (2, 1),
    "rear": (1, 2),
}


def _doll(unit: Mech) -> tuple[Box, ...]:
    locations = list(unit.structure)
    placed = [loc for loc in LAYOUT if loc in locations]
    others = [loc for loc in locations if loc not in LAYOUT]
    last_row = max((LAYOUT[loc][1] for loc in placed), default=-1) + 1
    boxes: list[Box] = []
    for loc in (*placed, *others):
        col, row = LAYOUT[loc] if loc in LAYOUT else (float(others.index(loc)), last_row)
        boxes.append(
            Box(
                word(f"sheet.mech.doll.{loc}", loc),
                unit.armor.get(loc, 0),
                unit.max_armor.get(loc, unit.armor.get(loc, 0)),
                unit.structure.get(loc, 0),
                unit.max_structure.get(loc, unit.structure.get(loc, 0)),
                col,
                row,
            )
        )
    return tuple(boxes)


def _armour_lines(unit: Mech) -> Text:
    """``left arm: 12/16 · 6/8`` per location, the same figures as the doll for a reader without images."""
    rows = [
        Text.of(
            "sheet.mech.location",
            loc=word(f"sheet.mech.where.{loc}", loc),
            armour=of_full(unit.armor.get(loc, 0), unit.max_armor.get(loc, 0)),
            structure=of_full(unit.structure.get(loc, 0), unit.max_structure.get(loc, 0)),
        )
        for loc in unit.structure
    ]
    return listing(rows)


def _weapon(unit: Mech, index: int, weapon: MechWeapon) -> Text:
    spec = weapon.spec
    damage = (
        Text.of("sheet.mech.salvo", damage=str(spec.damage), missiles=str(spec.missiles))
        if spec.missiles
        else Text.plain(str(spec.damage))
    )
    parts: list[Text] = [
        Text.of(
            "sheet.mech.weapon",
            weapon=word(term_key(weapon.type, "mech"), weapon.type),
            loc=word(f"sheet.mech.where.{weapon.loc}", weapon.loc),
            damage=damage,
            short=str(spec.short),
            medium=str(spec.medium),
            long=str(spec.long),
            heat=str(spec.heat),
        )
    ]
    if weapon.rear:
        parts.append(Text.of("sheet.mech.rear"))
    if spec.minimum:
        parts.append(Text.of("sheet.mech.minimum", hexes=str(spec.minimum)))
    if spec.ammo:  # MECH-3.2: its ammunition may explode when the unit runs hot
        parts.append(Text.of("sheet.mech.ammo"))
    if not unit.weapon_usable(index):
        parts.append(Text.of("sheet.mech.weapon_out"))
    return joined(parts, " · ")


def _movement(unit: Mech) -> Text:
    """MP per movement mode as they stand now: heat (MECH-3.2) and a destroyed leg (MECH-2.3) take their share,
    and a vehicle or an aircraft names its own modes (cruise, flank)."""
    modes = [
        Text.of("sheet.skill", skill=word(f"panel.mech.mode.{mode}", mode), value=str(mp))
        for mode, mp in mp_available(unit).items()
        if mp > 0
    ]
    return joined(modes) if modes else Text.of("sheet.none")


def _condition(unit: Mech) -> list[Text]:
    flags = [
        (unit.destroyed, "sheet.destroyed"),
        (unit.immobile, "sheet.mech.immobile"),  # MECH-2.3: a leg destroyed
        (unit.shutdown, "sheet.mech.shutdown"),  # MECH-3.1
        (unit.prone, "sheet.mech.prone"),
        (unit.out_of_control, "sheet.mech.out_of_control"),  # MECH-5
    ]
    return [Text.of(key) for on, key in flags if on]


def record_sheet(state: EncounterState, unit_id: str, viewer: str) -> Sheet:
    unit = state.units[unit_id]
    if not isinstance(unit, Mech):
        return Sheet(position_lines(unit))
    facing = hexside(unit.facing)
    if unit.torso != unit.facing % 6:  # MECH-1.3: the torso twisted off the legs' facing
        facing = Text.of("sheet.mech.facing_torso", legs=facing, torso=hexside(unit.torso))
    lines = [
        *(line for line in position_lines(unit, facing) if line.name.key != "sheet.state"),
        Line(Text.of("sheet.mech.kind"), word(f"sheet.mech.kinds.{unit.kind}", unit.kind)),
        Line(
            Text.of("sheet.mech.pilot"),
            Text.of("sheet.mech.skills", gunnery=str(unit.gunnery), piloting=str(unit.piloting)),
        ),
        Line(Text.of("sheet.mech.movement"), _movement(unit)),
    ]
    if unit.keeps_heat:  # MECH-3.1: BattleMechs and fighters make heat; vehicles and helicopters do not
        lines.append(
            Line(
                Text.of("sheet.mech.heat"),
                Text.of("sheet.mech.heat_value", heat=str(unit.heat), sinks=str(unit.heat_sinks)),
            )
        )
    if condition := _condition(unit):
        lines.append(Line(Text.of("sheet.state"), joined(condition, ", ")))
    lines.append(Line(Text.of("sheet.mech.armour"), _armour_lines(unit), wide=True))
    lines.append(
        Line(
            Text.of("sheet.mech.weapons"),
            listing([_weapon(unit, i, w) for i, w in enumerate(unit.weapons)]),
            wide=True,
        )
    )
    return Sheet(tuple(lines), _doll(unit))


class MechSheet(SheetPlugin):
    __slots__ = ()

    def record_sheet(self, state: EncounterState, unit_id: str, viewer: str) -> Sheet:
        return record_sheet(state, unit_id, viewer)


SHEET = MechSheet()
