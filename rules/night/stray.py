"""Straying (NGT-5) and jitter fire (NGT-6), checked each time a unit is about to move.

Exempt: the unit sees a known enemy, or starts on or next to a road, trail, gully or stream, or in or next to
an illuminated hex. Otherwise the movement roll (coloured d6, white d6): coloured 6 → possible stray; lax units
always stray, normal ones on white ≥ 3, stealthy ones on white ≥ 5 (motor vehicles are always lax). A straying
unit rolls the direction (coloured die → side 1-6 = N … NW, white die) and moves as far as it can that way,
stopping before moving closer to a known enemy, an illuminated hex, a known fire zone, the board edge,
impassable terrain or terrain it lacks the points for, and at a friendly unit; stopped by the enemy or the
terrain (or with points left it cannot spend) it is marked TI. Doubles on the direction roll with a gunflash on
the board: jitter fire.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from rules.dice import Dice
from rules.events import Event
from rules.hexgrid import Hex, HexSide
from rules.night.events import NightJitterFire, NightStraying
from rules.night.light import gunflash
from rules.night.sight import gunflash_units, is_vehicle, known_enemies, lit_hexes
from rules.night.state import night_of, with_night
from rules.night.tables import TI, tables
from rules.ruleset import MoveIntent, Ruleset
from rules.state import EncounterState, Marker, Unit

ZONES = ("fire", "minefield", "ffe")  # known fire zones and minefields a straying unit never enters (NGT-5)


@dataclass(frozen=True, slots=True)
class Walk:
    path: tuple[Hex, ...]
    spent: int
    because: str
    left: int


def exemption(state: EncounterState, unit: Unit, lit: frozenset[Hex]) -> str | None:
    """NGT-5: why the unit need not roll (``enemy``, ``road``, ``illuminated``), or None."""
    if unit.at is None:
        return None
    if unit.id in night_of(state).steady:
        return "friendly"  # the seed: "podrá mover el resto … sin estar sujeta a extravío"
    if known_enemies(state, unit, lit):
        return "enemy"
    around = (unit.at, *unit.at.neighbors())
    if any(state.board.terrain_at(h) in tables().exempt_terrain for h in around):
        return "road"
    if any(h in lit for h in around):
        return "illuminated"
    return None


def discipline_for(state: EncounterState, unit: Unit, intent: MoveIntent) -> str:
    """NGT-5: motor vehicles are always lax; others as the scenario says (default normal)."""
    ns = night_of(state)
    return "lax" if intent.vehicle or is_vehicle(ns, unit) else ns.discipline_of(unit.id)


def walk(
    ruleset: Ruleset, state: EncounterState, unit: Unit, side: int, points: int, lit: frozenset[Hex]
) -> Walk:
    """NGT-5: "tan lejos como sea posible" in direction ``side``."""
    assert unit.at is not None
    at = unit.at
    path: list[Hex] = []
    spent, left = 0, points
    enemies = known_enemies(state, unit, lit)
    because = "points"
    while True:
        if left <= 0:
            because = "points"
            break
        nxt = at.neighbor(side)
        if not state.board.contains(nxt):
            because = "edge"
            break
        if nxt in lit:
            because = "illuminated"
            break
        if enemies and min(nxt.distance(e.at) for e in enemies if e.at) < min(
            at.distance(e.at) for e in enemies if e.at
        ):
            because = "enemy"
            break
        if any(m.at == nxt and m.kind in ZONES for m in state.markers):
            because = "terrain"
            break
        if any(u.side == unit.side and u.id != unit.id for u in state.units_at(nxt)):
            because = "friendly"
            break
        cost = ruleset.enter_cost(state, unit.id, at, nxt)
        if cost is None:
            because = "terrain"
            break
        if cost > left:
            because = "points"
            break
        at = nxt
        path.append(at)
        spent += cost
        left -= cost
        if not enemies and known_enemies(state.with_units([replace(unit, at=at)]), replace(unit, at=at), lit):
            because = "enemy"  # the seed's example: it gains sight of an enemy and stops there, TI
            break
    return Walk(tuple(path), spent, because, left)


def nearest_enemy(state: EncounterState, unit: Unit) -> Unit | None:
    """NGT-6: the nearest enemy unit in good order that is not concealed (ties: unit id)."""
    if unit.at is None:
        return None
    here = unit.at
    candidates = [
        e
        for e in state.units.values()
        if e.side != unit.side and e.on_board and not e.hidden and e.at is not None
    ]
    if not candidates:
        return None
    return min(candidates, key=lambda e: (here.distance(e.at) if e.at else 0, e.id))


def check(
    ruleset: Ruleset, state: EncounterState, intent: MoveIntent, dice: Dice
) -> tuple[EncounterState, list[Event], bool]:
    """The straying check of a unit about to move. Returns the new state, the events, and whether its move was
    taken over (a stray, or cancelled by its own jitter fire)."""
    tab = tables()
    unit = state.unit(intent.unit)
    lit = lit_hexes(state)
    discipline = discipline_for(state, unit, intent)
    reason = exemption(state, unit, lit)
    if reason is not None or unit.at is None:
        return (
            state,
            [
                NightStraying(
                    rule="NGT-5", key="night_exempt", unit=unit.id, exempt=reason, discipline=discipline
                )
            ],
            False,
        )
    roll = dice.roll(2, 6, rule="NGT-5", purpose="movement")
    colored, white = roll.dice
    strays = colored == tab.stray_colored and white >= tab.white_at_least[discipline]
    if not strays:
        event = NightStraying(
            rule="NGT-5",
            key="night_kept_way",
            unit=unit.id,
            colored=colored,
            white=white,
            discipline=discipline,
        )
        return state, [event], False
    direction = dice.roll(2, 6, rule="NGT-5", purpose="stray direction")
    dc, dw = direction.dice
    side = dc - 1
    after: list[Event] = []
    cancelled = False
    if dc == dw and gunflash_units(state):  # NGT-6
        jr = dice.roll(2, 6, rule="NGT-6", purpose="jitter fire").total
        shooter = unit if dc in tab.mover_fires_on else nearest_enemy(state, unit)
        if shooter is not None:
            cancelled = shooter.id == unit.id
            after.append(NightJitterFire(rule="NGT-6", unit=shooter.id, roll=jr, cancels_move=cancelled))
            state, flash = gunflash(state, shooter.id)
            after.extend(flash)

    def strayed(stopped_at: Hex, because: str, hexes: int = 0, ti: bool = False) -> NightStraying:
        key = "night_jittered" if because == "jitter" else "night_strayed_ti" if ti else "night_strayed"
        return NightStraying(
            rule="NGT-5",
            key=key,
            unit=unit.id,
            colored=colored,
            white=white,
            discipline=discipline,
            strayed=True,
            direction=HexSide(side).name,
            direction_colored=dc,
            direction_white=dw,
            stopped_at=stopped_at,
            stopped_because=because,
            hexes=hexes,
            ti=ti,
        )

    if cancelled:
        return state, [strayed(unit.at, "jitter"), *after], True
    w = walk(ruleset, state, unit, side, intent.points, lit)
    ti = w.because in ("enemy", "terrain") or (w.because == "points" and w.left > 0)
    stopped = w.path[-1] if w.path else unit.at
    event = strayed(stopped, w.because, len(w.path), ti)
    state, moved = ruleset.stray_move(state, unit.id, w.path, w.spent)
    if ti:
        state = state.replace(markers=(*state.markers, Marker(kind=TI, at=stopped, owner=unit.id)))
    if w.because == "friendly":
        ns = night_of(state)
        state = with_night(state, replace(ns, steady=(*ns.steady, unit.id)))
    return state, [event, *moved, *after], True
