"""Heat (MECH-3.1 generated heat, MECH-3.2 heat scale), pure functions of a unit and its declaration."""

from __future__ import annotations

from dataclasses import dataclass

from rules.mech.model import Mech
from rules.mech.orders import CRUISE, FLANK, JUMP, RUN, WALK, MechOrder
from rules.mech.tables import tables


def mp_penalty(heat: int) -> int:
    """MECH-3.2: the highest MP entry at or below ``heat`` (only the highest applies)."""
    return max((lv.mp for lv in tables().heat_levels if lv.level <= heat and lv.mp), default=0)


def heat_to_hit(heat: int) -> int:
    """MECH-3.2: the highest to-hit entry at or below ``heat``."""
    return max((lv.to_hit for lv in tables().heat_levels if lv.level <= heat and lv.to_hit), default=0)


def shutdown_rolls(heat: int) -> tuple[tuple[int, int], ...]:
    """(level, avoid on N+) of every shutdown roll ``heat`` requires, lowest level first; none from the
    automatic-shutdown level on (MECH-3.2: the unit shuts down with no roll)."""
    if heat >= tables().automatic_shutdown:
        return ()
    return tuple((lv.level, lv.shutdown) for lv in tables().heat_levels if lv.level <= heat and lv.shutdown)


def ammo_rolls(heat: int) -> tuple[tuple[int, int], ...]:
    """(level, avoid on N+) of every ammunition explosion roll ``heat`` requires, lowest level first."""
    return tuple((lv.level, lv.ammo) for lv in tables().heat_levels if lv.level <= heat and lv.ammo)


def out_of_control_rolls(heat: int) -> tuple[tuple[int, int], ...]:
    """MECH-5 (MECH-3.2 "Fuera de control (Cazas). Evitable con N+"): (level, avoid on N+) of every roll a
    fighter's ``heat`` requires, lowest level first."""
    return tuple(
        (lv.level, lv.out_of_control) for lv in tables().heat_levels if lv.level <= heat and lv.out_of_control
    )


def movement_heat(mode: str, hexes: int) -> int:
    """MECH-3.1: walk +1, run +2, jump +1 per hex (minimum 3); standing still 0. A fighter's cruise heats as a
    walk, its flank speed as a run [HOUSE, MECH-5]."""
    heat = tables().movement_heat
    if mode in (WALK, CRUISE):
        return heat["walk"]
    if mode in (RUN, FLANK):
        return heat["run"]
    if mode == JUMP:
        return max(heat["jump_min"], heat["jump_per_hex"] * hexes)
    return 0


def weapons_heat(unit: Mech, indexes: tuple[int, ...]) -> int:
    """MECH-3.1: the heat of each weapon fired (1-based indexes)."""
    return sum(unit.weapons[i - 1].spec.heat for i in indexes if 1 <= i <= len(unit.weapons))


def generated_heat(unit: Mech, order: MechOrder, *, fired: tuple[int, ...] | None = None) -> int:
    """Heat a declaration makes: movement, standing up, every weapon declared (or ``fired``). Vehicles and
    helicopters make none."""
    if not unit.keeps_heat:
        return 0
    stands_up = unit.prone and order.mode in (WALK, RUN)
    moved = movement_heat(order.mode, len(order.path))
    weapons = fired if fired is not None else tuple(f.weapon for f in order.fire)
    return moved + (tables().movement_heat["stand_up"] if stands_up else 0) + weapons_heat(unit, weapons)


def end_heat(unit: Mech, generated: int) -> int:
    """MECH-3.1: heat + generated − heat sinks, minimum 0 (vehicles and helicopters keep 0)."""
    if not unit.keeps_heat:
        return 0
    return max(0, unit.heat + generated - unit.heat_sinks)


@dataclass(frozen=True, slots=True)
class HeatProjection:
    """What a declaration would do to a mech's heat, for the order panel ("calor 12 → +2 para impactar el
    próximo turno"). Locale template: ``mech.heat_projection``."""

    now: int
    generated: int
    sinks: int
    after: int
    to_hit_next: int  # MECH-3.2 modifier to its own shots next turn
    mp_next: int  # MECH-3.2 MP lost next turn
    shutdown_rolls: tuple[tuple[int, int], ...]
    ammo_rolls: tuple[tuple[int, int], ...]
    automatic_shutdown: bool


def project_heat(unit: Mech, order: MechOrder) -> HeatProjection:
    generated = generated_heat(unit, order)
    after = end_heat(unit, generated)
    return HeatProjection(
        now=unit.heat,
        generated=generated,
        sinks=unit.heat_sinks if unit.keeps_heat else 0,
        after=after,
        to_hit_next=heat_to_hit(after),
        mp_next=mp_penalty(after) if unit.is_mech else 0,
        shutdown_rolls=shutdown_rolls(after) if unit.keeps_heat else (),
        ammo_rolls=ammo_rolls(after) if unit.keeps_heat and unit.carries_ammo else (),
        automatic_shutdown=unit.keeps_heat and after >= tables().automatic_shutdown,
    )
