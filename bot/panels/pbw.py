"""The pbw order panel (RULES.md §3.2): the declaration of intentions for the three segments of a turn (PBW-1,
PBW-2), and before each segment the question whether to keep the declared action or change it (PBW-2, one action).

Nothing here decides legality: every choice comes from the engine's panel queries (``rules.pbw.queries``: the
legal actions of a segment given the ones before it, PBW-2/PBW-3/PBW-5; the hexes a path may enter; the targets
and weapons with the 2d6 number needed, PBW-5/DICE-3; the changes of intention that can be paid for), and Submit is
enabled only for a declaration the ruleset's own ``parse_order``/``validate_order`` accept (``accepted``). Moves
are worked out on the board as the side knows it: a hex held by an enemy it cannot see is still offered (FOG-1), and
Submit then meets the real board, whose refusal names nobody.

A move is picked in one go: the destination menu lists the hexes the segment's Movement reaches, each by a cheapest
path the rules find (``rules.pbw.queries.destinations``) and labelled with the Movement it uses, cheapest first;
when more hexes are reachable than a menu holds, it lists the directions (hexsides, HEX-2) first, then the picked
direction's hexes. The arrow pad stays beside it: a move follows its declared path hex by hex and stops where it is
blocked or runs into a melee (PBW-2, PBW-5), so the route, not only the end, can matter, and the pad lets a player
trace another route or change a picked one step by step. pbw reads no facing (a character faces its last step), so
there is no facing to pick.

Draft fields (short: the draft rides in a 100-character custom id): ``e`` the segment being edited (1-3),
``s1``..``s3`` the segments' codes, ``x`` disengage (PBW-5), ``g`` the direction picked on the destination menu; in a
change of intention ``ch`` (editing) and ``s0``.
A segment's code is ``d`` defend, ``r`` rest, ``l`` reload, ``s`` stow, ``w{n}`` draw weapon n, ``m{sides}`` a move
as the hexsides stepped across from where the segment starts (``m012``), ``f{t}.{w}[.{l}]`` shoot and
``c{t}.{w}[.{l}]`` melee at unit number t with weapon w, aimed at location number l (PBW-5, −5).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, cast

from bot.panels import ModulePanel, accepted
from bot.panels.draft import Draft, fits
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
from data.i18n import has, term_key
from rules.dice import GRADE_STEP
from rules.engine import visibility
from rules.errors import IllegalOrderError
from rules.hexgrid import Hex, HexSide, side_toward
from rules.pbw.combat import ToHit
from rules.pbw.legality import ext_of, outlook
from rules.pbw.model import (
    DEFEND,
    DRAW,
    LOST,
    MELEE,
    MOVE,
    RELOAD,
    REST,
    SEGMENTS,
    SHOOT,
    STOW,
    TREAT,
    Character,
    SegmentAction,
)
from rules.pbw.queries import (
    ActionOption,
    AttackOption,
    Destination,
    attack_options,
    can_disengage,
    change_options,
    destinations,
    draw_options,
    legal_actions,
    path_cost,
    to_hit_for,
    treat_options,
)
from rules.pbw.tables import LOCATIONS, tables
from rules.pbw.turn import DECLARE, next_declarer
from rules.registry import ruleset_for
from rules.state import EncounterState

DECLARING, CHANGING = "declare", "change"  # the panel's steps (besides WAIT)
ACT, ATTACK, AIM, DEST = "act", "atk", "aim", "dest"  # selects
WAY = "g"  # the draft field of the direction picked on the destination menu (when many hexes are reachable)
SIDES = tuple(f"d{i}" for i in range(6))  # the move pad: a step across hexside 0-5 (N, NE, SE, S, SW, NW)
ARROWS = ("↑", "↗", "↘", "↓", "↙", "↖")
BACK = "back"
SEG = tuple(f"seg{k}" for k in range(1, SEGMENTS + 1))
DISENGAGE = "dis"
KEEP, CHANGE, CANCEL = "keep", "change", "nochange"
EDIT, DIS, CH, NEW = "e", "x", "ch", "s0"
HEADING = "way "  # a destination-menu value that picks a direction, not a hex
NO_AIM = "-"
CODE = {
    DEFEND: "d",
    REST: "r",
    RELOAD: "l",
    STOW: "s",
    DRAW: "w",
    MOVE: "m",
    SHOOT: "f",
    MELEE: "c",
    TREAT: "t",
}
WHOLE_TURN = (REST, TREAT)  # PBW-3, PBW-6: the first segment's choice fills the turn
KIND = {v: k for k, v in CODE.items()}


# --- a segment as the draft holds it ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Slot:
    """One segment's choice: ``kind`` (an action) and what it still needs (a path, a target and weapon)."""

    kind: str = DEFEND
    sides: str = ""  # move: hexsides stepped across, one digit each
    target: int = -1  # shoot/melee/treat: the target's number (its place in the state's units)
    weapon: int = 0  # shoot/melee/draw: 1-based
    aim: int = -1  # shoot/melee: index into LOCATIONS, -1 for no aim; treat: the wounded location

    @property
    def complete(self) -> bool:
        if self.kind == MOVE:
            return bool(self.sides)
        if self.kind in (SHOOT, MELEE):
            return self.target >= 0 and self.weapon > 0
        if self.kind == DRAW:
            return self.weapon > 0
        if self.kind == TREAT:
            return self.target >= 0 and self.aim >= 0
        return True

    @property
    def code(self) -> str:
        head = CODE[self.kind]
        if self.kind == MOVE:
            return head + self.sides
        if self.kind == DRAW:
            return f"{head}{self.weapon}" if self.weapon else head
        if self.kind in (SHOOT, MELEE) and self.target >= 0 and self.weapon:
            return f"{head}{self.target}.{self.weapon}" + (f".{self.aim}" if self.aim >= 0 else "")
        if self.kind == TREAT and self.complete:
            return f"{head}{self.target}.{self.aim}"
        return head


