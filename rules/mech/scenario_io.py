"""Reading the mech parts of a scenario file (DESIGN §7.1, a public contract): units, ``[board] elevation``,
``[options] secret_declarations`` and the declarations in ``[[rounds]]``."""

from __future__ import annotations

import math
import weakref
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, cast

from rules.errors import GameError, Phrase, did_you_mean, shown
from rules.hexgrid import Hex
from rules.mech.geometry import ELEVATION
from rules.mech.model import FIGHTER, HELICOPTER, KINDS, MECH, VEHICLE, Mech, MechWeapon
from rules.mech.orders import parse_order
from rules.mech.state import BY_DECLARATION, BY_WEAPON, ROLLS, ROLLS_PER_WEAPON
from rules.mech.tables import MECH_LOCATIONS, TORSO, VEHICLE_LOCATIONS, tables
from rules.ruleset import DiceFactory, RoundSpec, Ruleset
from rules.state import Board, EncounterState, Unit

if TYPE_CHECKING:
    from rules.scenario import ScenarioContext

UNIT_KEYS = frozenset(
    {
        "kind",
        "tonnage",
        "walk",
        "run",
        "jump",
        "heat_sinks",
        "initiative",
        "tactics",
        "gunnery",
        "piloting",
        "armor",
        "structure",
        "weapons",
    }
)
BOARD_KEYS = frozenset({ELEVATION})
OPTION_KEYS = frozenset({"secret_declarations"})
TOP_KEYS = frozenset({ROLLS})
WEAPON_KEYS = frozenset({"type", "loc", "rear"})


def build_mech(raw: Mapping[str, Any], common: Unit, path: str, ctx: ScenarioContext) -> Mech | None:
    kind = ctx.take(raw, "kind", str, path, default=MECH)
    if kind not in KINDS:
        ctx.error(f"{path}.kind", "problem.mech.kind", got=kind)
        kind = MECH
    for key in ("tonnage", "walk", "initiative", "gunnery", "piloting"):
        if key not in raw:
            ctx.error(f"{path}.{key}", "problem.mech.required")
    tonnage = ctx.number(raw, "tonnage", path, default=50, low=1, high=200)
    walk = ctx.number(raw, "walk", path, default=0, low=0, high=30)
    run = ctx.number(raw, "run", path, default=math.ceil(1.5 * walk), low=0, high=45)
    jump = ctx.number(raw, "jump", path, default=0, low=0, high=30)
    if kind != MECH and jump:
        ctx.error(f"{path}.jump", "problem.mech.vehicle_jump")
    weapons = _weapons(raw, kind, path, ctx)
    locations = MECH_LOCATIONS if kind == MECH else _vehicle_locations(raw, weapons)
    armor, structure = _protection(raw, kind, tonnage, locations, path, ctx)
    return Mech(
        id=common.id,
        side=common.side,
        name=common.name,
        at=common.at,
        facing=common.facing,
        label=common.label,
        hidden=common.hidden,
        kind=kind,
        tonnage=tonnage,
        walk=walk,
        run=run,
        jump=jump,
        heat_sinks=ctx.number(
            raw, "heat_sinks", path, default=10 if kind in (MECH, FIGHTER) else 0, low=0, high=99
        ),
        initiative=ctx.number(raw, "initiative", path, default=0, low=-20, high=40),
        tactics=ctx.number(raw, "tactics", path, default=0, low=-20, high=40),
        gunnery=ctx.number(raw, "gunnery", path, default=0, low=-20, high=40),
        piloting=ctx.number(raw, "piloting", path, default=0, low=-20, high=40),
        armor=armor,
        structure=structure,
        max_armor=dict(armor),
        max_structure=dict(structure),
        weapons=weapons,
    )


def _vehicle_locations(raw: Mapping[str, Any], weapons: tuple[MechWeapon, ...]) -> tuple[str, ...]:
    """A vehicle has a turret location when it mounts a turret weapon or its tables name one."""
    tables_name_it = any(
        isinstance(raw.get(k), Mapping) and "turret" in cast(Mapping[str, Any], raw[k])
        for k in ("armor", "structure")
    )
    turret = tables_name_it or any(w.loc == "turret" for w in weapons)
    return tuple(loc for loc in VEHICLE_LOCATIONS if loc != "turret" or turret)


