"""What the rules allow (``IllegalOrderError`` with a message a player can act on, a rule id and an i18n code).

The panel queries (:mod:`rules.ocs.queries`) filter their candidates through these same checks, so a panel
never offers what the rules refuse.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from rules.errors import IllegalOrderError
from rules.hexgrid import Hex
from rules.ocs.model import (
    AR_ATTACKER,
    AR_DEFENDER,
    ATTACKER,
    ATTACKER_LOSSES,
    DEFENDER,
    DEFENDER_LOSSES,
    RETREAT,
    STRATEGIC,
    Combat,
    OcsUnit,
    attacking_units,
    combat_of,
    defending_units,
    ext_of,
    find_combat,
    role_units,
    units_in,
)
from rules.ocs.orders import (
    CancelCombat,
    ChooseAr,
    EndTurn,
    FreeMove,
    Losses,
    ModeChange,
    OpenCombat,
    Retreats,
)
from rules.ocs.tables import tables
from rules.ruleset import DIRECTOR, Order
from rules.state import EncounterState

HEDGEHOG = "hedgehog"  # Board.features key (DESIGN §7.2)
#: the encounter option (scenario ``[options]``) that lets a side's player open a combat with its own unit
PLAYERS_OPEN_COMBATS = "players_open_combats"


def illegal(code: str, message: str, rule: str, **params: object) -> IllegalOrderError:
    return IllegalOrderError(message, code=f"ocs.{code}", rule=rule, params=params)


def terrain_of(state: EncounterState, h: Hex) -> str:
    """OCS-1: the hex's terrain class (the table's default where the scenario gives none)."""
    return state.board.terrain_at(h) or tables().default_terrain


def hedgehog_of(state: EncounterState, h: Hex) -> int:
    """OCS-1: the hedgehog level of a hex (0-4)."""
    return state.board.feature(HEDGEHOG, h)


def _unit(state: EncounterState, unit_id: str) -> OcsUnit:
    unit = state.unit_as(unit_id, OcsUnit)
    if not unit.active:
        raise illegal("eliminated", f"{unit.name} is not on the board.", "OCS-1", name=unit.name)
    return unit


def _engaged(state: EncounterState, unit: OcsUnit) -> None:
    combat = combat_of(state, unit.id)
    if combat is not None:
        raise illegal(
            "engaged",
            f"{unit.name} takes part in open combat {combat.id}; it waits until that combat ends.",
            "OCS-2",
            name=unit.name,
            combat=combat.id,
        )


def _director(actor: str, code: str, what: str) -> None:
    if actor != DIRECTOR:
        raise illegal(code, f"Only the director can {what}.", "OCS-2")


def _not_attacked(state: EncounterState, h: Hex) -> None:
    """OCS-2: one open combat per defender hex, and no unit joins a defence under way."""
    for c in ext_of(state).combats:
        if c.at == h:
            raise illegal(
                "hex_engaged",
                f"{h.label} is already attacked in combat {c.id}.",
                "OCS-2",
                hex=h.label,
                combat=c.id,
            )


def _enemy_in(state: EncounterState, h: Hex, side: str) -> bool:
    return any(u.side != side for u in units_in(state, h))


# --- the director's procedure ------------------------------------------------------------------------------


def check_open(state: EncounterState, actor: str, order: OpenCombat) -> None:
    """OCS-2 and DESIGN §7.2: attackers of one side, adjacent to the defender hex, not in strategic mode, with a
    strength; a defender hex held by the other side with a strength; nobody in another open combat."""
    if actor != DIRECTOR and not (state.option(PLAYERS_OPEN_COMBATS, False) and actor in order.attackers):
        # OCS-2: the director opens combats; a side's player too when the director allows it, with its own unit
        _director(actor, "director_opens", "open a combat")
    if not state.board.contains(order.at):
        raise illegal("off_board", f"{order.at.label} is off the board.", "OCS-1", hex=order.at.label)
    defenders = units_in(state, order.at)
    if not defenders:
        raise illegal(
            "no_defender", f"There is no unit in {order.at.label} to attack.", "OCS-2", hex=order.at.label
        )
    _not_attacked(state, order.at)
    for d in defenders:
        _engaged(state, d)
    side = ""
    for uid in order.attackers:
        unit = _unit(state, uid)
        _check_attacker(state, unit, order.at, defenders[0].side)
        if side and unit.side != side:
            raise illegal("mixed_sides", "All the attackers belong to one side.", "OCS-2", name=unit.name)
        side = unit.side
    if order.ar_attacker is not None and order.ar_attacker not in order.attackers:
        raise illegal(
            "ar_not_attacking",
            f"The attacker's AR unit {order.ar_attacker} must take part in the attack.",
            "OCS-2",
            unit=order.ar_attacker,
        )
    if order.ar_defender is not None:
        if order.ar_attacker is None:
            raise illegal("ar_order", "The attacker chooses its AR unit first, then the defender.", "OCS-2")
        if order.ar_defender not in {d.id for d in defenders}:
            raise illegal(
                "ar_not_defending",
                f"The defender's AR unit {order.ar_defender} must be in {order.at.label}.",
                "OCS-2",
                unit=order.ar_defender,
                hex=order.at.label,
            )
    if sum(d.strength for d in defenders) <= 0:
        raise illegal(
            "no_defense",
            f"The units in {order.at.label} have no combat strength: no odds can be made.",
            "OCS-3",
            hex=order.at.label,
        )


def _check_attacker(state: EncounterState, unit: OcsUnit, at: Hex, defending_side: str) -> None:
    assert unit.at is not None
    if unit.side == defending_side:
        raise illegal("own_side", f"{unit.name} cannot attack its own side.", "OCS-2", name=unit.name)
    if unit.at.distance(at) != 1:
        raise illegal(
            "not_adjacent",
            f"{unit.name} is not adjacent to {at.label}.",
            "OCS-2",
            name=unit.name,
            hex=at.label,
        )
    if unit.mode == STRATEGIC:
        raise illegal(
            "strategic", f"{unit.name} is in strategic mode and cannot attack.", "OCS-1", name=unit.name
        )
    if unit.strength <= 0:
        raise illegal(
            "no_strength", f"{unit.name} has no combat strength to attack with.", "OCS-3", name=unit.name
        )
    _engaged(state, unit)


def check_move(state: EncounterState, actor: str, order: FreeMove) -> None:
    """Free movement (the seed has no movement rules): the owner or the director moves a unit anywhere on the
    board except into enemy units or into a hex under attack; a unit in an open combat stays put."""
    unit = _unit(state, order.who)
    if actor not in (DIRECTOR, unit.id):
        raise illegal(
            "not_yours",
            f"Only {unit.name} itself or the director can give it orders.",
            "OCS-1",
            name=unit.name,
        )
    if not state.board.contains(order.to):
        raise illegal("off_board", f"{order.to.label} is off the board.", "OCS-1", hex=order.to.label)
    if unit.at == order.to:
        raise illegal(
            "same_hex",
            f"{unit.name} is already in {order.to.label}.",
            "OCS-1",
            name=unit.name,
            hex=order.to.label,
        )
    _engaged(state, unit)
    if _enemy_in(state, order.to, unit.side):
        raise illegal(
            "enemy_hex", f"{order.to.label} holds enemy units.", "OCS-1", name=unit.name, hex=order.to.label
        )
    _not_attacked(state, order.to)


def check_mode(state: EncounterState, actor: str, order: ModeChange) -> None:
    """OCS-1: a unit's mode changes between combats, by its owner or the director."""
    unit = _unit(state, order.who)
    if actor not in (DIRECTOR, unit.id):
        raise illegal(
            "not_yours",
            f"Only {unit.name} itself or the director can give it orders.",
            "OCS-1",
            name=unit.name,
        )
    if unit.mode == order.mode:
        raise illegal(
            "same_mode",
            f"{unit.name} is already in {order.mode} mode.",
            "OCS-1",
            name=unit.name,
            mode=order.mode,
        )
    _engaged(state, unit)


