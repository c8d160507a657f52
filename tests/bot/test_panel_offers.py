"""A panel never offers what the rules will refuse (DESIGN §4): every bundled scenario of every ruleset of the
registry that plays in Discord, and the toy rulesets, are played by their own panels, and at every step every
panel of every unit is checked.

- each option of each select, chosen alone, makes an order the ruleset parses and validates;
- a multi-select never offers a combination the rules refuse: whatever is ticked at once, the panel keeps only
  what the rules take together (Submit sends an order they accept); once an option is picked, every option still
  offered is taken with it; and its maximum is the rules' (as many as they take, one pick at a time), not the room
  left in the custom id;
- each enabled button, pressed (again and again while it stays enabled), too, Submit included: an enabled
  Submit on an empty draft sends an order the rules take;
- the draft stays within Discord's custom-id limit even with every select at its most and every button pressed
  (the codec refuses rather than cuts, so a plug-in that let it grow would fail here);
- the generic Discord view draws the panel (embed in both languages, components, one template) with no
  missing locale key, its components within Discord's five rows;
- a unit that owes nothing gets a panel without controls.
"""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from typing import Any

import pytest
from discord import ui

from bot.panels import PanelPlugin, accepted, panel_for, press
from bot.panels.draft import encode_draft
from bot.panels.model import SUBMIT, Button, PanelModel, Select
from cogs.panel.components import ControlRef, panel_components, panel_embed
from data import SCENARIO_DIR
from rules.engine import resolve_phase
from rules.errors import GameError
from rules.registry import PLUGINS, ruleset_for
from rules.ruleset import Order, OrderMode, RoundSpec
from rules.scenario import load_scenario
from rules.state import EncounterState
from tests import toy_ruleset  # noqa: F401  (registers the toy rulesets and their panel)
from tests.toy_ruleset import TOY

#: steps played per bundled scenario: enough for the longer games to reach damage, repairs and their end; the
#: games whose every step offers hundreds of destinations (night skirmish, the mechs, ocs) reach shots, damage
#: and night checks within fewer, and each of their steps costs seconds
STEPS = {
    "exo-duel": 45,
    "exo-patrol": 70,
    "skirmish-corridor": 60,
    "skirmish-night": 16,
    "mech-night": 20,
    "mech-duel": 24,
    "mech-mixed": 24,
    "mech-air": 24,
    "ocs-gazala": 20,
}
#: every bundled scenario (``data/scenarios/<id>-*.toml``, night ones included) of every ruleset of the registry
#: that plays in Discord, and the toy rulesets
GAMES = {
    **{
        path.stem: (path.read_text(encoding="utf-8"), STEPS.get(path.stem, 40))
        for plugin in PLUGINS
        if plugin.kind == "ruleset" and plugin.panel
        for path in sorted(SCENARIO_DIR.glob(f"{plugin.id}-*.toml"))
    },
    **{rid: (TOY.format(ruleset=rid), 12) for rid in ("toy-sim", "toy-seq", "toy-act")},
}
#: a step's panels are checked whole on every CHECK_EVERY-th step, and on any step where a panel offers a control
#: (by its panel step and action) not checked yet in that game: every control a game offers is checked at least
#: once, and the long games spend their time on new situations more than on the same menus over again
CHECK_EVERY = 3
LONGEST_PHASE = 9_999_999
MISSING_KEY = re.compile(r"\b(?:panel|stat|policy|station|errors)\.[a-z_]+(?:\.[a-z_]+)*\b")
#: refusals a panel must risk: a place held by an enemy the side cannot see is offered like any other, or its
#: absence would give that enemy away (FOG-1); Submit then says someone unseen is there, naming nobody
UNSEEN = frozenset({"skirmish.occupied_unseen"})
checked: Counter[str] = Counter()  # options and presses checked, per game


def offered(model: PanelModel) -> set[tuple[str, str]]:
    """The controls a panel offers, by its step and their action: what each game must have checked once."""
    return {(model.step, c.action) for c in model.controls if c.enabled}


def owing(state: EncounterState) -> tuple[str, ...]:
    """Who owes an order now, as the service asks them (its ``owing``): the awaited units and a pending decision."""
    waiting = list(ruleset_for(state).awaiting(state))
    if state.pending is not None and state.pending.unit and state.pending.unit not in waiting:
        waiting.append(state.pending.unit)
    return tuple(u for u in waiting if u in state.units)


