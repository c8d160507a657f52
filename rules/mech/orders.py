"""Mech declarations (MECH-1.2): movement mode, path hex by hex, end facing, torso twist, fire, physical attacks.

Parsing (this module) is separate from legality (``legality.py``): a declaration that cannot be read raises
``InvalidOrderError``; one the rules forbid raises ``IllegalOrderError`` there. The raw form is the scenario
file's (DESIGN §7.1): ``{ mode = "walk", path = ["0509", "0508"], facing = "NE", twist = "R", fire = [{ weapon = 1,
target = "raven" }], physical = [{ kind = "punch", limb = "ra", target = "raven" }] }``. Spanish words are read
too (andar/correr/saltar, giro de torso I/D, puñetazo, patada, carga, mdc ...).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, cast

from rules.errors import InvalidOrderError
from rules.hexgrid import Hex, HexSide
from rules.ruleset import Order
from rules.serial import serializable

STAND, WALK, RUN, JUMP, CRUISE, FLANK = "stand", "walk", "run", "jump", "cruise", "flank"
MODES = (STAND, WALK, RUN, JUMP, CRUISE, FLANK)
#: vehicles: walk = cruise, run = flank (DESIGN §7.1); mechs read the vehicle words the other way
MODE_ALIASES = {
    "stand": STAND,
    "none": STAND,
    "quieto": STAND,
    "parado": STAND,
    "walk": WALK,
    "andar": WALK,
    "caminar": WALK,
    "run": RUN,
    "correr": RUN,
    "jump": JUMP,
    "saltar": JUMP,
    "salto": JUMP,
    "cruise": CRUISE,
    "crucero": CRUISE,
    "flank": FLANK,
    "max": FLANK,
    "maxima": FLANK,
    "máxima": FLANK,
}
TWISTS = {"": 0, "l": -1, "left": -1, "i": -1, "izquierda": -1, "r": 1, "right": 1, "d": 1, "derecha": 1}
PHYSICAL_KINDS = ("push", "punch", "kick", "melee", "charge", "dfa")
KIND_ALIASES = {
    "push": "push",
    "empujar": "push",
    "empujon": "push",
    "empujón": "push",
    "punch": "punch",
    "puñetazo": "punch",
    "punetazo": "punch",
    "kick": "kick",
    "patada": "kick",
    "melee": "melee",
    "arma": "melee",
    "charge": "charge",
    "carga": "charge",
    "dfa": "dfa",
    "mdc": "dfa",
}
LIMB_ALIASES = {
    "la": "la",
    "ra": "ra",
    "ll": "ll",
    "rl": "rl",
    "bi": "la",
    "bd": "ra",
    "pi": "ll",
    "pd": "rl",
}
ORDER_KEYS = frozenset({"mode", "path", "facing", "twist", "fire", "physical"})
FIRE_KEYS = frozenset({"weapon", "target"})
PHYSICAL_KEYS = frozenset({"kind", "limb", "target"})


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class FireEntry:
    """One weapon (1-based, as in the unit's ``weapons`` list) and its target."""

    weapon: int
    target: str


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class PhysicalEntry:
    kind: str
    target: str
    limb: str = ""  # la/ra for a punch, ll/rl for a kick


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class MechOrder(Order):
    """One unit's declaration for the turn. ``facing`` None keeps the facing the path leaves."""

    mode: str = STAND
    path: tuple[Hex, ...] = ()
    facing: int | None = None
    twist: int = 0
    fire: tuple[FireEntry, ...] = ()
    physical: tuple[PhysicalEntry, ...] = ()

    @property
    def moves(self) -> bool:
        return self.mode != STAND

    def to_raw(self) -> dict[str, Any]:
        """The scenario file's form (DESIGN §7.1), for events and tools: hexes as labels, facing as a name."""
        out: dict[str, Any] = {"mode": self.mode, "path": tuple(h.label for h in self.path)}
        if self.facing is not None:
            out["facing"] = HexSide(self.facing % 6).name
        if self.twist:
            out["twist"] = "L" if self.twist < 0 else "R"
        out["fire"] = tuple({"weapon": f.weapon, "target": f.target} for f in self.fire)
        out["physical"] = tuple(
            {"kind": p.kind, "limb": p.limb, "target": p.target}
            if p.limb
            else {"kind": p.kind, "target": p.target}
            for p in self.physical
        )
        return out


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class ForcedStand(MechOrder):
    """MECH-1.1: the declaration locked for a unit whose player gave none when the director (or a deadline)
    forced the step: it stands still, no move and no fire. Never read from what a player gives."""


def stand_order(unit_id: str) -> MechOrder:
    """The declaration of a unit that does nothing (no move, no fire): what a missing declaration locks."""
    return MechOrder(unit=unit_id)


def _bad(unit_id: str, message: str, code: str, **params: object) -> InvalidOrderError:
    return InvalidOrderError(f"{unit_id}: {message}", code=code, params={"unit": unit_id, **params})


def normalize_mode(unit_id: str, value: Any, *, vehicle: bool) -> str:
    """The canonical mode for the unit's kind: a vehicle's walk is cruise, a mech's flank is run."""
    if value is None:
        return STAND
    if not isinstance(value, str) or value.strip().lower() not in MODE_ALIASES:
        raise _bad(
            unit_id,
            f"mode {value!r} is not one of walk, run, jump, cruise, flank, stand (andar, correr, saltar)",
            "mech.mode",
            mode=str(value),
        )
    mode = MODE_ALIASES[value.strip().lower()]
    if vehicle:
        return {WALK: CRUISE, RUN: FLANK}.get(mode, mode)
    return {CRUISE: WALK, FLANK: RUN}.get(mode, mode)


def parse_order(unit_id: str, raw: Any, *, vehicle: bool = False) -> MechOrder:
    """A declaration from its raw table (scenario file or panel). Raises ``InvalidOrderError``."""
    if raw is None:
        return stand_order(unit_id)
    if isinstance(raw, MechOrder):
        return raw
    if not isinstance(raw, Mapping):
        raise _bad(unit_id, 'a declaration is a table like { mode = "walk", path = ["0509"] }', "mech.syntax")
    table = cast(Mapping[str, Any], raw)
    unknown = sorted(set(table) - ORDER_KEYS)
    if unknown:
        raise _bad(
            unit_id,
            f"unknown key(s) {', '.join(unknown)} (a declaration has {', '.join(sorted(ORDER_KEYS))})",
            "mech.keys",
            keys=", ".join(unknown),
        )
    path = _path(unit_id, table.get("path", []))
    mode = normalize_mode(unit_id, table.get("mode", WALK if path else None), vehicle=vehicle)
    facing: int | None = None
    if table.get("facing") is not None:
        try:
            facing = int(HexSide.parse(table["facing"]))
        except ValueError:
            raise _bad(
                unit_id,
                f"facing {table['facing']!r}: use 0-5 or N, NE, SE, S, SW, NW",
                "mech.facing",
                facing=str(table["facing"]),
            ) from None
    twist_raw = table.get("twist", "")
    if twist_raw is None:
        twist_raw = ""
    if not isinstance(twist_raw, str) or twist_raw.strip().lower() not in TWISTS:
        raise _bad(
            unit_id,
            f'twist {twist_raw!r}: use "L" or "R" (giro de torso I/D)',
            "mech.twist",
            twist=str(twist_raw),
        )
    fire = tuple(_fire(unit_id, i, entry) for i, entry in enumerate(_list(unit_id, table, "fire")))
    physical = tuple(_physical(unit_id, entry) for entry in _list(unit_id, table, "physical"))
    return MechOrder(
        unit=unit_id,
        mode=mode,
        path=path,
        facing=facing,
        twist=TWISTS[twist_raw.strip().lower()],
        fire=fire,
        physical=physical,
    )


def _list(unit_id: str, table: Mapping[str, Any], key: str) -> list[Any]:
    value = table.get(key, [])
    if not isinstance(value, list | tuple):
        raise _bad(unit_id, f"{key} is a list of tables", "mech.syntax")
    return list(cast(list[Any], value))


def _path(unit_id: str, value: Any) -> tuple[Hex, ...]:
    if not isinstance(value, list | tuple):
        raise _bad(unit_id, 'path is a list of hexes like ["0509", "0508"]', "mech.path_syntax")
    out: list[Hex] = []
    for item in cast(list[Any], value):
        if isinstance(item, Hex):
            out.append(item)
            continue
        try:
            out.append(Hex.parse(str(item)))
        except ValueError as exc:
            raise _bad(unit_id, str(exc), "mech.path_syntax") from None
    return tuple(out)


def _fire(unit_id: str, i: int, entry: Any) -> FireEntry:
    if isinstance(entry, FireEntry):
        return entry
    if not isinstance(entry, Mapping):
        raise _bad(unit_id, 'a fire entry is { weapon = 1, target = "raven" }', "mech.fire_syntax")
    e = cast(Mapping[str, Any], entry)
    weapon, target = e.get("weapon"), e.get("target")
    if (
        set(e) - FIRE_KEYS
        or isinstance(weapon, bool)
        or not isinstance(weapon, int)
        or not isinstance(target, str)
    ):
        raise _bad(unit_id, 'a fire entry is { weapon = 1, target = "raven" }', "mech.fire_syntax")
    return FireEntry(weapon=weapon, target=target)


def _physical(unit_id: str, entry: Any) -> PhysicalEntry:
    if isinstance(entry, PhysicalEntry):
        return entry
    shape = 'a physical attack is { kind = "punch", limb = "ra", target = "raven" }'
    if not isinstance(entry, Mapping):
        raise _bad(unit_id, shape, "mech.physical_syntax")
    e = cast(Mapping[str, Any], entry)
    kind, target, limb = e.get("kind"), e.get("target"), e.get("limb", "")
    if set(e) - PHYSICAL_KEYS or not isinstance(kind, str) or not isinstance(target, str):
        raise _bad(unit_id, shape, "mech.physical_syntax")
    canon = KIND_ALIASES.get(kind.strip().lower())
    if canon is None:
        raise _bad(
            unit_id,
            f"physical attack {kind!r} is not one of {', '.join(PHYSICAL_KINDS)}",
            "mech.physical_kind",
            kind=kind,
        )
    if not isinstance(limb, str) or (limb and limb.strip().lower() not in LIMB_ALIASES):
        raise _bad(
            unit_id, f"limb {limb!r}: use la or ra (punch), ll or rl (kick)", "mech.limb", limb=str(limb)
        )
    return PhysicalEntry(
        kind=canon, target=target, limb=LIMB_ALIASES.get(limb.strip().lower(), "") if limb else ""
    )