def parse_code(code: str) -> Slot:
    """A draft code back into a slot (anything malformed is a plain defend: drafts are forgeable)."""
    kind = KIND.get(code[:1], "")
    rest = code[1:]
    if not kind:
        return Slot()
    if kind == MOVE:
        return Slot(MOVE, sides="".join(c for c in rest if c in "012345")[:30])
    if kind == DRAW:
        return Slot(DRAW, weapon=int(rest)) if rest.isdigit() and len(rest) < 3 else Slot(DRAW)
    if kind in (SHOOT, MELEE):
        parts = rest.split(".")
        if 2 <= len(parts) <= 3 and all(p.isdigit() and len(p) < 4 for p in parts):
            aim = int(parts[2]) if len(parts) == 3 and int(parts[2]) < len(LOCATIONS) else -1
            return Slot(kind, target=int(parts[0]), weapon=int(parts[1]), aim=aim)
        return Slot(kind)
    if kind == TREAT:
        parts = rest.split(".")
        if (
            len(parts) == 2
            and all(p.isdigit() and len(p) < 4 for p in parts)
            and int(parts[1]) < len(LOCATIONS)
        ):
            return Slot(TREAT, target=int(parts[0]), aim=int(parts[1]))
        return Slot(TREAT)
    return Slot(kind)


def walk(start: Hex, sides: str) -> tuple[Hex, ...]:
    path: list[Hex] = []
    at = start
    for c in sides:
        at = at.neighbor(int(c))
        path.append(at)
    return tuple(path)


def sides_of(start: Hex, path: Sequence[Hex]) -> str:
    """A path of hexes as the hexsides stepped across ("" when it is not a walk of neighbours)."""
    out: list[str] = []
    at = start
    for h in path:
        side = next((i for i in range(6) if at.neighbor(i) == h), None)
        if side is None:
            return ""
        out.append(str(side))
        at = h
    return "".join(out)


def unit_ids(state: EncounterState) -> list[str]:
    return list(state.units)


def action_of(state: EncounterState, slot: Slot, start: Hex) -> SegmentAction:
    """The engine's action for a slot (an incomplete one has no path or target yet)."""
    ids = unit_ids(state)
    target = ids[slot.target] if 0 <= slot.target < len(ids) else ""
    where = LOCATIONS[slot.aim] if slot.aim >= 0 else ""
    if slot.kind == TREAT:
        return SegmentAction(action=TREAT, target=target, location=where)
    return SegmentAction(
        action=slot.kind, path=walk(start, slot.sides), target=target, weapon=slot.weapon, aim=where
    )


def table_of(act: SegmentAction) -> dict[str, Any]:
    """A segment as the raw table ``rules.pbw.orders`` reads."""
    out: dict[str, Any] = {"action": act.action}
    if act.path:
        out["path"] = [h.label for h in act.path]
    if act.target:
        out["target"] = act.target
    if act.weapon:
        out["weapon"] = act.weapon
    if act.aim:
        out["aim"] = act.aim
    if act.location:
        out["location"] = act.location
    return out


# --- what the rules allow (memoized per state) ----------------------------------------------------------------


@per_state
def known(state: EncounterState, side: str) -> EncounterState:
    """The board as ``side`` knows it: enemies it cannot see are left out, so no offer gives them away (FOG-1)."""
    seen = visibility(ruleset_for(state), state, side).units
    hidden = [uid for uid, u in state.units.items() if u.side != side and uid not in seen]
    if not hidden:
        return state
    return state.replace(units={uid: u for uid, u in state.units.items() if uid not in hidden})


@per_state
def _actions(
    state: EncounterState, unit_id: str, earlier: tuple[SegmentAction, ...], disengage: bool
) -> tuple[ActionOption, ...]:
    return legal_actions(state, unit_id, earlier, disengage=disengage)


@per_state
def _attacks(
    state: EncounterState, unit_id: str, kind: str, earlier: tuple[SegmentAction, ...]
) -> tuple[AttackOption, ...]:
    return attack_options(state, unit_id, kind, earlier)


@per_state
def _destinations(
    state: EncounterState, unit_id: str, earlier: tuple[SegmentAction, ...]
) -> tuple[Destination, ...]:
    return destinations(state, unit_id, earlier)