def must_accept(state: EncounterState, plugin: PanelPlugin, model: PanelModel) -> None:
    """What Submit would send for ``model`` passes the ruleset's parser and validator (raises otherwise), when
    Submit is enabled: a panel that still needs a choice (pbw: a move without its path) disables it."""
    if not any(isinstance(c, Button) and c.action == SUBMIT and c.enabled for c in model.controls):
        return
    ruleset = ruleset_for(state)
    raw = plugin.raw_order(model)
    try:
        ruleset.validate_order(state, model.unit_id, ruleset.parse_order(state, model.unit_id, raw))
    except GameError as exc:
        if exc.code in UNSEEN:
            return
        pytest.fail(
            f"{model.unit_id} round {state.round} phase {state.phase}: offered {raw!r}, refused: {exc}"
        )


def check_panel(
    game: str, state: EncounterState, plugin: PanelPlugin, model: PanelModel, rng: random.Random
) -> None:
    accepted_once = False
    for control in model.controls:
        if isinstance(control, Select):
            values = [o.value for o in control.options]
            assert values and len(values) <= 25 and len(set(values)) == len(values), control
            assert all(0 < len(v) <= 100 for v in values), control
            assert 1 <= control.max_values <= len(values) and control.min_values <= control.max_values
            if control.enabled and control.max_values > 1:
                check_multi(game, state, plugin, model, control, rng)
            for value in values if control.enabled else ():
                chosen = press(plugin, state, model, control.action, (value,))  # what a click does
                again = chosen.control(control.action)
                # kept as chosen: in the draft as picked, or shown chosen once the plug-in wrote it its own way
                # (pbw keeps a skipped segment, its default, as nothing)
                assert chosen.draft == plugin.apply(model, control.action, (value,)) or (
                    isinstance(again, Select) and value in again.chosen
                ), "kept as chosen"
                must_accept(state, plugin, chosen)
                checked[game] += 1
                follow_up(game, state, plugin, model, chosen, rng)
        elif control.enabled:
            pressed = model
            for _ in range(12):  # a button pressed while it stays enabled
                button = pressed.control(control.action)
                if not isinstance(button, Button) or not button.enabled:
                    break
                pressed = press(plugin, state, pressed, control.action)
                must_accept(state, plugin, pressed)
                checked[game] += 1
                accepted_once = True
                if button.submits or control.action == SUBMIT:
                    break
    assert accepted_once or not any(isinstance(c, Button) and c.submits and c.enabled for c in model.controls)
    encode_draft(fullest(state, plugin, model).draft, LONGEST_PHASE)  # raises DraftTooLong otherwise


def check_multi(
    game: str,
    state: EncounterState,
    plugin: PanelPlugin,
    model: PanelModel,
    select: Select,
    rng: random.Random,
) -> None:
    """A multi-select offers only combinations the rules take (exo: EXO-3.3 one ship per weapon, a torpedo's two
    shots at the same ship; EXO-6.5 one station change per crew member; EXO-1.5 one captain)."""
    action = select.action
    values = [o.value for o in select.options]

    def picks(panel: PanelModel) -> tuple[tuple[str, ...], tuple[str, ...]]:
        now = panel.control(action)
        assert isinstance(now, Select), f"{action} vanished after a pick"
        return now.chosen, tuple(o.value for o in now.options)

    # ticked at once, up to the maximum: only what the rules take together is kept, and Submit sends it
    for ticked in (values[: select.max_values], rng.sample(values, select.max_values)):
        pressed = press(plugin, state, model, action, tuple(ticked))
        chosen, _ = picks(pressed)
        assert chosen and set(chosen) <= set(ticked), (ticked, chosen)
        must_accept(state, plugin, pressed)
        checked[game] += 1
    # after one pick, every option still offered is taken with it: picked together, both are kept
    first = rng.choice(values)
    picked = press(plugin, state, model, action, (first,))
    chosen, offered = picks(picked)
    assert chosen == (first,), chosen
    for value in offered:
        if value != first:
            both = press(plugin, state, picked, action, (first, value))
            assert set(picks(both)[0]) == {first, value}, (
                f"{value} offered beside {first} but not taken with it"
            )
            must_accept(state, plugin, both)
            checked[game] += 1
    # the maximum is the rules': picking one offered option at a time reaches it, then nothing more is offered
    grown = model
    for _ in range(len(values)):
        chosen, offered = picks(grown)
        more = [v for v in offered if v not in chosen]
        if not more:
            break
        grown = press(plugin, state, grown, action, (*chosen, more[0]))
        assert len(picks(grown)[0]) == len(chosen) + 1, "an offered option joins the picks"
    assert len(picks(grown)[0]) == select.max_values, (action, picks(grown), select.max_values)
    must_accept(state, plugin, grown)


