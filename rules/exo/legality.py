"""Legality of exo orders at submission (``IllegalOrderError``): the bot never lets a bad order in silently."""

from __future__ import annotations

from rules.errors import IllegalOrderError
from rules.exo.crew import Crew, find_crew, may_try, resolve_crew_ref, roster, station_one
from rules.exo.model import Ship
from rules.exo.movement import ACCELERATE, is_one_change
from rules.exo.orders import CrewRolls, FireOrder, ShipOrders
from rules.exo.tables import tables
from rules.exo.turrets import turret_handler, turret_indexes
from rules.state import EncounterState


def _illegal(ship: Ship, message: str, code: str, rule: str, **params: object) -> IllegalOrderError:
    return IllegalOrderError(
        f"{ship.name}: {message}", code=code, rule=rule, params={"unit": ship.id, "ship": ship.name, **params}
    )


def turret_gunners(ship: Ship, round_no: int) -> dict[int, str]:
    """EXO-1.5 / EXO-5.2 / EXO-6.2: turrets (0-based) whose own gunner is able to fire them this round."""
    out: dict[int, str] = {}
    for index in turret_indexes(ship.weapons):
        handler = turret_handler(ship.weapons, ship.crew, index)
        if handler is not None and handler.able(round_no):
            out[index] = handler.name
    return out


def shooter_rank(ship: Ship, crew: Crew, round_no: int) -> int:
    """EXO-3.2 fire order: gunner 1, gunner 2, …, then the pilot."""
    gunners = roster(ship.crew, "gunner", round_no)
    for i, g in enumerate(gunners):
        if g.name == crew.name:
            return i
    return len(gunners)


def check_moves(ship: Ship, moves: str, *, what: str = "orders") -> None:
    """EXO-2.3: no orders adrift; at most Manta letters; with Manta 0 only turns, at most the [HOUSE] number."""
    if not moves:
        return
    if ship.adrift:
        raise _illegal(
            ship,
            f"the ship is adrift (engines 0) and can write no movement {what} (got {moves!r}).",
            "exo.adrift",
            "EXO-2.3",
            moves=moves,
        )
    if ship.manta <= 0:
        limit = tables().turns_without_manta
        if ACCELERATE in moves:
            raise _illegal(
                ship,
                f"Manta is 0: only turns (D or I) may be written, never A (got {moves!r}).",
                "exo.manta_zero_accelerate",
                "EXO-2.3",
                moves=moves,
                manta=0,
            )
        if len(moves) > limit:
            raise _illegal(
                ship,
                f"Manta is 0: at most {limit} turn(s) may be written (got {moves!r}).",
                "exo.manta_zero_turns",
                "EXO-2.3",
                moves=moves,
                manta=0,
                limit=limit,
            )
        return
    if len(moves) > ship.manta:
        raise _illegal(
            ship,
            f"{len(moves)} orders written ({moves!r}) but Manta is {ship.manta}.",
            "exo.manta_exceeded",
            "EXO-2.3",
            moves=moves,
            manta=ship.manta,
            count=len(moves),
        )


def check_crew_rolls(state: EncounterState, ship: Ship, order: CrewRolls) -> None:
    """EXO-2.1 / EXO-5.2 / EXO-6.2: only an able captain, engineer or navigator may roll."""
    rnd = state.round
    wanted = [
        s
        for s, on in (
            ("captain", order.captain_on is not None),
            ("engineer", order.engineer),
            ("navigator", order.navigator),
        )
        if on
    ]
    for station in wanted:
        if station_one(ship.crew, station, rnd) is None:
            raise _illegal(
                ship,
                f"no {station} able to roll this round (none at the station, down or busy repairing).",
                "exo.no_station",
                "EXO-2.1",
                station=station,
            )
    if order.captain_on is not None:
        helped = order.captain_on.strip().lower()
        if helped not in ("engineer", "navigator"):
            gunner = resolve_crew_ref(ship.crew, order.captain_on, rnd)
            if gunner is None or gunner.station != "gunner" or not gunner.able(rnd):
                raise _illegal(
                    ship,
                    f"the captain can help the engineer, the navigator or one able gunner, not {order.captain_on!r}.",
                    "exo.captain_target",
                    "EXO-2.1",
                    target=order.captain_on,
                )


