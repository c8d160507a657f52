"""The pbw order panel never offers what the rules will refuse (DESIGN §4; PBW-1..PBW-5), over whole games of the
bundled scenarios played by the panel itself:

- every action a segment's menu offers can be completed (a path on the pad or the destination menu, a target and
  weapon, an aim), and every completion — each target, each weapon, each aim, each enabled step of the pad, each
  hex of the destination menu — makes a declaration (or a change of intention, PBW-2) the ruleset parses and
  validates;
- an enabled Submit (or Keep) sends what the rules take; a random walk over the controls never reaches a panel
  whose Submit is enabled for a refused order, and its draft always fits in a custom id;
- each attack option shows the 2d6 number the rules roll against (PBW-5, DICE-3);
- the generic Discord view draws every panel in both languages with no locale key left untranslated.
"""

from __future__ import annotations

import json
import random
import re
from typing import Any

import discord
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.panels import accepted, panel_for, press
from bot.panels import pbw as P
from bot.panels.draft import Draft, encode_draft
from bot.panels.model import Button, PanelModel, Select
from cogs.panel.components import panel_components, panel_embed
from data import SCENARIO_DIR
from rules.engine import resolve_phase
from rules.pbw.model import Character
from rules.pbw.queries import to_hit_for
from rules.registry import ruleset_for
from rules.scenario import load_scenario
from rules.state import EncounterState
from tests.pbw_fixtures import person, scenario_text

#: a declarer's every offer is checked on every CHECK_EVERY-th step, and on any step where its panel offers an
#: action not checked yet in that game: every action a game offers is checked at least once
CHECK_EVERY = 3
LONGEST_PHASE = 9_999_999
MISSING_KEY = re.compile(r"\b(?:panel|stat|term|render)\.[a-z_]+(?:\.[a-z_]+)*\b")
SCENARIOS = ("pbw-street", "pbw-brawl")
DETAILS = ("atk", "aim", *P.SIDES)


def start(name: str) -> EncounterState:
    return load_scenario((SCENARIO_DIR / f"{name}.toml").read_text(encoding="utf-8")).state


def owing(state: EncounterState) -> tuple[str, ...]:
    return ruleset_for(state).awaiting(state)


def fresh(state: EncounterState, unit_id: str) -> PanelModel:
    return P.build_panel(state, unit_id, draft=Draft(), owing=True)


def must_accept(state: EncounterState, model: PanelModel, what: str) -> Any:
    raw = P.raw_order(model)
    order = accepted(state, model.unit_id, raw)
    assert order is not None, f"{model.unit_id} {state.phase}: {what} gave {raw!r}, which the rules refuse"
    return order


def completions(state: EncounterState, model: PanelModel) -> list[PanelModel]:
    """Every way the panel's open segment can be finished: each attack option and then each aim, or each enabled
    step of the pad (once)."""
    if model.order is not None:
        return [model]
    out: list[PanelModel] = []
    attack = model.control("atk")
    if isinstance(attack, Select):
        for option in attack.options:
            chosen = press(P.PANEL, state, model, "atk", (option.value,))
            aim = chosen.control("aim")
            assert isinstance(aim, Select), "a chosen target opens the aim menu (PBW-5)"
            out.extend(press(P.PANEL, state, chosen, "aim", (o.value,)) for o in aim.options)
    for side in P.SIDES:
        button = model.control(side)
        if isinstance(button, Button) and button.enabled:
            out.append(press(P.PANEL, state, model, side))
    menu = model.control(P.DEST)
    if isinstance(menu, Select):  # each hex on the destination menu, each direction's too (PBW-2)
        for option in menu.options:
            picked = press(P.PANEL, state, model, P.DEST, (option.value,))
            if option.value.startswith(P.HEADING):
                again = picked.control(P.DEST)
                assert isinstance(again, Select)
                heads = [o for o in again.options if not o.value.startswith(P.HEADING)]
                out.extend(press(P.PANEL, state, picked, P.DEST, (o.value,)) for o in heads)
            else:
                out.append(picked)
    return out


def begun(state: EncounterState, unit_id: str) -> tuple[PanelModel, list[PanelModel]]:
    """A unit's fresh panel, and the panels where each of its actions is picked: each enabled segment begun
    (declaring), or the change begun (PBW-2)."""
    model = fresh(state, unit_id)
    if model.step == P.CHANGING:
        return model, [press(P.PANEL, state, model, P.CHANGE)]
    segments = [seg for seg in P.SEG if isinstance(b := model.control(seg), Button) and b.enabled]
    return model, [press(P.PANEL, state, model, seg) for seg in segments]