@per_state
def _draws(state: EncounterState, unit_id: str, earlier: tuple[SegmentAction, ...]) -> tuple[int, ...]:
    return draw_options(state, unit_id, earlier)


@per_state
def _treats(state: EncounterState, unit_id: str) -> tuple[tuple[str, str], ...]:
    return treat_options(state, unit_id)


@per_state
def _changes(state: EncounterState, unit_id: str) -> tuple[ActionOption, ...]:
    return change_options(state, unit_id)


def _walkable(
    state: EncounterState, unit_id: str, path: tuple[Hex, ...], earlier: tuple[SegmentAction, ...]
) -> bool:
    try:
        path_cost(state, unit_id, path, earlier)
    except IllegalOrderError:
        return False
    return True


@dataclass(frozen=True, slots=True)
class Segment:
    """One segment of the panel, checked: its slot, where it starts and what else it could hold."""

    slot: Slot
    start: Hex
    options: tuple[ActionOption, ...]
    earlier: tuple[SegmentAction, ...]


def checked_slot(
    board: EncounterState,
    state: EncounterState,
    ch: Character,
    slot: Slot,
    earlier: tuple[SegmentAction, ...],
    options: tuple[ActionOption, ...],
) -> Slot:
    """``slot`` kept to what the rules offer after ``earlier``: an action no longer offered becomes a defend (or
    rest), a path is cut where it stops being walkable, a target or weapon no longer offered is dropped."""
    kinds = {o.action for o in options}
    if slot.kind not in kinds:
        return Slot(REST) if REST in kinds and DEFEND not in kinds else Slot()
    start = outlook(board, ch, earlier).at
    if slot.kind == MOVE:
        sides = ""
        for c in slot.sides:
            if not _walkable(board, ch.id, walk(start, sides + c), earlier):
                break
            sides += c
        return Slot(MOVE, sides=sides)
    if slot.kind == DRAW:
        return slot if slot.weapon in _draws(board, ch.id, earlier) else Slot(DRAW)
    if slot.kind == TREAT:
        ids = unit_ids(state)
        target = ids[slot.target] if 0 <= slot.target < len(ids) else ""
        wound = (target, LOCATIONS[slot.aim]) if slot.aim >= 0 else ("", "")
        return slot if wound in _treats(board, ch.id) else Slot()
    if slot.kind in (SHOOT, MELEE):
        ids = unit_ids(state)
        target = ids[slot.target] if 0 <= slot.target < len(ids) else ""
        offered = {(a.target, a.weapon) for a in _attacks(board, ch.id, slot.kind, earlier)}
        if (target, slot.weapon) not in offered:
            return Slot(slot.kind)
    return slot


def plan_of(state: EncounterState, ch: Character, draft: Draft) -> tuple[tuple[Segment, ...], bool]:
    """The draft's three segments, each checked after the ones before it, and whether it disengages (PBW-5)."""
    board = known(state, ch.side)
    disengage = draft.text(DIS) == "1" and can_disengage(board, ch.id)
    out: list[Segment] = []
    earlier: tuple[SegmentAction, ...] = ()
    first = parse_code(draft.text("s1"))
    for k in range(1, SEGMENTS + 1):
        options = _actions(board, ch.id, earlier, disengage)
        code = draft.text("s1") if first.kind == TREAT else draft.text(f"s{k}")  # PBW-6: the whole turn
        slot = checked_slot(board, state, ch, parse_code(code), earlier, options)
        start = outlook(board, ch, earlier).at
        out.append(Segment(slot, start, options, earlier))
        earlier = (*earlier, action_of(state, slot, start))
    return tuple(out), disengage


# --- the plug-in interface (bot.panels.PanelPlugin, wired up in the class at the end) ---------------------


def build_panel(state: EncounterState, unit_id: str, *, draft: Draft, owing: bool) -> PanelModel:
    base = replace(blank_panel(state, unit_id), lines=(Text.of("panel.pbw.step.wait"),))
    ch = state.units.get(unit_id)
    if not isinstance(ch, Character):
        return base
    model = replace(
        base,
        stats=_stats(ch, state),
        lines=(Text.of("panel.pbw.step.wait"), *_waiting_lines(state, ch, owing)),
        fields=_declared_fields(state, ch),
    )
    if not owing or state.over or ch.at is None:
        return model
    if state.phase == DECLARE:
        return _declaring(model, state, ch, draft)
    return _changing(model, state, ch, draft)