def _check_turret(ship: Ship, crew: Crew, index: int, round_no: int) -> None:
    """EXO-1.5: a turret is fired only by its own gunner, who fires nothing else; EXO-5.2 / EXO-6.2: if that
    gunner is down or repairing the turret stays silent (a station change, EXO-6.5, hands it over next round)."""
    label = ship.weapon_label(index)
    handler = turret_handler(ship.weapons, ship.crew, index)
    if handler is not None and not handler.able(round_no):
        busy = not handler.down
        why = "busy repairing" if busy else f"out of action ({handler.status})"
        raise _illegal(
            ship,
            f"turret {label} cannot fire: its gunner {handler.name} is {why}; another crew member can take it"
            " over only by changing station (EXO-6.5), from next round.",
            "exo.turret_silent",
            "EXO-6.2" if busy else "EXO-5.2",
            weapon=label,
            gunner=handler.name,
        )
    if handler is not None and handler.name != crew.name:
        raise _illegal(
            ship,
            f"turret {label} is manned by {handler.name}; only that gunner fires it.",
            "exo.turret_gunner",
            "EXO-1.5",
            weapon=label,
            gunner=handler.name,
        )
    own = crew.turret if crew.station == "gunner" else 0
    if own and own != index + 1:
        turret = ship.weapon_label(own - 1) if own <= len(ship.weapons) else f"#{own}"
        raise _illegal(
            ship,
            f"{crew.name} mans turret {turret} and fires only that weapon, not {label}.",
            "exo.turret_own_only",
            "EXO-1.5",
            weapon=label,
            gunner=crew.name,
            turret=turret,
        )


def _check_fire(state: EncounterState, ship: Ship, fire: FireOrder, used: dict[int, tuple[str, int]]) -> None:
    rnd = state.round
    crew = resolve_crew_ref(ship.crew, fire.by, rnd)
    if crew is None or crew.station not in ("gunner", "pilot"):
        raise _illegal(
            ship,
            f"{fire.by!r} is not a gunner or the pilot of this ship (EXO-2.4: gunners, or the pilot, fire).",
            "exo.fire_by",
            "EXO-2.4",
            by=fire.by,
        )
    if not crew.able(rnd):
        rule = "EXO-6.2" if crew.busy(rnd) else "EXO-5.2"
        raise _illegal(
            ship,
            f"{crew.name} cannot fire this round ({'repairing' if crew.busy(rnd) else crew.status}).",
            "exo.crew_unable",
            rule,
            crew=crew.name,
        )
    if crew.station == "pilot" and crew is not station_one(ship.crew, "pilot", rnd):
        raise _illegal(
            ship, f"{crew.name} is not the pilot at the controls.", "exo.fire_by", "EXO-2.4", by=fire.by
        )
    if not 1 <= fire.weapon <= len(ship.weapons):
        raise _illegal(
            ship,
            f"there is no weapon {fire.weapon} (the ship has {len(ship.weapons)}).",
            "exo.weapon_index",
            "EXO-1.3",
            weapon=fire.weapon,
        )
    index = fire.weapon - 1
    weapon = ship.weapons[index]
    label = ship.weapon_label(index)
    if not weapon.usable:
        state_text = "beyond repair" if weapon.beyond_repair else "disabled"
        raise _illegal(
            ship, f"weapon {label} is {state_text}.", "exo.weapon_disabled", "EXO-3.5", weapon=label
        )
    _check_turret(ship, crew, index, rnd)
    target = state.units.get(fire.target)
    if not isinstance(target, Ship) or target.destroyed or target.side == ship.side:
        raise _illegal(
            ship,
            f"{fire.target!r} is not an enemy ship in play.",
            "exo.fire_target",
            "EXO-3.1",
            target=fire.target,
        )
    wtype = tables().weapon_type(weapon.type)
    shots = used.get(index, ("", 0))
    if shots[1] and (shots[0] != fire.target):
        raise _illegal(
            ship, f"weapon {label} fires at one ship per round.", "exo.weapon_twice", "EXO-3.3", weapon=label
        )
    total = shots[1] + fire.shots
    if fire.shots < 1 or total > wtype.shots:
        raise _illegal(
            ship,
            f"weapon {label} fires at most {wtype.shots} time(s) a round (got {total}).",
            "exo.weapon_twice",
            "EXO-3.3",
            weapon=label,
            shots=total,
        )
    used[index] = (fire.target, total)