def offered(state: EncounterState, unit_id: str) -> set[tuple[str, str]]:
    """The actions a unit's panel offers, by its step: what a game must have checked once."""
    model, starts = begun(state, unit_id)
    return {
        (model.step, option.value)
        for opened in starts
        if isinstance(act := opened.control("act"), Select)
        for option in act.options
    }


def check_offers(state: EncounterState, unit_id: str) -> int:
    """Each action of each segment (declaring) or of the change (PBW-2), with each of its completions."""
    checked = 0
    model, starts = begun(state, unit_id)
    if model.step == P.CHANGING:
        must_accept(state, model, "Keep")
    else:
        must_accept(state, model, "an untouched declaration (three skipped segments)")
    for opened in starts:
        act = opened.control("act")
        assert isinstance(act, Select) and act.options
        for option in act.options:
            picked = press(P.PANEL, state, opened, "act", (option.value,))
            done = completions(state, picked)
            assert done, f"{unit_id}: {option.value!r} offered in {state.phase} but cannot be completed"
            for finished in done:
                must_accept(state, finished, f"{option.value!r} completed as {finished.draft!r}")
                submit = finished.control("submit")
                assert isinstance(submit, Button) and submit.enabled
                checked += 1
    return checked


def check_attack_numbers(state: EncounterState, model: PanelModel) -> None:
    """PBW-5/DICE-3: the number on an attack option is the one the rules roll against."""
    attack = model.control("atk")
    if not isinstance(attack, Select):
        return
    if model.step == P.CHANGING:
        kind, earlier = P.parse_code(model.draft.text(P.NEW)).kind, ()
    else:
        plan, _ = P.plan_of(state, state.unit_as(model.unit_id, Character), model.draft)
        segment = plan[int(model.draft.text(P.EDIT) or "1") - 1]
        kind, earlier = segment.slot.kind, segment.earlier
    for option in attack.options:
        number, weapon = (int(x) for x in option.value.split("."))
        target = list(state.units)[number]
        needed = to_hit_for(state, model.unit_id, target, kind, weapon, earlier=earlier).needed
        assert option.param("needed") == str(needed)


def drawn(model: PanelModel) -> None:
    components = panel_components(model, "en", encounter_id=123456789012345678, phase_no=LONGEST_PHASE)
    assert len(components) <= 25
    selects = sum(1 for c in components if isinstance(c, discord.ui.Select))
    buttons = len(components) - selects
    assert selects + -(-buttons // 5) <= 5, "Discord lays a message out in five rows (a select takes one)"
    for locale in ("en", "es"):
        text = json.dumps(panel_embed(model, locale, submitted=False).to_dict(), ensure_ascii=False)
        text += json.dumps([c.to_component_dict() for c in components], ensure_ascii=False)
        assert not MISSING_KEY.search(text), MISSING_KEY.findall(text)


def random_walk(state: EncounterState, unit_id: str, rng: random.Random, presses: int) -> PanelModel:
    """A player clicking about: any enabled control, any option; every panel on the way is checked."""
    model = fresh(state, unit_id)
    for _ in range(presses):
        encode_draft(model.draft, LONGEST_PHASE)  # raises DraftTooLong otherwise
        drawn(model)
        if model.order is not None:
            must_accept(state, model, f"the draft {model.draft!r}")
        submit = model.control("submit")
        if isinstance(submit, Button) and submit.enabled:
            assert model.order is not None
        usable = [c for c in model.controls if c.enabled and not (isinstance(c, Button) and c.submits)]
        usable = [c for c in usable if not isinstance(c, Select) or c.options]
        if not usable:
            break
        control = rng.choice(usable)
        if isinstance(control, Select):
            check_attack_numbers(state, model)
            model = press(P.PANEL, state, model, control.action, (rng.choice(control.options).value,))
        else:
            model = press(P.PANEL, state, model, control.action)
    return model


def play(name: str, rng: random.Random, steps: int, *, offers: bool) -> int:
    state = start(name)
    assert panel_for("pbw") is P.PANEL  # the registry's plug-in (pbw is offered in Discord)
    checked = 0
    seen: set[tuple[str, str]] = set()  # every action offered in the game
    covered: set[tuple[str, str]] = set()  # every action checked with each of its completions
    for step in range(steps):
        if state.over:
            break
        ruleset = ruleset_for(state)
        due = owing(state)
        for unit_id in state.units:
            if unit_id not in due:
                waiting = P.build_panel(state, unit_id, draft=Draft(), owing=False)
                assert waiting.waiting and not waiting.controls
        orders: dict[str, Any] = {}
        for unit_id in due:
            if offers:
                actions = offered(state, unit_id)
                seen |= actions
                if step % CHECK_EVERY == 0 or not actions <= covered:
                    checked += check_offers(state, unit_id)
                    covered |= actions
            walked = random_walk(state, unit_id, rng, rng.randrange(4, 14))
            raw = P.raw_order(walked) if walked.order is not None else P.raw_order(fresh(state, unit_id))
            order = accepted(state, unit_id, raw)
            assert order is not None, raw
            orders[unit_id] = order
            if ruleset.step_mode(state).value == "sequential_open":
                break  # one declarer per step (PBW-1)
        state = resolve_phase(ruleset, state, orders).state
    assert seen == covered, f"offered but never checked: {sorted(seen - covered)}"
    return checked


@pytest.mark.parametrize("name", SCENARIOS)
def test_pbw_1_5_every_offer_of_a_played_game_is_accepted(name: str) -> None:
    checked = play(name, random.Random(name), 26, offers=True)
    assert checked > 50, checked


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), name=st.sampled_from(SCENARIOS))
def test_pbw_random_walks_over_the_panel_never_submit_a_refused_order(seed: int, name: str) -> None:
    play(name, random.Random(seed), 20, offers=False)