def apply(model: PanelModel, action: str, values: tuple[str, ...] | None) -> Draft:
    draft = model.draft
    if model.step == DECLARING:
        slot_field = f"s{_edited(draft)}"
    elif model.step == CHANGING:
        slot_field = NEW
    else:
        return draft
    if values is not None:
        offered = {o.value for o in model.options(action)}
        picked = next((v for v in values if v in offered), "")
        if not picked:
            return draft
        if action == ACT:
            return draft.replace(**{slot_field: picked})
        if action == DEST:
            if picked.startswith(HEADING):  # a direction: its hexes come next
                return draft.replace(**{WAY: picked.removeprefix(HEADING)})
            return draft.replace(**{slot_field: picked})
        slot = parse_code(draft.text(slot_field))
        if action == ATTACK:
            return draft.replace(**{slot_field: CODE[slot.kind] + picked})
        if action == AIM and slot.target >= 0:
            aimed = replace(slot, aim=-1 if picked == NO_AIM else int(picked))
            return draft.replace(**{slot_field: aimed.code})
        return draft
    control = model.control(action)
    if not isinstance(control, Button) or not control.enabled:
        return draft
    if action in SIDES:
        return draft.replace(**{slot_field: draft.text(slot_field) + action[1:]})
    if action == BACK:
        code = draft.text(slot_field)
        return draft.replace(**{slot_field: code[:-1] if len(code) > 1 else code})
    if action in SEG:
        return draft.replace(**{EDIT: action[3:]})
    if action == DISENGAGE:
        return draft.replace(**{DIS: "" if draft.text(DIS) == "1" else "1"})
    if action == CHANGE:
        return draft.replace(**{CH: "1"})
    if action in (CANCEL, KEEP):
        return Draft()
    return draft


def raw_order(model: PanelModel) -> Any:
    if model.step == CHANGING:
        return model.order if model.order is not None else "keep"
    return model.order if model.order is not None else {}


def draft_from_raw(state: EncounterState, unit_id: str, raw: Any) -> Draft:
    ch = state.units.get(unit_id)
    if not isinstance(ch, Character) or ch.at is None or not isinstance(raw, dict):
        return Draft()
    table = cast(dict[str, Any], raw)
    if "segments" in table:
        codes: dict[str, str] = {}
        start = ch.at
        for k, seg in enumerate(cast(list[Any], table.get("segments") or [])[:SEGMENTS], start=1):
            code, start = _code_of(state, seg, start)
            codes[f"s{k}"] = code
        draft = Draft(**codes, x="1" if table.get("disengage") is True else "")
        return draft if fits(draft) else Draft()
    code, _ = _code_of(state, {k: v for k, v in table.items() if k != "segment"}, ch.at)
    draft = Draft(ch="1", s0=code)
    return draft if fits(draft) else Draft()


def preview(state: EncounterState, model: PanelModel) -> Preview | None:
    """The path the draft's moves walk, segment after segment (PBW-2), from where the character stands; shown while
    the other segments are still being chosen."""
    ch = state.units.get(model.unit_id)
    if model.step not in (DECLARING, CHANGING) or not isinstance(ch, Character) or ch.at is None:
        return None
    path: list[Hex] = [ch.at]
    if model.step == DECLARING:
        plan, _ = plan_of(state, ch, model.draft)
        for seg in plan:
            path.extend(walk(seg.start, seg.slot.sides) if seg.slot.kind == MOVE else ())
    elif model.draft.text(NEW):
        slot = parse_code(model.draft.text(NEW))
        path.extend(walk(ch.at, slot.sides) if slot.kind == MOVE else ())
    return Preview(tuple(path), ch.facing) if len(path) > 1 else None


# --- declaring (PBW-1, PBW-2) --------------------------------------------------------------------------------


def _edited(draft: Draft) -> int:
    text = draft.text(EDIT)
    return int(text) if text in ("1", "2", "3") else 1


def _declaring(model: PanelModel, state: EncounterState, ch: Character, draft: Draft) -> PanelModel:
    """Three segment slots: the one being edited gets the action menu and, for what it needs, the move pad or
    the target and aim menus; buttons switch segments; Submit once the rules take the whole declaration."""
    board = known(state, ch.side)
    plan, disengage = plan_of(state, ch, draft)
    resting = plan[0].slot.kind in WHOLE_TURN
    k = 1 if resting else _edited(draft)
    seg = plan[k - 1]
    fields = {f"s{i}": s.slot.code if s.slot.kind != DEFEND else "" for i, s in enumerate(plan, start=1)}
    way = _way(board, ch, seg, draft)
    kept = Draft(**fields, e=str(k) if k != 1 else "", x="1" if disengage else "", g=way)
    controls: list[Control] = [_action_select(board, state, ch, seg, k)]
    controls.extend(_detail_controls(board, state, ch, seg, kept, f"s{k}"))
    controls.extend(
        Button(
            SEG[i],
            Text.of("panel.pbw.segment_button", n=str(i + 1), action=_short(plan[i].slot)),
            "primary" if i + 1 == k else "secondary",
            enabled=not resting or i == 0,
        )
        for i in range(SEGMENTS)
    )
    if can_disengage(board, ch.id):
        key = "panel.pbw.disengage_on" if disengage else "panel.pbw.disengage_off"
        controls.append(Button(DISENGAGE, Text.of(key), "danger" if disengage else "secondary"))
    order: dict[str, Any] | None = None
    if all(s.slot.complete for s in plan):
        acts = [action_of(state, s.slot, s.start) for s in plan]
        candidate = {"segments": [table_of(a) for a in acts], "disengage": disengage}
        if accepted(board, ch.id, candidate) is not None:  # the board as the side knows it (FOG-1)
            order = candidate
    controls.append(submit_button(enabled=order is not None))
    lines = [Text.of("panel.pbw.step.declare")]
    if order is None:
        lines.append(Text.of("panel.pbw.incomplete"))
    return replace(
        model,
        step=DECLARING,
        lines=tuple(lines),
        draft=kept,
        fields=(
            Field(
                Text.of("panel.pbw.declaration"),
                tuple(_segment_line(state, ch, i, s, i == k) for i, s in enumerate(plan, start=1)),
            ),
            *_numbers_field(board, state, ch, seg),
        ),
        controls=tuple(controls),
        summary=" ".join(_short_code(s.slot) for s in plan),
        order=order,
    )


