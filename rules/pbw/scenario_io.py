"""Reading the pbw parts of a scenario file (DESIGN §7.4): characters, terrain, ``[[rounds]]`` orders."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, cast

from rules.errors import GameError, did_you_mean
from rules.pbw.model import Carried, Character, Declaration
from rules.pbw.orders import DECLARATION_KEYS, parse_change, parse_declaration
from rules.pbw.tables import ATTRIBUTES, ITEMS, LOCATIONS, SKILLS, tables
from rules.pbw.turn import DECLARE, declare, next_declarer
from rules.ruleset import RoundSpec
from rules.state import EncounterState, Unit

if TYPE_CHECKING:
    from rules.scenario import ScenarioContext

UNIT_KEYS = frozenset(
    {"initiative", "movement", "fatigue", "hp", "resistance", "attributes", "skills", "weapons", "items"}
)
WEAPON_KEYS = frozenset({"type", "held", "ammo"})
ORDER_KEYS = DECLARATION_KEYS | {"change"}
CHANGE_KEYS = frozenset({"segment", "action", "path", "target", "weapon", "aim", "location"})
REQUIRED = ("initiative", "movement", "fatigue", "hp", "resistance")


def build_character(
    raw: Mapping[str, Any], common: Unit, path: str, ctx: ScenarioContext
) -> Character | None:
    for key in REQUIRED:
        if key not in raw:
            ctx.error(f"{path}.{key}", "problem.pbw.required")
    resistance = _scores(raw, "resistance", path, ctx, allowed=LOCATIONS, low=1, high=99, every=True)
    attributes = _scores(raw, "attributes", path, ctx, allowed=ATTRIBUTES, low=0, high=20)
    skills = _scores(raw, "skills", path, ctx, allowed=SKILLS, low=0, high=20)
    weapons, held = _weapons(raw, path, ctx)
    hand = ""
    if held is not None:
        hand = "both" if weapons[held].spec.hands == 2 else "ra"
    hp = ctx.number(raw, "hp", path, default=1, low=1, high=999)
    items = _items(raw, path, ctx)
    return Character(
        id=common.id,
        side=common.side,
        name=common.name,
        at=common.at,
        facing=common.facing,
        label=common.label,
        hidden=common.hidden,
        kind="character",
        initiative=ctx.number(raw, "initiative", path, default=0, low=0, high=30),
        movement=ctx.number(raw, "movement", path, default=1, low=1, high=20),
        fatigue_attribute=ctx.number(raw, "fatigue", path, default=1, low=1, high=30),
        hp=hp,
        resistance=resistance,
        max_hp=hp,
        max_resistance=dict(resistance),
        attributes=attributes,
        skills=skills,
        weapons=weapons,
        held=held,
        hand=hand,
        items=items,
    )


def _items(raw: Mapping[str, Any], path: str, ctx: ScenarioContext) -> tuple[str, ...]:
    """``items = ["medkit"]``: what a character carries besides its weapons (PBW-6)."""
    listed = cast(list[Any], ctx.take(raw, "items", list, path, default=[]))
    out: list[str] = []
    for i, item in enumerate(listed):
        if item not in ITEMS:
            ctx.error(f"{path}.items[{i}]", "problem.pbw.item", item=str(item), known=", ".join(ITEMS))
        else:
            out.append(str(item))
    return tuple(out)


def _scores(
    raw: Mapping[str, Any],
    key: str,
    path: str,
    ctx: ScenarioContext,
    *,
    allowed: tuple[str, ...],
    low: int,
    high: int,
    every: bool = False,
) -> dict[str, int]:
    table = cast(dict[str, Any], ctx.take(raw, key, dict, path, default={}))
    where = f"{path}.{key}"
    ctx.check_keys(table, frozenset(allowed), where)
    out: dict[str, int] = {}
    for name in allowed:
        if name in table:
            out[name] = ctx.number(table, name, where, default=low, low=low, high=high)
        elif every and key in raw:
            ctx.error(f"{where}.{name}", "problem.pbw.every_location", known=", ".join(allowed))
    return out if not every else {name: out.get(name, low) for name in allowed}


def _weapons(
    raw: Mapping[str, Any], path: str, ctx: ScenarioContext
) -> tuple[tuple[Carried, ...], int | None]:
    """The weapons in file order (their 1-based numbers in orders), fists added last when not listed. The one
    marked ``held = true`` is in hand, else [HOUSE] the first one that is neither the fists nor marked
    ``held = false``; ammo defaults to a full load."""
    known = tables().weapons
    carried: list[Carried] = []
    held: int | None = None
    first: int | None = None
    shape = "problem.pbw.weapon_table"
    for _, where, entry in ctx.table_entries(raw, "weapons", path, WEAPON_KEYS, not_a_table=shape):
        i = len(carried)  # its place among the weapons read (an unreadable entry before it is skipped)
        kind = ctx.take(entry, "type", str, where, required=True)
        if kind is None:
            continue
        spec = known.get(kind)
        if spec is None:
            hint = did_you_mean(str(kind), known)
            ctx.error(f"{where}.type", "problem.pbw.weapon", weapon=kind, hint=hint, known=", ".join(known))
            continue
        ammo = spec.capacity
        if "ammo" in entry:
            if not spec.ranged:
                ctx.error(f"{where}.ammo", "problem.pbw.no_ammo", weapon=kind)
            ammo = ctx.number(entry, "ammo", where, default=spec.capacity, low=0, high=spec.capacity)
        in_hand = ctx.take(entry, "held", bool, where, default=None)
        if in_hand and spec.fists:
            ctx.error(f"{where}.held", "problem.pbw.fists_held")
        elif in_hand and held is not None:
            ctx.error(f"{where}.held", "problem.pbw.one_in_hand")
        elif in_hand:
            held = i
        if first is None and not spec.fists and in_hand is None:
            first = i
        carried.append(Carried(type=kind, ammo=ammo))
    if not any(c.spec.fists for c in carried):
        carried.append(Carried(type="fists"))
    return tuple(carried), held if held is not None else first


def check_characters(state: EncounterState, ctx: ScenarioContext) -> None:
    """One character per hex, none on a wall; terrain kinds from data/pbw/terrain.toml."""
    where: dict[Any, str] = {}
    for i, ch in enumerate(state.units_of(Character)):
        if ch.at is None:
            continue
        if ch.at in where:
            ctx.error(f"units[{i}].at", "problem.pbw.hex_taken", hex=ch.at.label, other=where[ch.at])
        where[ch.at] = ch.id
        kind = tables().kind(state.board.terrain_at(ch.at))
        if kind is not None and kind.blocks_move:
            terrain = state.board.terrain_at(ch.at)
            ctx.error(f"units[{i}].at", "problem.pbw.blocked", unit=ch.id, terrain=terrain, hex=ch.at.label)
    for h, name in state.board.terrain.items():
        if tables().kind(name) is None:
            hint = did_you_mean(name, tables().terrain)
            known = ", ".join(tables().terrain)
            at = f"board.terrain.{h.label}"
            ctx.error(at, "problem.unknown_terrain", terrain=name, hint=hint, ruleset="pbw", known=known)


def check_round(spec: RoundSpec, state: EncounterState, path: str, ctx: ScenarioContext) -> None:
    """Every order must read. The first round's declarations are also checked against the starting board, one
    after another in declaration order as the engine takes them (PBW-1); later rounds depend on the dice, so
    ``sim`` checks them when their turn comes."""
    orders = cast(dict[str, Any], ctx.take(spec.raw, "orders", dict, path, default={}))
    declared: dict[str, Declaration] = {}
    for uid, raw in orders.items():
        where = f"{path}.orders.{uid}"
        if not isinstance(state.units.get(uid), Character):
            ctx.error(where, "problem.pbw.not_a_character", unit=uid)
            continue
        if not isinstance(raw, dict):
            ctx.error(where, "problem.pbw.orders_table")
            continue
        table = cast(dict[str, Any], raw)
        ctx.check_keys(table, ORDER_KEYS, where)
        try:
            if "segments" in table:
                declared[uid] = parse_declaration(
                    state, uid, {k: v for k, v in table.items() if k in DECLARATION_KEYS}
                )
        except GameError as exc:
            ctx.error_from(where, exc)
        shape = "problem.pbw.change_table"
        for _, at, entry in ctx.table_entries(table, "change", where, CHANGE_KEYS, not_a_table=shape):
            if "segment" not in entry:
                ctx.error(f"{at}.segment", "problem.pbw.change_segment")
                continue
            try:
                parse_change(state, uid, entry)
            except GameError as exc:
                ctx.error_from(at, exc)
    if spec.index == 1:
        _check_declarations(state, declared, path, ctx)


def _check_declarations(
    state: EncounterState, declared: dict[str, Declaration], path: str, ctx: ScenarioContext
) -> None:
    """Lock the declarations in the engine's order, so each is checked knowing the ones locked before it."""
    while state.phase == DECLARE:
        uid = next_declarer(state)
        order = declared.get(uid or "")
        try:
            state, _ = declare(state, {uid: order} if uid and order else {})
        except GameError as exc:
            ctx.error_from(f"{path}.orders.{uid}", exc)
            state, _ = declare(state, {})