def check_ship_orders(state: EncounterState, ship: Ship, order: ShipOrders) -> None:
    rnd = state.round
    if ship.destroyed:
        raise _illegal(ship, "the ship is destroyed.", "exo.destroyed", "EXO-5.1")
    check_moves(ship, order.move)
    if order.move and station_one(ship.crew, "pilot", rnd) is None:
        raise _illegal(
            ship,
            "no pilot can write orders this round (down, busy repairing or absent).",
            "exo.no_pilot",
            "EXO-6.2",
        )
    if order.pilot_change is not None:
        if not is_one_change(order.move, order.pilot_change):
            raise _illegal(
                ship,
                f"pilot_change {order.pilot_change!r} must be {order.move!r} with one letter replaced or deleted.",
                "exo.pilot_change",
                "EXO-4.1",
                moves=order.move,
                change=order.pilot_change,
            )
        check_moves(ship, order.pilot_change, what="orders in pilot_change")
    used: dict[int, tuple[str, int]] = {}
    for fire in order.fire:
        _check_fire(state, ship, fire, used)
    repairing: set[str] = set()
    for rep in order.repairs:
        crew = resolve_crew_ref(ship.crew, rep.by, rnd) or find_crew(ship.crew, rep.by)
        if crew is None:
            raise _illegal(
                ship, f"no crew member {rep.by!r} to repair.", "exo.crew_unknown", "EXO-6.1", crew=rep.by
            )
        if crew.name in repairing:
            raise _illegal(
                ship,
                f"{crew.name} may try only one repair a round.",
                "exo.repair_twice",
                "EXO-6.1",
                crew=crew.name,
            )
        if rep.weapon and not 1 <= rep.weapon <= len(ship.weapons):
            raise _illegal(
                ship,
                f"there is no weapon {rep.weapon} to repair.",
                "exo.weapon_index",
                "EXO-6.1",
                weapon=rep.weapon,
            )
        if rep.item == "cabin" and not may_try(crew, rep.item):
            raise _illegal(
                ship,
                f"{crew.name} is the {crew.station}, not the medic: first aid is the medic's (EXO-6.4).",
                "exo.first_aid_medic",
                "EXO-6.4",
                crew=crew.name,
            )
        if rep.patient and find_crew(ship.crew, rep.patient) is None:
            raise _illegal(
                ship,
                f"no crew member {rep.patient!r} to treat.",
                "exo.crew_unknown",
                "EXO-6.4",
                crew=rep.patient,
            )
        repairing.add(crew.name)
    changed: set[str] = set()
    for change in order.stations:
        crew = find_crew(ship.crew, change.by)
        if crew is None:
            raise _illegal(
                ship,
                f"no crew member {change.by!r} to change station.",
                "exo.crew_unknown",
                "EXO-6.5",
                crew=change.by,
            )
        if crew.down:
            raise _illegal(
                ship,
                f"{crew.name} is out of action ({crew.status}) and cannot change station until treated (EXO-5.2).",
                "exo.station_down",
                "EXO-6.5",
                crew=crew.name,
            )
        if crew.name in repairing:
            raise _illegal(
                ship,
                f"{crew.name} repairs this round and cannot change station.",
                "exo.station_after_repair",
                "EXO-6.5",
                crew=crew.name,
            )
        if crew.name in changed:
            raise _illegal(
                ship,
                f"{crew.name} changes station once a round.",
                "exo.station_twice",
                "EXO-6.5",
                crew=crew.name,
            )
        changed.add(crew.name)
    stations = {c.name: c.station for c in ship.crew}
    for change in order.stations:
        crew = find_crew(ship.crew, change.by)
        if crew is not None:
            stations[crew.name] = change.station
    if sum(1 for s in stations.values() if s == "captain") > 1:
        raise _illegal(ship, "a ship has one captain (EXO-1.5).", "exo.two_captains", "EXO-1.5")