def _weapons(raw: Mapping[str, Any], kind: str, path: str, ctx: ScenarioContext) -> tuple[MechWeapon, ...]:
    known = tables().weapons
    allowed = MECH_LOCATIONS if kind == MECH else VEHICLE_LOCATIONS
    out: list[MechWeapon] = []
    shape = "problem.mech.weapon_table"
    for _, where, entry in ctx.table_entries(raw, "weapons", path, WEAPON_KEYS, not_a_table=shape):
        wtype = ctx.take(entry, "type", str, where, required=True)
        loc = ctx.take(entry, "loc", str, where, required=True)
        rear = ctx.take(entry, "rear", bool, where, default=False)
        if wtype is not None and wtype not in known:
            near = _closest(wtype, tuple(known))
            if near:
                ctx.error(f"{where}.type", "problem.mech.unknown_weapon_near", weapon=wtype, near=near)
            else:
                ctx.error(
                    f"{where}.type", "problem.mech.unknown_weapon", weapon=wtype, known=", ".join(known)
                )
            continue
        if loc is not None and loc not in allowed:
            ctx.error(
                f"{where}.loc", "problem.mech.weapon_loc", kind=_a(kind), known=", ".join(allowed), loc=loc
            )
            continue
        if rear and (kind != MECH or loc not in TORSO):
            ctx.error(f"{where}.rear", "problem.mech.rear")
            continue
        if wtype is not None and loc is not None:
            out.append(MechWeapon(type=wtype, loc=loc, rear=bool(rear)))
    return tuple(out)


def _protection(
    raw: Mapping[str, Any],
    kind: str,
    tonnage: int,
    locations: tuple[str, ...],
    path: str,
    ctx: ScenarioContext,
) -> tuple[dict[str, int], dict[str, int]]:
    tb = tables()
    defaults = (tb.mech_defaults if kind == MECH else tb.vehicle_defaults).get(tonnage)
    out: list[dict[str, int]] = []
    for i, key in enumerate(("armor", "structure")):
        given = ctx.take(raw, key, dict, path, default={})
        values: dict[str, int] = {}
        for loc, value in cast(dict[str, Any], given).items():
            if loc not in locations:
                ctx.error(
                    f"{path}.{key}.{loc}", "problem.mech.locations", kind=_a(kind), known=", ".join(locations)
                )
            elif isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 999:
                ctx.error(f"{path}.{key}.{loc}", "problem.mech.points", got=shown(value))
            elif key == "structure" and value == 0:
                ctx.error(f"{path}.{key}.{loc}", "problem.mech.no_structure")
            else:
                values[loc] = value
        missing = [loc for loc in locations if loc not in values]
        if missing and defaults is None:
            what = "problem.mech.no_default_armor" if key == "armor" else "problem.mech.no_default_structure"
            ctx.error(f"{path}.{key}", what, tonnage=tonnage, kind=_a(kind), missing=", ".join(missing))
        for loc in missing:
            values[loc] = defaults[i][loc] if defaults is not None else 1
        out.append(values)
    return out[0], out[1]


def read_elevation(raw: Mapping[str, Any], board: Board, ctx: ScenarioContext) -> Board:
    table = ctx.take(raw, ELEVATION, dict, "board", default={})
    levels: dict[Hex, int] = {}
    for label, value in cast(dict[str, Any], table).items():
        where = f"board.{ELEVATION}.{label}"
        h = ctx.position(label, where)
        if isinstance(value, bool) or not isinstance(value, int) or not -20 <= value <= 20:
            ctx.error(where, "problem.mech.elevation", got=shown(value))
            continue
        if h is not None:
            levels[h] = value
    if not levels:
        return board
    return Board(
        width=board.width,
        height=board.height,
        terrain=board.terrain,
        features={**board.features, ELEVATION: levels},
    )


def read_rolls(raw: Mapping[str, Any], state: EncounterState, ctx: ScenarioContext) -> EncounterState:
    """The top-level ``rolls`` key (DESIGN §7.1, MECH-2.1a): ``"declaration"`` (the default: one Gunnery and one
    Piloting roll per declaration) or ``"weapon"`` ([HOUSE]: a roll per shot and per physical attack). It is kept
    with the encounter, so a file or an export written for either way replays the same."""
    value = ctx.take(raw, ROLLS, str, "", default=None)
    if value is None:
        return state
    if value not in (BY_DECLARATION, BY_WEAPON):
        ctx.error(ROLLS, "problem.mech.rolls", got=value)
        return state
    return state.replace(options={**state.options, ROLLS_PER_WEAPON: value == BY_WEAPON})


