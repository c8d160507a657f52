"""Pure questions an order panel asks, so that it never offers what the rules will refuse.

Each function agrees with :func:`rules.pbw.legality.check_declaration` / ``check_change`` (the tests build orders
from every option these return and validate them):

- :func:`legal_actions` — the actions a segment may hold, given the segments declared before it;
- :func:`move_options`, :func:`path_cost` — the hexes a move can reach (with a shortest path) and what a path uses;
- :func:`destinations` — the same hexes as a menu: each with its path and the Movement it uses, cheapest first;
- :func:`attack_options`, :func:`to_hit_for` — shoot / melee targets and weapons, each with the 2d6 number needed,
  the difficulty and every modifier with its reason;
- :func:`aimable_locations` — where an aimed attack (−5) may be placed;
- :func:`draw_options` — the weapons a ``draw`` may take;
- :func:`can_disengage`, :func:`change_options`, :func:`may_change` — the melee exit and the change of intention.

``earlier`` holds the actions declared for the segments before the one asked about (its length says which segment
it is: none for segment 1). During a segment phase the questions are about the segment about to resolve, from the
board as it is, and ``earlier`` stays empty.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from rules.errors import IllegalOrderError
from rules.hexgrid import Hex
from rules.pbw.combat import ToHit, to_hit
from rules.pbw.geometry import enemies_within_reach, hexes_used, reachable, step_limit
from rules.pbw.legality import (
    Outlook,
    change_payment,
    check_action,
    check_attack,
    check_path,
    declared_before,
    ext_of,
    outlook,
    position_at,
    record_of,
)
from rules.pbw.model import (
    DEFEND,
    DRAW,
    INCAPACITATED,
    LOST,
    MELEE,
    MOVE,
    RELOAD,
    REST,
    SHOOT,
    STOW,
    TREAT,
    Character,
    SegmentAction,
)
from rules.pbw.tables import LOCATIONS
from rules.state import EncounterState


@dataclass(frozen=True, slots=True)
class ActionOption:
    """One action a segment may hold. ``athletics``: a move after the first this turn needs an Athletics roll
    (PBW-2); ``forfeit``: for a change of intention, the later segment it gives up (0: a spare action pays)."""

    action: str
    athletics: bool = False
    forfeit: int = 0


@dataclass(frozen=True, slots=True)
class AttackOption:
    target: str
    weapon: int  # 1-based, as in orders
    to_hit: ToHit


def _character(state: EncounterState, unit_id: str) -> Character:
    return state.unit_as(unit_id, Character)


def _legal(state: EncounterState, ch: Character, look: Outlook, act: SegmentAction) -> bool:
    try:
        check_action(state, ch, look, act)
    except IllegalOrderError:
        return False
    return True


def _active_options(
    state: EncounterState, ch: Character, look: Outlook, *, disengage: bool
) -> list[ActionOption]:
    """The active actions with at least one legal form from ``look`` (PBW-2, PBW-4, PBW-5)."""
    out: list[ActionOption] = []
    crawl_only = ch.condition == INCAPACITATED
    if not disengage and _reach(state, ch, look):
        out.append(ActionOption(MOVE, athletics=look.moves >= 1 and not crawl_only))
    if crawl_only or not ch.fighting:
        return out
    if not disengage:
        out.extend(ActionOption(kind) for kind in (SHOOT, MELEE) if _attacks(state, ch, look, kind, ""))
    if _legal(state, ch, look, SegmentAction(action=RELOAD)):
        out.append(ActionOption(RELOAD))
    if _drawable(state, ch, look):
        out.append(ActionOption(DRAW))
    if _legal(state, ch, look, SegmentAction(action=STOW)):
        out.append(ActionOption(STOW))
    return out


def legal_actions(
    state: EncounterState, unit_id: str, earlier: Sequence[SegmentAction] = (), *, disengage: bool = False
) -> tuple[ActionOption, ...]:
    """PBW-2/PBW-3: what the segment after ``earlier`` may hold. Rest and treat (PBW-6) fill the whole turn: they
    are offered in the first segment, and after them nothing else is. ``disengage``: a turn spent leaving a melee (PBW-5)."""
    ch = _character(state, unit_id)
    if not ch.awake:
        return ()
    kinds = [a.action for a in earlier]
    if kinds and all(k == REST for k in kinds):
        return (ActionOption(REST),)
    if kinds and all(k == TREAT for k in kinds):
        return (ActionOption(TREAT),)  # PBW-6: the whole turn, like rest
    rest = () if kinds else (ActionOption(REST),)
    allowed = ch.actions_per_turn()
    if allowed == 0:
        return rest
    treat = () if kinds or disengage or not treat_options(state, unit_id) else (ActionOption(TREAT),)
    out = [ActionOption(DEFEND)]
    if sum(1 for a in earlier if a.active) < allowed:
        out.extend(_active_options(state, ch, outlook(state, ch, earlier), disengage=disengage))
    return (*out, *rest, *treat)


def treat_options(state: EncounterState, unit_id: str) -> tuple[tuple[str, str], ...]:
    """PBW-6: the wounds, as (character, location), the unit may spend the whole turn treating."""
    ch = _character(state, unit_id)
    if not ch.awake or ch.at is None:
        return ()
    look = outlook(state, ch)
    return tuple(
        (p.id, loc)
        for p in state.units_of(Character)
        if p.at is not None and p.at.distance(ch.at) <= 1
        for loc in LOCATIONS
        if _legal(state, ch, look, SegmentAction(action=TREAT, target=p.id, location=loc))
    )


def can_disengage(state: EncounterState, unit_id: str) -> bool:
    """PBW-5: a character in melee may declare a turn spent leaving it."""
    ch = _character(state, unit_id)
    if not ch.awake or ch.at is None or ch.actions_per_turn() == 0:
        return False
    return bool(enemies_within_reach(state, ch.side, ch.at))


def _drawable(state: EncounterState, ch: Character, look: Outlook) -> tuple[int, ...]:
    return tuple(
        i
        for i in range(1, len(ch.weapons) + 1)
        if _legal(state, ch, look, SegmentAction(action=DRAW, weapon=i))
    )


def draw_options(
    state: EncounterState, unit_id: str, earlier: Sequence[SegmentAction] = ()
) -> tuple[int, ...]:
    """PBW-2: the weapons (1-based) a ``draw`` may take into the hands."""
    ch = _character(state, unit_id)
    return _drawable(state, ch, outlook(state, ch, earlier))


# --- moves ---------------------------------------------------------------------------------------------------------


def _reach(state: EncounterState, ch: Character, look: Outlook) -> dict[Hex, tuple[Hex, ...]]:
    engaged = enemies_within_reach(state, ch.side, look.at)
    if engaged and not look.free:
        return {}  # PBW-5: held in melee
    return reachable(state, ch, look.at, step_limit(ch), engaged)


def move_options(
    state: EncounterState, unit_id: str, earlier: Sequence[SegmentAction] = ()
) -> Mapping[Hex, tuple[Hex, ...]]:
    """Every hex a move can end in, with a shortest path to it (the hexes entered, in order)."""
    ch = _character(state, unit_id)
    return _reach(state, ch, outlook(state, ch, earlier))


@dataclass(frozen=True, slots=True)
class Destination:
    """A hex a move can end in: the hexes entered to get there (a cheapest path) and the hexes of Movement it uses
    (PBW-2, a layer's surcharge included: NGT-5.1)."""

    to: Hex
    path: tuple[Hex, ...]
    used: int


def destinations(
    state: EncounterState, unit_id: str, earlier: Sequence[SegmentAction] = ()
) -> tuple[Destination, ...]:
    """Every hex a move can end in, cheapest first (then by label), each by a path the rules accept as declared
    (PBW-2 walls, occupied hexes and Movement; PBW-5 a move ends where it runs into a melee)."""
    ch = _character(state, unit_id)
    look = outlook(state, ch, earlier)
    out: list[Destination] = []
    for to, path in _reach(state, ch, look).items():
        try:
            check_path(state, ch, look, path)
        except IllegalOrderError:
            continue
        out.append(Destination(to, path, hexes_used(state, path)))
    return tuple(sorted(out, key=lambda d: (d.used, d.to.label)))


def path_cost(
    state: EncounterState, unit_id: str, path: Sequence[Hex], earlier: Sequence[SegmentAction] = ()
) -> tuple[int, int]:
    """``(hexes used, hexes left)`` of a path, or ``IllegalOrderError`` saying why it cannot be walked."""
    ch = _character(state, unit_id)
    check_path(state, ch, outlook(state, ch, earlier), path)
    used = hexes_used(state, path)
    return used, step_limit(ch) - used


# --- attacks -------------------------------------------------------------------------------------------------------


def _target_moves(state: EncounterState, ch: Character, target: Character, segment: int) -> int:
    """PBW-5 'the defender moved': the segments it has moved in so far, or, while declaring, the moves of its
    locked (public) declaration that come before this attack."""
    declared = declared_before(state, target, segment, ch)
    if declared is not None:
        return sum(1 for s in declared if s.action == MOVE)
    rec = record_of(state, target.id)
    return len(rec.moved) if rec else 0


def _numbers(state: EncounterState, ch: Character, look: Outlook, act: SegmentAction) -> ToHit:
    target = state.unit_as(act.target, Character)
    return to_hit(
        state,
        ch,
        look.at,
        target,
        ch.weapons[act.weapon - 1].spec,
        target_at=position_at(state, target, look.segment, ch),
        aim=act.aim,
        attacker_moved=look.moved,
        target_moved=_target_moves(state, ch, target, look.segment),
    )


def _attacks(state: EncounterState, ch: Character, look: Outlook, kind: str, aim: str) -> list[AttackOption]:
    weapons: list[int] = [ch.fists] if kind == MELEE else []
    if look.held is not None and look.held != ch.fists:
        weapons.append(look.held)
    out: list[AttackOption] = []
    for target in state.units_of(Character):
        for idx in weapons:
            act = SegmentAction(action=kind, target=target.id, weapon=idx + 1, aim=aim)
            if _legal(state, ch, look, act):
                out.append(
                    AttackOption(target=target.id, weapon=idx + 1, to_hit=_numbers(state, ch, look, act))
                )
    return out


def attack_options(
    state: EncounterState, unit_id: str, kind: str, earlier: Sequence[SegmentAction] = (), *, aim: str = ""
) -> tuple[AttackOption, ...]:
    """Every legal (target, weapon) for ``kind`` (``shoot`` or ``melee``) with what it needs to hit. A target whose
    declaration is locked is looked for where its declared moves take it."""
    ch = _character(state, unit_id)
    if not ch.fighting:
        return ()
    return tuple(_attacks(state, ch, outlook(state, ch, earlier), kind, aim))


def to_hit_for(
    state: EncounterState,
    unit_id: str,
    target_id: str,
    kind: str,
    weapon: int = 0,
    *,
    aim: str = "",
    earlier: Sequence[SegmentAction] = (),
) -> ToHit:
    """The numbers of one attack (``IllegalOrderError`` if it cannot be declared)."""
    ch = _character(state, unit_id)
    look = outlook(state, ch, earlier)
    act = check_attack(state, ch, look, SegmentAction(action=kind, target=target_id, weapon=weapon, aim=aim))
    return _numbers(state, ch, look, act)


def aimable_locations(state: EncounterState, unit_id: str, target_id: str) -> tuple[str, ...]:
    """PBW-5: an aimed attack (−5) chooses any of the six locations instead of rolling 1d10."""
    _character(state, unit_id)
    _character(state, target_id)
    return LOCATIONS


# --- changes of intention (PBW-2) -------------------------------------------------------------------------------


def change_options(state: EncounterState, unit_id: str) -> tuple[ActionOption, ...]:
    """The actions the segment about to resolve may be changed to, each payable (one action, PBW-2). A kind is
    offered when some form of it differs from the declared action (offering the declared one itself is a keep)."""
    ext = ext_of(state)
    rec = ext.records.get(unit_id)
    ch = _character(state, unit_id)
    if ext.segment < 1 or rec is None or not ch.awake or state.over:
        return ()
    k = ext.segment
    current = rec.plan[k - 1]
    if current.action == LOST:
        return ()
    look = outlook(state, ch)
    candidates: list[ActionOption] = []
    if current.action not in (DEFEND, REST):
        candidates.append(ActionOption(DEFEND))
    for option in _active_options(state, ch, look, disengage=False):
        if option.action != current.action or _other_form(state, ch, look, current):
            candidates.append(option)
    out: list[ActionOption] = []
    for option in candidates:
        paid = change_payment(rec, k, SegmentAction(action=option.action))
        if paid is not None:
            out.append(ActionOption(option.action, athletics=option.athletics, forfeit=paid))
    return tuple(out)


def _other_form(state: EncounterState, ch: Character, look: Outlook, current: SegmentAction) -> bool:
    """Whether the declared action's kind has a legal form other than the declared one."""
    if current.action == MOVE:
        return any(p != current.path for p in _reach(state, ch, look).values())
    if current.action in (SHOOT, MELEE):
        return True  # offered only with a legal target, which comes in seven forms (unaimed, six aims)
    if current.action == DRAW:
        return any(i != current.weapon for i in _drawable(state, ch, look))
    return False


def may_change(state: EncounterState, unit_id: str) -> bool:
    """Asked before the segment resolves (an optional order): there is some change it could make and pay for."""
    return bool(change_options(state, unit_id))