def _action_select(
    board: EncounterState, state: EncounterState, ch: Character, seg: Segment, k: int
) -> Select:
    options: list[Option] = []
    for o in seg.options:
        if o.action == DRAW:
            for w in _draws(board, ch.id, seg.earlier):
                options.append(Option(f"w{w}", "", "panel.pbw.act.draw", (("weapon", _weapon_text(ch, w)),)))
            continue
        if o.action == TREAT:
            options.extend(_treat_option(state, ch, target, loc) for target, loc in _treats(board, ch.id))
            continue
        options.append(_action_option(ch, o))
    chosen = seg.slot.code if seg.slot.kind in (DRAW, TREAT) else CODE[seg.slot.kind]
    return Select(
        ACT,
        Text.of("panel.pbw.placeholder.act", n=str(k)),
        tuple(options[:MAX_OPTIONS]),
        chosen=(chosen,) if chosen in {o.value for o in options} else (),
        min_values=1,
    )


def _ways(board: EncounterState, ch: Character, seg: Segment) -> dict[str, list[Destination]]:
    """The reachable hexes by the hexside they lie toward (HEX-2), when more are reachable than a menu holds."""
    dests = _destinations(board, ch.id, seg.earlier)
    if len(dests) <= MAX_OPTIONS:
        return {}
    out: dict[str, list[Destination]] = {}
    for d in dests:
        out.setdefault(HexSide(side_toward(seg.start, d.to)).name, []).append(d)
    return out


def _way(board: EncounterState, ch: Character, seg: Segment | None, draft: Draft) -> str:
    """The direction picked on the destination menu, while the edited segment is a move that offers it."""
    if seg is None or seg.slot.kind != MOVE:
        return ""
    way = draft.text(WAY)
    return way if way in _ways(board, ch, seg) else ""


def _destination_select(
    board: EncounterState, ch: Character, seg: Segment, draft: Draft, slot_field: str
) -> Select | None:
    """PBW-2: every hex the move can end in, by a cheapest path, with the Movement it uses (a layer's surcharge
    included, NGT-5.1), cheapest first; with more than a menu holds, the directions first and the picked one's
    hexes. Each value is the move's own draft code, so a pick is the path the rules found, ready to submit."""
    ways = _ways(board, ch, seg)
    way = draft.text(WAY) if draft.text(WAY) in ways else ""
    if ways:
        heads = [
            Option(
                HEADING + side.name,
                side.name,
                "panel.pbw.way",
                (("target", Text.of(f"hexside.{side.name}")), ("count", str(len(ways[side.name])))),
            )
            for side in HexSide
            if side.name in ways and side.name != way
        ]
        dests: Sequence[Destination] = ways.get(way, [])
    else:
        heads, dests = [], _destinations(board, ch.id, seg.earlier)
    found: list[Option] = []
    for d in dests:
        if len(heads) + len(found) >= MAX_OPTIONS:
            break
        code = CODE[MOVE] + sides_of(seg.start, d.path)
        if fits(draft.replace(**{slot_field: code, WAY: "NW"})):  # with the longest direction beside it
            found.append(Option(code, d.to.label, "panel.pbw.dest", (("cost", str(d.used)),)))
    options = (*heads, *found)
    if not options:
        return None
    chosen = seg.slot.code if seg.slot.code in {o.value for o in found} else ""
    return Select(
        DEST,
        Text.of("panel.pbw.placeholder.dest"),
        options,
        chosen=(chosen,) if chosen else (),
        min_values=1,
    )


def _treat_option(state: EncounterState, ch: Character, target: str, loc: str) -> Option:
    """PBW-6: treating one wound the whole turn, with the turns already spent on it (of ten)."""
    number = unit_ids(state).index(target)
    t = ch.treating
    done = t.turns if t is not None and (t.target, t.location) == (target, loc) else 0
    params: tuple[tuple[str, str | Text], ...] = (
        ("target", state.units[target].name),
        ("loc", Text.of(term_key(loc, "pbw"))),
        ("turns", str(done)),
    )
    return Option(f"{CODE[TREAT]}{number}.{LOCATIONS.index(loc)}", "", "panel.pbw.act.treat", params)


