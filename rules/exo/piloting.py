"""Phase 3 — piloting and movement (EXO-4.1 … EXO-4.5)."""

from __future__ import annotations

import dataclasses

from rules.dice import Dice
from rules.events import Event, Note, RollMade, UnitMoved
from rules.exo.events import CollisionFlagged, ManeuverExecuted, PilotingResolved, Yawed
from rules.exo.model import Ship, SpaceObject
from rules.exo.movement import TURN_LEFT, TURN_RIGHT, change_options, execute_orders, inertial_move
from rules.exo.orders import EMPTY_MOVES
from rules.exo.rolls import reasons, station_roll
from rules.exo.state import ExoState, PilotOutcome
from rules.exo.tables import tables
from rules.hexgrid import Hex, line_traces
from rules.state import Decision, EncounterState, Unit


def roll_piloting(state: EncounterState, ext: ExoState, dice: Dice) -> tuple[ExoState, list[Event]]:
    """EXO-4.1: every ship's pilot rolls piloting (with the navigator's effect) before the orders run."""
    events: list[Event] = []
    outcomes: dict[str, PilotOutcome] = {}
    table = tables().piloting
    for unit in state.units.values():
        if not isinstance(unit, Ship) or not unit.active:
            continue
        orders = ext.locked.get(unit.id)
        written = orders.move if orders is not None else ""
        if unit.adrift:  # EXO-2.3: adrift, nothing to pilot
            outcomes[unit.id] = PilotOutcome(crew="", quality="adrift", executed="")
            continue
        effects = ext.effects.get(unit.id)
        navigator = effects.navigator if effects is not None else 0
        done = station_roll(
            dice,
            unit,
            "pilot",
            "piloting",
            reasons(("navigator", -navigator)),
            state.round,
            rule="EXO-4.1",
            purpose="piloting roll",
            purpose_key="exo.piloting",
            events=events,
        )
        if done is None:  # EXO-4.1: no piloting roll, all written orders ignored
            outcomes[unit.id] = PilotOutcome(crew="", quality="no_pilot", executed="")
            if written:
                events.append(
                    Note(
                        rule="EXO-4.1",
                        key="exo.no_pilot_orders_ignored",
                        unit=unit.id,
                        args=(("written", written),),
                    )
                )
            continue
        crew, roll = done
        result = table[roll.quality]
        quality = roll.quality.name.lower()
        executed = "" if result.drop_all else written[: max(0, len(written) - result.drop)]
        yaw = ""
        if result.yaw:
            d = dice.d10(
                rule="EXO-4.1", purpose=f"EXO-4.1 yaw direction, {unit.name} (even port, odd starboard)"
            )
            events.append(RollMade.of(d, actor=unit.id, purpose_key="exo.yaw"))
            yaw = TURN_LEFT if d.total % 2 == 0 else TURN_RIGHT
        wants_change = result.change and orders is not None and orders.pilot_change is None
        if result.change and orders is not None and orders.pilot_change is not None:
            executed = orders.pilot_change
        outcomes[unit.id] = PilotOutcome(
            crew=crew.name, quality=quality, executed=executed, yaw=yaw, change=wants_change
        )
        if not wants_change:
            events.append(
                PilotingResolved(
                    rule="EXO-4.1",
                    unit=unit.id,
                    crew=crew.name,
                    written=written,
                    executed=executed,
                    quality=quality,
                )
            )
    return dataclasses.replace(ext, piloting=outcomes), events


def next_decision(state: EncounterState, ext: ExoState) -> Decision | None:
    """EXO-4.1 critical without a ``pilot_change`` in the orders: ask the pilot which one letter to change."""
    for ship_id, outcome in ext.piloting.items():
        if outcome.change:
            ship = state.units[ship_id]
            written = outcome.executed
            options = tuple(o or EMPTY_MOVES for o in change_options(written))
            return Decision(
                id=f"pilot_change:{state.round}:{ship_id}",
                side=ship.side,
                unit=ship_id,
                kind="pilot_change",
                options=options,
                default=written or EMPTY_MOVES,
                prompt=f"{ship.name}: piloting critical — replace or delete one letter of {written or EMPTY_MOVES!r}",
            )
    return None


