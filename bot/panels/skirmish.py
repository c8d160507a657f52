"""The skirmish (Sombrachapas) order panel: the activated character's legal actions right now, one select per
kind of action, or the overwatch question put to a watcher.

Nothing here decides legality: every candidate action is written as the text the skirmish parser reads
(``move 0506 facing N-NE``, ``shoot tyrano``) and kept only if the ruleset's own ``parse_order`` and
``validate_order`` accept it (SK-1.1 whose turn, SK-1.2 AP, SK-2.x where to, SK-3.x/5.1/6.2 sight and range);
targets are further limited to enemies the character's side can see (``rules.engine.visibility``), so a hidden
enemy is never offered. The cost shown is the legality module's ``action_cost``.

A move is one Submit however many hexes it crosses: the Move menu lists the hexes the character can reach with its
AP, each by the cheapest path the rules find (``rules.skirmish.paths.reach``) and labelled with its cost; once a
hex is picked, a facing menu, in the turn menu's row, offers the ends the rules allow there, each with its path's
cost. When more hexes are reachable than a menu holds, the Move menu lists the directions (hexsides, HEX-2) first,
then the picked direction's hexes, cheapest first.

Draft fields: ``action`` (the chosen action's text), ``way`` (the direction picked for the Move menu) and
``choice`` (the answer to the overwatch question).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from bot.panels import ModulePanel, accepted
from bot.panels.draft import Draft, fits
from bot.panels.memo import per_state
from bot.panels.model import (
    MAX_OPTIONS,
    WAIT,
    Button,
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
from data.i18n import has
from rules.engine import visibility
from rules.hexgrid import Hex, HexSide, Vertex, side_toward, vertex_ahead, vertex_behind
from rules.registry import ruleset_for
from rules.skirmish.activation import ext_of
from rules.skirmish.geometry import move_targets
from rules.skirmish.legality import action_cost, path_steps
from rules.skirmish.model import Character, SkMove, action_kind
from rules.skirmish.paths import path_text, reach
from rules.skirmish.tables import POLICIES
from rules.state import EncounterState

GROUPS = ("move", "turn", "attack", "other")  # one select each
ATTACKS = ("shoot", "melee", "grenade")
ACT_PRESETS = ("search", "use", "open")  # SK-6.1 other actions the panel offers ready-made
ANSWERS = ("fire", "hold")  # SK-4.1 overwatch question
END = "end"  # SK-1.1: ends the activation, needs no choice (the button submits at once)
DECIDE = "decide"
WAY, FACING = "way", "facing"  # the direction menu (when many hexes are reachable) and the end-facing menu
ACTION, CHOICE = "action", "choice"


# --- the plug-in interface (bot.panels.PanelPlugin, wired up in the class at the end) ---------------------


def build_panel(state: EncounterState, unit_id: str, *, draft: Draft, owing: bool) -> PanelModel:
    base = replace(blank_panel(state, unit_id), lines=(_step_line(WAIT),))
    unit = state.units.get(unit_id)
    if not isinstance(unit, Character):
        return base
    model = replace(base, stats=_stats(unit), lines=(_step_line(WAIT), *_turn_lines(state, unit, owing)))
    if not owing or state.over or not unit.acting:
        return model
    pending = state.pending
    if pending is None:
        return _actions(model, state, unit, draft)
    if pending.unit != unit.id or pending.kind != "overwatch":
        return model
    return _question(model, state, unit, draft)


def apply(model: PanelModel, action: str, values: tuple[str, ...] | None) -> Draft:
    if values is not None:
        offered = {o.value for o in model.options(action)}
        picked = next((v for v in values if v in offered), "")
        if picked.startswith(f"{WAY} "):  # a direction on the Move menu: its hexes come next
            return model.draft.replace(way=picked.removeprefix(f"{WAY} "), action="")
        return model.draft.replace(**{CHOICE if action == DECIDE else ACTION: picked})
    if action == END:
        return model.draft.replace(action=END)
    return model.draft


def raw_order(model: PanelModel) -> Any:
    """The action text for the skirmish parser: the answer to the question, or the chosen action (``end`` is
    always offered); an empty draft gives ``""``, which the parser refuses with its own message."""
    if model.step == "decision":
        return model.draft.text(CHOICE)
    chosen = model.draft.text(ACTION)
    offered = {o.value for group in (*GROUPS, FACING) for o in model.options(group)}
    return chosen if chosen == END or chosen in offered else ""


def draft_from_raw(state: EncounterState, unit_id: str, raw: Any) -> Draft:
    if not isinstance(raw, str):
        return Draft()
    asked = state.pending is not None and state.pending.unit == unit_id
    return Draft(**{CHOICE if asked else ACTION: raw})


def preview(state: EncounterState, model: PanelModel) -> Preview | None:
    """Path and end facing of a chosen ``move``/``back`` action (SK-2.2/2.3)."""
    if model.step != "orders":
        return None
    return projection(state, model.unit_id, model.draft.text(ACTION))


# --- the steps -----------------------------------------------------------------------------------------------


def _step_line(step: str) -> Text:
    return Text.of(f"panel.sk.step.{step}")


def _actions(model: PanelModel, state: EncounterState, unit: Character, draft: Draft) -> PanelModel:
    """One select per kind of action (move, turn, attack, other), Submit and End activation."""
    by_group = dict(legal_actions(state, unit.id))
    way = draft.text(WAY) if draft.text(WAY) in _ways(state, unit.id) else ""
    by_group["move"] = move_options(state, unit.id, way)
    action = draft.text(ACTION)
    # a hex picked on the Move menu brings its default end; the facing menu then offers every end the rules allow
    # there, in the turn menu's row (Discord shows five rows; a move and a turn in place exclude each other)
    facings = move_facings(state, unit.id, action)
    if facings:
        by_group["turn"] = ()
    offered = {o.value: o for options in (*by_group.values(), facings) for o in options}
    action = action if action == END or action in offered else ""
    hex_chosen = next((o.value for o in by_group["move"] if action and _dest(o.value) == _dest(action)), "")
    selects: list[Select] = []
    for group, options in by_group.items():
        if group == "turn" and facings:
            selects.append(
                Select(
                    FACING,
                    Text.of("panel.sk.placeholder.facing"),
                    facings,
                    chosen=(action,) if action in {o.value for o in facings} else (),
                    min_values=1,
                )
            )
        if not options:
            continue
        chosen = hex_chosen if group == "move" else action if action in {o.value for o in options} else ""
        selects.append(
            Select(
                group,
                Text.of(f"panel.sk.placeholder.{group}"),
                options,
                chosen=(chosen,) if chosen else (),
                min_values=1,
            )
        )
    return replace(
        model,
        step="orders",
        lines=(_step_line("orders"),),
        draft=Draft(action=action, way=way),
        fields=(Field(Text.of("panel.sk.chosen"), (_chosen_text(offered.get(action), action),)),),
        controls=(
            *selects,
            submit_button(enabled=bool(action)),
            Button(END, Text.of("panel.sk.end"), "danger", submits=True),
        ),
        summary=action,
    )


def _question(model: PanelModel, state: EncounterState, watcher: Character, draft: Draft) -> PanelModel:
    """SK-4.1: the watcher fires or holds."""
    assert state.pending is not None
    answers = tuple(
        Option(a, a, f"panel.sk.answer.{a}") for a in state.pending.options or ANSWERS if a in ANSWERS
    )
    choice = draft.text(CHOICE)
    found = next((o for o in answers if o.value == choice), None)
    choice = choice if found is not None else ""
    return replace(
        model,
        step="decision",
        lines=(_step_line("decision"), *_question_lines(state, watcher)),
        draft=Draft(choice=choice),
        fields=(Field(Text.of("panel.sk.chosen"), (_chosen_text(found, choice),)),),
        controls=(
            Select(
                DECIDE,
                Text.of("panel.sk.placeholder.answer"),
                answers,
                chosen=(choice,) if choice else (),
                min_values=1,
            ),
            submit_button(enabled=bool(choice)),
        ),
        summary=choice,
    )


def _chosen_text(option: Option | None, chosen: str) -> Text:
    if not chosen:
        return Text.of("panel.sk.nothing_chosen")
    if chosen == END:
        return Text.of("panel.sk.end")
    if option is None:
        return Text.plain(f"`{chosen}`")
    return Text.plain("{label}  `{code}`", label=option.text, code=chosen)


# --- what the rules allow ------------------------------------------------------------------------------------


@per_state
def legal_actions(state: EncounterState, unit_id: str) -> dict[str, tuple[Option, ...]]:
    """Every action the character may take now, by kind, at most 25 per kind (Discord's select limit)."""
    ch = state.unit_as(unit_id, Character)
    # moves are checked against what the side knows: a hex held by an enemy it cannot see must still be offered,
    # or the missing option would give that enemy away (FOG-1); Submit then meets the real board
    known = _as_known_by(state, ch.side)
    out: dict[str, tuple[Option, ...]] = {}
    for group, candidates, board in (
        ("move", [], known),  # the Move menu is move_options', by the paths the rules find
        ("turn", _turns(ch), state),
        ("attack", _attacks(state, ch), state),
        ("other", _others(), state),
    ):
        found: list[Option] = []
        for text, label, key in candidates:
            cost = action_cost_of(board, ch.id, text) if fits(Draft(action=text)) else None
            if cost is not None and len(found) < MAX_OPTIONS:
                shown = _shown(label)
                extra = (("target", shown),) if shown is not None else ()
                found.append(Option(text, label, key, (("cost", str(cost)), *extra)))
        out[group] = tuple(found)
    return out


def _as_known_by(state: EncounterState, side: str) -> EncounterState:
    seen = visibility(ruleset_for(state), state, side).units
    hidden = [uid for uid, unit in state.units.items() if unit.side != side and uid not in seen]
    if not hidden:
        return state
    return state.replace(units={uid: u for uid, u in state.units.items() if uid not in hidden})


def action_cost_of(state: EncounterState, unit_id: str, text: str) -> int | None:
    """The AP ``text`` costs now if the rules accept it (the exact check Submit runs), else None."""
    order = accepted(state, unit_id, text)
    if order is None:
        return None
    return action_cost(state, state.unit_as(unit_id, Character), order)


def projection(state: EncounterState, unit_id: str, text: str) -> Preview | None:
    """Path and end facing of a legal ``move``/``back`` action, for the private preview image (SK-2.2/2.3)."""
    order = accepted(state, unit_id, text) if text.startswith(("move ", "back ")) else None
    unit = state.units.get(unit_id)
    if not isinstance(order, SkMove) or not isinstance(unit, Character) or unit.at is None:
        return None
    steps = path_steps(state, unit, order)
    end = steps[-1].facing
    return Preview((unit.at, *(step.to for step in steps)), unit.facing if end is None else end)


# --- the Move menu: hexes within reach, then the end facing ------------------------------------------------


@per_state
def _reach(state: EncounterState, unit_id: str) -> dict[Hex, dict[int, tuple[int, str]]]:
    """For every hex the character can reach, by end facing: the AP and the action text of the cheapest path
    there the rules accept. Reckoned on the board as the side knows it: a hex held by an enemy it cannot see must
    still be offered, or the missing option would give that enemy away (FOG-1); Submit then meets the real board."""
    ch = state.unit_as(unit_id, Character)
    if ch.at is None:
        return {}
    known = _as_known_by(state, ch.side)
    out: dict[Hex, dict[int, tuple[int, str]]] = {}
    if ch.astride is not None:
        # astride two half hexes a character steps out one hex at a time, to the hex beyond either end of its
        # side (SK-2.5); a path starts from a whole hex
        for backward in (False, True):
            for to in move_targets(ch, backward=backward):
                for facing in range(6):
                    text = path_text(ch.facing, (to,), facing, backward=backward)
                    cost = action_cost_of(known, ch.id, text)
                    if cost is not None and fits(Draft(action=text, way="NW")):
                        out.setdefault(to, {})[facing] = (cost, text)
        return out
    for (to, facing), (cost, _turned, hexes) in reach(known, ch).items():
        first = hexes[0]
        backward = first not in vertex_ahead(ch.at, ch.facing) and first in vertex_behind(ch.at, ch.facing)
        text = path_text(ch.facing, hexes, facing, backward=backward)
        if fits(Draft(action=text, way="NW")):  # with the longest direction beside it
            out.setdefault(to, {})[facing] = (cost, text)
    return out


def _cheapest(ends: dict[int, tuple[int, str]]) -> tuple[int, str]:
    return min(ends.values())


def _ways(state: EncounterState, unit_id: str) -> dict[str, list[Hex]]:
    """The reachable hexes by the hexside they lie toward (HEX-2), when more are reachable than a menu holds."""
    reachable = _reach(state, unit_id)
    ch = state.unit_as(unit_id, Character)
    if len(reachable) <= MAX_OPTIONS or ch.at is None:
        return {}
    out: dict[str, list[Hex]] = {}
    for to in reachable:
        out.setdefault(HexSide(side_toward(ch.at, to)).name, []).append(to)
    return out


@per_state
def move_options(state: EncounterState, unit_id: str, way: str) -> tuple[Option, ...]:
    """The Move menu: every reachable hex with its cheapest path's AP, cheapest first (then by label); with more
    than a menu holds, the directions first and the picked direction's hexes."""
    reachable = _reach(state, unit_id)
    ways = _ways(state, unit_id)
    known = _as_known_by(state, state.unit_as(unit_id, Character).side)
    if ways:
        heads = [
            Option(
                f"{WAY} {w.name}",
                w.name,
                "panel.sk.way",
                (("target", Text.of(f"hexside.{w.name}")), ("count", str(len(ways[w.name])))),
            )
            for w in HexSide
            if w.name in ways and w.name != way
        ]
        hexes = ways.get(way, [])
    else:
        heads, hexes = [], list(reachable)
    found: list[Option] = []
    for to in sorted(hexes, key=lambda h: (_cheapest(reachable[h])[0], h.label)):
        if len(heads) + len(found) >= MAX_OPTIONS:
            break
        cost, text = _cheapest(reachable[to])
        if action_cost_of(known, unit_id, text) == cost:  # the very check Submit runs
            found.append(Option(text, to.label, "panel.sk.move", (("cost", str(cost)),)))
    return (*heads, *found)


def move_facings(state: EncounterState, unit_id: str, text: str) -> tuple[Option, ...]:
    """The ends a chosen move may have at its hex, each by its own cheapest path (SK-2.2: turning on the way)."""
    to = _dest(text)
    return _ends(state, unit_id, to) if to is not None else ()


@per_state
def _ends(state: EncounterState, unit_id: str, to: Hex) -> tuple[Option, ...]:
    ends = _reach(state, unit_id).get(to)
    if not ends:
        return ()
    known = _as_known_by(state, state.unit_as(unit_id, Character).side)
    return tuple(
        Option(
            end,
            Vertex(facing).label,
            "panel.sk.facing",
            (("target", vertex_text(facing)), ("cost", str(cost))),
        )
        for facing, (cost, end) in sorted(ends.items())
        if action_cost_of(known, unit_id, end) == cost
    )


def _dest(text: str) -> Hex | None:
    """The hex a move's action text ends in (``move 0306 0307 facing N-NE`` → 0307)."""
    words = text.split()
    if len(words) < 2 or words[0] not in ("move", "back"):
        return None
    hexes = words[1 : words.index("facing")] if "facing" in words else words[1:]
    try:
        return Hex.parse(hexes[-1]) if hexes else None
    except ValueError:
        return None


def vertex_text(vertex: int) -> Text:
    """A vertex in the reader's spelling: "S-SW" reads "S-SO" in Spanish (HEX-2)."""
    a, b = Vertex(vertex % 6).name.split("_")
    return Text.plain("{a}-{b}", a=Text.of(f"hexside.{a}"), b=Text.of(f"hexside.{b}"))


def _shown(label: str) -> Text | None:
    """A candidate's label with its vertex in the reader's spelling ("1107 · SW-NW", "N-NE"); None: as it is."""
    hex_part, sep, vertex = label.rpartition(" · ")
    try:
        v = Vertex.parse(vertex)
    except ValueError:
        return None
    return Text.plain("{hex}{sep}{vertex}", hex=hex_part, sep=sep, vertex=vertex_text(v))


def _turns(ch: Character) -> list[tuple[str, str, str]]:
    return [(f"turn {Vertex(v).label}", Vertex(v).label, "panel.sk.turn") for v in range(6) if v != ch.facing]


def _attacks(state: EncounterState, ch: Character) -> list[tuple[str, str, str]]:
    seen = visibility(ruleset_for(state), state, ch.side).units
    enemies = sorted(
        (u for u in state.units_of(Character) if u.side != ch.side and u.acting and u.id in seen),
        key=lambda u: u.id,
    )
    return [(f"{verb} {u.id}", u.name, f"panel.sk.{verb}") for verb in ATTACKS for u in enemies]


def _others() -> list[tuple[str, str, str]]:
    watch = [(f"overwatch {p}", p, f"panel.sk.overwatch.{p}") for p in POLICIES]
    acts = [(f"act {a}", a, f"panel.sk.act.{a}") for a in ACT_PRESETS]
    return watch + acts


# --- what the embed says -------------------------------------------------------------------------------------


def _stats(ch: Character) -> tuple[Stat, ...]:
    where = (
        Text.plain("{hex} · {vertex}", hex=ch.at.label, vertex=vertex_text(ch.facing))
        if ch.at is not None
        else "-"
    )
    policy = ch.overwatch
    return (
        Stat("ap", f"{ch.ap_left}/{ch.ap}"),
        Stat("wounds", f"{ch.wounds}/{ch.max_wounds}"),
        Stat("position", where),
        Stat(
            "overwatch", Text.of(f"policy.{policy}") if policy and has(f"policy.{policy}") else policy or "—"
        ),
    )


def _turn_lines(state: EncounterState, ch: Character, owing: bool) -> tuple[Text, ...]:
    """Whose turn it is (SK-1.1), shown on panels that wait: by name only the units the panel's side sees
    (FOG-1, NGT-9); units it cannot see are not named, nor counted."""
    if owing or state.over:
        return ()
    ruleset = ruleset_for(state)
    awaiting = [u for u in ruleset.awaiting(state) if u in state.units]
    if not awaiting:
        return ()
    seen = visibility(ruleset, state, ch.side).units
    acting = [state.units[u].name for u in awaiting if u in seen]
    if not acting:
        return (Text.of("panel.sk.turn_of_unseen"),)
    return (Text.of("panel.sk.turn_of", names=", ".join(acting)),)


def _question_lines(state: EncounterState, watcher: Character) -> tuple[Text, ...]:
    """SK-4.1: who is spending AP in the watcher's sight, on what, and the shots the watcher has left."""
    trigger = ext_of(state).trigger
    if trigger is None:
        return ()
    actor = state.units.get(trigger.actor)
    kind = action_kind(trigger.order)
    return (
        Text.of(
            "panel.sk.question",
            actor=actor.name if actor is not None else trigger.actor,
            action=Text.of(f"panel.sk.kind.{kind}") if has(f"panel.sk.kind.{kind}") else kind,
            cost=str(trigger.cost),
            shots=str(watcher.overwatch_shots_left),
        ),
    )


PANEL = ModulePanel(build_panel, apply, raw_order, draft_from_raw, preview)