def _action_option(ch: Character, o: ActionOption) -> Option:
    params: list[tuple[str, str | Text]] = [("movement", str(ch.movement))]
    if o.action == MOVE and o.athletics:
        tab = tables()
        skill = ch.skill("athletics")
        bonus = ch.attribute(tab.athletics_attribute) + skill
        difficulty = tab.athletics_difficulty + (GRADE_STEP if skill == 0 else 0)
        params += [("needed", str(min(max(difficulty - bonus, 3), 12)))]
        return Option(CODE[MOVE], "", "panel.pbw.act.move_athletics", tuple(params))
    if o.forfeit:
        params.append(("forfeit", str(o.forfeit)))
    return Option(CODE[o.action], "", f"panel.pbw.act.{o.action}", tuple(params))


def _detail_controls(
    board: EncounterState, state: EncounterState, ch: Character, seg: Segment, draft: Draft, slot_field: str
) -> list[Control]:
    """The destination menu and the move pad (each step enabled only where the path stays walkable), or the
    target and aim menus."""
    slot = seg.slot
    if slot.kind == MOVE:
        path = walk(seg.start, slot.sides)
        menu = _destination_select(board, ch, seg, draft, slot_field)
        out: list[Control] = [menu] if menu is not None else []
        for i, name in enumerate(SIDES):
            ok = fits(draft.replace(**{slot_field: slot.code + str(i)})) and _walkable(
                board, ch.id, (*path, (path[-1] if path else seg.start).neighbor(i)), seg.earlier
            )
            out.append(Button(name, Text.plain(ARROWS[i]), enabled=ok))
        out.append(Button(BACK, Text.plain("⌫"), enabled=bool(slot.sides)))
        return out
    if slot.kind not in (SHOOT, MELEE):
        return []
    ids = unit_ids(state)
    number = {uid: i for i, uid in enumerate(ids)}
    attacks = _attacks(board, ch.id, slot.kind, seg.earlier)
    options = tuple(
        Option(
            f"{number[a.target]}.{a.weapon}",
            state.units[a.target].name,
            "panel.pbw.attack",
            (
                ("weapon", _weapon_text(ch, a.weapon)),
                ("needed", str(a.to_hit.needed)),
                ("bonus", f"{a.to_hit.bonus:+d}"),
                ("difficulty", str(a.to_hit.difficulty)),
            ),
        )
        for a in attacks
        if a.target in number
    )[:MAX_OPTIONS]
    chosen = f"{slot.target}.{slot.weapon}" if slot.complete else ""
    controls: list[Control] = [
        Select(
            ATTACK,
            Text.of(f"panel.pbw.placeholder.{slot.kind}"),
            options,
            chosen=(chosen,) if chosen else (),
            min_values=1,
        )
    ]
    if slot.complete:
        target = ids[slot.target]
        aims = [Option(NO_AIM, "", "panel.pbw.no_aim")]
        for i, loc in enumerate(LOCATIONS):
            try:
                needed = to_hit_for(
                    board, ch.id, target, slot.kind, slot.weapon, aim=loc, earlier=seg.earlier
                ).needed
            except IllegalOrderError:
                continue
            aims.append(
                Option(
                    str(i),
                    "",
                    "panel.pbw.aim",
                    (("loc", Text.of(term_key(loc, "pbw"))), ("needed", str(needed))),
                )
            )
        controls.append(
            Select(
                AIM,
                Text.of("panel.pbw.placeholder.aim"),
                tuple(aims),
                chosen=(str(slot.aim) if slot.aim >= 0 else NO_AIM,),
                min_values=1,
            )
        )
    return controls


# --- a change of intention before a segment (PBW-2) ----------------------------------------------------------