def check_end_turn(state: EncounterState, actor: str) -> None:
    """The combat phase ends only when the director ends it, with every combat fought or called off."""
    _director(actor, "director_ends_turn", "end the combat phase")
    combats = ext_of(state).combats
    if combats:
        open_ids = ", ".join(str(c.id) for c in combats)
        raise illegal(
            "combats_open",
            f"Finish or call off the open combats first (open: {open_ids}).",
            "OCS-2",
            open=open_ids,
        )


def check_cancel(state: EncounterState, actor: str, order: CancelCombat) -> None:
    _director(actor, "director_cancels", "call a combat off")
    _open_combat(state, order.combat)


def _open_combat(state: EncounterState, combat_id: int) -> Combat:
    combat = find_combat(state, combat_id)
    if combat is None:
        open_ids = ", ".join(str(c.id) for c in ext_of(state).combats) or "none"
        raise illegal(
            "no_combat",
            f'There is no open combat {combat_id or ""} (open: {open_ids}); name it with "combat".',
            "OCS-2",
            combat=combat_id,
            open=open_ids,
        )
    return combat


# --- the sides' answers ------------------------------------------------------------------------------------


def answering(state: EncounterState, actor: str, combat_id: int, stages: tuple[str, ...]) -> Combat:
    """The combat an answer is for, if it waits for this kind of answer from the actor's side (the director may
    answer for either side)."""
    combat = _open_combat(state, combat_id)
    if combat.stage not in stages:
        raise illegal(
            "not_now",
            f"Combat {combat.id} does not wait for that answer now ({combat.stage}).",
            "OCS-2",
            combat=combat.id,
            stage=combat.stage,
        )
    if actor != DIRECTOR:
        role = combat.asks or ""
        if actor not in {u.id for u in role_units(state, combat, role)}:
            raise illegal(
                "other_side",
                f"Combat {combat.id} waits for the {role}'s answer, not {actor}'s.",
                "OCS-2",
                combat=combat.id,
                role=role,
                unit=actor,
            )
    return combat


