"""Reading the ocs parts of a scenario file (DESIGN §7.2): units (OCS-1), ``[board] hedgehog``, ``[[rounds]]``."""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Mapping
from typing import TYPE_CHECKING, Any, cast

from rules.errors import InvalidOrderError, did_you_mean, shown
from rules.hexgrid import Hex
from rules.ocs.arithmetic import HEDGEHOG_MAX
from rules.ocs.legality import HEDGEHOG
from rules.ocs.model import MODES, NORMAL, OcsUnit
from rules.ocs.orders import COMBAT_KEYS, parse_combat
from rules.ocs.tables import tables
from rules.ruleset import DIRECTOR, RoundSpec
from rules.state import Board, EncounterState, Unit

if TYPE_CHECKING:
    from rules.scenario import ScenarioContext

UNIT_KEYS = frozenset({"strength", "ar", "mode", "steps"})
BOARD_KEYS = frozenset({HEDGEHOG})
#: what a round's ``orders`` table may hold: combats (DESIGN §7.2), after mode changes and free moves
ORDER_LISTS = ("mode", "move", "combat")
#: offline only: the answers a scripted combat gives instead of the defaults (see rules/ocs/sim.py)
SIM_KEYS = frozenset({"losses", "retreats"})
MOVE_KEYS = frozenset({"unit", "to"})
LOSS_ROLES = frozenset({"attacker", "defender"})
MAX_STRENGTH = 999
MAX_AR = 9
MAX_STEPS = 99


def build_unit(raw: Mapping[str, Any], common: Unit, path: str, ctx: ScenarioContext) -> OcsUnit | None:
    """OCS-1: modified strength (as the director gives it), action rating, mode, steps."""
    for key in ("strength", "ar", "steps"):
        if key not in raw:
            ctx.error(f"{path}.{key}", "problem.ocs.required")
    strength = ctx.take(raw, "strength", (int, float), path, default=0)
    if not isinstance(strength, int | float) or not 0 <= strength <= MAX_STRENGTH:
        ctx.error(f"{path}.strength", "problem.ocs.strength", high=MAX_STRENGTH, got=shown(strength))
        strength = 0
    mode = ctx.take(raw, "mode", str, path, default=NORMAL)
    if mode not in MODES:
        ctx.error(f"{path}.mode", "problem.ocs.mode", known=", ".join(MODES), got=shown(mode))
        mode = NORMAL
    return OcsUnit(
        **{f.name: getattr(common, f.name) for f in dataclasses.fields(Unit)},
        strength=float(strength),
        ar=ctx.number(raw, "ar", path, default=0, low=0, high=MAX_AR),
        mode=str(mode),
        steps=ctx.number(raw, "steps", path, default=1, low=1, high=MAX_STEPS),
    )


def read_board(raw: Mapping[str, Any], board: Board, ctx: ScenarioContext) -> Board:
    """OCS-1: ``hedgehog = { "0606" = 2 }`` → ``Board.features["hedgehog"]`` (levels 0-4)."""
    table = ctx.take(raw, HEDGEHOG, dict, "board", default={})
    levels: dict[Hex, int] = {}
    for label, level in cast(dict[str, Any], table).items():
        where = f"board.{HEDGEHOG}.{label}"
        h = ctx.position(label, where)
        if isinstance(level, bool) or not isinstance(level, int) or not 0 <= level <= HEDGEHOG_MAX:
            ctx.error(where, "problem.ocs.hedgehog", high=HEDGEHOG_MAX, got=shown(level))
            continue
        if h is not None and level:
            levels[h] = level
    if not levels:
        return board
    return dataclasses.replace(board, features={**board.features, HEDGEHOG: levels})


def check_state(state: EncounterState, ctx: ScenarioContext) -> None:
    """OCS-1/OCS-4: every terrain is a class of the CRT; units of two sides never share a hex."""
    classes = tables().terrain_classes
    for h, kind in state.board.terrain.items():
        if kind not in classes:
            hint = did_you_mean(kind, classes)
            known = ", ".join(classes)
            ctx.error(f"board.terrain.{h.label}", "problem.ocs.terrain", terrain=kind, hint=hint, known=known)
    holder: dict[Hex, str] = {}
    for i, unit in enumerate(state.units_of(OcsUnit)):
        if unit.at is None:
            continue
        side = holder.setdefault(unit.at, unit.side)
        if side != unit.side:
            ctx.error(f"units[{i}].at", "problem.ocs.two_sides", hex=unit.at.label, side=side)


def check_round(spec: RoundSpec, state: EncounterState, path: str, ctx: ScenarioContext) -> None:
    """Static checks of ``orders.move``, ``orders.mode`` and ``orders.combat`` (legality waits for the play)."""
    orders = spec.raw.get("orders", {})
    where = f"{path}.orders"
    if not isinstance(orders, Mapping):
        ctx.error(where, "problem.ocs.orders_table")
        return
    table = cast(Mapping[str, Any], orders)
    ctx.check_keys(table, frozenset(ORDER_LISTS), where)
    units = set(state.units)
    for key in ("mode", "move"):
        for _, at, entry in ctx.table_entries(
            table, key, where, MOVE_KEYS, not_a_table="problem.ocs.move_table"
        ):
            if not _known(entry.get("unit"), units):
                _unknown_unit(entry.get("unit"), f"{at}.unit", units, ctx)
            if key == "mode" and not _known(entry.get("to"), MODES):
                ctx.error(
                    f"{at}.to", "problem.ocs.mode_to", known=", ".join(MODES), got=shown(entry.get("to"))
                )
            if key == "move" and not isinstance(entry.get("to"), str):
                ctx.error(f"{at}.to", "problem.ocs.move_to")
    shape = "problem.ocs.combat_table"
    for _, at, entry in ctx.table_entries(table, "combat", where, COMBAT_KEYS | SIM_KEYS, not_a_table=shape):
        try:
            order = parse_combat(DIRECTOR, {k: v for k, v in entry.items() if k not in SIM_KEYS})
        except InvalidOrderError as exc:
            ctx.error_from(at, exc)
            continue
        named = [*order.attackers, order.ar_attacker, order.ar_defender]
        for uid in named:
            if uid is not None and not _known(uid, units):
                _unknown_unit(uid, at, units, ctx)
        _check_answers(entry, at, units, ctx)


def _check_answers(entry: Mapping[str, Any], at: str, units: set[str], ctx: ScenarioContext) -> None:
    losses = ctx.take(entry, "losses", dict, at, default={})
    ctx.check_keys(cast(dict[str, Any], losses), LOSS_ROLES, f"{at}.losses")
    for role, ids in cast(dict[str, Any], losses).items():
        if not isinstance(ids, list) or any(not _known(i, units) for i in cast(list[Any], ids)):
            ctx.error(f"{at}.losses.{role}", "problem.ocs.losses")
    retreats = ctx.take(entry, "retreats", dict, at, default={})
    for uid, where in cast(dict[str, Any], retreats).items():
        if uid not in units:
            _unknown_unit(uid, f"{at}.retreats.{uid}", units, ctx)
        else:
            ctx.position(where, f"{at}.retreats.{uid}")


def _known(value: object, known: Collection[str]) -> bool:
    """Whether the file wrote one of ``known``: only text can be (a list or a table where an id belongs is not)."""
    return isinstance(value, str) and value in known


def _unknown_unit(uid: object, at: str, units: set[str], ctx: ScenarioContext) -> None:
    hint = did_you_mean(uid, units) if isinstance(uid, str) else ""
    ctx.error(at, "problem.unknown_unit", unit=shown(uid), hint=hint, known=", ".join(sorted(units)))
