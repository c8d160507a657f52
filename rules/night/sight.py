"""What a side sees at night (NGT-2), on top of what the base ruleset lets it see.

From a dark hex a unit sees hexes within NVR, illuminated hexes at any range and moving vehicles to 1.5 × NVR
(2 × if fully tracked). From an illuminated hex it sees only illuminated hexes (the seed is literal and wins).
Gunflashes it does not otherwise see are seen as concealed ('?'). A side sees what any of its units sees.
"""

from __future__ import annotations

import math
from collections import OrderedDict

from rules.hexgrid import Hex, hexes_within
from rules.night.state import NightState, night_of
from rules.night.tables import GUNFLASH, LIGHTS, tables
from rules.ruleset import DIRECTOR, Visibility
from rules.state import EncounterState, Unit


def lit_hexes(state: EncounterState) -> frozenset[Hex]:
    """NGT-3: every hex within a flare's or an illuminating round's radius (on the board)."""
    out: set[Hex] = set()
    for m in state.markers:
        if m.kind in LIGHTS:
            out.update(
                h for h in hexes_within(m.at, m.radius or tables().radius(m.kind)) if state.board.contains(h)
            )
    return frozenset(out)


def gunflash_units(state: EncounterState) -> frozenset[str]:
    return frozenset(m.owner for m in state.markers if m.kind == GUNFLASH and m.owner in state.units)


def is_vehicle(ns: NightState, unit: Unit) -> bool:
    return unit.kind in tables().vehicle_kinds or unit.id in ns.motorized


def sight_hexes(state: EncounterState, unit: Unit, lit: frozenset[Hex]) -> frozenset[Hex]:
    """NGT-2: the hexes ``unit`` sees: illuminated ones, plus (from a dark hex) those within NVR; the base
    ruleset's own sight (facing arcs, blocking terrain: ``Ruleset.sees_hex``) on top."""
    from rules.registry import ruleset_for

    if unit.at is None:
        return frozenset()
    if unit.at in lit:
        candidates = lit | {unit.at}
    else:
        near = hexes_within(unit.at, night_of(state).nvr)
        candidates = lit | frozenset(h for h in near if state.board.contains(h) or not state.board.bounded)
    base = ruleset_for(state)
    return frozenset(h for h in candidates if h == unit.at or base.sees_hex(state, unit.id, h))


def unit_sees(
    state: EncounterState,
    viewer: Unit,
    target: Unit,
    lit: frozenset[Hex],
    sight: frozenset[Hex] | None = None,
) -> bool:
    """NGT-2: ``viewer`` sees ``target`` fully (a moving vehicle from a dark hex to 1.5 × / 2 × NVR). ``sight``:
    the viewer's ``sight_hexes`` when the caller has them already."""
    if viewer.at is None or target.at is None:
        return False
    if target.at in (sight if sight is not None else sight_hexes(state, viewer, lit)):
        return True
    ns = night_of(state)
    if viewer.at in lit or target.id not in ns.moved or not is_vehicle(ns, target):
        return False
    tab = tables()
    factor = tab.tracked_vehicle_factor if target.id in ns.tracked else tab.moving_vehicle_factor
    if viewer.at.distance(target.at) > math.floor(ns.nvr * factor):
        return False
    from rules.registry import ruleset_for

    return ruleset_for(state).sees_hex(state, viewer.id, target.at)


def known_enemies(state: EncounterState, unit: Unit, lit: frozenset[Hex] | None = None) -> list[Unit]:
    """Enemies ``unit`` itself sees and that are not hidden (a known enemy: NGT-5, NGT-7)."""
    lit = lit_hexes(state) if lit is None else lit
    sight = sight_hexes(state, unit, lit)
    return [
        e
        for e in state.units.values()
        if e.side != unit.side and e.on_board and not e.hidden and unit_sees(state, unit, e, lit, sight)
    ]


#: the last side views worked out, by the state's identity: a panel validates each order it may offer against
#: one state, and each validation asks what the acting side sees (NGT-2), a line of sight per hex in range.
#: States are immutable and each entry holds its state, so an identity is never reused while it is kept.
VIEWS_KEPT = 64
_views: OrderedDict[tuple[int, str, Visibility], tuple[EncounterState, Visibility]] = OrderedDict()


def side_view(state: EncounterState, side: str, base: Visibility) -> Visibility:
    """NGT-2 for a whole side, within what the base ruleset already lets it see (``base``)."""
    if side == DIRECTOR:
        return base
    key = (id(state), side, base)
    kept = _views.get(key)
    if kept is not None and kept[0] is state:
        return kept[1]
    view = _side_view_now(state, side, base)
    _views[key] = (state, view)
    while len(_views) > VIEWS_KEPT:
        try:  # the oldest first; another thread (a board drawn off the event loop) may have dropped it already
            _views.popitem(last=False)
        except KeyError:
            break
    return view


def _side_view_now(state: EncounterState, side: str, base: Visibility) -> Visibility:
    lit = lit_hexes(state)
    mine = [u for u in state.units.values() if u.side == side and u.on_board]
    sights = {m.id: sight_hexes(state, m, lit) for m in mine}
    hexes: set[Hex] = set(lit)
    for sight in sights.values():
        hexes |= sight
    seen: set[str] = set()
    for uid in base.units:
        u = state.units[uid]
        if u.side == side or u.at is None or any(unit_sees(state, m, u, lit, sights[m.id]) for m in mine):
            seen.add(uid)
    flashes = {uid for uid in gunflash_units(state) if uid not in seen and state.units[uid].side != side}
    concealed = (base.concealed | flashes) - seen
    visible = frozenset(hexes) if base.hexes is None else frozenset(hexes) & base.hexes
    return Visibility(units=frozenset(seen), concealed=frozenset(concealed), hexes=visible)
