"""The ocs panels (RULES.md §4, ``director`` order mode): the director's procedure panel and a side's answers.

- The director's panel belongs to the pseudo-unit :data:`rules.ruleset.DIRECTOR` (``/orders`` and a DM at every
  step). A first select says what to do: open a combat (the defender hex, then the attackers that may attack it,
  then the attack type, OCS-2/OCS-5, with the odds and column shown before any die, OCS-3/OCS-4), answer a
  question an open combat asks (for an absent player), move a unit freely (logged), change a unit's mode (OCS-1),
  or call a combat off.
- A unit's panel answers the question its combat asks of its side: the AR unit (OCS-2), the losses beyond the
  first step and the option steps (OCS-6), the retreat hexes (OCS-6).

Nothing here decides legality: every choice comes from :mod:`rules.ocs.queries`, which keeps only what the
rules' own checks accept, and Submit stays disabled until the rules accept the whole order
(:func:`bot.panels.accepted`).

Draft fields: ``task`` (the director's choice), ``at``, ``att`` (list), ``kind`` (opening a combat); ``who``,
``to``, ``mode`` (moves and modes); ``combat`` (cancel); ``ar``, ``loss``, ``rt0``… (answers).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import Any, cast

from bot.panels import ModulePanel, accepted
from bot.panels.draft import Draft, most_that_fit
from bot.panels.model import (
    MAX_OPTIONS,
    Card,
    Field,
    Option,
    PanelModel,
    Preview,
    Select,
    Stat,
    Text,
    blank_panel,
    phase_text,
    submit_button,
)
from rules.events import Event
from rules.hexgrid import Hex, spiral
from rules.ocs.events import OcsActionRatings, OcsColumn, OcsCombatRoll, OcsOdds, OcsSurprise
from rules.ocs.legality import PLAYERS_OPEN_COMBATS, loss_question
from rules.ocs.model import (
    ATTACKER,
    ATTACKER_LOSSES,
    DEFENDER,
    KINDS,
    MODES,
    REGULAR,
    Combat,
    OcsUnit,
    combat_of,
    ext_of,
    find_combat,
    ocs_units,
    units_in,
)
from rules.ocs.queries import (
    Question,
    ar_candidates,
    combat_targets,
    eligible_attackers,
    loss_allocations,
    move_destinations,
    questions,
    retreat_options,
)
from rules.ocs.queries import (
    preview as odds_preview,
)
from rules.ruleset import DIRECTOR
from rules.state import EncounterState

ORDERS = "orders"
TASK = "task"
OPEN, MOVE, MODE, CANCEL, END_TURN = "open", "move", "mode", "cancel", "end_turn"
ANSWER_PREFIX = "q"  # task "q3": answer what combat 3 asks
AT, ATT, KIND, WHO, TO, COMBAT, AR, LOSS = "at", "att", "kind", "who", "to", "combat", "ar", "loss"
RETREAT_PREFIX = "rt"  # rt0, rt1…: the retreat hex of the n-th surviving defender unit
RETREAT_UNITS = "rtunits"  # the surviving defender units, in order
NO_LOSS = "-"  # the loss option "no step beyond the first" (the defender retreats its whole option)
LOSS_JOIN = "+"
MOVE_REACH = 3  # free moves offered within this many hexes (a select holds 25 choices)
ROWS = 5  # Discord: rows of components; the buttons take the last
MAX_SELECTS = ROWS - 1


# --- the plug-in interface (bot.panels.PanelPlugin, wired up in the class at the end) ---------------------


def build_panel(state: EncounterState, unit_id: str, *, draft: Draft, owing: bool) -> PanelModel:
    if unit_id == DIRECTOR:
        return _director_panel(state, draft, owing)
    base = replace(blank_panel(state, unit_id), lines=(Text.of("panel.step.wait"),))
    unit = state.units.get(unit_id)
    if not isinstance(unit, OcsUnit):
        return base
    model = replace(base, stats=_stats(unit), lines=(Text.of("panel.step.wait"), *_combat_lines(state, unit)))
    question = _question_for(state, unit_id)
    if not owing or state.over:
        return model
    if question is None:  # the owner acts unprompted (the ruleset's may_act): a free move, a mode, a combat
        return _procedure(model, state, draft, unit_id)
    return _answer(model, state, question, draft, chooser=unit.side)


def apply(model: PanelModel, action: str, values: tuple[str, ...] | None) -> Draft:
    draft = model.draft
    if values is None:
        return draft
    offered = [o.value for o in model.options(action)]
    picked = [v for v in values if v in offered]
    if action == ATT:  # file order, whatever the click order; a player's own unit stays (build_panel adds it)
        return draft.replace(att=[v for v in offered if v in picked])
    value = picked[0] if picked else ""
    if action == TASK:
        return Draft(task=value) if value != draft.text(TASK) else draft
    if action == AT:
        return draft.replace(at=value, att="") if value != draft.text(AT) else draft
    if action == WHO:
        return draft.replace(who=value, to="", mode="") if value != draft.text(WHO) else draft
    return draft.replace(**{action: value})


def raw_order(model: PanelModel) -> Any:
    """The order the ruleset's parser reads (:mod:`rules.ocs.orders`); an incomplete draft gives ``{}``, which
    the parser refuses with its own message."""
    draft = model.draft
    if model.unit_id != DIRECTOR and not draft.text(TASK):
        combat = _combat_no(draft.text(COMBAT))
        return _answer_raw(draft, combat) if combat else {}
    return _procedure_raw(draft)


def _procedure_raw(draft: Draft) -> Any:
    task = draft.text(TASK)
    if task == OPEN:
        return {
            "combat": {
                "attackers": list(draft.list(ATT)),
                "defender": draft.text(AT),
                "kind": draft.text(KIND),
            }
        }
    if task == MOVE:
        return {"move": {"unit": draft.text(WHO), "to": draft.text(TO)}}
    if task == MODE:
        return {"mode": {"unit": draft.text(WHO), "to": draft.text(MODE)}}
    if task == CANCEL:
        return {"cancel": {"combat": _combat_no(draft.text(COMBAT))}}
    if task == END_TURN:
        return {"end_turn": {}}
    if task.startswith(ANSWER_PREFIX):
        return _answer_raw(draft, _combat_no(task[len(ANSWER_PREFIX) :]))
    return {}


def draft_from_raw(state: EncounterState, unit_id: str, raw: Any) -> Draft:
    """A stored order back into a draft (a reopened panel shows what was given)."""
    if not isinstance(raw, dict):
        return Draft()
    table = cast(dict[str, Any], raw)
    combat = str(table.get("combat", "")) if not isinstance(table.get("combat"), dict) else ""
    fields: dict[str, str | list[str]] = {}
    if "ar" in table:
        fields = {AR: str(table["ar"]), COMBAT: combat}
    elif "losses" in table:
        losses = [str(x) for x in cast(list[Any], table["losses"])]
        fields = {LOSS: LOSS_JOIN.join(losses) or NO_LOSS, COMBAT: combat}
    elif "retreats" in table:
        found = find_combat(state, _combat_no(combat))
        survivors = [u.id for u in units_in(state, found.at)] if found is not None else []
        hexes = cast(dict[str, Any], table["retreats"])
        fields = {f"{RETREAT_PREFIX}{i}": str(hexes.get(uid, "")) for i, uid in enumerate(survivors)}
        fields[RETREAT_UNITS] = survivors
        fields[COMBAT] = combat
    if fields:
        return _safe(fields if unit_id != DIRECTOR else {**fields, TASK: f"{ANSWER_PREFIX}{combat}"})
    body: Any = next(iter(table.values())) if len(table) == 1 else None
    key = next(iter(table), "")
    if not isinstance(body, dict):
        return Draft()
    b = cast(dict[str, Any], body)
    if key == "combat":
        return _safe(
            {
                TASK: OPEN,
                AT: str(b.get("defender", "")),
                ATT: [str(a) for a in b.get("attackers", [])],
                KIND: str(b.get("kind", "")),
            }
        )
    if key in (MOVE, MODE):
        other = TO if key == MOVE else MODE
        return _safe({TASK: key, WHO: str(b.get("unit", "")), other: str(b.get("to", ""))})
    if key == CANCEL:
        return _safe({TASK: CANCEL, COMBAT: str(b.get("combat", ""))})
    if key == END_TURN:
        return _safe({TASK: END_TURN})
    return Draft()


def preview(state: EncounterState, model: PanelModel) -> Preview | None:
    return None


# --- optional plug-in hooks (PanelPlugin.status_lines, PanelPlugin.step_cards) -----------------------------


def status_lines(state: EncounterState) -> tuple[Text, ...]:
    """The open combats, in order, each with what it waits for (OCS-2: several may be open at once)."""
    if state.over:
        return ()
    combats = ext_of(state).combats
    if not combats:
        return (Text.of("status.ocs.none"),)
    asked = {q.combat: q for q in questions(state)}
    lines: list[Text] = [Text.of("status.ocs.head", count=str(len(combats)))]
    for c in combats:
        q = asked.get(c.id)
        owes = (
            Text.of(f"status.ocs.owes.{q.answer}", role=Text.of(f"term.{q.role}"))
            if q is not None
            else Text.of("status.ocs.rolls")
        )
        lines.append(Text.of("status.ocs.combat", **_combat_params(state, c), owes=owes))
    return tuple(lines)


def step_cards(state: EncounterState, events: tuple[Event, ...]) -> tuple[Card, ...]:
    """OCS-7: one card per combat rolled in the step, with every figure of the procedure in order."""
    by_combat: dict[int, dict[type[Event], Event]] = {}
    for e in events:
        cid = getattr(e, "combat", None)
        if isinstance(cid, int):
            by_combat.setdefault(cid, {})[type(e)] = e
    cards: list[Card] = []
    for cid, found in by_combat.items():
        ratings, odds, column = found.get(OcsActionRatings), found.get(OcsOdds), found.get(OcsColumn)
        surprise, roll = found.get(OcsSurprise), found.get(OcsCombatRoll)
        if not (
            isinstance(ratings, OcsActionRatings)
            and isinstance(odds, OcsOdds)
            and isinstance(column, OcsColumn)
            and isinstance(surprise, OcsSurprise)
            and isinstance(roll, OcsCombatRoll)
        ):
            continue
        cards.append(
            _card(state, cid, _where(state, cid, found.values()), ratings, odds, column, surprise, roll)
        )
    return tuple(cards)


def _card(
    state: EncounterState,
    cid: int,
    at: str,
    ratings: OcsActionRatings,
    odds: OcsOdds,
    column: OcsColumn,
    surprise: OcsSurprise,
    roll: OcsCombatRoll,
) -> Card:
    def name(uid: str) -> str:
        unit = state.units.get(uid)
        return unit.name if unit is not None else uid

    who = surprise.surprise_by
    fields: list[tuple[Text, Text]] = [
        (
            Text.of("card.ocs.ar"),
            Text.of(
                "card.ocs.ar_value",
                attacker=name(ratings.attacker),
                attacker_ar=str(ratings.attacker_ar),
                attacker_mode=Text.of(f"term.{ratings.attacker_mode}"),
                defender=name(ratings.defender),
                defender_ar=str(ratings.defender_ar),
                defender_mode=Text.of(f"term.{ratings.defender_mode}"),
            ),
        ),
        (Text.of("card.ocs.drm"), Text.plain(f"{ratings.drm:+d}")),
        (
            Text.of("card.ocs.ratio"),
            # OCS-3 divides the larger strength by the smaller: the card shows the division in that order
            Text.of(
                "card.ocs.ratio_value",
                larger=f"{max(odds.attack, odds.defense):g}",
                smaller=f"{min(odds.attack, odds.defense):g}",
                ratio=f"{odds.ratio:g}",
            ),
        ),
        (Text.of("card.ocs.odds"), Text.plain(odds.odds)),
        (
            Text.of("card.ocs.column"),
            Text.of(
                "card.ocs.column_value",
                column=str(column.column),
                odds=column.column_odds,
                terrain=Text.of(f"term.{column.terrain}"),
            ),
        ),
        (
            Text.of("card.ocs.surprise"),
            Text.of(
                "card.ocs.surprise_value",
                roll=str(surprise.roll),
                drm=f"{surprise.drm:+d}",
                hedgehog=f"{surprise.hedgehog_modifier:+d}",
                modified=str(surprise.modified),
                attacker=str(surprise.threshold_attacker),
                defender=str(surprise.threshold_defender),
                kind=Text.of(f"term.{surprise.kind}"),
                result=Text.of(f"term.{who}"),
            ),
        ),
        (
            Text.of("card.ocs.shift"),
            Text.of(
                "card.ocs.shift_value",
                shift_roll=str(surprise.shift_roll) if surprise.shift_roll is not None else "—",
                shift=f"{surprise.shift:+d}",
            ),
        ),
        (
            Text.of("card.ocs.final_column"),
            Text.of("card.ocs.final_value", column=str(surprise.final_column), odds=surprise.final_odds),
        ),
        (
            Text.of("card.ocs.roll"),
            Text.of(
                "card.ocs.roll_value",
                roll=str(roll.roll),
                drm=f"{roll.drm:+d}",
                hedgehog=str(roll.hedgehog),
                unclamped=str(roll.unclamped),
                modified=str(roll.modified),
            ),
        ),
        (Text.of("card.ocs.result"), Text.plain(f"**{roll.result}**")),
    ]
    return Card(Text.of("card.ocs.title", combat=str(cid), at=at), tuple(fields))


def _where(state: EncounterState, cid: int, events: Iterable[Event]) -> str:
    """The defender hex of combat ``cid`` (from the step's events: the combat may be over already)."""
    for e in events:
        at = getattr(e, "at", None)
        if isinstance(at, Hex):
            return at.label
    found = find_combat(state, cid)
    return found.at.label if found is not None else "—"


# --- the director's panel ------------------------------------------------------------------------------------


def _director_panel(state: EncounterState, draft: Draft, owing: bool) -> PanelModel:
    base = PanelModel(
        unit_id=DIRECTOR,
        unit_name="⚑",
        side=DIRECTOR,
        round=state.round,
        phase=state.phase,
        ruleset=state.ruleset,
        when=phase_text(state, state.round, state.phase),  # the step by its name, as every panel titles it
        lines=(Text.of("panel.ocs.director"), *status_lines(state)),
    )
    if not owing or state.over:
        return replace(base, lines=(Text.of("panel.step.wait"), *base.lines))
    return _procedure(base, state, draft, DIRECTOR)


def _procedure(base: PanelModel, state: EncounterState, draft: Draft, actor: str) -> PanelModel:
    """What to do, then its selects: the director's whole procedure, or a unit's owner acting unprompted (its
    free move and mode, and opening a combat with it when the director allows players to)."""
    tasks = _tasks(state, actor)
    task = draft.text(TASK)
    if task not in {o.value for o in tasks}:
        task = ""
    controls: list[Select] = [
        Select(TASK, Text.of("panel.ocs.placeholder.task"), tasks, _kept(task), min_values=1)
    ]
    fields: list[Field] = []
    kept = Draft(task=task)
    if task == OPEN:
        more, kept, fields = _opening(state, draft, kept, actor)
        controls.extend(more)
    elif task in (MOVE, MODE):
        more, kept = _moving(state, draft, kept, task, actor)
        controls.extend(more)
    elif task == CANCEL:
        options = tuple(
            Option(str(c.id), "", "panel.ocs.combat_option", tuple(_combat_params(state, c).items()))
            for c in ext_of(state).combats
        )
        chosen = draft.text(COMBAT) if draft.text(COMBAT) in {o.value for o in options} else ""
        kept = kept.replace(combat=chosen)
        controls.append(
            Select(COMBAT, Text.of("panel.ocs.placeholder.cancel"), options, _kept(chosen), min_values=1)
        )
    elif task.startswith(ANSWER_PREFIX):
        q = next((q for q in questions(state) if f"{ANSWER_PREFIX}{q.combat}" == task), None)
        if q is not None:
            sub = _answer(base, state, q, draft, chooser=DIRECTOR)
            controls.extend(c for c in sub.controls if isinstance(c, Select))
            kept = sub.draft.replace(task=task)
            fields.extend(sub.fields)
    model = replace(base, step=ORDERS, draft=kept, summary=task)
    if actor != DIRECTOR:
        model = replace(model, lines=(Text.of("panel.ocs.free"), *base.lines[1:]))
    ok = accepted(state, actor, _procedure_raw(kept)) is not None
    return replace(model, controls=(*controls[:MAX_SELECTS], submit_button(enabled=ok)), fields=tuple(fields))


def _tasks(state: EncounterState, actor: str) -> tuple[Option, ...]:
    out: list[Option] = []
    if actor != DIRECTOR:  # a unit's owner, unprompted
        if _targets(state, actor):
            out.append(Option(OPEN, "", "panel.ocs.task.open"))
        if _movers(state, MOVE, actor):
            out.append(Option(MOVE, "", "panel.ocs.task.move"))
        if _movers(state, MODE, actor):
            out.append(Option(MODE, "", "panel.ocs.task.mode"))
        return tuple(out)
    if combat_targets(state):
        out.append(Option(OPEN, "", "panel.ocs.task.open"))
    for q in questions(state):
        combat = find_combat(state, q.combat)
        assert combat is not None
        out.append(
            Option(
                f"{ANSWER_PREFIX}{q.combat}",
                "",
                f"panel.ocs.task.{q.answer}",
                (("role", Text.of(f"term.{q.role}")), *_combat_params(state, combat).items()),
            )
        )
    out.append(Option(MOVE, "", "panel.ocs.task.move"))
    out.append(Option(MODE, "", "panel.ocs.task.mode"))
    if ext_of(state).combats:
        out.append(Option(CANCEL, "", "panel.ocs.task.cancel"))
    elif accepted(state, DIRECTOR, {"end_turn": {}}) is not None:  # every combat fought or called off
        out.append(Option(END_TURN, "", "panel.ocs.task.end_turn", (("turn", str(state.round + 1)),)))
    return tuple(out[:MAX_OPTIONS])


def _targets(state: EncounterState, actor: str) -> tuple[Hex, ...]:
    """The hexes ``actor`` may open a combat against: any (the director), or, when the director allows players
    to (OCS-2), the hexes the actor's own unit may attack."""
    if actor == DIRECTOR:
        return combat_targets(state)
    unit = state.units.get(actor)
    if not state.option(PLAYERS_OPEN_COMBATS, False) or not isinstance(unit, OcsUnit) or unit.at is None:
        return ()
    near = sorted(unit.at.neighbors(), key=lambda h: h.label)
    return tuple(h for h in near if actor in eligible_attackers(state, h))


def _opening(
    state: EncounterState, draft: Draft, kept: Draft, actor: str
) -> tuple[list[Select], Draft, list[Field]]:
    """OCS-2: the defender hex, the attackers that may attack it, the attack type; the odds before the dice."""
    targets = _targets(state, actor)[:MAX_OPTIONS]
    hex_options = tuple(
        Option(
            h.label, h.label, "panel.ocs.target", (("units", ", ".join(u.name for u in units_in(state, h))),)
        )
        for h in targets
    )
    at = draft.text(AT) if draft.text(AT) in {o.value for o in hex_options} else ""
    selects = [Select(AT, Text.of("panel.ocs.placeholder.at"), hex_options, _kept(at), min_values=1)]
    kept = kept.replace(at=at)
    fields: list[Field] = []
    if not at:
        return selects, kept, fields
    h = Hex.parse(at)
    # a player opening a combat attacks with its own unit (OCS-2): it is always in, the select adds others
    own = [actor] if actor != DIRECTOR else []
    eligible = tuple(u for u in eligible_attackers(state, h) if u not in own)[:MAX_OPTIONS]
    att_options = tuple(_unit_option(state.unit_as(u, OcsUnit), "panel.ocs.attacker") for u in eligible)
    others = [u for u in draft.list(ATT) if u in eligible]
    att = [*own, *others]
    kind = draft.text(KIND) if draft.text(KIND) in KINDS else REGULAR
    kept = kept.replace(att=att, kind=kind)
    room = most_that_fit(kept.replace(att=own), ATT, [*own, *eligible]) - len(own)
    if att_options:
        selects.append(
            Select(
                ATT,
                Text.of("panel.ocs.placeholder.attackers"),
                att_options,
                tuple(others),
                min_values=0 if own else 1,
                max_values=max(1, room),
            )
        )
    kinds = tuple(Option(k, "", f"term.{k}") for k in KINDS)
    selects.append(Select(KIND, Text.of("panel.ocs.placeholder.kind"), kinds, (kind,), min_values=1))
    shown = odds_preview(state, tuple(att), h) if att else None
    if shown is not None:
        fields.append(
            Field(
                Text.of("panel.ocs.preview"),
                (
                    Text.of(
                        "panel.ocs.preview_value",
                        attack=f"{shown.attack:g}",
                        defense=f"{shown.defense:g}",
                        ratio=f"{shown.ratio:g}",
                        odds=shown.odds,
                        terrain=Text.of(f"term.{shown.terrain}"),
                        column=str(shown.column),
                        hedgehog=str(shown.hedgehog),
                    ),
                ),
            )
        )
    return selects, kept, fields


def _movers(state: EncounterState, task: str, actor: str) -> list[tuple[OcsUnit, tuple[Any, ...]]]:
    """The units ``actor`` may move (or change the mode of) now, each with its choices: any unit not in an open
    combat for the director, the actor's own unit for its owner (OCS-1)."""
    units = [u for u in ocs_units(state) if u.active and u.at is not None and actor in (DIRECTOR, u.id)]
    if task == MOVE:
        candidates = [(u, _destinations(state, u)) for u in units]
    else:
        candidates = [(u, tuple(m for m in MODES if m != u.mode and _mode_ok(state, u.id, m))) for u in units]
    return [(u, targets) for u, targets in candidates if targets][:MAX_OPTIONS]


def _moving(
    state: EncounterState, draft: Draft, kept: Draft, task: str, actor: str
) -> tuple[list[Select], Draft]:
    """Free moves (logged) and mode changes (OCS-1)."""
    offered = _movers(state, task, actor)
    who_options = tuple(_unit_option(u, "panel.ocs.unit") for u, _ in offered)
    who = draft.text(WHO) if draft.text(WHO) in {o.value for o in who_options} else ""
    if not who and actor != DIRECTOR and len(who_options) == 1:
        who = who_options[0].value  # an owner acts for its own unit
    selects = [Select(WHO, Text.of("panel.ocs.placeholder.who"), who_options, _kept(who), min_values=1)]
    kept = kept.replace(who=who)
    if not who:
        return selects, kept
    targets = next(t for u, t in offered if u.id == who)
    if task == MOVE:
        labels = [h.label for h in cast(tuple[Hex, ...], targets)]
        options = tuple(Option(label, label) for label in labels)
        field = TO
    else:
        options = tuple(Option(m, "", f"term.{m}") for m in cast(tuple[str, ...], targets))
        field = MODE
    chosen = draft.text(field) if draft.text(field) in {o.value for o in options} else ""
    kept = kept.replace(**{field: chosen})
    placeholder = Text.of(f"panel.ocs.placeholder.{field}")
    selects.append(Select(field, placeholder, options, _kept(chosen), min_values=1))
    return selects, kept


def _destinations(state: EncounterState, unit: OcsUnit) -> tuple[Hex, ...]:
    assert unit.at is not None
    near = [h for h in spiral(unit.at, MOVE_REACH) if h != unit.at and state.board.contains(h)]
    return move_destinations(state, unit.id, tuple(near))[:MAX_OPTIONS]


def _mode_ok(state: EncounterState, unit_id: str, mode: str) -> bool:
    return accepted(state, DIRECTOR, {"mode": {"unit": unit_id, "to": mode}}) is not None


# --- a side's answers (also the director's, for an absent player) -------------------------------------------


def _question_for(state: EncounterState, unit_id: str) -> Question | None:
    return next((q for q in questions(state) if q.unit == unit_id), None)


def _answer(
    model: PanelModel, state: EncounterState, q: Question, draft: Draft, *, chooser: str
) -> PanelModel:
    combat = find_combat(state, q.combat)
    assert combat is not None
    kept = Draft(combat=str(q.combat))
    selects: list[Select] = []
    if q.answer == "ar":
        ids = ar_candidates(state, q.combat)
        options = tuple(_unit_option(state.unit_as(u, OcsUnit), "panel.ocs.ar_option") for u in ids)
        chosen = draft.text(AR) if draft.text(AR) in ids else ""
        kept = kept.replace(ar=chosen)
        selects.append(Select(AR, Text.of("panel.ocs.placeholder.ar"), options, _kept(chosen), min_values=1))
    elif q.answer == "losses":
        options = tuple(_loss_option(state, combat, picked) for picked in loss_allocations(state, q.combat))
        options = options[:MAX_OPTIONS]
        chosen = draft.text(LOSS) if draft.text(LOSS) in {o.value for o in options} else ""
        kept = kept.replace(loss=chosen)
        selects.append(
            Select(LOSS, Text.of("panel.ocs.placeholder.loss"), options, _kept(chosen), min_values=1)
        )
    else:
        room = MAX_SELECTS - (1 if chooser == DIRECTOR else 0)
        options_by_unit = retreat_options(state, q.combat)
        kept = kept.replace(rtunits=list(options_by_unit))
        for i, (uid, hexes) in enumerate(options_by_unit.items()):
            field = f"{RETREAT_PREFIX}{i}"
            labels = [h.label for h in hexes][:MAX_OPTIONS]
            chosen = draft.text(field) if draft.text(field) in labels else (labels[0] if labels else "")
            kept = kept.replace(**{field: chosen})
            if i < room:  # more units than rows: the rest keep their first legal hex
                placeholder = Text.of("panel.ocs.placeholder.retreat", unit=state.units[uid].name)
                selects.append(
                    Select(
                        field, placeholder, tuple(Option(h, h) for h in labels), _kept(chosen), min_values=1
                    )
                )
    lines = (
        Text.of(f"panel.ocs.ask.{q.answer}", role=Text.of(f"term.{q.role}"), **_combat_params(state, combat)),
    )
    actor = DIRECTOR if chooser == DIRECTOR else model.unit_id
    ok = accepted(state, actor, _answer_raw(kept, q.combat)) is not None
    return replace(
        model,
        step=ORDERS,
        draft=kept,
        lines=(*lines, *model.lines[1:]),
        controls=(*selects, submit_button(enabled=ok)),
        summary=q.answer,
    )


def _answer_raw(draft: Draft, combat: int) -> dict[str, Any]:
    if draft.text(AR):
        return {"ar": draft.text(AR), "combat": combat}
    if draft.text(LOSS):
        loss = draft.text(LOSS)
        return {"losses": [] if loss == NO_LOSS else loss.split(LOSS_JOIN), "combat": combat}
    if not draft.list(RETREAT_UNITS):
        return {}
    return {"retreats": _retreat_table(draft, combat), "combat": combat}


def _retreat_table(draft: Draft, combat: int) -> dict[str, str]:
    """The retreat fields name units by position among the survivors, listed in ``rtunits`` (set from the
    state every time the panel is built, so a forged draft cannot name others)."""
    ids = draft.list(RETREAT_UNITS)
    return {uid: draft.text(f"{RETREAT_PREFIX}{i}") for i, uid in enumerate(ids)}


def _loss_option(state: EncounterState, combat: Combat, picked: tuple[str, ...]) -> Option:
    counts: dict[str, int] = {}
    for uid in picked:
        counts[uid] = counts.get(uid, 0) + 1
    steps = ", ".join(f"{state.units[u].name} ×{n}" for u, n in counts.items())
    value = LOSS_JOIN.join(picked) or NO_LOSS
    found = retreat_left(state, combat, len(picked))
    key = "panel.ocs.loss_retreat" if found else "panel.ocs.loss_only"
    return Option(value, steps or "—", key, (("hexes", str(found)),))


def retreat_left(state: EncounterState, combat: Combat, listed: int) -> int:
    """OCS-6: the hexes the defender still retreats when it lists ``listed`` steps beyond the first."""
    role = ATTACKER if combat.stage == ATTACKER_LOSSES else DEFENDER
    question = loss_question(state, combat, role)
    if question is None or not question.option:
        return 0
    return max(0, question.option - (listed - question.base))


# --- shared bits ---------------------------------------------------------------------------------------------


def _kept(value: str) -> tuple[str, ...]:
    return (value,) if value else ()


def _combat_no(text: str) -> int:
    return int(text) if text.isdigit() else 0


def _safe(fields: dict[str, str | list[str]]) -> Draft:
    try:
        return Draft(**fields)
    except ValueError:
        return Draft()


def _unit_option(unit: OcsUnit, key: str) -> Option:
    return Option(
        unit.id,
        unit.name,
        key,
        (
            ("hex", unit.at.label if unit.at else "—"),
            ("strength", f"{unit.strength:g}"),
            ("ar", str(unit.action_rating)),
            ("mode", Text.of(f"term.{unit.mode}")),
            ("steps", str(unit.steps)),
        ),
    )


def _combat_params(state: EncounterState, combat: Combat) -> dict[str, str]:
    names = ", ".join(state.units[a].name for a in combat.attackers if a in state.units)
    defenders = ", ".join(u.name for u in units_in(state, combat.at)) or "—"
    return {"combat": str(combat.id), "at": combat.at.label, "attackers": names, "defenders": defenders}


def _combat_lines(
    state: EncounterState, unit: OcsUnit | None, combat: Combat | None = None
) -> tuple[Text, ...]:
    if combat is None and unit is not None:
        combat = combat_of(state, unit.id)
    if combat is None:
        return ()
    return (Text.of("panel.ocs.in_combat", **_combat_params(state, combat)),)


def _stats(unit: OcsUnit) -> tuple[Stat, ...]:
    return (
        Stat("ocs_strength", f"{unit.strength:g}"),
        Stat("ocs_ar", str(unit.action_rating)),
        Stat("ocs_mode", Text.of(f"term.{unit.mode}")),
        Stat("ocs_steps", str(unit.steps)),
        Stat("position", unit.at.label if unit.at else "—"),
    )


PANEL = ModulePanel(
    build_panel, apply, raw_order, draft_from_raw, preview, status_lines=status_lines, step_cards=step_cards
)
