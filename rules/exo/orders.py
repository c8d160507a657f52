"""Exo orders and their syntax (phase 1 of EXO §1.2). Parsing only: legality is in ``validation``.

One round's orders for a ship, as a scenario ``[[rounds]]`` entry or the bot gives them::

    { crew_rolls = ["captain:engineer", "engineer", "navigator"],       # phase 1, open step (EXO-2.1)
      move = "DDA",                                                      # phase 1, secret (EXO-2.3)
      fire = [{ by = "gunner1", weapon = 1, target = "pirata" },         # phase 1, secret (EXO-2.4)
              { by = "pilot", weapon = 4, target = "pirata", shots = 2 }],   # torpedo double shot (EXO-3.3)
      pilot_change = "DA",       # used only on a piloting critical (EXO-4.1): the string to run instead,
                                 # one letter replaced or deleted from `move`
      repairs = [{ by = "Ana", item = "engines" }],                      # phase 5 (EXO-6.1, EXO-6.4)
      stations = [{ by = "Ana", station = "gunner" }] }                  # phase 5 (EXO-6.5)

``by`` names a crew member or a station (``pilot``, ``gunner2``). ``item`` is ``engines``, ``cargo``,
``weapon`` (with an optional 1-based ``weapon = N``) or ``cabin`` (first aid, optional ``patient``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, cast

from rules.errors import InvalidOrderError
from rules.exo.crew import STATIONS
from rules.exo.movement import ORDER_LETTERS
from rules.ruleset import Order
from rules.serial import serializable

CREW_ROLL_STATIONS = ("captain", "engineer", "navigator")
REPAIR_ITEMS = ("engines", "cargo", "weapon", "cabin")
ORDER_KEYS = frozenset({"crew_rolls", "move", "fire", "pilot_change", "repairs", "stations"})
FIRE_KEYS = frozenset({"by", "weapon", "target", "shots"})
REPAIR_KEYS = frozenset({"by", "item", "weapon", "patient"})
STATION_KEYS = frozenset({"by", "station"})
EMPTY_MOVES = "-"  # how an empty order string is written where a value is needed (decision options)


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class CrewRolls(Order):
    """EXO-2.1: which of captain, engineer and navigator roll; ``captain_on`` is what the captain helps."""

    captain_on: str | None = None  # None: the captain does not roll; "engineer" | "navigator" | a gunner ref
    engineer: bool = False
    navigator: bool = False


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class FireOrder:
    by: str
    weapon: int  # 1-based index in the ship's expanded weapon list
    target: str
    shots: int = 1


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class RepairOrder:
    by: str
    item: str
    weapon: int = 0  # 1-based; 0 = the first disabled weapon that can still be repaired
    patient: str = ""  # first aid: the crew member treated; "" = the first one down


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class StationOrder:
    by: str
    station: str


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class ShipOrders(Order):
    """A ship's secret orders for the round (EXO-2.3, EXO-2.4) plus its phase-5 declarations."""

    move: str = ""
    fire: tuple[FireOrder, ...] = ()
    pilot_change: str | None = None
    repairs: tuple[RepairOrder, ...] = ()
    stations: tuple[StationOrder, ...] = ()


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class PilotChange(Order):
    """The answer to a piloting critical (EXO-4.1): the order string to run instead."""

    moves: str


def _bad(unit: str, message: str, code: str, rule: str, **params: Any) -> InvalidOrderError:
    return InvalidOrderError(f"{unit}: {message}", code=code, rule=rule, params={"unit": unit, **params})


def parse_moves(unit: str, raw: Any, *, key: str = "move") -> str:
    if not isinstance(raw, str):
        raise _bad(
            unit,
            f'{key} must be a string of D, I and A, like "DDA".',
            "exo.move_syntax",
            "EXO-2.3",
            moves=str(raw),
        )
    text = raw.strip().upper().replace(" ", "")
    if text == EMPTY_MOVES:
        return ""
    for letter in text:
        if letter not in ORDER_LETTERS:
            raise _bad(
                unit,
                f"{letter!r} in {key} {raw!r} is not an order: use D (turn right), I (turn left), A (accelerate).",
                "exo.move_letter",
                "EXO-2.3",
                letter=letter,
                moves=raw,
            )
    return text


def parse_crew_rolls(unit: str, raw: Any) -> CrewRolls:
    """``["captain:engineer", "engineer", "navigator"]`` (EXO-2.1)."""
    if not isinstance(raw, list | tuple):
        raise _bad(
            unit,
            'crew_rolls must be a list like ["captain:engineer", "navigator"].',
            "exo.crew_rolls_syntax",
            "EXO-2.1",
        )
    captain_on: str | None = None
    engineer = navigator = False
    for item in cast(list[Any], raw):
        text = str(item).strip()
        station, _, helped = text.partition(":")
        station = station.strip().lower()
        if station not in CREW_ROLL_STATIONS:
            raise _bad(
                unit,
                f"{text!r}: only the captain, the engineer and the navigator make phase-1 rolls.",
                "exo.crew_roll_station",
                "EXO-2.1",
                station=text,
            )
        if station == "captain":
            if not helped.strip():
                raise _bad(
                    unit,
                    "the captain's roll must say whose roll it helps: captain:engineer, captain:navigator or captain:gunner1.",
                    "exo.captain_target",
                    "EXO-2.1",
                )
            captain_on = helped.strip()
        elif helped:
            raise _bad(
                unit,
                f"{text!r}: only the captain's roll names another roll.",
                "exo.crew_roll_station",
                "EXO-2.1",
                station=text,
            )
        elif station == "engineer":
            engineer = True
        else:
            navigator = True
    return CrewRolls(unit=unit, captain_on=captain_on, engineer=engineer, navigator=navigator)


