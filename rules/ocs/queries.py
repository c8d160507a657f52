"""Pure questions a panel asks before offering choices ("a panel never offers what the rules will refuse").

Each function builds its candidates and keeps those the rules' own checks (:mod:`rules.ocs.legality`) accept, so
an option offered here always validates. Lists come in a stable order: units in file order, hexes by label.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from itertools import combinations_with_replacement
from typing import TypeVar

from rules.errors import IllegalOrderError
from rules.hexgrid import Hex
from rules.ocs import arithmetic as ar
from rules.ocs.legality import (
    check_ar,
    check_losses,
    check_move,
    check_open,
    check_retreats,
    combat_problem,
    hedgehog_of,
    loss_question,
    retreat_destinations,
    terrain_of,
)
from rules.ocs.model import (
    AR_ATTACKER,
    AR_DEFENDER,
    ATTACKER,
    ATTACKER_LOSSES,
    DEFENDER,
    DEFENDER_LOSSES,
    RETREAT,
    Combat,
    OcsUnit,
    defending_units,
    ext_of,
    find_combat,
    ocs_units,
    role_units,
    units_in,
)
from rules.ocs.orders import ANSWER_OF, ChooseAr, FreeMove, Losses, OpenCombat, Retreats
from rules.ocs.tables import tables
from rules.ruleset import DIRECTOR, Order
from rules.state import EncounterState

OrderT = TypeVar("OrderT", bound=Order)


def _passes(
    check: Callable[[EncounterState, str, OrderT], None], state: EncounterState, actor: str, order: OrderT
) -> bool:
    try:
        check(state, actor, order)
    except IllegalOrderError:
        return False
    return True


def eligible_attackers(state: EncounterState, at: Hex) -> tuple[str, ...]:
    """OCS-2: the units that may attack the hex ``at`` now (each of them alone is a legal attack)."""
    out: list[str] = []
    for unit in ocs_units(state):
        if unit.active and unit.at is not None and unit.at.distance(at) == 1:
            order = OpenCombat(unit=DIRECTOR, attackers=(unit.id,), at=at)
            if _passes(check_open, state, DIRECTOR, order):
                out.append(unit.id)
    return tuple(out)


def combat_targets(state: EncounterState) -> tuple[Hex, ...]:
    """The hexes the director can open a combat against now (some unit may attack each)."""
    held = sorted({u.at for u in ocs_units(state) if u.active and u.at is not None}, key=lambda h: h.label)
    return tuple(h for h in held if eligible_attackers(state, h))


def ar_candidates(state: EncounterState, combat_id: int) -> tuple[str, ...]:
    """OCS-2: the units the side choosing now may name as its AR unit (empty when no AR choice is due)."""
    combat = find_combat(state, combat_id)
    if combat is None or combat.stage not in (AR_ATTACKER, AR_DEFENDER):
        return ()
    role = ATTACKER if combat.stage == AR_ATTACKER else DEFENDER
    return tuple(
        u.id
        for u in role_units(state, combat, role)
        if _passes(check_ar, state, DIRECTOR, ChooseAr(unit=DIRECTOR, combat=combat_id, choice=u.id))
    )


def loss_allocations(state: EncounterState, combat_id: int) -> tuple[tuple[str, ...], ...]:
    """OCS-2/OCS-6: every legal ``losses`` list for the side choosing losses now (empty when none is due), as
    multisets in unit order; fewest steps first, so the defender's full retreat comes before its option steps."""
    combat = find_combat(state, combat_id)
    if combat is None or combat.stage not in (ATTACKER_LOSSES, DEFENDER_LOSSES):
        return ()
    role = ATTACKER if combat.stage == ATTACKER_LOSSES else DEFENDER
    question = loss_question(state, combat, role)
    if question is None:
        return ()
    ids = [uid for uid, _ in question.caps]
    caps = dict(question.caps)
    top = min(question.base + question.option, sum(caps.values()))
    out: list[tuple[str, ...]] = []
    for size in range(question.base, top + 1):
        for picked in combinations_with_replacement(ids, size):
            if any(picked.count(uid) > caps[uid] for uid in set(picked)):
                continue
            order = Losses(unit=DIRECTOR, combat=combat_id, losses=picked)
            if _passes(check_losses, state, DIRECTOR, order):
                out.append(picked)
    return tuple(out)


def retreat_options(state: EncounterState, combat_id: int) -> dict[str, tuple[Hex, ...]]:
    """OCS-6: for each surviving defender unit, the hexes it may retreat to (empty when no retreat is due).
    Any combination of these choices is a legal ``retreats`` answer."""
    combat = find_combat(state, combat_id)
    if combat is None or combat.stage != RETREAT:
        return {}
    hexes = retreat_destinations(state, combat, combat.retreat)
    units = [u.id for u in defending_units(state, combat)]
    out: dict[str, tuple[Hex, ...]] = {}
    for uid in units:
        legal: list[Hex] = []
        for h in hexes:
            pairs = tuple(
                (other, h) for other in units
            )  # everyone to ``h``: ``uid``'s choice is what is tried
            if _passes(
                check_retreats, state, DIRECTOR, Retreats(unit=DIRECTOR, combat=combat_id, retreats=pairs)
            ):
                legal.append(h)
        out[uid] = tuple(legal)
    return out


def move_destinations(state: EncounterState, unit_id: str, hexes: tuple[Hex, ...]) -> tuple[Hex, ...]:
    """Free movement: which of ``hexes`` the unit may be moved to now (a panel passes the hexes it shows)."""
    return tuple(
        h for h in hexes if _passes(check_move, state, DIRECTOR, FreeMove(unit=DIRECTOR, who=unit_id, to=h))
    )


@dataclass(frozen=True, slots=True)
class Question:
    """What an open combat waits for: ``answer`` (``ar``, ``losses``, ``retreats``) from ``role``, asked of
    ``unit`` (the bot sends that unit's player the panel; the director may answer instead)."""

    combat: int
    role: str
    answer: str
    unit: str


def questions(state: EncounterState) -> tuple[Question, ...]:
    """One question per open combat that waits for a side, in combat order."""
    out: list[Question] = []
    for combat in ext_of(state).combats:
        role = combat.asks
        if role is None or combat_problem(state, combat) is not None:
            continue
        units = role_units(state, combat, role)
        out.append(Question(combat.id, role, ANSWER_OF[combat.stage], units[0].id))
    return tuple(out)


@dataclass(frozen=True, slots=True)
class Preview:
    """The figures of an attack before any die is rolled (OCS-3, OCS-4): for the director's panel."""

    attack: float
    defense: float
    ratio: float
    odds: str
    terrain: str
    column: int
    hedgehog: int


def preview(state: EncounterState, attackers: tuple[str, ...], at: Hex) -> Preview | None:
    """OCS-3/OCS-4 for a proposed attack; None while the attack is not legal."""
    if not _passes(check_open, state, DIRECTOR, OpenCombat(unit=DIRECTOR, attackers=attackers, at=at)):
        return None
    attack = ar.total_strength(state.unit_as(a, OcsUnit).strength for a in attackers)
    defense = ar.total_strength(u.strength for u in units_in(state, at))
    odds = ar.odds(attack, defense)
    terrain = terrain_of(state, at)
    return Preview(
        attack=float(attack),
        defense=float(defense),
        ratio=round(float(ar.ratio(attack, defense)), 2),
        odds=odds.text,
        terrain=terrain,
        column=ar.column(tables(), terrain, odds),
        hedgehog=hedgehog_of(state, at),
    )


def open_combats(state: EncounterState) -> tuple[Combat, ...]:
    return ext_of(state).combats
