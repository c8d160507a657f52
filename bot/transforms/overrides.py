"""Director overrides as pure state transforms (DESIGN §4: "every override is an event, shown, undoable").

Each function returns the new state and the ``DirectorOverride`` event that records it; the service stores both
with ``storage.record_override`` so ``/director undo`` can return to the state before.
"""

from __future__ import annotations

import dataclasses
from typing import Any, cast

from bot.results import refuse
from data.i18n import has, t
from data.loader import load_table, table_path
from rules.by_hand import RULE
from rules.events import DirectorOverride, Event
from rules.hexgrid import Hex
from rules.names import clean_name
from rules.registry import ruleset_for
from rules.scenario import MAX_UNIT_NAME, SAFE_ID
from rules.state import EncounterState, Unit, replace_unit

# how much of a typed id a refusal repeats: enough to recognise it, never enough to crowd the message
SHOWN = 40

# stats a director may not set by hand: identity and position have their own commands (rulesets add theirs)
PROTECTED = frozenset({"id", "side", "at", "kind"})


@dataclasses.dataclass(frozen=True, slots=True)
class StatName:
    """A stat named in a refusal: in the reader's words when the catalogs name it ("Heridas"), else as typed."""

    name: str
    ruleset: str = ""

    def localized(self, locale: str | None) -> str:
        # a ruleset's own stats are catalogued with its prefix (pbw: stat.pbw_hp)
        for key in (f"stat.{self.name}", f"stat.{self.ruleset}_{self.name}"):
            if has(key, "en"):
                return t(key, locale)
        return self.name

    def __str__(self) -> str:
        return self.name


def _unit(state: EncounterState, unit_id: str) -> Unit:
    if unit_id not in state.units:
        raise refuse(
            "unit.unknown", f"There is no unit called {unit_id!r} in this encounter.", unit=unit_id[:SHOWN]
        )
    return state.units[unit_id]


def move(
    state: EncounterState, unit_id: str, to: Hex, facing: int | None = None
) -> tuple[EncounterState, DirectorOverride]:
    """Place a unit; the ruleset keeps what must follow it (an exo ship's vector, EXO-1.1)."""
    unit = _unit(state, unit_id)
    rules = ruleset_for(state)
    rules.check_placement(state, unit, to)  # the director overrides the rules, never the board
    moved = rules.place(state, unit, to, facing)
    args: tuple[tuple[str, Any], ...] = (("frm", unit.at.label if unit.at else "-"), ("to", to.label))
    if facing is not None:
        args = (*args, ("facing", facing % 6))
    return state.with_units([moved]), DirectorOverride(rule=RULE, action="move", unit=unit_id, args=args)


def settable_stats(state: EncounterState, unit: Unit) -> list[str]:
    fixed = PROTECTED | ruleset_for(state).fixed_stats
    out: list[str] = []
    for f in dataclasses.fields(unit):
        value = getattr(unit, f.name)
        if f.name in fixed:
            continue
        if isinstance(value, bool | int | str) and not f.name.startswith("_"):
            out.append(f.name)
    return out


def set_stat(
    state: EncounterState, unit_id: str, stat: str, value: str
) -> tuple[EncounterState, DirectorOverride]:
    unit = _unit(state, unit_id)
    if stat not in settable_stats(state, unit):
        raise refuse(
            "director.bad_stat",
            f"{unit.name} has no stat {stat!r} a director can set.",
            unit=unit_id,
            stat=stat[:SHOWN],
            allowed=", ".join(settable_stats(state, unit)),
        )
    current = getattr(unit, stat)
    named = StatName(stat, state.ruleset)  # a refusal names it in the reader's words
    parsed: Any
    if isinstance(current, bool):
        if value.lower() not in ("true", "false", "yes", "no", "1", "0", "si", "sí"):
            raise refuse(
                "director.bad_value", f"{stat} takes true or false.", stat=named, value=value[:SHOWN]
            )
        parsed = value.lower() in ("true", "yes", "1", "si", "sí")
    elif isinstance(current, int):
        try:
            parsed = int(value)
        except ValueError:
            raise refuse(
                "director.bad_value", f"{stat} takes a whole number.", stat=named, value=value[:SHOWN]
            ) from None
        if parsed < 0:
            raise refuse("director.bad_value", f"{stat} cannot be negative.", stat=named, value=value[:SHOWN])
        limit = getattr(unit, f"max_{stat}", None)
        if isinstance(limit, int) and not isinstance(limit, bool) and parsed > limit:
            raise refuse("director.bad_value", f"{stat} is at most {limit}.", stat=named, value=value[:SHOWN])
    elif stat == "name" and len(value) > MAX_UNIT_NAME:
        # a scenario file's limit (rules/scenario.py), so every message that repeats the name fits
        raise refuse(
            "director.name_too_long",
            f"A unit's name has at most {MAX_UNIT_NAME} characters (this one has {len(value)}).",
            limit=MAX_UNIT_NAME,
            length=len(value),
        )
    else:
        parsed = value[:MAX_UNIT_NAME]
    changed = replace_unit(unit, **{stat: parsed})
    event = DirectorOverride(rule=RULE, action="set", unit=unit_id, args=(("stat", stat), ("value", parsed)))
    return state.with_units([changed]), event


def damage(state: EncounterState, unit_id: str, amount: str) -> tuple[EncounterState, tuple[Event, ...]]:
    """Damage by hand, as the ruleset takes it (exo: armour then structure; skirmish: wounds; mech: a
    location and an amount): ``amount`` is what the director typed."""
    _unit(state, unit_id)
    return ruleset_for(state).damage_by_hand(state, unit_id, amount)