def _changing(model: PanelModel, state: EncounterState, ch: Character, draft: Draft) -> PanelModel:
    """Keep the declared action (the default), or change it: one action is paid, a spare one or a later segment.
    Keeping changes nothing (PBW-2), so its Submit is told by this panel's edit alone (``quiet``)."""
    k = ext_of(state).segment
    board = known(state, ch.side)
    lines = [Text.of("panel.pbw.step.change", n=str(k))]
    if draft.text(CH) != "1":
        return replace(
            model,
            step=CHANGING,
            lines=tuple(lines),
            draft=Draft(),
            controls=(
                Button(KEEP, Text.of("panel.pbw.keep"), "success", submits=True, quiet=True),
                Button(CHANGE, Text.of("panel.pbw.change"), "primary"),
            ),
            summary=f"{k}",
            order=None,
        )
    options = _changes(board, ch.id)
    start = ch.at
    assert start is not None
    picked = parse_code(draft.text(NEW)) if draft.text(NEW) else None
    seg = None
    if picked is not None and picked.kind in {o.action for o in options}:
        seg = Segment(checked_slot(board, state, ch, picked, (), options), start, options, ())
    kept = Draft(ch="1", s0=seg.slot.code if seg is not None else "", g=_way(board, ch, seg, draft))
    act_options: list[Option] = []
    for o in options:
        if o.action == DRAW:
            act_options.extend(
                Option(f"w{w}", "", "panel.pbw.act.draw", (("weapon", _weapon_text(ch, w)),))
                for w in _draws(board, ch.id, ())
            )
        else:
            act_options.append(_action_option(ch, o))
    chosen = "" if seg is None else seg.slot.code if seg.slot.kind == DRAW else CODE[seg.slot.kind]
    controls: list[Control] = [
        Select(
            ACT,
            Text.of("panel.pbw.placeholder.change", n=str(k)),
            tuple(act_options[:MAX_OPTIONS]),
            chosen=(chosen,) if chosen in {o.value for o in act_options} else (),
            min_values=1,
        )
    ]
    order: dict[str, Any] | None = None
    new_line = Text.of("panel.pbw.choose_change")
    if seg is not None:
        controls.extend(_detail_controls(board, state, ch, seg, kept, NEW))
        new_line = _slot_text(state, ch, seg.slot, start)
        if seg.slot.complete:
            candidate = {"segment": k, **table_of(action_of(state, seg.slot, start))}
            if accepted(board, ch.id, candidate) is not None:  # as the side knows it (FOG-1)
                order = candidate
        forfeit = next((o.forfeit for o in options if o.action == seg.slot.kind), 0)
        lines.append(
            Text.of("panel.pbw.cost_forfeit", n=str(forfeit)) if forfeit else Text.of("panel.pbw.cost_spare")
        )
    controls += [
        Button(KEEP, Text.of("panel.pbw.keep"), "success", submits=True, quiet=True),
        Button(CANCEL, Text.of("panel.pbw.cancel")),
        Button(
            "submit", Text.of("panel.pbw.submit_change"), "danger", enabled=order is not None, submits=True
        ),
    ]
    return replace(
        model,
        step=CHANGING,
        lines=tuple(lines),
        draft=kept,
        fields=(
            *model.fields,
            Field(Text.of("panel.pbw.new_action", n=str(k)), (new_line,)),
            *(_numbers_field(board, state, ch, seg) if seg is not None else ()),
        ),
        controls=tuple(controls),
        summary=f"{k}: {_short_code(seg.slot) if seg is not None else '…'}",
        order=order,
    )


# --- what the embed says -------------------------------------------------------------------------------------


def _reason(name: str) -> Text:
    key = f"panel.pbw.reason.{name}"
    return Text.of(key) if has(key, "en") else Text.of(term_key(name, "pbw"))


def _numbers(ch: Character, th: ToHit) -> tuple[Text, ...]:
    """PBW-5/DICE-3 what an attack needs, explained: 2d6 + attribute + skill + modifiers against the difficulty."""
    spec = tables().weapon(th.weapon)
    mods: dict[str, str | Text] = {
        "attribute": Text.of(f"panel.pbw.attribute.{spec.attribute}"),
        "a": str(th.attribute),
        "skill": Text.of(f"panel.pbw.skill.{spec.skill}"),
        "s": str(th.skill),
    }
    bonus = "{attribute} {a} + {skill} {s}"
    for i, (name, value) in enumerate(th.modifiers):
        bonus += f", {{m{i}}} {{v{i}}}"
        mods[f"m{i}"], mods[f"v{i}"] = _reason(name), f"{value:+d}"
    parts: dict[str, str | Text] = {}
    difficulty = " + ".join(f"{{p{i}}} {{q{i}}}" for i in range(len(th.parts)))
    for i, (name, value) in enumerate(th.parts):
        parts[f"p{i}"], parts[f"q{i}"] = _reason(name), str(value)
    return (
        Text.of(
            "panel.pbw.to_hit", needed=str(th.needed), bonus=f"{th.bonus:+d}", difficulty=str(th.difficulty)
        ),
        Text.of("panel.pbw.bonus", terms=Text.plain(bonus, **mods)),
        Text.of("panel.pbw.difficulty", terms=Text.plain(difficulty, **parts)),
    )


def _numbers_field(
    board: EncounterState, state: EncounterState, ch: Character, seg: Segment
) -> tuple[Field, ...]:
    slot = seg.slot
    if slot.kind not in (SHOOT, MELEE) or not slot.complete:
        return ()
    act = action_of(state, slot, seg.start)
    try:
        th = to_hit_for(board, ch.id, act.target, slot.kind, slot.weapon, aim=act.aim, earlier=seg.earlier)
    except IllegalOrderError:
        return ()
    return (Field(Text.of("panel.pbw.numbers"), _numbers(ch, th)),)


def _weapon_text(ch: Character, weapon: int) -> Text:
    kind = ch.weapons[weapon - 1].type if 0 < weapon <= len(ch.weapons) else "fists"
    return Text.of(term_key(kind, "pbw"))


def _stats(ch: Character, state: EncounterState) -> tuple[Stat, ...]:
    held = _weapon_text(ch, ch.held + 1) if ch.held is not None else Text.of("panel.pbw.empty_hands")
    where = ch.at.label if ch.at is not None else "-"
    return (
        Stat("pbw_hp", f"{ch.hp}/{ch.max_hp or ch.hp}"),
        Stat("pbw_fatigue", f"{ch.fatigue}/{ch.fatigue_attribute}"),
        Stat("pbw_actions", str(ch.actions_per_turn())),
        Stat("pbw_initiative", str(ch.initiative)),
        Stat("pbw_held", held),
        Stat("pbw_at", where),
        Stat("pbw_state", Text.of(term_key(ch.condition, "pbw"))),
        *_treatment_stats(ch, state),
    )