def follow_up(
    game: str,
    state: EncounterState,
    plugin: PanelPlugin,
    before: PanelModel,
    after: PanelModel,
    rng: random.Random | None = None,
) -> None:
    """A select a choice brings up or fills anew (skirmish: the end facing once a move's hex is picked, a
    direction's hexes on the Move menu; mech: a direction's destinations, the end facing once a hex is picked)
    offers only what the rules accept too, each of its options chosen in turn; with ``rng``, one of them, drawn,
    is followed up the same way (a direction's hex brings up its end facings)."""
    shown = {c.action: c.options for c in before.controls if isinstance(c, Select)}
    if not after.waiting:
        drawn(after)  # what a choice brings up (pbw: the destination menu beside the pad) still fits
    for control in after.controls:
        if (
            not isinstance(control, Select)
            or shown.get(control.action) == control.options
            or not control.enabled
        ):
            continue
        values = [o.value for o in control.options]
        assert values and len(values) <= 25 and len(set(values)) == len(values), control
        deeper = rng.choice(values) if rng is not None else None
        for value in values:
            pressed = press(plugin, state, after, control.action, (value,))
            must_accept(state, plugin, pressed)
            checked[game] += 1
            if value == deeper:
                follow_up(game, state, plugin, after, pressed)


def fullest(state: EncounterState, plugin: PanelPlugin, model: PanelModel) -> PanelModel:
    """Every select at its most (the longest values), then every button pressed while it stays enabled."""
    for control in model.controls:
        now = model.control(control.action)
        if isinstance(now, Select) and now.enabled:
            longest = sorted((o.value for o in now.options), key=len, reverse=True)[: now.max_values]
            model = press(plugin, state, model, now.action, tuple(longest))
    for control in model.controls:
        for _ in range(12):
            now = model.control(control.action)
            if not isinstance(now, Button) or not now.enabled or now.submits:
                break
            model = press(plugin, state, model, now.action)
    return model


def drawn(model: PanelModel) -> None:
    """The generic Discord view draws it: one template for every control, no locale key left untranslated."""
    components = panel_components(model, "en", encounter_id=123456789012345678, phase_no=LONGEST_PHASE)
    ids = [c.custom_id for c in components]
    assert all(cid is not None and len(cid) <= 100 for cid in ids)
    assert all(ControlRef.parse(cid) is not None for cid in ids[:-1]), ids
    assert len(components) <= 25
    rows = ui.View(timeout=None)
    for component in components:  # Discord lays them out in five rows (a select takes one): raises if not
        rows.add_item(component)
    for locale in ("en", "es"):
        text = json.dumps(panel_embed(model, locale, submitted=False).to_dict(), ensure_ascii=False)
        text += json.dumps([c.to_component_dict() for c in components], ensure_ascii=False)
        assert not MISSING_KEY.search(text), MISSING_KEY.findall(text)


def play(state: EncounterState, plugin: PanelPlugin, model: PanelModel, rng: random.Random) -> Any:
    """A player on the panel: a random choice in some selects and a few button presses, then Submit; when the
    rules refuse that combination (two fire declarations for one weapon...), a single choice or End."""
    played = model
    for control in model.controls:
        now = played.control(control.action)
        if isinstance(now, Select) and now.enabled and rng.random() < 0.7:
            played = press(plugin, state, played, now.action, (rng.choice(now.options).value,))
    for _ in range(rng.randrange(4)):
        buttons = [c for c in played.controls if isinstance(c, Button) and c.enabled and not c.submits]
        if buttons:
            played = press(plugin, state, played, rng.choice(buttons).action)
    enders = [c.action for c in model.controls if isinstance(c, Button) and c.submits and c.action != SUBMIT]
    candidates = [played, model, *(press(plugin, state, model, a) for a in enders)]
    for select in (c for c in model.controls if isinstance(c, Select) and c.enabled):
        candidates.append(press(plugin, state, model, select.action, (select.options[0].value,)))
    for candidate in candidates:
        order = accepted(state, model.unit_id, plugin.raw_order(candidate))
        if order is not None:
            return order
    pytest.fail(f"no order the panel of {model.unit_id} could give was accepted")