def set_option(state: EncounterState, name: str, on: bool) -> tuple[EncounterState, DirectorOverride]:
    """An encounter option the ruleset lets the director switch during play (``Ruleset.director_switches``)."""
    switches = ruleset_for(state).director_switches()
    if name not in switches:
        raise refuse(
            "director.bad_option",
            f"There is no option {name!r} to switch here (options: {', '.join(switches) or 'none'}).",
            option=name[:40],
            allowed=", ".join(switches) or "—",
        )
    event = DirectorOverride(
        rule=RULE, action="option", unit="", args=(("option", name), ("value", "on" if on else "off"))
    )
    return state.replace(options={**state.options, name: on}), event


def add_unit(
    state: EncounterState, new_id: str, side: str, at: Hex, like: str, name: str | None = None
) -> tuple[EncounterState, DirectorOverride]:
    """A new unit copied from an existing one (same class and stats), on ``side`` at ``at``; its name is read as
    a scenario file's (rules/names.py)."""
    name = clean_name(name) if name else None
    # the limits of a scenario file's units (rules/scenario.py): an id a panel's custom id carries, a name that fits
    # every message and menu that repeats it
    if not SAFE_ID.match(new_id):
        raise refuse(
            "director.bad_id", "Unit ids use letters, digits, - and _ (at most 32).", unit=new_id[:SHOWN]
        )
    if new_id in state.units:
        raise refuse("director.unit_exists", f"There is already a unit called {new_id!r}.", unit=new_id)
    if name is not None and not name.strip():
        name = None
    if name is not None and len(name) > MAX_UNIT_NAME:
        raise refuse(
            "director.name_too_long",
            f"A unit's name has at most {MAX_UNIT_NAME} characters (this one has {len(name)}).",
            limit=MAX_UNIT_NAME,
            length=len(name),
        )
    template = _unit(state, like)
    if side not in state.side_ids():
        raise refuse("side.unknown", f"There is no side called {side!r}.", side=side[:SHOWN])
    copy = replace_unit(
        template, id=new_id, side=side, name=name or new_id, destroyed=False, label=(name or new_id)[:4]
    )
    rules = ruleset_for(state)
    rules.check_placement(state, copy, at)
    unit = rules.place(state, copy, at, None)
    event = DirectorOverride(
        rule=RULE, action="add-unit", unit=new_id, args=(("at", at.label), ("like", like))
    )
    return state.with_units([unit]), event


def remove_unit(state: EncounterState, unit_id: str) -> tuple[EncounterState, DirectorOverride]:
    _unit(state, unit_id)
    event = DirectorOverride(rule=RULE, action="remove-unit", unit=unit_id)
    return state.without_unit(unit_id), event


def reveal(state: EncounterState, unit_id: str) -> tuple[EncounterState, DirectorOverride]:
    unit = _unit(state, unit_id)
    return state.with_units([replace_unit(unit, hidden=False)]), DirectorOverride(
        rule=RULE, action="reveal", unit=unit_id
    )


# SK-6.2: a skirmish table's ``fire`` row describes what a burning fire marker does; fire burns out (expires), so it
# is not a map feature a director paints onto a hex.
MARKER_ONLY_TERRAIN = frozenset({"fire"})


def terrain_kinds(ruleset: str) -> tuple[str, ...]:
    """The terrain kinds of ``ruleset``: the ``[kinds]`` of its ``data/<ruleset>/terrain.toml`` (none without one)."""
    if not ruleset.isidentifier() or not table_path(f"{ruleset}/terrain").is_file():
        return ()
    kinds = load_table(f"{ruleset}/terrain").get("kinds", {})
    if not isinstance(kinds, dict):
        return ()
    return tuple(sorted(k for k in cast(dict[str, Any], kinds) if k not in MARKER_ONLY_TERRAIN))


def set_terrain(state: EncounterState, at: Hex, kind: str | None) -> tuple[EncounterState, DirectorOverride]:
    """Paint (or, with ``None``, clear) the terrain of one hex of a bounded board."""
    board = state.board
    if not board.bounded:
        raise refuse("director.terrain_unbounded", "Terrain can be changed on a bounded board only.")
    if not board.contains(at):
        raise refuse("director.terrain_off_board", f"{at.label} is off the board.", hex=at.label)
    kinds = terrain_kinds(state.ruleset)
    if kind is not None and not kinds:
        raise refuse(
            "director.no_terrain_kinds",
            f"The {state.ruleset} rules have no terrain table (data/{state.ruleset}/terrain.toml).",
            ruleset=state.ruleset,
        )
    if kind is not None and kind not in kinds:
        raise refuse(
            "director.bad_terrain",
            f"{kind!r} is not a terrain of {state.ruleset} (valid: {', '.join(kinds) or '-'}).",
            terrain=kind[:30],
            ruleset=state.ruleset,
            allowed=", ".join(kinds) or "-",
        )
    was = board.terrain_at(at)
    if was == kind:
        raise refuse("director.terrain_same", f"{at.label} already has that terrain.", hex=at.label)
    terrain = {h: k for h, k in board.terrain.items() if h != at}
    if kind is not None:
        terrain[at] = kind
    changed = state.replace(board=dataclasses.replace(board, terrain=terrain))
    rules = ruleset_for(state)
    # a unit standing there must still be able to stand there, as if it were put there now
    for unit in state.units.values():
        if unit.at == at and not unit.destroyed:
            rules.check_placement(changed, unit, at)
    args: tuple[tuple[str, Any], ...] = (("hex", at.label), ("terrain", kind or ""), ("was", was or ""))
    event = DirectorOverride(rule=RULE, action="terrain" if kind is not None else "terrain-clear", args=args)
    return changed, event
