"""The mech declaration panel (RULES.md §3.1 MECH-1.1 … MECH-2.2): one declarer at a time, by initiative.

A move is one pick: the destination menu lists the hexes the unit can end in, each by the cheapest path the rules
find (``rules.mech.queries.destinations``) and labelled with the mode it needs (walk/run/jump; a vehicle or an air
unit cruise/flank, MECH-5) and its MP; standing still, and turning (or standing up) in place, are on it too. When
more are reachable than a menu holds, the six directions come first, then the picked direction's hexes, nearest
first (the placeholder says when a direction's list is cut). Once a hex is picked, a facing menu offers the end
facings the MP left allow, each with the whole movement's MP. Then the torso twist, and weapons and targets and a
physical attack among what is legal from the end hex, facing and twist, each labelled with the number it needs on
2d6 (``rules.mech.queries``). A projected heat line says what the declaration does to next turn (MECH-3.2). The
declaration still lists the path hex by hex: the engine resolves it so.

Nothing here decides legality: every destination, facing, shot and attack is offered only if the ruleset's own
``parse_order`` and ``validate_order`` accept the declaration it leads to (:func:`bot.panels.accepted`), and
Submit re-checks everything.

Draft fields (short: the draft rides in a 100-character custom id): ``m`` the mode code (s/w/r/j/c/f), ``v`` the
movement as steps (``F`` forward, ``B`` back, ``L``/``R`` turns; a run of turns is kept at its shortest), ``g`` the
direction picked on the destination menu, ``t`` the torso twist (``l``/``r``), ``w`` shots ``{weapon}{target}``
and ``x`` a physical attack ``{kind}{target}``, each number or unit written as one base-36 character (two past 36
units). A destination or facing whose movement would not fit is not offered.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from typing import Any

from bot.panels import ModulePanel, accepted
from bot.panels.draft import Draft, fits, keep_fitting, most_that_fit
from bot.panels.memo import per_state
from bot.panels.model import (
    MAX_OPTIONS,
    Button,
    Control,
    Field,
    Option,
    PanelModel,
    Preview,
    Select,
    Stat,
    Text,
    blank_panel,
    submit_button,
)
from bot.panels.picks import offered_subset
from data.i18n import term_key
from rules.engine import visibility
from rules.hexgrid import SIDE_OF, Hex, HexSide, hexes_within, side_toward
from rules.mech.geometry import weapon_in_arc
from rules.mech.model import Mech
from rules.mech.orders import CRUISE, FLANK, JUMP, RUN, STAND, WALK, FireEntry, MechOrder, parse_order
from rules.mech.queries import (
    Destination,
    cost_of_path,
    destinations,
    end_facings,
    fire_options,
    heat_after,
    mp_by_mode,
    physical_options,
)
from rules.mech.state import DECLARE
from rules.registry import ruleset_for
from rules.state import EncounterState

MODE, MOVES, WAY, TWIST, FIRE, PHYSICAL = "m", "v", "g", "t", "w", "x"  # draft fields
DEST, FACE = "dest", "face"  # the destination and end-facing menus
HEADING = "~"  # a destination-menu value that picks a direction, not a hex
FIGHTER_REACH = 4  # how far straight on a fighter's panel looks for a first hex it may end its flight in
MODE_CODES = {STAND: "s", WALK: "w", RUN: "r", JUMP: "j", CRUISE: "c", FLANK: "f"}
MODE_OF = {code: mode for mode, code in MODE_CODES.items()}
#: a movement's steps in the draft: forward, back (reverse), a hexside turn left or right
FORWARD, BACK, LEFT, RIGHT = "F", "B", "L", "R"
STEPS = (FORWARD, BACK, LEFT, RIGHT)
CLEAR, TWIST_LEFT, TWIST_RIGHT = "clear", "tl", "tr"
#: physical attacks as one letter each (MECH-2.2): kind and limb
PHYSICAL_CODES = {
    ("punch", "la"): "a",
    ("punch", "ra"): "b",
    ("kick", "ll"): "c",
    ("kick", "rl"): "d",
    ("push", ""): "e",
    ("melee", ""): "f",
    ("charge", ""): "g",
    ("dfa", ""): "h",
}
PHYSICAL_OF = {code: pair for pair, code in PHYSICAL_CODES.items()}
DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz"


# --- the plug-in interface (bot.panels.PanelPlugin, wired up in the class at the end) ---------------------


def build_panel(state: EncounterState, unit_id: str, *, draft: Draft, owing: bool) -> PanelModel:
    unit = state.units[unit_id]
    base = replace(blank_panel(state, unit_id), lines=(Text.of("panel.step.wait"),))
    if not isinstance(unit, Mech) or unit.at is None:
        return base
    if not owing or state.phase != DECLARE or unit.destroyed:
        return replace(base, stats=_unit_stats(unit))
    return _declare(base, state, unit, draft)


def apply(model: PanelModel, action: str, values: tuple[str, ...] | None) -> Draft:
    draft = model.draft
    if values is not None:
        offered = {o.value for o in model.options(action)}
        picked = [v for v in values if v in offered]
        if action == FIRE:
            return draft.replace(w=_one_per_weapon(picked))
        if action == PHYSICAL:
            return draft.replace(x=picked[:1])
        if action in (DEST, FACE) and picked:
            if picked[0].startswith(HEADING):
                return draft.replace(g=picked[0][len(HEADING) :])
            # a value is the movement it picks: the mode's code, then its steps
            mode, moves = picked[0][0], picked[0][1:]
            return draft.replace(m="" if mode == MODE_CODES[STAND] else mode, v=moves)
        return draft
    control = model.control(action)
    if not isinstance(control, Button) or not control.enabled:
        return draft  # a forged or stale click: nothing changes
    if action == CLEAR:
        return Draft(m=draft.text(MODE), g=draft.text(WAY))
    if action in (TWIST_LEFT, TWIST_RIGHT):
        twist = max(-1, min(1, _twist(draft) + (-1 if action == TWIST_LEFT else 1)))
        return draft.replace(t={-1: "l", 0: "", 1: "r"}[twist])
    return draft


def raw_order(model: PanelModel) -> Any:
    return json.loads(model.declaration) if isinstance(model, MechPanel) else None


def draft_from_raw(state: EncounterState, unit_id: str, raw: Any) -> Draft:
    unit = state.units.get(unit_id)
    if not isinstance(unit, Mech) or unit.at is None or raw is None:
        return Draft()
    try:
        order = parse_order(unit_id, raw, vehicle=not unit.is_mech)
    except Exception:  # a stored order from an older panel: start afresh
        return Draft()
    moves = _steps(unit, order.mode, order.path, order.facing)
    if moves is None:
        return Draft(m=MODE_CODES.get(order.mode, "s"))
    codes = _codes(state)
    fire = [f"{_digit(f.weapon)}{codes[f.target]}" for f in order.fire if f.target in codes]
    physical = [
        f"{PHYSICAL_CODES[(p.kind, p.limb)]}{codes[p.target]}"
        for p in order.physical
        if (p.kind, p.limb) in PHYSICAL_CODES and p.target in codes
    ]
    return Draft(
        m=MODE_CODES.get(order.mode, "s"),
        v=moves,
        t={-1: "l", 1: "r"}.get(order.twist, ""),
        w=fire,
        x=physical[:1],
    )


def preview(state: EncounterState, model: PanelModel) -> Preview | None:
    """The declared path hex by hex and the end facing (MECH-1.2)."""
    unit = state.units.get(model.unit_id)
    if model.waiting or not isinstance(unit, Mech) or unit.at is None:
        return None
    plan = _plan(unit, model.draft)
    return Preview((unit.at, *plan.path), plan.facing, highlight=_fire_arcs(state, unit, plan, model.draft))


def _fire_arcs(state: EncounterState, unit: Mech, plan: Plan, draft: Draft) -> tuple[Hex, ...]:
    """MECH-1.3: the arcs of the weapons chosen, from the end hex with the end facing and twist, out to each
    weapon's long range (MECH-2.1), and their targets' hexes."""
    assert unit.at is not None
    end = plan.path[-1] if plan.path else unit.at
    lit: set[Hex] = set()
    for value in draft.list(FIRE):
        index = int(value[0], 36)
        if not 1 <= index <= len(unit.weapons):
            continue
        w = unit.weapons[index - 1]
        lit.update(
            h
            for h in hexes_within(end, w.spec.long)
            if state.board.contains(h) and weapon_in_arc(unit, w, end, plan.facing, plan.twist, h)
        )
    return tuple(sorted(lit, key=lambda h: (h.q, h.r)))


# --- the declaration as the pad draws it ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Plan:
    """What the draft's movement means: the mode drafted, the one declared (a jump entering no hex yet declares
    standing still), the hexes entered, the end facing and the torso twist."""

    drafted: str
    mode: str
    moves: str
    path: tuple[Hex, ...]
    facing: int
    twist: int


def _plan(unit: Mech, draft: Draft) -> Plan:
    assert unit.at is not None
    drafted = MODE_OF.get(draft.text(MODE), STAND)
    moves = "" if drafted == STAND else "".join(c for c in draft.text(MOVES) if c in STEPS)
    heading, here = unit.facing, unit.at
    path: list[Hex] = []
    for c in moves:
        if c == LEFT:
            heading = (heading - 1) % 6
        elif c == RIGHT:
            heading = (heading + 1) % 6
        else:
            here = here.neighbor(heading if c == FORWARD else (heading + 3) % 6)
            path.append(here)
    mode = STAND if drafted == JUMP and not path else drafted
    twist = _twist(draft) if unit.is_mech else 0
    return Plan(drafted, mode, moves, tuple(path), heading if mode != STAND else unit.facing, twist)


def _raw(
    state: EncounterState, plan: Plan, draft: Draft, *, fire: bool = True, physical: bool = True
) -> dict[str, Any]:
    """The declaration as the rules read it (DESIGN §7.1's raw form); a code naming no unit names nobody."""
    raw: dict[str, Any] = {"mode": plan.mode, "path": [h.label for h in plan.path]}
    if plan.mode != STAND:
        raw["facing"] = HexSide(plan.facing).name
    if plan.twist:
        raw["twist"] = "L" if plan.twist < 0 else "R"
    raw["fire"] = [_fire_entry(state, v) for v in draft.list(FIRE)] if fire else []
    raw["physical"] = [_physical_entry(state, v) for v in draft.list(PHYSICAL)] if physical else []
    return raw


@dataclass(frozen=True, slots=True, kw_only=True)
class MechPanel(PanelModel):
    """The panel model with the declaration its draft makes, as JSON (what Submit sends)."""

    declaration: str = "{}"


def _declare(base: PanelModel, state: EncounterState, unit: Mech, draft: Draft) -> PanelModel:
    mps = mp_by_mode(state, unit.id)
    mode_code = draft.text(MODE)
    if MODE_OF.get(mode_code) not in mps:
        mode_code = MODE_CODES[STAND]
    if unit.is_fighter and not unit.out_of_control and mode_code == MODE_CODES[STAND] and CRUISE in mps:
        mode_code = MODE_CODES[
            CRUISE
        ]  # MECH-5: a fighter never stands; undeclared, the rules fly it at cruise
    twist = _twist(draft) if unit.is_mech else 0
    kept = Draft(
        m="" if mode_code == MODE_CODES[STAND] else mode_code,
        g=draft.text(WAY),
        t={-1: "l", 1: "r"}.get(twist, ""),
        v=_legal_prefix(state, unit, draft, mode_code),
    )
    plan = _plan(unit, kept)
    fire_opts = _fire_options(state, unit.id, plan.mode, plan.path, plan.facing, plan.twist)
    physical_opts = _physical_options(state, unit.id, plan.mode, plan.path, plan.facing, plan.twist)
    offered_fire = {o.value for o in fire_opts}
    kept = keep_fitting(kept, FIRE, _one_per_weapon([v for v in draft.list(FIRE) if v in offered_fire]))
    offered_physical = {o.value for o in physical_opts}
    kept = keep_fitting(kept, PHYSICAL, [v for v in draft.list(PHYSICAL) if v in offered_physical][:1])
    if (
        accepted(state, unit.id, _raw(state, plan, kept)) is None
    ):  # never offer a combination the rules refuse
        kept = kept.replace(x="")
        if accepted(state, unit.id, _raw(state, plan, kept)) is None:
            kept = kept.replace(w="")
    cost = _cost(state, unit, plan)
    mp = mps.get(plan.drafted, 0)
    controls: list[Control] = _movement_controls(state, unit, kept, plan)
    if fire_opts:
        # a weapon fires once a turn (MECH-1.2): once picked, its other targets are not offered beside it
        weapons = {v[0]: v for v in kept.list(FIRE)}
        joins = {o.value for o in fire_opts if weapons.get(o.value[0], o.value) == o.value}
        controls.append(
            _multi(FIRE, "panel.mech.fire_placeholder", offered_subset(fire_opts, joins), kept, fire_opts)
        )
    if physical_opts:
        others = kept.replace(x="")
        most = most_that_fit(others, PHYSICAL, [o.value for o in physical_opts])
        controls.append(
            Select(
                PHYSICAL,
                Text.of("panel.mech.physical_placeholder"),
                physical_opts,
                kept.list(PHYSICAL),
                max_values=1,
                enabled=most > 0,
            )
        )
    jump_without_hex = plan.drafted == JUMP and not plan.path
    controls.append(submit_button(enabled=not jump_without_hex))
    order = MechOrder(unit=unit.id, mode=plan.mode, path=plan.path, facing=plan.facing, twist=plan.twist)
    labels = {o.value: o.text for o in (*fire_opts, *physical_opts)}
    lines = [Text.of("panel.mech.step")]
    if jump_without_hex:
        lines.append(Text.of("panel.mech.jump_needs_hex"))
    if any(o.param("unknown") for o in fire_opts):
        lines.append(Text.of("panel.mech.target_unknown"))
    fired = tuple(int(v[0], 36) for v in kept.list(FIRE))
    heat = heat_after(state, replace(order, fire=tuple(FireEntry(weapon=w, target="") for w in fired)))
    stats = (
        Stat(
            "mech_mp",
            Text.of(
                "panel.mech.mp", spent=str(cost), mp=str(mp), mode=Text.of(f"panel.mech.mode.{plan.drafted}")
            ),
        ),
        *_unit_stats(unit),
    )
    blocks = [
        Field(
            Text.of("panel.mech.movement"),
            (
                Text.of(
                    "panel.mech.path",
                    mode=Text.of(f"panel.mech.mode.{plan.mode}"),
                    path=" → ".join(h.label for h in (unit.at, *plan.path)) if unit.at else "—",
                    facing=HexSide(plan.facing).name,
                    torso=HexSide((plan.facing + plan.twist) % 6).name,
                ),
            ),
        ),
        Field(
            Text.of("panel.mech.fire"),
            _chosen_shots(state, unit, plan, kept, labels) or (Text.of("panel.mech.no_fire"),),
        ),
        Field(
            Text.of("panel.mech.physical"),
            tuple(labels[v] for v in kept.list(PHYSICAL)) or (Text.of("panel.mech.no_physical"),),
        ),
    ]
    if unit.keeps_heat:  # a BattleMech or a fighter (MECH-3.1, MECH-5)
        blocks.append(Field(Text.of("panel.mech.heat"), _heat_lines(heat, len(fired))))
    summary = f"{MODE_CODES[plan.drafted].upper()} {plan.moves}".strip() if plan.drafted != STAND else ""
    return MechPanel(
        unit_id=base.unit_id,
        unit_name=base.unit_name,
        side=base.side,
        round=base.round,
        phase=base.phase,
        ruleset=base.ruleset,
        when=base.when,  # the phase by its name, as every panel's title reads it
        step="orders",
        lines=tuple(lines),
        draft=kept,
        stats=stats,
        fields=tuple(blocks),
        controls=tuple(controls),
        summary=summary[:40],
        declaration=json.dumps(_raw(state, plan, kept)),
    )


def _chosen_shots(
    state: EncounterState, unit: Mech, plan: Plan, draft: Draft, labels: dict[str, Text]
) -> tuple[Text, ...]:
    """The shots chosen, as offered; one at another target than the first shot's is a secondary target
    (MECH-2.1): its line gives the need with that modifier."""
    chosen = draft.list(FIRE)
    if not chosen:
        return ()
    primary = chosen[0][1:]
    out: list[Text] = []
    end = plan.path[-1] if plan.path else unit.at
    for value in chosen:
        target = _unit_of(state, value[1:])
        if value[1:] == primary or target is None:
            out.append(labels[value])
            continue
        weapon = int(value[0], 36)
        odds = fire_options(
            state,
            unit.id,
            target,
            mode=plan.mode,
            at=end,
            facing=plan.facing,
            twist=plan.twist,
            primary=False,
        )
        need = next((min(12, max(2, w.need)) for w in odds if w.weapon == weapon), None)
        name = state.units[target].name
        out.append(
            Text.of(
                "panel.mech.fire_secondary",
                weapon=Text.of(term_key(unit.weapons[weapon - 1].type, "mech")),
                target=name,
                need=str(need) if need is not None else "?",
            )
        )
    return tuple(out)


@dataclass(frozen=True, slots=True)
class Entry:
    """One line of the destination menu: the movement it picks as a draft value (mode code and steps), where it
    ends (None: standing still), its mode and its MP keeping the facing it leaves."""

    value: str
    to: Hex | None
    mode: str
    cost: int


@per_state
def _entries(state: EncounterState, unit_id: str) -> tuple[tuple[Entry, ...], tuple[Entry, ...]]:
    """The destination menu's lines: first standing still and turning (or standing up) in place, then every hex
    the unit can end in, each at the cheapest mode of its kind that reaches it (walk before run, cruise before
    flank) and once more by jump where it jumps, nearest first (MECH-1.2, MECH-5). Only movements the rules take
    as declared (no fire) and that fit the draft are listed."""
    unit = state.unit_as(unit_id, Mech)
    assert unit.at is not None
    mps = mp_by_mode(state, unit_id)
    fixed: list[Entry] = []
    if not unit.is_fighter:  # MECH-5: a fighter never stands still nor turns in place
        fixed.append(Entry(MODE_CODES[STAND], None, STAND, 0))
        here = next((m for m in (WALK, CRUISE) if m in mps), None)
        if here is not None and _movement_ok(state, unit, Draft(m=MODE_CODES[here])):
            # turning in place, or a prone mech standing up (MECH-1.2): the stand-up MP is its cost
            fixed.append(Entry(MODE_CODES[here], unit.at, here, cost_of_path(state, unit_id, here, ()).total))
    ground = [m for m in mps if m not in (STAND, JUMP)]
    reached: set[Hex] = set()
    found: list[tuple[Destination, Entry]] = []
    for mode in (*ground, JUMP):
        if mode not in mps:
            continue
        for d in destinations(state, unit_id, mode):
            if mode != JUMP and d.to in reached:
                continue  # running where a walk reaches only adds to-hit and heat (MECH-2.1, MECH-3.1)
            steps = _steps(unit, mode, d.path, None)
            if steps is None:
                continue
            draft = Draft(m=MODE_CODES[mode], v=steps)
            if not fits(draft.replace(g=HexSide.NW.name)) or not _movement_ok(state, unit, draft):
                continue
            if mode != JUMP:
                reached.add(d.to)
            found.append((d, Entry(MODE_CODES[mode] + steps, d.to, mode, d.cost)))
    found.sort(key=lambda f: (unit.at.distance(f[0].to) if unit.at else 0, f[0].cost, f[1].mode == JUMP))
    return tuple(fixed), tuple(e for _, e in found)


def _way_of(unit: Mech, to: Hex) -> str:
    assert unit.at is not None
    return HexSide(side_toward(unit.at, to)).name


def _destination_select(state: EncounterState, unit: Mech, draft: Draft, plan: Plan) -> Select | None:
    """MECH-1.2: where the movement ends, with its mode and MP. With more lines than a menu holds, the
    directions (HEX-2) come first, then the picked direction's hexes, nearest first, cut where the menu is full
    (the placeholder then says how many of how many are shown)."""
    fixed, hexes = _entries(state, unit.id)
    chosen_value = MODE_CODES[plan.drafted] + (_steps(unit, plan.mode, plan.path, None) or "")
    ways: dict[str, list[Entry]] = {}
    if len(fixed) + len(hexes) > MAX_OPTIONS:
        for e in hexes:
            assert e.to is not None
            ways.setdefault(_way_of(unit, e.to), []).append(e)
    way = draft.text(WAY)
    if ways and way not in ways and plan.path:
        way = _way_of(unit, plan.path[-1])  # the direction of the hex already picked
    heads = [
        Option(
            HEADING + side.name,
            side.name,
            "panel.mech.way",
            (("target", Text.of(f"hexside.{side.name}")), ("count", str(len(ways[side.name])))),
        )
        for side in HexSide
        if side.name in ways and side.name != way
    ]
    listed = ways.get(way, []) if ways else list(hexes)
    room = MAX_OPTIONS - len(fixed) - len(heads)
    shown = listed[:room]
    options = [*(_entry_option(e) for e in (*fixed, *shown)), *heads]
    if len(options) <= 1:
        return None  # standing still is all it may do: nothing to pick
    placeholder = (
        Text.of("panel.mech.placeholder_dest_cut", shown=str(len(shown)), count=str(len(listed)))
        if len(shown) < len(listed)
        else Text.of("panel.mech.placeholder_dest")
    )
    values = {o.value for o in options}
    return Select(
        DEST,
        placeholder,
        tuple(options),
        chosen=(chosen_value,) if chosen_value in values else (),
        min_values=1,
    )


def _entry_option(e: Entry) -> Option:
    mode = Text.of(f"panel.mech.mode.{e.mode}")
    if e.to is None:
        return Option(e.value, "", "panel.mech.dest_stand")
    key = "panel.mech.dest_here" if e.value == MODE_CODES[e.mode] else "panel.mech.dest"
    return Option(e.value, e.to.label, key, (("mode", mode), ("cost", str(e.cost))))


def _facing_select(state: EncounterState, unit: Mech, plan: Plan) -> Select | None:
    """MECH-1.2: the end facings the MP left after the path allow (a jump: any), each with the whole movement's
    MP; picked after the hex."""
    if plan.drafted == STAND or (plan.mode == STAND and not plan.path):
        return None
    code = MODE_CODES[plan.mode]
    options: list[Option] = []
    for facing in end_facings(state, unit.id, plan.mode, plan.path):
        steps = _steps(unit, plan.mode, plan.path, facing)
        if steps is None or not fits(Draft(m=code, v=steps, g=HexSide.NW.name)):
            continue
        if not _movement_ok(state, unit, Draft(m=code, v=steps)):
            continue
        cost = cost_of_path(state, unit.id, plan.mode, plan.path, facing).total
        name = HexSide(facing).name
        params: tuple[tuple[str, str | Text], ...] = (
            ("target", Text.of(f"value.facing.{name}")),
            ("cost", str(cost)),
        )
        options.append(Option(code + steps, name, "panel.mech.facing_option", params))
    if not options:
        return None
    chosen = code + (_steps(unit, plan.mode, plan.path, plan.facing) or "")
    return Select(
        FACE,
        Text.of("panel.mech.placeholder_facing"),
        tuple(options),
        chosen=(chosen,) if chosen in {o.value for o in options} else (),
        min_values=1,
    )


def _movement_controls(state: EncounterState, unit: Mech, draft: Draft, plan: Plan) -> list[Control]:
    """The destination and facing menus, the torso twist for a mech (MECH-1.3) and clear; an out-of-control
    fighter gets none: the rules fly it (MECH-5)."""
    out: list[Control] = []
    if unit.is_fighter and unit.out_of_control:
        return out
    for menu in (_destination_select(state, unit, draft, plan), _facing_select(state, unit, plan)):
        if menu is not None:
            out.append(menu)
    if unit.is_mech:
        for action, step in ((TWIST_LEFT, -1), (TWIST_RIGHT, 1)):
            twist = _twist(draft) + step
            enabled = -1 <= twist <= 1
            if enabled:
                trial = draft.replace(t={-1: "l", 0: "", 1: "r"}[twist])
                enabled = _movement_ok(state, unit, trial)
            label = "panel.mech.twist_left" if step < 0 else "panel.mech.twist_right"
            out.append(Button(action, Text.of(label), enabled=enabled))
    out.append(Button(CLEAR, Text.of("panel.clear"), "danger", enabled=bool(draft.replace(g=""))))
    return out


def _movement_ok(state: EncounterState, unit: Mech, draft: Draft) -> bool:
    """The draft's movement, mode and twist, with no fire or attack: do the rules take it?"""
    return (
        accepted(state, unit.id, _raw(state, _plan(unit, draft), draft, fire=False, physical=False))
        is not None
    )


def _legal_prefix(state: EncounterState, unit: Mech, draft: Draft, mode_code: str) -> str:
    """The longest start of the drafted moves the rules take in this mode (a mode change drops the rest)."""
    if MODE_OF.get(mode_code, STAND) == STAND:
        return ""
    moves = _shortest(draft.text(MOVES))
    trial = Draft(m=mode_code, t=draft.text(TWIST))
    while moves and not _movement_ok(state, unit, trial.replace(v=moves)):
        moves = moves[:-1]
    if not moves and unit.is_fighter:
        # MECH-5: a fighter's flight starts ahead (it cannot stand still): one hex, or straight on over a hex
        # another unit holds, where it may pass but not end
        for run in range(1, FIGHTER_REACH + 1):
            if _movement_ok(state, unit, trial.replace(v=FORWARD * run)):
                return FORWARD * run
    return moves


def _cost(state: EncounterState, unit: Mech, plan: Plan) -> int:
    if plan.mode == STAND:
        return 0
    try:
        return cost_of_path(state, unit.id, plan.mode, plan.path, plan.facing).total
    except Exception:
        return 0


def _heat_lines(heat: Any, weapons: int) -> tuple[Text, ...]:
    """MECH-3.1/3.2: ``calor 12 → +2 para impactar el próximo turno`` and the rolls it brings."""
    to_hit = f"{heat.to_hit_next:+d}"
    params = {
        "now": str(heat.now),
        "generated": str(heat.generated),
        "sinks": str(heat.sinks),
        "after": str(heat.after),
        "to_hit": to_hit,
        "mp": str(heat.mp_next),
        "weapons": str(weapons),
    }
    if heat.automatic_shutdown:
        lines = [Text.of("panel.mech.heat_auto", **params)]
    elif heat.mp_next:
        lines = [Text.of("panel.mech.heat_mp", **params)]
    else:
        lines = [Text.of("panel.mech.heat_line", **params)]
    lines.append(Text.of("panel.mech.heat_sum", **params))
    if heat.shutdown_rolls or heat.ammo_rolls:
        shutdown = ", ".join(f"{n}+" for _, n in heat.shutdown_rolls) or "—"
        ammo = ", ".join(f"{n}+" for _, n in heat.ammo_rolls) or "—"
        lines.append(Text.of("panel.mech.heat_rolls", shutdown=shutdown, ammo=ammo))
    return tuple(lines)


def _unit_stats(unit: Mech) -> tuple[Stat, ...]:
    out = [Stat("facing", f"{HexSide(unit.facing).name} / {HexSide(unit.torso).name}")]
    if unit.is_mech:
        out.append(Stat("mech_heat", f"{unit.heat} ({unit.heat_sinks})"))
    armor = sum(unit.armor.values())
    structure = sum(unit.structure.values())
    out.append(Stat("armor", f"{armor}/{sum(unit.max_armor.values())}"))
    out.append(Stat("structure", f"{structure}/{sum(unit.max_structure.values())}"))
    return tuple(out)


def _multi(
    action: str, placeholder: str, options: tuple[Option, ...], draft: Draft, every: tuple[Option, ...]
) -> Select:
    """The fire select: ``options`` offered (those a pick leaves open), up to one per weapon of ``every``."""
    others = draft.replace(**{action: ""})
    most = most_that_fit(others, action, [o.value for o in every])
    weapons = len({o.value[0] for o in every})
    return Select(
        action,
        Text.of(placeholder),
        options,
        chosen=draft.list(action),
        max_values=max(1, min(most, weapons)),
        enabled=most > 0,
    )


# --- what the rules allow from the end position ---------------------------------------------------------------


@per_state
def _codes(state: EncounterState) -> dict[str, str]:
    """Each unit's one- or two-character code in a draft (its place in the scenario)."""
    width = 1 if len(state.units) <= len(DIGITS) else 2
    out: dict[str, str] = {}
    for i, uid in enumerate(state.units):
        code = DIGITS[i % 36] if width == 1 else DIGITS[i // 36 % 36] + DIGITS[i % 36]
        out[uid] = code
    return out


def _unit_of(state: EncounterState, code: str) -> str | None:
    return next((uid for uid, c in _codes(state).items() if c == code), None)


@per_state
def _fire_options(
    state: EncounterState, unit_id: str, mode: str, path: tuple[Hex, ...], facing: int, twist: int
) -> tuple[Option, ...]:
    """MECH-1.3, MECH-2.1: every weapon at every enemy in its arc and range with a line of sight from the end
    position, labelled with what 2d6 must reach; best odds first, at most a select's worth."""
    unit = state.unit_as(unit_id, Mech)
    assert unit.at is not None
    end = path[-1] if path else unit.at
    if unit.is_fighter and (unit.out_of_control or not state.board.contains(end)):
        return ()  # MECH-5: out of control, or flying off the board, it fires nothing
    codes = _codes(state)
    seen = _seen_by(state, unit.side)
    found: list[tuple[int, int, Option]] = []
    for target in state.units.values():
        if (
            not isinstance(target, Mech)
            or target.side == unit.side
            or not target.active
            or target.id not in seen
        ):
            continue
        for w in fire_options(state, unit_id, target.id, mode=mode, at=end, facing=facing, twist=twist):
            if not w.legal:
                continue
            need = min(12, max(2, w.need))
            value = f"{_digit(w.weapon)}{codes[target.id]}"
            key = "panel.mech.fire_option" if w.target_known else "panel.mech.fire_option_unknown"
            params: tuple[tuple[str, str | Text], ...] = (
                ("weapon", Text.of(term_key(w.type, "mech"))),
                ("need", str(need)),
                ("n", str(w.weapon)),
                ("unknown", "" if w.target_known else "1"),
            )
            found.append((w.weapon, need, Option(value, target.name, key, params)))
    found.sort(key=lambda f: (f[0], f[1]))
    return tuple(o for *_, o in found[:MAX_OPTIONS])


@per_state
def _physical_options(
    state: EncounterState, unit_id: str, mode: str, path: tuple[Hex, ...], facing: int, twist: int
) -> tuple[Option, ...]:
    """MECH-2.2: the physical attacks open from the end hex, each accepted by the rules with this movement."""
    codes = _codes(state)
    unit = state.unit_as(unit_id, Mech)
    draft_plan = Plan(mode, mode, "", path, facing, twist)
    out: list[Option] = []
    for p in physical_options(state, unit_id, mode=mode, path=path, facing=facing, twist=twist):
        code = PHYSICAL_CODES.get((p.kind, p.limb))
        target = state.units.get(p.target)
        if code is None or target is None or target.id not in _seen_by(state, unit.side):
            continue
        value = f"{code}{codes[p.target]}"
        if accepted(state, unit.id, _raw(state, draft_plan, Draft(x=[value]), fire=False)) is None:
            continue
        kind = (
            Text.of(
                "panel.mech.with_limb",
                kind=Text.of(term_key(p.kind, "mech")),
                limb=Text.of(term_key(p.limb, "mech")),
            )
            if p.limb
            else Text.of(term_key(p.kind, "mech"))
        )
        params: tuple[tuple[str, str | Text], ...] = (
            ("kind", kind),
            ("need", str(min(12, max(2, p.need)))),
            ("damage", str(p.damage)),
        )
        out.append(Option(value, target.name, "panel.mech.physical_option", params))
    return tuple(out[:MAX_OPTIONS])


def _seen_by(state: EncounterState, side: str) -> frozenset[str]:
    """The units ``side`` sees (FOG-1, and NGT-2 at night): no other is offered as a target, so a select never
    names a unit hidden in the dark, nor offers what the night would refuse."""
    return visibility(ruleset_for(state), state, side).units


# --- small codecs --------------------------------------------------------------------------------------------


def _digit(n: int) -> str:
    return DIGITS[n] if 0 <= n < len(DIGITS) else "z"


def _steps(unit: Mech, mode: str, path: tuple[Hex, ...], facing: int | None) -> str | None:
    """A path (and end facing) as the draft's steps: each hex entered forward, after the turns to face it, or in
    reverse when it lies straight behind (not in a jump, which keeps its facing); None when a hex is not next to
    the one before."""
    assert unit.at is not None
    moves = ""
    heading, here = unit.facing, unit.at
    for h in path:
        direction = SIDE_OF.get((h.q - here.q, h.r - here.r))
        if direction is None:
            return None
        if mode != JUMP and direction == (heading + 3) % 6:
            moves += BACK
        else:
            moves += _turns(heading, direction) + FORWARD
            heading = direction
        here = h
    if facing is not None:
        moves += _turns(heading, facing)
    return _shortest(moves)


def _twist(draft: Draft) -> int:
    return {"l": -1, "r": 1}.get(draft.text(TWIST), 0)


def _turns(heading: int, to: int) -> str:
    right = (to - heading) % 6
    return RIGHT * right if right <= 3 else LEFT * (6 - right)


def _shortest(moves: str) -> str:
    """The pad's moves with every run of turns at its shortest (six turns right are none; four right are two
    left), so no sequence of presses grows the draft past what it means."""
    out: list[str] = []
    run = 0
    for c in (*moves, ""):
        if c in (LEFT, RIGHT):
            run += 1 if c == RIGHT else -1
            continue
        if run:
            out.append(_turns(0, run % 6))
            run = 0
        if c:
            out.append(c)
    return "".join(out)


def _one_per_weapon(values: list[str] | tuple[str, ...]) -> list[str]:
    """A weapon fires once a turn (MECH-1.2): the first target picked for it is kept."""
    seen: set[str] = set()
    out: list[str] = []
    for v in values:
        if v and v[0] not in seen:
            seen.add(v[0])
            out.append(v)
    return out


def _fire_entry(state: EncounterState, value: str) -> dict[str, Any]:
    return {"weapon": int(value[0], 36), "target": _unit_of(state, value[1:]) or ""}


def _physical_entry(state: EncounterState, value: str) -> dict[str, Any]:
    kind, limb = PHYSICAL_OF.get(value[0], ("push", ""))
    entry: dict[str, Any] = {"kind": kind, "target": _unit_of(state, value[1:]) or ""}
    if limb:
        entry["limb"] = limb
    return entry


PANEL = ModulePanel(build_panel, apply, raw_order, draft_from_raw, preview)
