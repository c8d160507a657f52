"""The director's rulings of EXO-4.5: collision (EXO-4.6), docking (EXO-4.7) and boarding (EXO-4.8).

Seed: "Si tras realizar lo anterior, dos o más naves, restos o asteroides (no sus vectores) terminan el asalto en el
mismo hexágono, habrá una posibilidad de colisión, de atraque o de abordaje." The seed leaves the outcome to the
director, so these are pure functions of the state and the director's input, shaped like the bot's overrides:
each returns the new state and its events, the ruling's own event first (the line the channel is told).

- A ruling needs the pieces in one hex (EXO-4.5) and clears that hex's flag, so phase 4 does not log it as unruled.
- Collision damage is the director's number per ship, applied like one hit (EXO-3.5 [HOUSE]: armor first, then one
  internal point per 4 or fraction, at most 3), each internal point's location on a d10 (there is no hit roll to
  read it from). Ruled before the damage phase (``phase == "4"``, right after the collision was flagged) it waits
  for phase 4 with the round's other damage (EXO-5.1); ruled at any other time it takes effect at once.
- Docking records the two ships joined; by default the docking ship matches the other's velocity [HOUSE], so they
  keep moving together until one of them maneuvers.
- Boarding records the boarding party: those crew members leave their stations (station ``boarding``) [HOUSE]; they
  come back by a station change in phase 5 (EXO-6.5). ``captured`` records that the boarders took the ship: it
  passes to the boarders' side.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence

from rules.dice import Dice, phase_seed
from rules.errors import IllegalOrderError
from rules.events import Event, RollMade
from rules.exo.combat import split_damage
from rules.exo.crew import BOARDING, find_crew
from rules.exo.damage import damage_ship, winner_check
from rules.exo.events import CollisionRuled, HitScored, ShipBoarded, ShipsDocked
from rules.exo.model import Ship, SpaceObject
from rules.exo.state import ExoState, PendingHit, ext_of
from rules.exo.tables import tables
from rules.hexgrid import Hex
from rules.state import EncounterState, Unit

Ruling = tuple[EncounterState, tuple[Event, ...]]

ASTEROID = "asteroid"  # board terrain that counts as a piece in a collision (EXO-4.5)
DAMAGE_PHASE = "4"  # a ruling made while the state waits for phase 4 joins the round's damage (EXO-5.1)


def _refuse(message: str, code: str, rule: str, **params: object) -> IllegalOrderError:
    return IllegalOrderError(message, code=f"exo.{code}", rule=rule, params=dict(params))


def _piece(state: EncounterState, unit_id: str, rule: str) -> Ship | SpaceObject:
    unit = state.units.get(unit_id)
    if not isinstance(unit, Ship | SpaceObject) or unit.destroyed or unit.at is None:
        raise _refuse(
            f"{unit_id!r} is not a ship, debris or asteroid in play.", "ruling_unit", rule, unit=unit_id
        )
    return unit


def _together(state: EncounterState, pieces: Sequence[Ship | SpaceObject], rule: str) -> Hex:
    """EXO-4.5: the pieces share one hex; that hex."""
    if state.over:
        raise _refuse("The encounter is over.", "ruling_over", rule)
    places = {p.at for p in pieces}
    if len(places) != 1:
        names = ", ".join(p.name for p in pieces)
        raise _refuse(f"{names} are not in one hex (EXO-4.5).", "ruling_apart", rule, units=names)
    (at,) = places
    assert at is not None
    return at


def _clear_flag(ext: ExoState, ids: Sequence[str]) -> ExoState:
    """The hex is ruled: its EXO-4.5 flag goes, so phase 4 does not log it as unruled."""
    ruled = set(ids)
    return dataclasses.replace(ext, collisions=tuple(g for g in ext.collisions if not ruled & set(g)))


def ruling_dice(state: EncounterState, what: str) -> Dice:
    """Dice for a ruling: the scenario's scripted dice first (DICE-1), then a seed of its own, so a ruling never
    replays the stream of the phase that resolves next."""
    return Dice(phase_seed(state.seed, state.round, f"{state.phase}#{state.step}:{what}"), state.dice_script)


def rule_collision(
    state: EncounterState, units: Sequence[str], damage: Mapping[str, int], dice: Dice | None = None
) -> Ruling:
    """EXO-4.6: the director rules that ``units`` (two or more pieces in one hex, or one ship on an asteroid hex)
    collide; ``damage`` gives each ship's damage (0 or missing: none). Returns the state and the events:
    ``CollisionRuled``, then per damaged ship its location rolls and ``HitScored`` (and, ruled outside the damage
    phase, the damage itself: ``DamageApplied``, ``SystemHit``, …)."""
    rule = "EXO-4.6"
    ids = tuple(dict.fromkeys(units))
    pieces = [_piece(state, uid, rule) for uid in ids]
    if not pieces:
        raise _refuse("Name the pieces that collide.", "ruling_apart", rule, units="")
    at = _together(state, pieces, rule)
    rock = state.board.terrain_at(at) == ASTEROID
    if len(pieces) < 2 and not rock:
        raise _refuse(
            "A collision needs two pieces in one hex, or an asteroid hex.", "ruling_apart", rule, units=ids[0]
        )
    for uid, amount in damage.items():
        if uid not in ids:
            raise _refuse(f"{uid!r} is not one of the colliding pieces.", "ruling_unit", rule, unit=uid)
        if amount < 0 or (amount > 0 and not isinstance(state.units[uid], Ship)):
            raise _refuse(
                f"{uid}: collision damage is a number ≥ 0, and only ships take it.",
                "collision_damage",
                rule,
                unit=uid,
            )
    dice = dice if dice is not None else ruling_dice(state, "collision")
    t = tables()
    ext = ext_of(state.ext)
    queued = state.phase == DAMAGE_PHASE
    hits = {k: list(v) for k, v in ext.hits.items()}
    events: list[Event] = [
        CollisionRuled(
            rule=rule,
            at=at,
            units=ids,
            damage=tuple(int(damage.get(uid, 0)) for uid in ids),
            queued=queued,
        )
    ]
    changed: list[Unit] = []
    for piece in pieces:
        amount = int(damage.get(piece.id, 0))
        if not isinstance(piece, Ship) or amount <= 0:
            continue
        pending_armor = sum(h.armor for h in ext.hits.get(piece.id, ())) if queued else 0
        absorbed, internal = split_damage(amount, max(0, piece.armor - pending_armor))
        locations: list[str] = []
        for n in range(internal):
            roll = dice.d10(rule=rule, purpose=f"{rule} collision location {n + 1}, {piece.name}")
            events.append(RollMade.of(roll, actor=piece.id, purpose_key="exo.collision_location", n=n + 1))
            locations.append(t.locations[roll.total])
        others = [p.id for p in pieces if p.id != piece.id]
        by = others[0] if len(others) == 1 else ""
        events.append(
            HitScored(
                rule=rule,
                shooter=by,
                target=piece.id,
                weapon="collision",
                damage=amount,
                armor=absorbed,
                internal=internal,
                locations=tuple(locations),
            )
        )
        hit = PendingHit(shooter=by, weapon="collision", armor=absorbed, locations=tuple(locations))
        if queued:
            hits.setdefault(piece.id, []).append(hit)
        else:
            changed.extend(damage_ship(piece, (hit,), dice, events))
    ext = _clear_flag(dataclasses.replace(ext, hits={k: tuple(v) for k, v in hits.items()}), ids)
    state = state.with_units(changed).replace(ext=ext, dice_script=dice.script_left)
    if changed:
        state, over = winner_check(state)
        events.extend(over)
    return state, tuple(events)


def _ship(state: EncounterState, unit_id: str, rule: str) -> Ship:
    piece = _piece(state, unit_id, rule)
    if not isinstance(piece, Ship):
        raise _refuse(f"{piece.name} is not a ship.", "ruling_unit", rule, unit=unit_id)
    return piece


def rule_docking(state: EncounterState, ship: str, other: str, *, match_velocity: bool = True) -> Ruling:
    """EXO-4.7: ``ship`` docks with ``other`` (both ships, one hex). With ``match_velocity`` [HOUSE] ``ship`` takes
    ``other``'s velocity (its vector moves so), so the two go on together until one maneuvers."""
    rule = "EXO-4.7"
    a, b = _ship(state, ship, rule), _ship(state, other, rule)
    if a.id == b.id:
        raise _refuse("A ship cannot dock with itself.", "ruling_apart", rule, units=a.id)
    at = _together(state, [a, b], rule)
    changed: list[Unit] = []
    if match_velocity and a.vector is not None:
        changed.append(dataclasses.replace(a, vector=at + b.velocity))
    event = ShipsDocked(rule=rule, unit=a.id, other=b.id, at=at, matched=match_velocity)
    state = state.with_units(changed).replace(ext=_clear_flag(ext_of(state.ext), (a.id, b.id)))
    return state, (event,)


