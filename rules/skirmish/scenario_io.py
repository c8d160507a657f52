"""Reading the skirmish parts of a scenario file: character cards (SK-7), units (SK-1.1), ``[[rounds]]``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, cast

from rules.errors import GameError
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
            ctx.error(f"{path}.{key}", "is required (SK-7 character card)")
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
                ctx.error(f"units[{i}].at", f"{ch.id} stands on {kind} at {h.label} (SK-2.4)")
        for other in placed:
            taken = halfhex.clash(ch, other)
            if taken is not None:
                ctx.error(f"units[{i}].at", f"{taken.label} is already taken by {other.id} (SK-2.4)")
        placed.append(ch)
    limit = tables().max_characters
    for group, members in groups.items():
        sides = sorted({c.side for c in members})
        if len(sides) > 1:
            ctx.error(
                "units", f"unit {group!r} mixes sides {', '.join(sides)}: a chit belongs to one side (SK-1.1)"
            )
        if len(members) > limit:
            ctx.error("units", f"unit {group!r} has {len(members)} characters, at most {limit} (SK-1.1)")
    for h, kind in state.board.terrain.items():
        if tables().kind(kind) is None:
            known = ", ".join(sorted(k for k in tables().terrain if k != "fire"))
            ctx.error(f"board.terrain.{h.label}", f"unknown terrain {kind!r} (skirmish knows {known})")
    for key in ("long_range", halfhex.OPTION):
        value = state.options.get(key)
        if value is not None and not isinstance(value, bool):
            ctx.error(f"options.{key}", "expected true or false (SK-3.5, SK-2.5)")


def _astride_ok(state: EncounterState, ch: Character, path: str, ctx: ScenarioContext) -> bool:
    """SK-2.5: only with the option on, over two adjacent hexes, facing along their shared side."""
    assert ch.at is not None and ch.astride is not None
    if not halfhex.enabled(state):
        ctx.error(f"{path}.astride", "half hexes are off: set half_hexes = true under [options] (SK-2.5)")
        return False
    if halfhex.side_between(ch.at, ch.astride) is None:
        ctx.error(f"{path}.astride", f"{ch.astride.label} is not next to {ch.at.label} (SK-2.5)")
        return False
    facings = halfhex.astride_facings(ch.at, ch.astride)
    if ch.facing not in facings:
        names = " or ".join(Vertex(f).label for f in facings)
        ctx.error(f"{path}.facing", f"astride, {ch.id} faces along the shared side: {names} (SK-2.5)")
        return False
    return True


def check_round(spec: RoundSpec, state: EncounterState, path: str, ctx: ScenarioContext) -> None:
    raw = spec.raw
    groups = {c.unit_group for c in state.units_of(Character)}
    chars = {c.id for c in state.units_of(Character)}
    draw = ctx.take(raw, "draw", list, path, default=[])
    for i, chit in enumerate(cast(list[Any], draw)):
        if chit not in groups:
            ctx.error(f"{path}.draw[{i}]", f"unknown unit {chit!r} (units: {', '.join(sorted(groups))})")
    if len(set(map(str, cast(list[Any], draw)))) != len(cast(list[Any], draw)):
        ctx.error(f"{path}.draw", "a chit is drawn once per round (SK-1.1)")
    actions = ctx.take(raw, "actions", dict, path, default={})
    for char_id, items in cast(dict[str, Any], actions).items():
        where = f"{path}.actions.{char_id}"
        if char_id not in chars:
            ctx.error(where, f"unknown character {char_id!r}")
            continue
        if not isinstance(items, list):
            ctx.error(where, 'expected a list of actions like ["move 0506", "shoot tyrano"]')
            continue
        for j, text in enumerate(cast(list[Any], items)):
            try:
                parse_action(state, char_id, text)
            except GameError as exc:
                ctx.error(f"{where}[{j}]", exc.message)
    shape = 'expected a table like { by = "kara", answer = "fire" }'
    for _, where, entry in ctx.table_entries(raw, "reactions", path, REACTION_KEYS, not_a_table=shape):
        if entry.get("by") not in chars:
            ctx.error(f"{where}.by", f"unknown character {entry.get('by')!r}")
        if entry.get("answer") not in ("fire", "hold"):
            ctx.error(f"{where}.answer", f"answer is 'fire' or 'hold', got {entry.get('answer')!r}")
