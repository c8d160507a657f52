"""Pure helpers for the order panel and ``/unit arcs``: what an order string would do, what a weapon can reach."""

from __future__ import annotations

from rules.exo.arcs import SECTIONS, coverage, sections
from rules.exo.crew import find_crew
from rules.exo.model import Ship
from rules.exo.movement import execute_orders, inertial_move
from rules.exo.tables import tables
from rules.exo.turrets import GUNNER, turret_handler
from rules.hexgrid import Hex, hexes_within
from rules.ruleset import RangeBand
from rules.state import EncounterState


def manta(state: EncounterState, ship_id: str) -> int:
    """EXO-2.2: this round's maneuverability (set by the phase-1 crew step)."""
    return state.unit_as(ship_id, Ship).manta


def project_orders(state: EncounterState, ship_id: str, moves: str) -> tuple[Hex, int, Hex]:
    """Where ``moves`` would take the ship if executed as written: (position, facing, new vector) (EXO-4.2/4.3)."""
    ship = state.unit_as(ship_id, Ship)
    assert ship.at is not None
    vector = ship.vector if ship.vector is not None else ship.at
    facing, vector = execute_orders(ship.facing, vector, moves.upper())
    at, vector = inertial_move(ship.at, vector)
    return at, facing, vector


def _reach(ship: Ship) -> int:
    t = tables()
    return max((t.weapon_type(w.type).max_range for w in ship.weapons if w.usable), default=0)


def arcs(state: EncounterState, ship_id: str) -> dict[str, list[Hex]]:
    """EXO-1.4: for each section, the hexes in it within the ship's longest usable weapon range."""
    ship = state.unit_as(ship_id, Ship)
    out: dict[str, list[Hex]] = {s: [] for s in SECTIONS}
    if ship.at is None:
        return out
    for h in hexes_within(ship.at, _reach(ship)):
        if h == ship.at:
            continue
        for s in sections(ship.at, ship.facing, h):
            out[s].append(h)
    return out


def weapon_reach(
    state: EncounterState, ship_id: str, weapon_index: int
) -> tuple[dict[str, list[Hex]], tuple[RangeBand, ...]]:
    """EXO-1.4, EXO-3.4: the sections weapon ``weapon_index`` (1-based) covers (a turret all of them when a
    gunner mans it, else as bow, EXO-1.3), each out to the weapon's maximum range, and its range bands."""
    ship = state.unit_as(ship_id, Ship)
    weapon = ship.weapons[weapon_index - 1]
    kind = tables().weapon_type(weapon.type)
    covered = coverage(weapon, manned=turret_handler(ship.weapons, ship.crew, weapon_index - 1) is not None)
    out: dict[str, list[Hex]] = {s: [] for s in SECTIONS if s in covered}
    if ship.at is not None:
        for h in hexes_within(ship.at, kind.max_range):
            if h != ship.at:
                for s in sections(ship.at, ship.facing, h) & covered:
                    out[s].append(h)
    bands = tuple(RangeBand(name, first, min(last, kind.max_range)) for name, first, last in kind.bands)
    return out, bands


def legal_targets(
    state: EncounterState, ship_id: str, weapon_index: int, *, by: str | None = None
) -> list[str]:
    """Enemy ships that weapon ``weapon_index`` (1-based) can hit now: in a covered section and within range.

    ``by`` (a crew name) is the shooter: nothing is listed for a weapon that crew member may not fire (EXO-1.5:
    another gunner's turret, or a turret gunner's non-turret weapon). A turret whose own gunner is down or busy
    repairing lists nothing (EXO-5.2, EXO-6.2); one with no gunner assigned fires as bow (EXO-1.3).
    """
    ship = state.unit_as(ship_id, Ship)
    if ship.at is None or not 1 <= weapon_index <= len(ship.weapons):
        return []
    weapon = ship.weapons[weapon_index - 1]
    if not weapon.usable:
        return []
    handler = turret_handler(ship.weapons, ship.crew, weapon_index - 1)
    if handler is not None and not handler.able(state.round):
        return []
    if by is not None:
        shooter = find_crew(ship.crew, by)
        if handler is not None and (shooter is None or shooter.name != handler.name):
            return []
        if shooter is not None and shooter.station == GUNNER and shooter.turret not in (0, weapon_index):
            return []
    manned = handler is not None
    covered = coverage(weapon, manned=manned)
    reach = tables().weapon_type(weapon.type).max_range
    out: list[str] = []
    for unit in state.units.values():
        if not isinstance(unit, Ship) or not unit.active or unit.side == ship.side or unit.at is None:
            continue
        if ship.at.distance(unit.at) <= reach and covered & sections(ship.at, ship.facing, unit.at):
            out.append(unit.id)
    return out


def reachable(state: EncounterState, ship_id: str) -> frozenset[Hex]:
    """Every hex the ship can end on this round with up to Manta orders (EXO-2.3, EXO-4.3; at most 5 deep)."""
    ship = state.unit_as(ship_id, Ship)
    strings = [""]
    frontier = [""]
    for _ in range(min(ship.manta, 5)):
        frontier = [s + c for s in frontier for c in ("I", "D", "A")]
        strings.extend(frontier)
    return frozenset(project_orders(state, ship_id, s)[0] for s in strings)