def scripted(rounds: tuple[RoundSpec, ...], state: EncounterState, unit_id: str) -> Order | None:
    """The scenario's own order for ``unit_id`` this round (exo's ``[[rounds]]``), if the rules take it now: the
    ships then meet and fight, so the game reaches damage, repairs and the end."""
    table = rounds[min(state.round, len(rounds)) - 1].raw.get("orders") if rounds else None
    raw = table.get(unit_id) if isinstance(table, dict) else None
    return accepted(state, unit_id, raw) if raw is not None else None


@pytest.mark.parametrize("game", sorted(GAMES))
async def test_every_panel_of_a_simulated_game_offers_only_what_the_rules_accept(game: str) -> None:
    text, steps = GAMES[game]
    scenario = load_scenario(text)
    state = scenario.state
    plugin = panel_for(state.ruleset)
    rng = random.Random(game)
    # the multi-select checks draw their own picks, so the game plays the same with or without them
    picks_rng = random.Random(f"{game}:picks")
    kinds: set[str] = set()
    seen: set[tuple[str, str]] = set()  # every control offered in the game
    covered: set[tuple[str, str]] = set()  # every control of a panel checked whole
    for step in range(steps):
        if state.over:
            break
        ruleset = ruleset_for(state)
        due = owing(state)
        orders: dict[str, Any] = {}
        for unit_id in state.units:
            # a unit that may act unprompted (ocs: a free move, a mode, a combat) gets its panel as one that owes
            opened = unit_id in due or ruleset.may_act(state, unit_id)
            model = plugin.build_panel(
                state, unit_id, draft=plugin.draft_from_raw(state, unit_id, None), owing=opened
            )
            if not opened:
                assert model.waiting and not model.controls, f"{unit_id} owes nothing but is offered controls"
                continue
            kinds.add(model.step)
            controls = offered(model)
            seen |= controls
            if step % CHECK_EVERY == 0 or not controls <= covered:
                check_panel(game, state, plugin, model, picks_rng)
                covered |= controls
            if unit_id in due and not model.waiting:
                drawn(model)
                if not orders or ruleset.order_mode is not OrderMode.ACTIVATION:
                    script = scripted(scenario.rounds, state, unit_id) if model.step == "orders" else None
                    orders[unit_id] = script or play(state, plugin, model, rng)
        for unit_id, order in orders.items():
            ruleset.validate_order(state, unit_id, order)
        state = resolve_phase(ruleset, state, orders).state
    assert checked[game] > 0 and kinds, (checked[game], kinds)
    assert seen == covered, f"offered but never checked: {sorted(seen - covered)}"
    print(
        f"{game}: {checked[game]} options and presses checked, {len(covered)} controls, {sorted(kinds)}, "
        f"round {state.round}, over {state.over}"
    )


def test_a_selects_option_labels_are_rendered_once_per_options_list_and_language() -> None:
    """A select's 25 option labels were rendered for every click and panel. They are kept by the options
    tuple a plug-in hands out (the same object while the state is unchanged) and the reader's language."""
    from bot.panels.model import Option, Text
    from cogs.panel.components import option_labels

    options = tuple(
        Option(
            f"s{i}.1",
            "captain",
            "panel.station",
            (("crew", f"Crew {i}"), ("who", f"Crew {i}"), ("target", Text.of("station.captain"))),
        )
        for i in range(25)
    )
    spanish = option_labels(options, "es")
    assert option_labels(options, "es") is spanish  # kept
    assert spanish == tuple(o.text.render("es")[:100] for o in options)
    english = option_labels(options, "en")
    assert english != spanish and english == tuple(o.text.render("en")[:100] for o in options)
    equal_but_new = tuple(Option(o.value, o.label, o.key, o.params) for o in options)
    assert option_labels(equal_but_new, "es") == spanish and option_labels(equal_but_new, "es") is not spanish
