"""The skirmish (Sombrachapas) order panel as data: the activated character's legal actions right now, or the
overwatch question put to a watcher. Pure (no Discord); ``bot.panel_model.build_panel`` dispatches here.

Nothing here decides legality: every candidate action is written as the text the skirmish parser reads
(``move 0506 facing N-NE``, ``shoot tyrano``) and kept only if the ruleset's own ``parse_order`` and
``validate_order`` accept it (SK-1.1 whose turn, SK-1.2 AP, SK-2.x where to, SK-3.x/5.1/6.2 sight and range);
targets are further limited to enemies the character's side can see (``rules.engine.visibility``), so a hidden
enemy is never offered. The cost shown is the legality module's ``action_cost``.
"""

from __future__ import annotations

from dataclasses import replace

from bot.panel_model import MAX_OPTIONS, Option, PanelModel
from rules.engine import visibility
from rules.errors import GameError
from rules.hexgrid import Hex, Vertex
from rules.registry import ruleset_for
from rules.ruleset import Order
from rules.skirmish.activation import ext_of
from rules.skirmish.geometry import move_targets
from rules.skirmish.legality import action_cost
from rules.skirmish.model import Character, SkMove, action_kind
from rules.skirmish.tables import POLICIES
from rules.state import EncounterState

GROUPS = ("move", "turn", "attack", "other")
ATTACKS = ("shoot", "melee", "grenade")
ACT_PRESETS = ("search", "use", "open")  # SK-6.1 other actions the panel offers ready-made
ANSWERS = ("fire", "hold")  # SK-4.1 overwatch question
END = "end"

Params = tuple[tuple[str, str], ...]


def skirmish_panel(state: EncounterState, base: PanelModel, owing: bool) -> PanelModel:
    unit = state.units.get(base.unit_id)
    if not isinstance(unit, Character):
        return base
    model = replace(base, ruleset="skirmish", stats=_stats(unit), lines=_turn_lines(state, unit, owing))
    if not owing or state.over or not unit.acting:
        return model
    pending = state.pending
    if pending is not None:
        if pending.unit != unit.id or pending.kind != "overwatch":
            return model
        options = tuple(
            Option(a, a, f"panel.sk.answer.{a}") for a in pending.options or ANSWERS if a in ANSWERS
        )
        return replace(model, step="decision", decision_options=options, lines=_question(state, unit))
    return replace(model, step="orders", action_options=legal_actions(state, unit))


def skirmish_raw_order(model: PanelModel) -> str:
    """The action text for the skirmish parser: the answer to the question, or the chosen action (``end`` is
    always offered); an empty draft gives ``""``, which the parser refuses with its own message."""
    if model.step == "decision":
        return model.draft.choice
    chosen = model.draft.action
    if chosen == END or chosen in {o.value for o in model.action_options}:
        return chosen
    return ""


def legal_actions(state: EncounterState, ch: Character) -> tuple[Option, ...]:
    """Every action ``ch`` may take now, at most 25 per group (Discord's select limit)."""
    out: list[Option] = []
    # moves are checked against what the side knows: a hex held by an enemy it cannot see must still be offered,
    # or the missing option would give that enemy away (FOG-1); Submit then meets the real board
    known = _as_known_by(state, ch.side)
    for group, candidates, board in (
        ("move", _moves(ch), known),
        ("turn", _turns(ch), state),
        ("attack", _attacks(state, ch), state),
        ("other", _others(), state),
    ):
        found: list[Option] = []
        for text, label, key in candidates:
            cost = action_cost_of(board, ch.id, text)
            if cost is not None and len(found) < MAX_OPTIONS:
                found.append(Option(text, label, key, (("cost", str(cost)),), group))
        out.extend(found)
    return tuple(out)


def _as_known_by(state: EncounterState, side: str) -> EncounterState:
    seen = visibility(ruleset_for(state), state, side).units
    hidden = [uid for uid, unit in state.units.items() if unit.side != side and uid not in seen]
    if not hidden:
        return state
    return state.replace(units={uid: u for uid, u in state.units.items() if uid not in hidden})


def action_cost_of(state: EncounterState, unit_id: str, text: str) -> int | None:
    """The AP ``text`` costs now if the rules accept it (the exact check Submit runs), else None."""
    order = _accepted(state, unit_id, text)
    if order is None:
        return None
    return action_cost(state, state.unit_as(unit_id, Character), order)


def projection(
    state: EncounterState, unit_id: str, text: str
) -> tuple[tuple[Hex, ...], int, Hex | None] | None:
    """Path and end facing of a legal ``move``/``back`` action, for the private preview image (SK-2.2/2.3)."""
    order = _accepted(state, unit_id, text) if text.startswith(("move ", "back ")) else None
    unit = state.units.get(unit_id)
    if not isinstance(order, SkMove) or not isinstance(unit, Character) or unit.at is None:
        return None
    facing = unit.facing if order.facing is None else order.facing
    return (unit.at, order.to), facing, None


def _accepted(state: EncounterState, unit_id: str, text: str) -> Order | None:
    ruleset = ruleset_for(state)
    try:
        order = ruleset.parse_order(state, unit_id, text)
        ruleset.validate_order(state, unit_id, order)
    except GameError:
        return None
    return order


# --- candidates (text, label, i18n key); the rules filter them --------------------------------------------


def _moves(ch: Character) -> list[tuple[str, str, str]]:
    """SK-2.2 forward / SK-2.3 backward into the two hexes at the facing (or opposite) vertex, ending with any
    facing (SK-2.1 turning on the way: up to 2 vertices free, 3 costs extra)."""
    if ch.at is None:
        return []
    out: list[tuple[str, str, str]] = []
    facings = [ch.facing, *(v for v in range(6) if v != ch.facing)]
    for verb in ("move", "back"):
        for to in move_targets(ch, backward=verb == "back"):
            for facing in facings:
                vertex = Vertex(facing).label
                text = f"{verb} {to.label}" if facing == ch.facing else f"{verb} {to.label} facing {vertex}"
                out.append((text, f"{to.label} · {vertex}", f"panel.sk.{verb}"))
    return out


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


def _stats(ch: Character) -> tuple[tuple[str, str], ...]:
    where = f"{ch.at.label} · {Vertex(ch.facing % 6).label}" if ch.at is not None else "-"
    return (
        ("ap", f"{ch.ap_left}/{ch.ap}"),
        ("wounds", f"{ch.wounds}/{ch.max_wounds}"),
        ("position", where),
        ("overwatch", ch.overwatch or "—"),
    )


def _turn_lines(state: EncounterState, ch: Character, owing: bool) -> tuple[tuple[str, Params], ...]:
    """Whose turn it is (SK-1.1), shown on panels that wait."""
    if owing or state.over:
        return ()
    ruleset = ruleset_for(state)
    acting = [state.units[u].name for u in ruleset.awaiting(state) if u in state.units]
    if not acting:
        return ()
    return (("panel.sk.turn_of", (("names", ", ".join(acting)),)),)


def _question(state: EncounterState, watcher: Character) -> tuple[tuple[str, Params], ...]:
    """SK-4.1: who is spending AP in the watcher's sight, on what, and the shots the watcher has left."""
    trigger = ext_of(state).trigger
    if trigger is None:
        return ()
    actor = state.units.get(trigger.actor)
    params: Params = (
        ("actor", actor.name if actor is not None else trigger.actor),
        ("action", action_kind(trigger.order)),
        ("cost", str(trigger.cost)),
        ("shots", str(watcher.overwatch_shots_left)),
    )
    return (("panel.sk.question", params),)