def _check_keys(
    unit: str, table: Mapping[str, Any], allowed: frozenset[str], unknown: str, code: str, rule: str
) -> None:
    """Refuse the first key not in ``allowed``; ``unknown`` words it (``{key}`` stands for the key's repr)."""
    extra = sorted(set(table) - allowed)
    if extra:
        message = f"{unknown.format(key=repr(extra[0]))} (allowed: {', '.join(sorted(allowed))})."
        raise _bad(unit, message, code, rule, key=extra[0])


def _table(unit: str, raw: Any, allowed: frozenset[str], what: str, rule: str) -> Mapping[str, Any]:
    if not isinstance(raw, dict):
        raise _bad(
            unit, f'each {what} entry must be a table like {{ by = "...", ... }}.', f"exo.{what}_syntax", rule
        )
    table = cast(dict[str, Any], raw)
    _check_keys(unit, table, allowed, f"unknown key {{key}} in {what}", f"exo.{what}_syntax", rule)
    if not isinstance(table.get("by"), str) or not table["by"]:
        raise _bad(
            unit, f"each {what} entry needs by = a crew member or a station.", f"exo.{what}_syntax", rule
        )
    return table


def _int(
    unit: str, table: Mapping[str, Any], key: str, what: str, rule: str, default: int | None = None
) -> int:
    value = table.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int):
        raise _bad(unit, f"{what}: {key} must be a whole number.", f"exo.{what}_syntax", rule, key=key)
    return value


def parse_fire(unit: str, raw: Any) -> FireOrder:
    table = _table(unit, raw, FIRE_KEYS, "fire", "EXO-2.4")
    if not isinstance(table.get("target"), str) or not table["target"]:
        raise _bad(unit, "fire: target must name an enemy ship.", "exo.fire_syntax", "EXO-2.4", key="target")
    return FireOrder(
        by=str(table["by"]),
        weapon=_int(unit, table, "weapon", "fire", "EXO-2.4"),
        target=str(table["target"]),
        shots=_int(unit, table, "shots", "fire", "EXO-3.3", default=1),
    )


def parse_repair(unit: str, raw: Any) -> RepairOrder:
    table = _table(unit, raw, REPAIR_KEYS, "repairs", "EXO-6.1")
    item = str(table.get("item", "")).strip().lower()
    if item in ("first_aid", "crew"):
        item = "cabin"
    if item not in REPAIR_ITEMS:
        raise _bad(
            unit,
            f"repairs: item {table.get('item')!r} is not one of {', '.join(REPAIR_ITEMS)}.",
            "exo.repair_item",
            "EXO-6.1",
            item=str(table.get("item")),
        )
    patient = table.get("patient", "")
    return RepairOrder(
        by=str(table["by"]),
        item=item,
        weapon=_int(unit, table, "weapon", "repairs", "EXO-6.1", default=0),
        patient=str(patient),
    )


def parse_station(unit: str, raw: Any) -> StationOrder:
    table = _table(unit, raw, STATION_KEYS, "stations", "EXO-6.5")
    station = str(table.get("station", "")).strip().lower()
    if station not in STATIONS:
        raise _bad(
            unit,
            f"stations: {table.get('station')!r} is not a station ({', '.join(STATIONS)}).",
            "exo.station_unknown",
            "EXO-6.5",
            station=str(table.get("station")),
        )
    return StationOrder(by=str(table["by"]), station=station)


def _list(unit: str, raw: Mapping[str, Any], key: str) -> list[Any]:
    value = raw.get(key, [])
    if not isinstance(value, list | tuple):
        raise _bad(unit, f"{key} must be a list of tables.", f"exo.{key}_syntax", "EXO-2.4", key=key)
    return list(cast(list[Any], value))


def parse_ship_orders(unit: str, raw: Any) -> ShipOrders:
    """A ship's round orders from a table (or just the move string)."""
    if isinstance(raw, str):
        return ShipOrders(unit=unit, move=parse_moves(unit, raw))
    if not isinstance(raw, Mapping):
        raise _bad(unit, 'orders must be a table like { move = "DA" }.', "exo.orders_syntax", "EXO-2.3")
    table = cast(Mapping[str, Any], raw)
    _check_keys(unit, table, ORDER_KEYS, "unknown order key {key}", "exo.orders_syntax", "EXO-2.3")
    change = table.get("pilot_change")
    return ShipOrders(
        unit=unit,
        move=parse_moves(unit, table.get("move", "")),
        fire=tuple(parse_fire(unit, f) for f in _list(unit, table, "fire")),
        pilot_change=None if change is None else parse_moves(unit, change, key="pilot_change"),
        repairs=tuple(parse_repair(unit, r) for r in _list(unit, table, "repairs")),
        stations=tuple(parse_station(unit, s) for s in _list(unit, table, "stations")),
    )