def check_mechs(state: EncounterState, ctx: ScenarioContext) -> None:
    """Terrain kinds are known, two units never share a hex, vehicles stand where they may (MECH-1.2)."""
    tb = tables()
    for h, kind in state.board.terrain.items():
        if kind not in tb.terrain:
            hint = did_you_mean(kind, tb.terrain)
            known = ", ".join(tb.terrain)
            where = f"board.terrain.{h.label}"
            ctx.error(where, "problem.unknown_terrain", terrain=kind, hint=hint, ruleset="mech", known=known)
    taken: dict[Hex, str] = {}
    for i, unit in enumerate(state.units.values()):
        if not isinstance(unit, Mech) or unit.at is None:
            continue
        if unit.at in taken:
            ctx.error(f"units[{i}].at", "problem.mech.hex_taken", hex=unit.at.label, other=taken[unit.at])
        taken[unit.at] = unit.id
        if unit.kind == VEHICLE and not tb.terrain_kind(state.board.terrain_at(unit.at)).vehicles:
            ctx.error(
                f"units[{i}].at", "problem.mech.vehicle_terrain", terrain=state.board.terrain_at(unit.at)
            )
    secret = state.options.get("secret_declarations")
    if secret is not None and not isinstance(secret, bool):
        ctx.error("options.secret_declarations", "problem.mech.secret")


#: per scenario being read: (rounds checked so far, the state they lead to) — see ``check_round``
_PROJECTIONS: weakref.WeakKeyDictionary[Any, tuple[int, EncounterState]] = weakref.WeakKeyDictionary()


def check_round(
    ruleset: Ruleset, spec: RoundSpec, state: EncounterState, path: str, ctx: ScenarioContext
) -> None:
    """Check a ``[[rounds]]`` entry: its units and the syntax of every declaration, then — playing the rounds
    before it with the file's own seed and dice, as ``hexdirector sim`` does — each declaration's legality on the
    board it will be made on (over MP, out of arc, out of range, reverse at run ...), named with its rule id."""
    orders = spec.raw.get("orders", {})
    if not isinstance(orders, Mapping):
        ctx.error(f"{path}.orders", "problem.mech.orders_table")
        return
    readable = True
    for uid, raw in cast(Mapping[str, Any], orders).items():
        where = f"{path}.orders.{uid}"
        unit = state.units.get(uid)
        if not isinstance(unit, Mech):
            ctx.error(where, "problem.mech.not_a_unit", unit=uid)
            readable = False
            continue
        try:
            parse_order(uid, raw, vehicle=not unit.is_mech)
        except GameError as exc:
            ctx.error_from(where, exc)
            readable = False
    done, projected = _PROJECTIONS.get(ctx, (0, state))
    if done != spec.index - 1:
        return  # an earlier round could not be read: the board this one is declared on is unknown
    if not readable:
        _PROJECTIONS[ctx] = (-1, projected)
        return
    if projected.over:
        _PROJECTIONS[ctx] = (spec.index, projected)
        return
    from rules.mech.sim import play_round

    def report(uid: str, error: GameError) -> None:
        reason = Phrase.of_error(error)
        ctx.error(
            f"{path}.orders.{uid}", "problem.mech.round_refused", round=spec.index, unit=uid, reason=reason
        )

    try:
        for step in play_round(ruleset, projected, spec, DiceFactory(), on_illegal=report):
            projected = step.state
    except GameError as exc:
        ctx.error(path, "problem.mech.round_unplayable", round=spec.index, reason=Phrase.of_error(exc))
    except ValueError as exc:
        ctx.error(path, "problem.mech.round_unplayable", round=spec.index, reason=str(exc))
    _PROJECTIONS[ctx] = (spec.index, projected)


def _a(kind: str) -> Phrase:
    """The kind of a unit ("mech", "vehicle", "helicopter", "fighter") in the reader's words."""
    keys = {
        VEHICLE: "problem.mech.vehicle",
        HELICOPTER: "problem.mech.helicopter",
        FIGHTER: "problem.mech.fighter",
    }
    return Phrase.of(keys.get(kind, "problem.mech.mech"))


def _closest(key: str, allowed: tuple[str, ...]) -> str | None:
    import difflib

    match = difflib.get_close_matches(key, sorted(allowed), n=1, cutoff=0.6)
    return match[0] if match else None