def answer_decision(
    state: EncounterState, ext: ExoState, ship_id: str, moves: str
) -> tuple[ExoState, list[Event]]:
    outcome = ext.piloting[ship_id]
    orders = ext.locked.get(ship_id)
    written = orders.move if orders is not None else ""
    chosen = PilotOutcome(crew=outcome.crew, quality=outcome.quality, executed=moves)
    event = PilotingResolved(
        rule="EXO-4.1",
        unit=ship_id,
        crew=outcome.crew,
        written=written,
        executed=moves,
        quality=outcome.quality,
    )
    return dataclasses.replace(ext, piloting={**ext.piloting, ship_id: chosen}), [event]


def _moved(unit: Unit, frm: Hex, to: Hex, facing_from: int) -> UnitMoved:
    path = tuple(line_traces(frm, to)[0]) if frm != to else (frm,)
    return UnitMoved(
        rule="EXO-4.3",
        unit=unit.id,
        frm=frm,
        to=to,
        facing_from=facing_from,
        facing_to=unit.facing,
        path=path,
    )


def execute_movement(state: EncounterState, ext: ExoState) -> tuple[EncounterState, list[Event]]:
    """EXO-4.2 then EXO-4.3 for every ship; drifting debris moves too; EXO-4.5 flags shared hexes."""
    events: list[Event] = []
    moved: list[Unit] = []
    for unit in state.units.values():
        if isinstance(unit, Ship) and unit.active and unit.at is not None and unit.vector is not None:
            outcome = ext.piloting.get(unit.id)
            letters = outcome.executed if outcome is not None else ""
            yaw = outcome.yaw if outcome is not None else ""
            facing, vector = execute_orders(unit.facing, unit.vector, letters)
            if letters:
                events.append(
                    ManeuverExecuted(
                        rule="EXO-4.2",
                        unit=unit.id,
                        moves=letters,
                        facing_from=unit.facing,
                        facing_to=facing,
                        vector_from=unit.vector,
                        vector_to=vector,
                    )
                )
            if yaw:
                facing = (facing + (1 if yaw == TURN_RIGHT else -1)) % 6
                events.append(Yawed(rule="EXO-4.1", unit=unit.id, direction=yaw, facing=facing))
            at, vector = inertial_move(unit.at, vector)
            new = dataclasses.replace(unit, at=at, vector=vector, facing=facing)
            events.append(_moved(new, unit.at, at, unit.facing))
            moved.append(new)
        elif (
            isinstance(unit, SpaceObject)
            and not unit.destroyed
            and unit.at is not None
            and unit.vector is not None
        ):
            at, vector = inertial_move(unit.at, unit.vector)
            new = dataclasses.replace(unit, at=at, vector=vector)
            events.append(_moved(new, unit.at, at, unit.facing))
            moved.append(new)
    state = state.with_units(moved)
    collisions = find_collisions(state)
    for at, ids in collisions:
        events.append(
            CollisionFlagged(rule="EXO-4.5", at=at, units=ids, terrain=state.board.terrain.get(at, ""))
        )
    new_ext = dataclasses.replace(ext, collisions=tuple(ids for _, ids in collisions), piloting={})
    return state.replace(ext=new_ext), events


def find_collisions(state: EncounterState) -> list[tuple[Hex, tuple[str, ...]]]:
    """EXO-4.5: two or more ships, debris or asteroids (not vectors) in one hex; terrain asteroids count too."""
    by_hex: dict[Hex, list[str]] = {}
    for unit in state.units.values():
        if isinstance(unit, Ship | SpaceObject) and not unit.destroyed and unit.at is not None:
            by_hex.setdefault(unit.at, []).append(unit.id)
    out: list[tuple[Hex, tuple[str, ...]]] = []
    for at, ids in by_hex.items():
        rock = state.board.terrain.get(at) == "asteroid"
        if len(ids) >= 2 or (rock and any(isinstance(state.units[i], Ship) for i in ids)):
            out.append((at, tuple(ids)))
    return out
