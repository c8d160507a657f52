"""Rout at night (NGT-7) and ambush and concealment at night (NGT-8).

No base ruleset has a rout or a close-combat ambush of its own, so these are the layer's answers for the
director (and for a base that grows them): pure functions, tested on the seed's examples.
"""

from __future__ import annotations

from rules.hexgrid import Hex
from rules.night.sight import known_enemies, lit_hexes
from rules.night.tables import tables
from rules.state import EncounterState

AMBUSH_ATTACKER = "attacker"
AMBUSH_DEFENDER = "defender"


def rout_eliminates() -> bool:
    """NGT-7: at night failing to rout never eliminates the unit (nor does it surrender)."""
    return False


def rout_moves(state: EncounterState, unit_id: str) -> frozenset[Hex]:
    """NGT-7: a routing unit low-crawls one hex in any direction, except toward (closer to) a known enemy; it need
    not seek cover, may end adjacent to an enemy, and illumination of the hex does not matter. An enemy the unit
    does not see (dark hex beyond NVR, gunflash already cleared) is not known: it may even crawl into its hex."""
    unit = state.unit(unit_id)
    if unit.at is None:
        return frozenset()
    enemies = [e.at for e in known_enemies(state, unit, lit_hexes(state)) if e.at is not None]
    out: set[Hex] = set()
    for h in unit.at.neighbors():
        if not state.board.contains(h):
            continue
        if any(h.distance(e) < unit.at.distance(e) for e in enemies):
            continue
        out.add(h)
    return frozenset(out)


def ambush(attacker_d6: int, defender_d6: int, *, lit: bool) -> str | None:
    """NGT-8: the attacker ambushes when its d6 is 2 less than the defender's (3 by day or in an illuminated
    location); the defender still needs 3 less than the attacker's."""
    tab = tables()
    margin = tab.day_margin if lit else tab.night_margin
    if attacker_d6 <= defender_d6 - margin:
        return AMBUSH_ATTACKER
    if defender_d6 <= attacker_d6 - tab.day_margin:
        return AMBUSH_DEFENDER
    return None


def concealment_needs_roll() -> bool:
    """NGT-8: at night any gain of concealment that would need a roll is automatic."""
    return False
