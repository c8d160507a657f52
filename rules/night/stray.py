"""Straying (NGT-5) and jitter fire (NGT-6), checked each time a unit is about to move.

Exempt: the unit sees a known enemy, or stands on or next to a road, trail, gully or stream, or in or next to
an illuminated hex. The exemption is judged again before every hex a declared path enters (the seed: "tendrán que
chequear por extravío cuando no sigan reuniendo ninguna de esas condiciones y quieran entrar en un nuevo
hexágono"); the first hex where it is lost gets the movement roll, one per move. Otherwise the movement roll (coloured d6, white d6): coloured 6 → possible stray; lax units
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
from rules.events import Event, RollMade
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


def lost_exemption(
    ruleset: Ruleset, state: EncounterState, unit: Unit, path: tuple[Hex, ...], lit: frozenset[Hex]
) -> tuple[int, int, str | None]:
    """NGT-5 judged before every hex of ``path``: how many of its hexes the unit enters still exempt, the points
    they cost, and the exemption it starts with (None: it must roll before its first step). All of ``path``: it
    never loses its exemption before a hex it means to enter."""
    assert unit.at is not None
    first = exemption(state, unit, lit)
    if first is None:
        return 0, 0, None
    at, spent = unit.at, 0
    for k, nxt in enumerate(path[:-1], start=1):
        spent += ruleset.enter_cost(state, unit.id, at, nxt) or 1  # the path was checked when declared
        at = nxt
        here = replace(unit, at=at)
        if exemption(state.with_units([here]), here, lit) is None:
            return k, spent, first
    return len(path), spent, first


def check(
    ruleset: Ruleset, state: EncounterState, intent: MoveIntent, dice: Dice
) -> tuple[EncounterState, list[Event], bool]:
    """The straying check of a unit about to move. Returns the new state, the events, and whether its move was
    taken over (a stray, or cancelled by its own jitter fire). A declared path that loses its exemption mid-way is
    checked where it loses it: on a stray the unit walks the path so far, then strays from there."""
    tab = tables()
    unit = state.unit(intent.unit)
    lit = lit_hexes(state)
    discipline = discipline_for(state, unit, intent)
    if unit.at is None:
        return (
            state,
            [NightStraying(rule="NGT-5", key="night_exempt", unit=unit.id, discipline=discipline)],
            False,
        )
    kept, prefix_spent, reason = lost_exemption(ruleset, state, unit, intent.path, lit)
    if reason is not None and kept == len(intent.path):
        return (
            state,
            [
                NightStraying(
                    rule="NGT-5", key="night_exempt", unit=unit.id, exempt=reason, discipline=discipline
                )
            ],
            False,
        )
    before, start = state, unit.at
    prefix = intent.path[:kept]
    at_key = "_at" if prefix else ""
    where: tuple[tuple[str, str], ...] = (("checked_at", prefix[-1].label),) if prefix else ()
    here = prefix[-1] if prefix else start
    if prefix:
        # judged where it lost its exemption, with the points the path so far cost already spent
        unit = replace(unit, at=here)
        state = state.with_units([unit])
    roll = dice.roll(2, 6, rule="NGT-5", purpose="movement")
    colored, white = roll.dice
    strays = colored == tab.stray_colored and white >= tab.white_at_least[discipline]
    # the roll's own line says who checks, both dice, what strays and the result, before what follows from it
    checked = RollMade.of(
        roll,
        actor=unit.id,
        purpose_key="night.stray",
        discipline=discipline,
        colored_need=tab.stray_colored,
        white_need=tab.white_at_least[discipline],
        need="night.stray",
        quality="night.strays" if strays else "night.keeps",
    )
    if not strays:
        event = NightStraying(
            rule="NGT-5",
            key=f"night_kept_way{at_key}",
            unit=unit.id,
            colored=colored,
            white=white,
            discipline=discipline,
            args=where,
        )
        return before, [checked, event], False
    direction = dice.roll(2, 6, rule="NGT-5", purpose="stray direction")
    dc, dw = direction.dice
    side = dc - 1
    rolls: list[Event] = [
        checked,
        RollMade.of(direction, actor=unit.id, purpose_key="night.direction", direction=HexSide(side).name),
    ]
    after: list[Event] = []
    cancelled = False
    if dc == dw and gunflash_units(state):  # NGT-6
        jitter = dice.roll(2, 6, rule="NGT-6", purpose="jitter fire")
        jr = jitter.total
        shooter = unit if dc in tab.mover_fires_on else nearest_enemy(state, unit)
        if shooter is not None:
            cancelled = shooter.id == unit.id
            after.append(RollMade.of(jitter, actor=shooter.id, purpose_key="night.jitter"))
            after.append(NightJitterFire(rule="NGT-6", unit=shooter.id, roll=jr, cancels_move=cancelled))
            state, flash = gunflash(state, shooter.id)
            after.extend(flash)

    def strayed(stopped_at: Hex, because: str, hexes: int = 0, ti: bool = False) -> NightStraying:
        key = "night_jittered" if because == "jitter" else "night_strayed_ti" if ti else "night_strayed"
        return NightStraying(
            rule="NGT-5",
            key=f"{key}{at_key}",
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
            args=where,
        )

    # the stray is judged from where the exemption was lost, but carried out from where the unit stood: the path
    # so far is walked for real, then the stray's own hexes
    judged = state
    state = state.with_units([replace(state.unit(unit.id), at=start)])
    if cancelled:
        state, moved = ruleset.stray_move(state, unit.id, prefix, prefix_spent)
        return state, [*rolls, strayed(here, "jitter"), *moved, *after], True
    w = walk(ruleset, judged, unit, side, intent.points - prefix_spent, lit)
    ti = w.because in ("enemy", "terrain") or (w.because == "points" and w.left > 0)
    stopped = w.path[-1] if w.path else here
    event = strayed(stopped, w.because, len(w.path), ti)
    state, moved = ruleset.stray_move(state, unit.id, (*prefix, *w.path), prefix_spent + w.spent)
    if ti:
        state = state.replace(markers=(*state.markers, Marker(kind=TI, at=stopped, owner=unit.id)))
    if w.because == "friendly":
        ns = night_of(state)
        state = with_night(state, replace(ns, steady=(*ns.steady, unit.id)))
    return state, [*rolls, event, *moved, *after], True
