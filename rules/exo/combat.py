"""Phase 2 — combat (EXO-3.1 … EXO-3.6). Positions are those at the start of the round; damage waits for phase 4."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from rules.dice import Dice
from rules.events import Event, ShotResolved
from rules.exo.arcs import bears
from rules.exo.crew import Crew, resolve_crew_ref
from rules.exo.events import FireDeclared, HitScored, ShotSpent
from rules.exo.legality import shooter_rank, turret_gunners
from rules.exo.model import Ship
from rules.exo.rolls import reasons, roll_event
from rules.exo.state import ExoState, PendingHit
from rules.exo.tables import tables
from rules.state import EncounterState

POINTS_PER_INTERNAL = 4  # EXO-3.5: one internal point per 4 damage or fraction
MAX_INTERNAL_PER_SHOT = 3  # EXO-3.5


def split_damage(damage: int, armor: int) -> tuple[int, int]:
    """EXO-3.5: (armor lost, internal points). Armor soaks first; the rest is 1 point per 4 or fraction, cap 3."""
    absorbed = min(max(armor, 0), damage)
    rest = damage - absorbed
    internal = min(MAX_INTERNAL_PER_SHOT, -(-rest // POINTS_PER_INTERNAL))
    return absorbed, internal


@dataclass(frozen=True, slots=True)
class _Shot:
    ship: Ship
    crew: Crew
    rank: int
    weapon: int  # 0-based
    target: Ship
    distance: int
    nearest_miss: bool = False


def _declared_shots(state: EncounterState, ship: Ship, ext: ExoState, events: list[Event]) -> list[_Shot]:
    orders = ext.locked.get(ship.id)
    if orders is None:
        return []
    shots: list[_Shot] = []
    for fire in orders.fire:
        crew = resolve_crew_ref(ship.crew, fire.by, state.round)
        target = state.units[fire.target]
        if crew is None or ship.at is None or target.at is None or not isinstance(target, Ship):
            continue
        label = ship.weapon_label(fire.weapon - 1)
        events.append(
            FireDeclared(
                rule="EXO-2.4", unit=ship.id, target=target.id, crew=crew.name, weapon=label, shots=fire.shots
            )
        )
        rank = shooter_rank(ship, crew, state.round)
        for _ in range(fire.shots):
            shots.append(_Shot(ship, crew, rank, fire.weapon - 1, target, ship.at.distance(target.at)))
    # EXO-3.2: gunner 1, gunner 2, …, then the pilot; a shooter's own shots in the order written.
    shots.sort(key=lambda s: s.rank)
    return _nearest_target_rule(shots)


def _nearest_target_rule(shots: list[_Shot]) -> list[_Shot]:
    """EXO-3.2: after a shooter fired at distance d, later shooters' shots at ships nearer than d are automatic
    misses (spent). Equal distance is allowed: the shooter chooses which counts as nearer."""
    out: list[_Shot] = []
    committed = -1  # farthest distance fired at by earlier shooters
    current = -1
    current_rank: int | None = None
    for shot in shots:
        if shot.rank != current_rank:
            committed = max(committed, current)
            current_rank = shot.rank
        if shot.distance < committed:
            out.append(dataclasses.replace(shot, nearest_miss=True))
            continue
        current = max(current, shot.distance)
        out.append(shot)
    return out


def _presentation_order(state: EncounterState, per_ship: list[list[_Shot]]) -> list[_Shot]:
    """EXO-3.6: alternate sides one shot each (in side order) until only one side has shots left."""
    queues: dict[str, list[_Shot]] = {s.id: [] for s in state.sides}
    for shots in per_ship:
        for shot in shots:
            queues.setdefault(shot.ship.side, []).append(shot)
    out: list[_Shot] = []
    index = 0
    while any(index < len(q) for q in queues.values()):
        for q in queues.values():
            if index < len(q):
                out.append(q[index])
        index += 1
    return out


def resolve_combat(state: EncounterState, ext: ExoState, dice: Dice) -> tuple[ExoState, list[Event]]:
    t = tables()
    events: list[Event] = []
    per_ship: list[list[_Shot]] = []
    for unit in state.units.values():
        if isinstance(unit, Ship) and unit.active:
            per_ship.append(_declared_shots(state, unit, ext, events))
    armor_left: dict[str, int] = {}
    hits: dict[str, list[PendingHit]] = {k: list(v) for k, v in ext.hits.items()}
    for shot in _presentation_order(state, per_ship):
        ship, target = shot.ship, shot.target
        assert ship.at is not None and target.at is not None
        weapon = ship.weapons[shot.weapon]
        label = ship.weapon_label(shot.weapon)
        wtype = t.weapon_type(weapon.type)
        band = wtype.band(shot.distance)
        manned = turret_gunners(ship, state.round).get(shot.weapon) == shot.crew.name
        reason, rule = "", ""
        if shot.nearest_miss:
            reason, rule = "nearest", "EXO-3.2"
        elif not bears(weapon, ship.at, ship.facing, target.at, manned=manned):
            reason, rule = "arc", "EXO-3.1"
        elif band is None:
            reason, rule = "range", "EXO-3.4"
        if reason:
            events.append(
                ShotSpent(
                    rule=rule,
                    shooter=ship.id,
                    target=target.id,
                    weapon=label,
                    reason=reason,
                    distance=shot.distance,
                )
            )
            events.append(
                ShotResolved(rule=rule, shooter=ship.id, target=target.id, weapon=label, spent=True)
            )
            continue
        assert band is not None
        effects = ext.effects.get(ship.id)
        captain = effects.gunner if effects is not None and effects.gunner_name == shot.crew.name else 0
        modifiers = reasons(
            (f"range.{band}", t.range_modifier[band]), ("weapon", wtype.modifier), ("captain", -captain)
        )
        modifier = sum(v for _, v in modifiers)
        roll = dice.sombra(
            shot.crew.skill("gunnery"),
            modifier,
            rule="EXO-3.4",
            purpose=f"EXO-3.4 hit roll, {ship.name} {label} → {target.name} ({band}, {shot.distance} hexes)",
        )
        events.append(
            roll_event(
                roll,
                ship,
                shot.crew,
                target=target.id,
                band=band,
                distance=shot.distance,
                weapon=label,
                purpose_key="exo.hit",
                modifiers=modifiers,
            )
        )
        if not roll.success:
            events.append(
                ShotResolved(rule="EXO-3.4", shooter=ship.id, target=target.id, weapon=label, hit=False)
            )
            continue
        multiplier = t.small_target_multiplier if target.small else 1  # EXO-3.7: persons or vehicles
        damage = (roll.damage + wtype.damage_bonus) * multiplier  # EXO-3.5 [HOUSE]
        armor = armor_left.get(target.id, target.armor)
        absorbed, internal = split_damage(damage, armor)
        armor_left[target.id] = armor - absorbed
        faces = (roll.de, roll.high, roll.low)[:internal]  # EXO-3.5: first by dE, second by d+, third by d−
        locations = tuple(t.locations[f] for f in faces)
        events.append(
            ShotResolved(
                rule="EXO-3.4", shooter=ship.id, target=target.id, weapon=label, hit=True, damage=damage
            )
        )
        events.append(
            HitScored(
                rule="EXO-3.5",
                shooter=ship.id,
                target=target.id,
                weapon=label,
                damage=damage,
                armor=absorbed,
                internal=internal,
                locations=locations,
                multiplier=multiplier,
            )
        )
        hits.setdefault(target.id, []).append(
            PendingHit(shooter=ship.id, weapon=label, armor=absorbed, locations=locations)
        )
    new_ext = dataclasses.replace(ext, hits={k: tuple(v) for k, v in hits.items()})
    return new_ext, events