def check_ar(state: EncounterState, actor: str, order: ChooseAr) -> None:
    """OCS-2: the AR unit takes part in the combat: an attacker, or a unit in the defender hex."""
    combat = answering(state, actor, order.combat, (AR_ATTACKER, AR_DEFENDER))
    role = ATTACKER if combat.stage == AR_ATTACKER else DEFENDER
    if order.choice not in {u.id for u in role_units(state, combat, role)}:
        raise illegal(
            "ar_not_involved",
            f"{order.choice} does not take part in combat {combat.id} as {role}: the AR unit must.",
            "OCS-2",
            unit=order.choice,
            combat=combat.id,
            role=role,
        )


@dataclass(frozen=True, slots=True)
class LossQuestion:
    """What a side must still lose after the AR unit's first step (OCS-2): ``base`` steps of its choice, and
    (defender) up to ``option`` more, each one hex of the option not retreated (OCS-6)."""

    role: str
    base: int
    option: int
    caps: tuple[tuple[str, int], ...]  # each unit that can lose steps, and how many it has


def loss_question(state: EncounterState, combat: Combat, role: str) -> LossQuestion | None:
    """The loss choice a rolled combat leaves to ``role`` (None when there is nothing to choose)."""
    result = combat.result
    if result is None:
        return None
    units = role_units(state, combat, role)
    if not units:
        return None
    loss = result.attacker_loss if role == ATTACKER else result.defender_loss
    option = result.option if role == DEFENDER else 0
    base = max(0, loss - 1)
    if base == 0 and option == 0:
        return None
    return LossQuestion(role, base, option, tuple((u.id, u.steps) for u in units))


def check_losses(state: EncounterState, actor: str, order: Losses) -> None:
    """OCS-2/OCS-6: the steps beyond the first, by the owner's choice among its units in the combat; the
    defender's option steps on top; what is not taken as steps is retreated, so a retreat must be possible."""
    combat = answering(state, actor, order.combat, (ATTACKER_LOSSES, DEFENDER_LOSSES))
    role = ATTACKER if combat.stage == ATTACKER_LOSSES else DEFENDER
    question = loss_question(state, combat, role)
    assert question is not None  # a losses stage is only entered with a question
    caps = dict(question.caps)
    for uid, n in Counter(order.losses).items():
        if uid not in caps:
            raise illegal(
                "loss_not_involved",
                f"{uid} is not one of the {role}'s units in combat {combat.id}.",
                "OCS-6",
                unit=uid,
                combat=combat.id,
                role=role,
            )
        if n > caps[uid]:
            raise illegal(
                "loss_too_many",
                f"{uid} has only {caps[uid]} step(s) to lose.",
                "OCS-6",
                unit=uid,
                steps=caps[uid],
            )
    low, high = question.base, question.base + question.option
    if not low <= len(order.losses) <= high:
        wanted = str(low) if low == high else f"{low} to {high}"
        raise illegal(
            "loss_count",
            f"Combat {combat.id}: list {wanted} step(s) beyond the first, got {len(order.losses)}.",
            "OCS-6",
            combat=combat.id,
            low=low,
            high=high,
            got=len(order.losses),
        )
    retreat = question.option - (len(order.losses) - question.base)
    left = Counter(order.losses)
    survivors = [uid for uid, cap in question.caps if cap > left[uid]]
    if retreat > 0 and survivors and not retreat_destinations(state, combat, retreat):
        raise illegal(
            "no_retreat",
            f"The units in {combat.at.label} cannot retreat {retreat} hex(es): take more option steps.",
            "OCS-6",
            hex=combat.at.label,
            hexes=retreat,
        )