def test_pbw_2_the_preview_follows_the_paths_of_every_declared_move() -> None:
    state = start("pbw-street")
    (unit_id,) = owing(state)
    at = state.units[unit_id].at
    assert at is not None
    model = press(P.PANEL, state, fresh(state, unit_id), "act", ("m",))
    assert P.preview(state, model) is None  # no step yet
    enabled = [s for s in P.SIDES if isinstance(b := model.control(s), Button) and b.enabled]
    model = press(P.PANEL, state, model, enabled[0])
    model = press(
        P.PANEL, state, model, "seg3"
    )  # segment 2 is left a defend; segment 3 shoots, not chosen yet
    model = press(P.PANEL, state, model, "act", ("f",))
    assert model.order is None and not model.control("submit").enabled  # type: ignore[union-attr]
    shown = P.preview(state, model)
    assert shown is not None and shown.path[0] == at and len(shown.path) == 2
    assert shown.path[1] == at.neighbor(int(enabled[0][1:]))


def test_pbw_1_a_stored_declaration_reopens_as_the_same_draft() -> None:
    state = start("pbw-street")
    (unit_id,) = owing(state)
    model = press(P.PANEL, state, fresh(state, unit_id), "act", ("m",))
    enabled = [s for s in P.SIDES if isinstance(b := model.control(s), Button) and b.enabled]
    model = press(P.PANEL, state, press(P.PANEL, state, model, enabled[0]), "seg2")
    model = press(P.PANEL, state, model, "act", ("f",))
    attack = model.control("atk")
    assert isinstance(attack, Select)
    model = press(P.PANEL, state, model, "atk", (attack.options[0].value,))
    model = press(P.PANEL, state, model, "aim", ("3",))  # the torso, −5
    raw = P.raw_order(model)
    assert raw["segments"][1]["aim"] == "torso"
    reopened = P.build_panel(state, unit_id, draft=P.draft_from_raw(state, unit_id, raw), owing=True)
    assert P.raw_order(reopened) == raw


def test_pbw_2_a_multi_hex_move_is_one_pick_on_the_destination_menu() -> None:
    """PBW-2: three hexes south in one go. With more hexes in reach than a menu holds (Movement 4 on an open
    board), the menu lists the directions first; the south's hexes come cheapest first, each with the Movement it
    uses, and one pick is a whole path the rules accept, with no step on the pad."""
    state = load_scenario(
        scenario_text(
            [person("ana", "a", "0505", initiative=3), person("bea", "b", "1510", initiative=6)], dice=[]
        )
    ).state
    model = press(P.PANEL, state, fresh(state, "ana"), "act", ("m",))
    menu = model.control(P.DEST)
    assert isinstance(menu, Select) and len(menu.options) <= 25
    assert all(o.value.startswith(P.HEADING) for o in menu.options), "directions first (HEX-2)"
    model = press(P.PANEL, state, model, P.DEST, (f"{P.HEADING}S",))
    menu = model.control(P.DEST)
    assert isinstance(menu, Select)
    hexes = [o for o in menu.options if not o.value.startswith(P.HEADING)]
    costs = [int(o.param("cost")) for o in hexes]
    assert costs == sorted(costs) and costs[0] == 1, "cheapest first"
    far = next(o for o in hexes if o.label == "0508")
    assert far.param("cost") == "3"
    model = press(P.PANEL, state, model, P.DEST, (far.value,))
    order = must_accept(state, model, "the pick of 0508")
    assert model.control("submit").enabled  # type: ignore[union-attr]
    path = P.raw_order(model)["segments"][0]["path"]
    assert path == ["0506", "0507", "0508"]
    assert order is not None
    chosen = model.control(P.DEST)
    assert isinstance(chosen, Select) and chosen.chosen == (far.value,)
    shown = P.preview(state, model)
    assert shown is not None and [h.label for h in shown.path] == ["0505", *path]