def rule_boarding(
    state: EncounterState, ship: str, target: str, crew: Sequence[str], *, captured: bool = False
) -> Ruling:
    """EXO-4.8: crew members of ``ship`` board ``target`` (an enemy ship in the same hex). They leave their stations
    [HOUSE] (station ``boarding``: no station roll, no fire, no repair, no cabin hit aboard their own ship) until a
    station change in phase 5 (EXO-6.5) brings them back. ``captured``: the boarders took ``target``, which passes to
    ``ship``'s side."""
    rule = "EXO-4.8"
    a, b = _ship(state, ship, rule), _ship(state, target, rule)
    if a.side == b.side:
        raise _refuse(f"{b.name} is not an enemy ship.", "board_friend", rule, unit=b.id)
    at = _together(state, [a, b], rule)
    names: list[str] = []
    for ref in crew:
        member = find_crew(a.crew, ref)
        if member is None or member.down or member.station == BOARDING:
            raise _refuse(
                f"{a.name}: {ref!r} is not a crew member able to board.",
                "board_crew",
                rule,
                crew=ref,
                unit=a.id,
            )
        if member.name not in names:
            names.append(member.name)
    if not names and not captured:
        raise _refuse(f"{a.name}: name the crew members who board.", "board_crew", rule, crew="", unit=a.id)
    boarders = tuple(
        dataclasses.replace(c, station=BOARDING, turret=0) if c.name in names else c for c in a.crew
    )
    changed: list[Unit] = [dataclasses.replace(a, crew=boarders)]
    if captured:
        changed.append(dataclasses.replace(b, side=a.side))
    event = ShipBoarded(rule=rule, unit=a.id, target=b.id, at=at, crew=tuple(names), captured=captured)
    state = state.with_units(changed).replace(ext=_clear_flag(ext_of(state.ext), (a.id, b.id)))
    if captured:
        state, over = winner_check(state)
        return state, (event, *over)
    return state, (event,)