def retreat_destinations(state: EncounterState, combat: Combat, hexes: int) -> tuple[Hex, ...]:
    """OCS-6: where the defender can end a retreat of exactly ``hexes`` hexes: every step one hex farther from
    the combat hex, on the board, never into enemy units, never into another combat's defender hex. In label
    order."""
    side = next((u.side for u in defending_units(state, combat)), "")
    blocked = {c.at for c in ext_of(state).combats}
    frontier = {combat.at}
    for step in range(1, hexes + 1):
        frontier = {
            n
            for h in frontier
            for n in h.neighbors()
            if n.distance(combat.at) == step
            and state.board.contains(n)
            and n not in blocked
            and not _enemy_in(state, n, side)
        }
    return tuple(sorted(frontier, key=lambda h: h.label)) if hexes > 0 else ()


def check_retreats(state: EncounterState, actor: str, order: Retreats) -> None:
    """OCS-6: each surviving defender unit retreats the option hexes it did not take as steps, to a hex of the
    owner's choice."""
    combat = answering(state, actor, order.combat, (RETREAT,))
    survivors = [u.id for u in defending_units(state, combat)]
    given = [uid for uid, _ in order.retreats]
    if sorted(given) != sorted(survivors):
        raise illegal(
            "retreat_units",
            f"Combat {combat.id}: give one hex for each of {', '.join(survivors)}.",
            "OCS-6",
            combat=combat.id,
            units=", ".join(survivors),
        )
    allowed = retreat_destinations(state, combat, combat.retreat)
    for uid, where in order.retreats:
        if where not in allowed:
            raise illegal(
                "retreat_hex",
                f"{uid} cannot retreat to {where.label}: it retreats {combat.retreat} hex(es) from "
                f"{combat.at.label} (choose {', '.join(h.label for h in allowed)}).",
                "OCS-6",
                unit=uid,
                hex=where.label,
                hexes=combat.retreat,
                options=", ".join(h.label for h in allowed),
            )


def check_order(state: EncounterState, actor: str, order: Order) -> None:
    """Every OCS order, by type."""
    if state.over:
        raise illegal("over", "The encounter is over.", "OCS-2")
    if isinstance(order, OpenCombat):
        check_open(state, actor, order)
    elif isinstance(order, FreeMove):
        check_move(state, actor, order)
    elif isinstance(order, ModeChange):
        check_mode(state, actor, order)
    elif isinstance(order, CancelCombat):
        check_cancel(state, actor, order)
    elif isinstance(order, EndTurn):
        check_end_turn(state, actor)
    elif isinstance(order, ChooseAr):
        check_ar(state, actor, order)
    elif isinstance(order, Losses):
        check_losses(state, actor, order)
    elif isinstance(order, Retreats):
        check_retreats(state, actor, order)
    else:
        raise illegal("not_an_order", "That is not an ocs order.", "OCS-2", order=type(order).__name__)


def combat_problem(state: EncounterState, combat: Combat) -> str | None:
    """Why an open combat can no longer go on (its units were removed or changed outside the procedure, by a
    director override), or None."""
    attackers = attacking_units(state, combat)
    defenders = defending_units(state, combat)
    if combat.result is None:
        if len(attackers) != len(combat.attackers):
            return "attacker_gone"
        if not defenders:
            return "defender_gone"
        dside = defenders[0].side
        for unit in attackers:
            try:
                _check_attacker(state, unit, combat.at, dside)
            except IllegalOrderError as exc:
                if exc.code != "ocs.engaged":
                    return "attacker_changed"
        if any(d.side != dside for d in defenders) or sum(d.strength for d in defenders) <= 0:
            return "defender_changed"
        ids = {d.id for d in defenders}
        if combat.ar_defender is not None and combat.ar_defender not in ids:
            return "defender_gone"
        return None
    role = combat.asks
    if role is not None and not role_units(state, combat, role):
        return "attacker_gone" if role == ATTACKER else "defender_gone"
    return None