def _treatment_stats(ch: Character, state: EncounterState) -> tuple[Stat, ...]:
    """PBW-6: the count of a treatment under way, on the healer's panel and on the patient's (a healer the
    patient's side cannot see is not named)."""
    out: list[Stat] = []
    if ch.treating is not None and ch.treating.turns:
        t = ch.treating
        target = state.units[t.target].name if t.target in state.units else t.target
        loc = Text.of(term_key(t.location, "pbw"))
        out.append(
            Stat("pbw_treating", Text.of("panel.pbw.treating", target=target, loc=loc, turns=str(t.turns)))
        )
    seen = visibility(ruleset_for(state), state, ch.side).units
    for healer in state.units_of(Character):
        t = healer.treating
        if t is None or not t.turns or t.target != ch.id or healer.id == ch.id or healer.id not in seen:
            continue
        loc = Text.of(term_key(t.location, "pbw"))
        text = Text.of("panel.pbw.treated_by", healer=healer.name, loc=loc, turns=str(t.turns))
        out.append(Stat("pbw_treated", text))
    return tuple(out)


def _short(slot: Slot) -> Text:
    return Text.of(f"panel.pbw.short.{slot.kind}")


def _short_code(slot: Slot) -> str:
    return slot.code[:8] + ("?" if not slot.complete else "")


def _slot_text(state: EncounterState, ch: Character, slot: Slot, start: Hex) -> Text:
    if not slot.complete:
        return Text.of(f"panel.pbw.needs.{slot.kind}")
    act = action_of(state, slot, start)
    return _action_text(state, ch, act)


def _action_text(state: EncounterState, ch: Character, act: SegmentAction) -> Text:
    weapon = _weapon_text(ch, act.weapon) if act.weapon else Text.of("panel.pbw.in_hand")
    target = state.units[act.target].name if act.target in state.units else ""
    key = f"panel.pbw.do.{act.action}" + ("_aimed" if act.aim else "")
    return Text.of(
        key,
        to=act.path[-1].label if act.path else "",
        hexes=str(len(act.path)),
        target=target,
        weapon=weapon,
        aim=Text.of(term_key(act.aim, "pbw")) if act.aim else "",
    )


def _segment_line(state: EncounterState, ch: Character, k: int, seg: Segment, current: bool) -> Text:
    mark = "▶" if current else "·"
    return Text.of(
        "panel.pbw.segment_line", mark=mark, n=str(k), action=_slot_text(state, ch, seg.slot, seg.start)
    )


def _declared_fields(state: EncounterState, ch: Character) -> tuple[Field, ...]:
    """The character's locked declaration (public once locked), segment by segment, the resolved ones marked."""
    ext = ext_of(state)
    rec = ext.records.get(ch.id)
    if rec is None:
        return ()
    lines: list[Text] = []
    for k, act in enumerate(rec.plan, start=1):
        mark = "✓" if k in rec.resolved else ("▶" if k == ext.segment else "·")
        text = Text.of("panel.pbw.do.lost") if act.action == LOST else _action_text(state, ch, act)
        lines.append(Text.of("panel.pbw.segment_line", mark=mark, n=str(k), action=text))
    return (Field(Text.of("panel.pbw.declared"), tuple(lines)),)


def _waiting_lines(state: EncounterState, ch: Character, owing: bool) -> tuple[Text, ...]:
    """Who declares now (PBW-1), on a panel that waits."""
    if owing or state.over or state.phase != DECLARE:
        return ()
    nxt = next_declarer(state)
    if nxt is None or nxt not in state.units:
        return ()
    unit = state.units[nxt]
    if unit.hidden and unit.side != ch.side:
        return ()
    return (Text.of("panel.pbw.declaring_now", name=unit.name),)


def _code_of(state: EncounterState, raw: Any, start: Hex) -> tuple[str, Hex]:
    """A stored segment table back into its draft code, and where the segment leaves the character."""
    if not isinstance(raw, dict):
        return "d", start
    seg = cast(dict[str, Any], raw)
    kind = str(seg.get("action", ""))
    if kind not in CODE:
        return "d", start
    if kind == MOVE:
        try:
            path = tuple(Hex.parse(str(h)) for h in cast(list[Any], seg.get("path") or []))
        except ValueError:
            return "m", start
        sides = sides_of(start, path)
        return "m" + sides, path[-1] if sides and path else start
    weapon = seg.get("weapon", 0)
    weapon = weapon if isinstance(weapon, int) and not isinstance(weapon, bool) else 0
    if kind == DRAW:
        return f"w{weapon}" if weapon else "w", start
    if kind in (SHOOT, MELEE):
        ids = unit_ids(state)
        target = str(seg.get("target", ""))
        aim = str(seg.get("aim", ""))
        slot = Slot(
            kind,
            target=ids.index(target) if target in ids else -1,
            weapon=weapon,
            aim=LOCATIONS.index(aim) if aim in LOCATIONS else -1,
        )
        return slot.code, start
    return CODE[kind], start


PANEL = ModulePanel(build_panel, apply, raw_order, draft_from_raw, preview)
