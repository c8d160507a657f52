"""Reading the skirmish parts of a scenario file: character cards (SK-7), units (SK-1.1), ``[[rounds]]``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, cast

from rules.errors import GameError, did_you_mean, shown
from rules.hexgrid import Vertex
from rules.ruleset import RoundSpec
from rules.skirmish import halfhex
from rules.skirmish.model import Character
from rules.skirmish.orders import parse_action
from rules.skirmish.tables import tables
from rules.state import EncounterState, Unit

if TYPE_CHECKING:
    from rules.scenario import ScenarioContext

UNIT_KEYS = frozenset(
    {"unit", "ap", "ranged", "melee", "melee_bonus", "action", "resistance", "wounds", "astride"}
)
ROUND_KEYS = frozenset({"draw", "actions", "reactions"})
REACTION_KEYS = frozenset({"by", "answer"})
OPTION_KEYS = frozenset({"long_range", halfhex.OPTION})


def build_character(
    raw: Mapping[str, Any], common: Unit, path: str, ctx: ScenarioContext
) -> Character | None:
    """SK-7 card: AP 1-10, ranged 0-29, melee 1-29 (± damage modifier), action 1-29, resistance, wound boxes."""
    group = ctx.take(raw, "unit", str, path, required=True)
    for key in ("ap", "ranged", "melee", "action", "resistance", "wounds"):
        if key not in raw:
            ctx.error(f"{path}.{key}", "problem.skirmish.required")
    ap = ctx.number(raw, "ap", path, default=1, low=1, high=10)
    astride = ctx.position(raw["astride"], f"{path}.astride") if "astride" in raw else None  # SK-2.5
    card = Character(
        id=common.id,
        side=common.side,
        name=common.name,
        at=common.at,
        facing=common.facing,
        label=common.label,
        hidden=common.hidden,
        kind="character",
        unit_group=group or "",
        ap=ap,
        ap_left=ap,
        ranged=ctx.number(raw, "ranged", path, default=0, low=0, high=29),
        melee=ctx.number(raw, "melee", path, default=1, low=1, high=29),
        melee_bonus=ctx.number(raw, "melee_bonus", path, default=0, low=-29, high=29),
        action=ctx.number(raw, "action", path, default=1, low=1, high=29),
        resistance=ctx.number(raw, "resistance", path, default=1, low=1, high=99),
        max_wounds=ctx.number(raw, "wounds", path, default=1, low=1, high=99),
        overwatch_shots_left=ap // 2,
        astride=astride,
    )
    return card if group else None


def check_characters(state: EncounterState, ctx: ScenarioContext) -> None:
    """SK-1.1: a unit is one side's, at most ``max_characters`` strong; SK-2.4: one character a hex (SK-2.5: or
    two astride across its opposite sides), never on terrain that blocks movement."""
    groups: dict[str, list[Character]] = {}
    placed: list[Character] = []
    for i, ch in enumerate(state.units_of(Character)):
        groups.setdefault(ch.unit_group, []).append(ch)
        if ch.at is None:
            continue
        if ch.astride is not None and not _astride_ok(state, ch, f"units[{i}]", ctx):
            continue
        for h in halfhex.hexes_of(ch):
            kind = state.board.terrain_at(h)
            spec = tables().kind(kind)
            if spec is not None and spec.blocks_move:
                ctx.error(f"units[{i}].at", "problem.skirmish.blocked", unit=ch.id, terrain=kind, hex=h.label)
        for other in placed:
            taken = halfhex.clash(ch, other)
            if taken is not None:
                ctx.error(f"units[{i}].at", "problem.skirmish.hex_taken", hex=taken.label, other=other.id)
        placed.append(ch)
    limit = tables().max_characters
    for group, members in groups.items():
        sides = sorted({c.side for c in members})
        if len(sides) > 1:
            ctx.error("units", "problem.skirmish.mixed_sides", group=group, sides=", ".join(sides))
        if len(members) > limit:
            ctx.error("units", "problem.skirmish.too_many", group=group, count=len(members), limit=limit)
    for h, kind in state.board.terrain.items():
        if tables().kind(kind) is None:
            names = sorted(k for k in tables().terrain if k != "fire")
            hint = did_you_mean(kind, names)
            where = f"board.terrain.{h.label}"
            ctx.error(
                where,
                "problem.unknown_terrain",
                terrain=kind,
                hint=hint,
                ruleset="skirmish",
                known=", ".join(names),
            )
    for key in ("long_range", halfhex.OPTION):
        value = state.options.get(key)
        if value is not None and not isinstance(value, bool):
            ctx.error(f"options.{key}", "problem.skirmish.option_bool")


def _astride_ok(state: EncounterState, ch: Character, path: str, ctx: ScenarioContext) -> bool:
    """SK-2.5: only with the option on, over two adjacent hexes, facing along their shared side."""
    assert ch.at is not None and ch.astride is not None
    if not halfhex.enabled(state):
        ctx.error(f"{path}.astride", "problem.skirmish.half_off")
        return False
    if halfhex.side_between(ch.at, ch.astride) is None:
        ctx.error(
            f"{path}.astride", "problem.skirmish.astride_apart", astride=ch.astride.label, at=ch.at.label
        )
        return False
    facings = halfhex.astride_facings(ch.at, ch.astride)
    if ch.facing not in facings:
        names = ", ".join(Vertex(f).label for f in facings)
        ctx.error(f"{path}.facing", "problem.skirmish.astride_facing", unit=ch.id, names=names)
        return False
    return True


def check_round(spec: RoundSpec, state: EncounterState, path: str, ctx: ScenarioContext) -> None:
    raw = spec.raw
    groups = {c.unit_group for c in state.units_of(Character)}
    chars = {c.id for c in state.units_of(Character)}
    draw = ctx.take(raw, "draw", list, path, default=[])
    for i, chit in enumerate(cast(list[Any], draw)):
        if not isinstance(chit, str) or chit not in groups:
            hint = did_you_mean(chit, groups) if isinstance(chit, str) else ""
            where = f"{path}.draw[{i}]"
            ctx.error(
                where,
                "problem.skirmish.unknown_chit",
                chit=shown(chit),
                hint=hint,
                known=", ".join(sorted(groups)),
            )
    if len(set(map(str, cast(list[Any], draw)))) != len(cast(list[Any], draw)):
        ctx.error(f"{path}.draw", "problem.skirmish.draw_twice")
    actions = ctx.take(raw, "actions", dict, path, default={})
    for char_id, items in cast(dict[str, Any], actions).items():
        where = f"{path}.actions.{char_id}"
        if char_id not in chars:
            _unknown_character(char_id, where, chars, ctx)
            continue
        if not isinstance(items, list):
            ctx.error(where, "problem.skirmish.actions_list")
            continue
        for j, text in enumerate(cast(list[Any], items)):
            try:
                parse_action(state, char_id, text)
            except GameError as exc:
                ctx.error_from(f"{where}[{j}]", exc)
    shape = "problem.skirmish.reaction_table"
    for _, where, entry in ctx.table_entries(raw, "reactions", path, REACTION_KEYS, not_a_table=shape):
        by = entry.get("by")
        if not isinstance(by, str) or by not in chars:
            _unknown_character(by, f"{where}.by", chars, ctx)
        if entry.get("answer") not in ("fire", "hold"):
            ctx.error(f"{where}.answer", "problem.skirmish.answer", got=shown(entry.get("answer")))


def _unknown_character(who: object, where: str, chars: set[str], ctx: ScenarioContext) -> None:
    hint = did_you_mean(who, chars) if isinstance(who, str) else ""
    ctx.error(
        where,
        "problem.skirmish.unknown_character",
        unit=shown(who),
        hint=hint,
        known=", ".join(sorted(chars)),
    )
