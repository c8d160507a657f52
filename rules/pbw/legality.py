"""Is a declaration, a segment's action or a change of intention legal? Every refusal names the character, cites
its rule id and carries an i18n code (``errors.pbw.<code>``).

A declaration is checked segment by segment against an :class:`Outlook` — where the character will stand, what it
will hold and how much is loaded once the earlier segments are done — taken from the positions when it declares.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

from rules.errors import IllegalOrderError
from rules.hexgrid import Hex
from rules.pbw.geometry import (
    blocks_move,
    clear_line,
    enemies_within_reach,
    hexes_used,
    occupant,
    step_limit,
)
from rules.pbw.model import (
    ACTIVE,
    DEFEND,
    DRAW,
    INCAPACITATED,
    LOST,
    MELEE,
    MOVE,
    RELOAD,
    REST,
    SEGMENTS,
    SHOOT,
    STOW,
    TREAT,
    Change,
    Character,
    Declaration,
    PbwState,
    SegmentAction,
    TurnRecord,
)
from rules.pbw.tables import LOCATIONS, MEDKIT, WeaponType
from rules.state import EncounterState


def illegal(ch: Character, code: str, rule: str, message: str, **params: object) -> IllegalOrderError:
    return IllegalOrderError(
        f"{ch.name}: {message}",
        code=f"pbw.{code}",
        rule=rule,
        params={"unit": ch.id, "name": ch.name, **params},
    )


def ext_of(state: EncounterState) -> PbwState:
    return state.ext if isinstance(state.ext, PbwState) else PbwState()


def record_of(state: EncounterState, unit_id: str) -> TurnRecord | None:
    return ext_of(state).records.get(unit_id)


def put_record(state: EncounterState, unit_id: str, rec: TurnRecord) -> EncounterState:
    ext = ext_of(state)
    return state.replace(ext=dataclasses.replace(ext, records={**ext.records, unit_id: rec}))


# --- the outlook: a character as it will be when a segment comes --------------------------------------------------


@dataclass(frozen=True, slots=True)
class Outlook:
    at: Hex
    held: int | None
    ammo: tuple[int, ...]
    moves: int  # move actions before this one this turn (PBW-2: each after the first needs Athletics)
    moved: int  # segments moved before this one (PBW-5)
    free: bool  # PBW-5: disengaged last turn, may walk out of melee
    segment: int  # the segment this outlook is for (1-3)


def outlook(state: EncounterState, ch: Character, earlier: Sequence[SegmentAction] = ()) -> Outlook:
    """The character now (with this turn's moves so far), then each earlier declared segment applied."""
    assert ch.at is not None
    rec = record_of(state, ch.id)
    look = Outlook(
        at=ch.at,
        held=ch.held,
        ammo=tuple(w.ammo for w in ch.weapons),
        moves=rec.moves if rec else 0,
        moved=len(rec.moved) if rec else 0,
        free=ch.id in ext_of(state).free,
        segment=max(1, ext_of(state).segment),
    )
    for act in earlier:
        look = advance(ch, look, act)
    return look


def advance(ch: Character, look: Outlook, act: SegmentAction) -> Outlook:
    """The outlook for the next segment, once ``act`` is carried out as declared."""
    return dataclasses.replace(_after(ch, look, act), segment=look.segment + 1)


def _after(ch: Character, look: Outlook, act: SegmentAction) -> Outlook:
    if act.action == MOVE and act.path:
        return dataclasses.replace(look, at=act.path[-1], moves=look.moves + 1, moved=look.moved + 1)
    idx = act.weapon - 1 if act.weapon else (look.held if look.held is not None else -1)
    if act.action == DRAW:
        return dataclasses.replace(look, held=idx)
    if act.action == STOW:
        return dataclasses.replace(look, held=None)
    if idx < 0:
        return look
    if act.action == RELOAD:
        ammo = list(look.ammo)
        ammo[idx] = ch.weapons[idx].spec.capacity
        return dataclasses.replace(look, ammo=tuple(ammo))
    if act.action == SHOOT:
        ammo = list(look.ammo)
        ammo[idx] -= 1
        return dataclasses.replace(look, ammo=tuple(ammo))
    return look


# --- one segment's action -----------------------------------------------------------------------------------------


def check_action(state: EncounterState, ch: Character, look: Outlook, act: SegmentAction) -> SegmentAction:
    """The action made explicit (its weapon filled in), or ``IllegalOrderError``."""
    if (
        act.action in ACTIVE
        and not ch.fighting
        and not (act.action == MOVE and ch.condition == INCAPACITATED)
    ):
        raise illegal(
            ch, "cannot_act", "PBW-4", f"is {ch.condition} and can only crawl", condition=ch.condition
        )
    if act.action == MOVE:
        check_path(state, ch, look, act.path)
        return act
    if act.action in (SHOOT, MELEE):
        return check_attack(state, ch, look, act)
    if act.action == RELOAD:
        return _reload(ch, look, act)
    if act.action == DRAW:
        return _draw(ch, look, act)
    if act.action == STOW:
        if look.held is None:
            raise illegal(ch, "nothing_held", "PBW-2", "holds nothing to stow")
        if act.weapon and act.weapon - 1 != look.held:
            raise illegal(ch, "not_held", "PBW-2", f"does not hold weapon {act.weapon}", weapon=act.weapon)
        return dataclasses.replace(act, weapon=look.held + 1)
    if act.action == TREAT:
        return check_treat(state, ch, look, act)
    return act  # defend, rest: nothing to check here


def check_treat(state: EncounterState, ch: Character, look: Outlook, act: SegmentAction) -> SegmentAction:
    """PBW-6: Medicine and a medical kit ("con la habilidad de Medicina y el equipo adecuado"), on a wounded
    location of the healer or of a character within 1 m; an incapacitated healer only on itself (the seed: "salvo
    arrastrarse un metro por segmento o intentar curarse las heridas")."""
    if ch.skill("medicine") < 1:
        raise illegal(ch, "no_medicine", "PBW-6", "has no Medicine skill")
    if MEDKIT not in ch.items:
        raise illegal(ch, "no_medkit", "PBW-6", "carries no medical kit")
    patient = state.units.get(act.target)
    if not isinstance(patient, Character) or patient.at is None:
        raise illegal(
            ch, "no_target", "PBW-6", f"there is no character called {act.target}", target=act.target
        )
    if not patient.alive:
        raise illegal(ch, "target_dead", "PBW-6", f"{patient.name} is dead", target=patient.name)
    if ch.condition == INCAPACITATED and patient.id != ch.id:
        raise illegal(
            ch,
            "cannot_act",
            "PBW-4",
            "is incapacitated: it can only treat its own wounds",
            condition=ch.condition,
        )
    if patient.id != ch.id and look.at.distance(patient.at) > 1:
        raise illegal(ch, "treat_reach", "PBW-6", f"{patient.name} is not within 1 m", target=patient.name)
    if act.location not in LOCATIONS:
        raise illegal(ch, "bad_aim", "PBW-6", f"{act.location} is not a location", aim=act.location)
    if patient.resistance.get(act.location, 0) >= patient.max_resistance.get(act.location, 0):
        raise illegal(
            ch,
            "not_wounded",
            "PBW-6",
            f"{patient.name}'s {act.location} has no wound to treat",
            target=patient.name,
            location=act.location,
        )
    return act


def check_path(state: EncounterState, ch: Character, look: Outlook, path: Sequence[Hex]) -> None:
    """PBW-2: up to Movement hexes (PBW-4: 1 crawling), each next to the last, never a wall or an occupied hex;
    PBW-5: not while engaged in melee, and the move ends where it runs into one."""
    engaged = enemies_within_reach(state, ch.side, look.at)
    if engaged and not look.free:
        other = state.units[engaged[0]].name
        raise illegal(
            ch,
            "engaged",
            "PBW-5",
            f"is in melee with {other}: leaving takes a whole turn without attacking (disengage)",
            other=other,
        )
    if not path:
        raise illegal(ch, "no_path", "PBW-2", "a move needs the hexes it enters")
    limit = step_limit(ch)
    if len(path) > limit:
        raise illegal(
            ch, "too_far", "PBW-2", f"moves at most {limit} hex(es) per action, not {len(path)}", limit=limit
        )
    used = hexes_used(state, path)
    if used > limit:
        raise illegal(
            ch,
            "too_far_night",
            "NGT-5.1",
            f"at night each concealing hex costs one more: this path takes {used} of {limit} hexes of Movement",
            limit=limit,
            used=used,
        )
    prev = look.at
    seen = {look.at}
    for i, h in enumerate(path):
        if h.distance(prev) != 1 or h in seen:
            raise illegal(ch, "not_adjacent", "PBW-2", f"{h.label} is not next to {prev.label}", hex=h.label)
        if not state.board.contains(h):
            raise illegal(ch, "off_board", "PBW-2", f"{h.label} is off the board", hex=h.label)
        if blocks_move(state, h):
            kind = state.board.terrain_at(h) or ""
            raise illegal(
                ch, "blocked", "PBW-2", f"{h.label} cannot be entered ({kind})", hex=h.label, kind=kind
            )
        other = occupant(state, h, besides=ch.id)
        if other is not None and other.hidden and other.side != ch.side:
            # bumping into someone it cannot see: say so without naming them (FOG-1)
            raise illegal(ch, "occupied_unseen", "PBW-2", f"{h.label} is occupied", hex=h.label)
        if other is not None:
            raise illegal(
                ch,
                "occupied",
                "PBW-2",
                f"{h.label} is occupied by {other.name}",
                hex=h.label,
                other=other.name,
            )
        new = set(enemies_within_reach(state, ch.side, h)) - set(engaged)
        if new and i < len(path) - 1:
            name = state.units[sorted(new)[0]].name
            raise illegal(
                ch,
                "runs_into_melee",
                "PBW-5",
                f"comes within 1 hex of {name} at {h.label}: the move ends there",
                hex=h.label,
                other=name,
            )
        seen.add(h)
        prev = h


def attack_weapon(ch: Character, look: Outlook, act: SegmentAction) -> int:
    """The weapon index an attack uses: the one named, else the one in hand (melee: else fists)."""
    if act.weapon:
        return act.weapon - 1
    if act.action == MELEE and (look.held is None or ch.weapons[look.held].spec.ranged):
        return ch.fists
    return look.held if look.held is not None else -1


def check_attack(state: EncounterState, ch: Character, look: Outlook, act: SegmentAction) -> SegmentAction:
    """PBW-5: a ranged attack needs a loaded weapon in hand, range and sight; melee a target within 1 hex."""
    idx = attack_weapon(ch, look, act)
    spec = _weapon(ch, idx, act.weapon)
    if act.action == SHOOT:
        if not spec.ranged:
            raise illegal(ch, "not_ranged", "PBW-5", f"cannot shoot with {spec.key}", weapon=spec.key)
        _in_hand(ch, look, idx, spec)
        if look.ammo[idx] < 1:
            raise illegal(ch, "empty", "PBW-2", f"the {spec.key} is empty: reload it first", weapon=spec.key)
    else:
        if spec.ranged:
            raise illegal(ch, "not_melee", "PBW-5", f"cannot fight in melee with {spec.key}", weapon=spec.key)
        if spec.fists:
            if not ch.working_arms:
                raise illegal(ch, "no_arm", "PBW-4", "has no working arm to strike with")
        else:
            _in_hand(ch, look, idx, spec)
    target = target_of(state, ch, act.target)
    target_at = position_at(state, target, look.segment, ch)
    distance = look.at.distance(target_at)
    if act.action == SHOOT:
        if spec.band(distance) is None:
            raise illegal(
                ch,
                "out_of_range",
                "PBW-5",
                f"{target.name} is {distance} m away, beyond the {spec.key}'s {spec.ranges[-1]} m",
                target=target.name,
                distance=distance,
                max=spec.ranges[-1],
            )
        if not clear_line(state, look.at, target_at):
            raise illegal(ch, "no_sight", "PBW-5", f"cannot see {target.name}", target=target.name)
    elif distance != 1:
        raise illegal(
            ch,
            "not_in_reach",
            "PBW-5",
            f"{target.name} is not within 1 hex",
            target=target.name,
            distance=distance,
        )
    if act.aim and act.aim not in LOCATIONS:
        raise illegal(
            ch, "bad_aim", "PBW-5", f"{act.aim!r} is not a location ({', '.join(LOCATIONS)})", aim=act.aim
        )
    return dataclasses.replace(act, weapon=idx + 1)


def declared_before(
    state: EncounterState, other: Character, segment: int, viewer: Character
) -> tuple[SegmentAction, ...] | None:
    """While declaring, the part of ``other``'s locked (public) declaration carried out before ``viewer`` acts in
    ``segment``: its earlier segments, and the same one when it resolves first — at equal Initiative it does
    (PBW-1). None once the segments are resolving, or when ``other`` has not declared yet."""
    ext = ext_of(state)
    rec = ext.records.get(other.id)
    if ext.segment != 0 or rec is None:
        return None
    return rec.plan[: segment if other.initiative == viewer.initiative else segment - 1]


def position_at(state: EncounterState, other: Character, segment: int, viewer: Character) -> Hex:
    """Where ``other`` will stand when ``viewer`` acts in ``segment``: along its declared path when its declaration
    is locked and public, otherwise where it stands now."""
    assert other.at is not None
    at = other.at
    for act in declared_before(state, other, segment, viewer) or ():
        if act.action == MOVE and act.path:
            at = act.path[-1]
    return at


def target_of(state: EncounterState, ch: Character, target_id: str) -> Character:
    target = state.units.get(target_id)
    hidden = (
        isinstance(target, Character) and target.hidden and target.side != ch.side
    )  # FOG-1: not even named
    if not isinstance(target, Character) or target.at is None or hidden:
        raise illegal(
            ch, "no_target", "PBW-5", f"there is no character called {target_id!r}", target=target_id
        )
    if target.id == ch.id:
        raise illegal(ch, "self_target", "PBW-5", "cannot attack itself")
    if target.side == ch.side:
        raise illegal(ch, "friend", "PBW-5", f"{target.name} is on the same side", target=target.name)
    if not target.alive:
        raise illegal(ch, "target_dead", "PBW-4", f"{target.name} is dead", target=target.name)
    return target


def _weapon(ch: Character, idx: int, given: int) -> WeaponType:
    if not 0 <= idx < len(ch.weapons):
        if given:
            raise illegal(
                ch, "no_weapon", "PBW-2", f"has no weapon {given} (1-{len(ch.weapons)})", weapon=given
            )
        raise illegal(ch, "nothing_held", "PBW-2", "holds no weapon: draw one first")
    if ch.weapons[idx].dropped:
        kind = ch.weapons[idx].type
        raise illegal(ch, "dropped", "PBW-4", f"dropped the {kind}", weapon=kind)
    return ch.weapons[idx].spec


def _in_hand(ch: Character, look: Outlook, idx: int, spec: WeaponType) -> None:
    if look.held != idx:
        raise illegal(
            ch, "not_held", "PBW-2", f"the {spec.key} is not in hand: draw it first", weapon=spec.key
        )


def _reload(ch: Character, look: Outlook, act: SegmentAction) -> SegmentAction:
    idx = act.weapon - 1 if act.weapon else (look.held if look.held is not None else -1)
    spec = _weapon(ch, idx, act.weapon)
    if not spec.ranged:
        raise illegal(ch, "not_ranged", "PBW-2", f"the {spec.key} takes no ammunition", weapon=spec.key)
    _in_hand(ch, look, idx, spec)
    if look.ammo[idx] >= spec.capacity:
        raise illegal(ch, "full", "PBW-2", f"the {spec.key} is already loaded", weapon=spec.key)
    return dataclasses.replace(act, weapon=idx + 1)


def _draw(ch: Character, look: Outlook, act: SegmentAction) -> SegmentAction:
    if not act.weapon:
        raise illegal(ch, "draw_what", "PBW-2", "say which weapon to draw")
    idx = act.weapon - 1
    spec = _weapon(ch, idx, act.weapon)
    if spec.fists:
        raise illegal(ch, "fists", "PBW-2", "fists are never drawn")
    if look.held == idx:
        raise illegal(ch, "already_held", "PBW-2", f"already holds the {spec.key}", weapon=spec.key)
    if look.held is not None:
        held = ch.weapons[look.held].type
        raise illegal(ch, "hands_full", "PBW-2", f"holds the {held}: stow it first", weapon=held)
    if len(ch.working_arms) < spec.hands:
        raise illegal(
            ch, "arms", "PBW-4", f"needs {spec.hands} working arm(s) for the {spec.key}", weapon=spec.key
        )
    return act


# --- a whole declaration ------------------------------------------------------------------------------------------


def check_declaration(state: EncounterState, ch: Character, decl: Declaration) -> Declaration:
    """PBW-1..5: the three segments, each legal after the ones before; returned with every weapon made explicit."""
    if not ch.awake:
        raise illegal(ch, "cannot_act", "PBW-4", f"is {ch.condition}", condition=ch.condition)
    if len(decl.segments) != SEGMENTS:
        raise illegal(ch, "three_segments", "PBW-1", "a declaration has three segments")
    kinds = [s.action for s in decl.segments]
    if REST in kinds and not decl.rest:
        raise illegal(ch, "rest_whole_turn", "PBW-3", "rest takes the whole turn (all three segments)")
    if TREAT in kinds and decl.treat is None:
        raise illegal(
            ch, "treat_whole_turn", "PBW-6", "treating a wound takes the whole turn (all three segments)"
        )
    if LOST in kinds:
        raise illegal(ch, "unknown_action", "PBW-2", "'lost' is not an action")
    allowed = ch.actions_per_turn()
    if allowed == 0 and not decl.rest:
        raise illegal(ch, "exhausted", "PBW-3", "is exhausted: a whole turn of rest is all it can do")
    if ch.condition == INCAPACITATED and any(k not in (MOVE, DEFEND, REST, TREAT) for k in kinds):
        raise illegal(
            ch, "cannot_act", "PBW-4", "is incapacitated and can only crawl", condition=ch.condition
        )
    active = sum(1 for k in kinds if k in ACTIVE)
    if active > allowed:
        raise illegal(
            ch,
            "tired",
            "PBW-3",
            f"has {allowed} action(s) this turn (fatigue {ch.fatigue}), not {active}",
            allowed=allowed,
            fatigue=ch.fatigue,
        )
    look = outlook(state, ch)
    if decl.disengage:
        check_disengage(state, ch, look, decl.segments)
    checked: list[SegmentAction] = []
    for act in decl.segments:
        act = check_action(state, ch, look, act)
        checked.append(act)
        look = advance(ch, look, act)
    return dataclasses.replace(decl, segments=tuple(checked))


def check_disengage(
    state: EncounterState, ch: Character, look: Outlook, segments: Sequence[SegmentAction]
) -> None:
    """PBW-5: only from a melee, and a whole turn without attacking (nor moving: it is still engaged)."""
    if not enemies_within_reach(state, ch.side, look.at):
        raise illegal(ch, "not_engaged", "PBW-5", "is not in melee: there is nothing to disengage from")
    if any(s.action in (SHOOT, MELEE, MOVE) for s in segments):
        raise illegal(
            ch, "disengage_attacks", "PBW-5", "disengaging is a whole turn without attacking or moving"
        )


# --- changes of intention (PBW-2) ---------------------------------------------------------------------------------


def change_payment(rec: TurnRecord, segment: int, new: SegmentAction) -> int | None:
    """How a change to ``new`` in ``segment`` is paid (PBW-2, one action): 0 from a spare action (which then
    cannot defend), the later segment given up, or None when nothing is left to pay with."""
    plan = [*rec.plan]
    plan[segment - 1] = new
    after = dataclasses.replace(rec, plan=tuple(plan), spent=rec.spent + 1)
    avail = after.actions - after.spent
    pending = after.pending_active(segment)
    if avail < 0:
        return None
    if pending <= avail:
        return 0
    later = [t for t in range(segment + 1, SEGMENTS + 1) if plan[t - 1].active and t not in rec.resolved]
    if later and pending - 1 <= avail:
        return max(later)
    return None


def check_change(state: EncounterState, ch: Character, change: Change) -> SegmentAction | None:
    """A change for the segment about to resolve: legal now, and payable. None: the declared action is kept."""
    ext = ext_of(state)
    rec = ext.records.get(ch.id)
    if ext.segment < 1 or rec is None:
        raise illegal(ch, "no_change_now", "PBW-2", "has no declared action to change now")
    if change.segment != ext.segment:
        raise illegal(
            ch,
            "wrong_segment",
            "PBW-2",
            f"segment {ext.segment} is about to resolve, not {change.segment}",
            segment=ext.segment,
        )
    new = change.action
    if new is None:
        return None
    if not ch.awake:
        raise illegal(ch, "cannot_act", "PBW-4", f"is {ch.condition}", condition=ch.condition)
    current = rec.plan[ext.segment - 1]
    if current.action == LOST:
        raise illegal(ch, "segment_lost", "PBW-2", "gave this segment up for an earlier change")
    if new.action in (REST, LOST):
        raise illegal(ch, "rest_whole_turn", "PBW-3", "rest takes the whole turn: it cannot be changed into")
    if ch.condition == INCAPACITATED and new.action not in (MOVE, DEFEND):
        raise illegal(
            ch, "cannot_act", "PBW-4", "is incapacitated and can only crawl", condition=ch.condition
        )
    checked = check_action(state, ch, outlook(state, ch), new)
    if checked == current or (current.action == REST and checked.action == DEFEND):
        return None  # the declared action itself: nothing changes, nothing is paid
    if change_payment(rec, ext.segment, checked) is None:
        raise illegal(ch, "cannot_pay", "PBW-2", "has no action left to pay for a change of intention")
    return checked
