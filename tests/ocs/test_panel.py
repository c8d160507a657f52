"""The ocs panels without Discord (bot/panels/ocs.py): what they offer validates, the director answers for an absent
player through the service, the director reviews the rolls before they apply, the OCS-7 card in both languages.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.panels import accepted, panel_for, press, status_lines, step_cards
from bot.panels.draft import Draft, fits
from bot.panels.model import Option, PanelModel, Select
from bot.permissions import Actor
from bot.results import Refused
from bot.service import EncounterService
from data import SCENARIO_DIR
from data.loader import load_table
from rules.engine import resolve_phase
from rules.ocs.events import OcsCombatRoll
from rules.ocs.model import ext_of
from rules.ocs.tables import tables
from rules.registry import get_ruleset
from rules.ruleset import DIRECTOR, DiceFactory
from rules.scenario import load_scenario
from rules.state import EncounterState
from tests.bot_fixtures import sqlite_service
from tests.ocs_fixtures import TWO_COMBATS

PLUGIN = panel_for("ocs")
OCS = get_ruleset("ocs")
DORA, ANA, BEA = 1, 2, 3
FINAL = {"att", "kind", "ar", "loss", "to", "mode", "combat"}  # selects whose choice completes an order


def gazala() -> EncounterState:
    return load_scenario((SCENARIO_DIR / "ocs-gazala.toml").read_text(encoding="utf-8")).state


def two_combats(*, players_open: bool = False) -> EncounterState:
    text = TWO_COMBATS + ("\n[options]\nplayers_open_combats = true\n" if players_open else "")
    return load_scenario(text).state


def selects(model: PanelModel) -> list[Select]:
    return [c for c in model.controls if isinstance(c, Select)]


def final(select: Select) -> bool:
    return select.action in FINAL or select.action.startswith("rt")


def some(options: tuple[Option, ...]) -> tuple[Option, ...]:
    """The first three and the last three options (a move offers up to 25 hexes: the test stays fast)."""
    return options if len(options) <= 6 else (*options[:3], *options[-3:])


def complete(state: EncounterState, unit: str, model: PanelModel) -> Iterator[PanelModel]:
    """Every panel reached by filling the selects in order (every task; every option of a select that completes
    an order, the first option of the others, so the tree stays small). Once every select is filled, each other
    option of a completing select must also give an order Submit accepts."""
    pending = [s for s in selects(model) if not s.chosen]
    if pending:
        select = pending[0]
        options = some(select.options) if final(select) or select.action == "task" else select.options[:1]
        for option in options:
            after = press(PLUGIN, state, model, select.action, (option.value,))
            assert fits(after.draft), after.draft
            assert after.draft != model.draft, (select.action, option.value)
            yield from complete(state, unit, after)
        return
    submit = model.control("submit")
    assert submit is not None and submit.enabled, (unit, model.draft)
    yield model
    for select in selects(model):
        if not final(select):
            continue
        for option in some(select.options):
            if option.value not in select.chosen:
                after = press(PLUGIN, state, model, select.action, (option.value,))
                done = after.control("submit")
                assert done is not None and done.enabled, (unit, select.action, option.value, after.draft)
                yield after


def panels(state: EncounterState) -> Iterator[tuple[str, PanelModel]]:
    """The director's panel, the panel of every unit that owes an answer, and of two units that may act
    unprompted (their owner's free move and mode, a combat when players may open them)."""
    free = [u for u in sorted(state.units) if OCS.may_act(state, u) and u not in OCS.awaiting(state)][:2]
    for unit in (DIRECTOR, *OCS.awaiting(state), *free):
        yield unit, PLUGIN.build_panel(state, unit, draft=Draft(), owing=True)


def orders_offered(state: EncounterState) -> list[tuple[str, Any]]:
    """Every complete order the panels lead to, checked: the rules accept each (what Submit sends)."""
    out: list[tuple[str, Any]] = []
    for unit, model in panels(state):
        for done in complete(state, unit, model):
            raw = PLUGIN.raw_order(done)
            assert accepted(state, unit, raw) is not None, (unit, done.draft, raw)
            out.append((unit, raw))
            redrafted = PLUGIN.draft_from_raw(state, unit, raw)
            assert PLUGIN.raw_order(replace_draft(state, unit, redrafted)) == raw, (raw, redrafted)
    return out


def replace_draft(state: EncounterState, unit: str, draft: Draft) -> PanelModel:
    return PLUGIN.build_panel(state, unit, draft=draft, owing=True)


@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), start=st.sampled_from(["gazala", "two", "players"]))
def test_every_offered_choice_validates(data: st.DataObject, start: str) -> None:
    """OCS-2..6: along random plays made only of what the panels offer, every complete order they lead to is
    accepted by the rules (a panel never offers what Submit would refuse), and a stored order reopens as itself."""
    state = gazala() if start == "gazala" else two_combats(players_open=start == "players")
    for step in range(6):
        offered = orders_offered(state)
        assert offered, "the director can always do something (move a unit, change a mode)"
        # prefer the procedure: combats and answers over moves
        combat = [o for o in offered if not ({"move", "mode"} & set(o[1]))]
        unit, raw = data.draw(st.sampled_from(combat or offered), label=f"order {step}")
        order = OCS.parse_order(state, unit, raw)
        OCS.validate_order(state, unit, order)
        result = resolve_phase(OCS, state, {unit: order}, dice_for=DiceFactory())
        state = result.state
        while OCS.auto_resolves(state):  # a combat ready to roll rolls (seeded dice)
            state = resolve_phase(OCS, state, {}, dice_for=DiceFactory()).state


def test_director_panel_offers_only_attackers_of_the_chosen_hex() -> None:
    """OCS-2: the attackers select lists the units adjacent to the defender hex that may attack it."""
    state = gazala()
    model = PLUGIN.build_panel(state, DIRECTOR, draft=Draft(task="open", at="0608"), owing=True)
    att = model.options("att")
    assert {o.value for o in att} == {"ariete", "trieste", "lt90"}
    model = press(
        PLUGIN, state, model, "att", ("ariete", "nope", "pz21")
    )  # a forged click keeps what is offered
    assert model.draft.list("att") == ("ariete",)
    preview = "\n".join(line.render("es") for f in model.fields for line in f.lines)
    assert "proporción" in preview and "erizo 2" in preview


def test_a_player_opens_a_combat_with_its_own_unit_when_the_director_allows_it() -> None:
    """OCS-2: with ``players_open_combats`` a side's player opens a combat from its unit's panel (its own unit
    always among the attackers); without it the panel offers no combat and the rules refuse one."""
    closed = two_combats()
    model = PLUGIN.build_panel(closed, "a1", draft=Draft(), owing=True)
    assert {o.value for o in model.options("task")} == {"move", "mode"}
    refused = accepted(closed, "a1", {"combat": {"attackers": ["a1"], "defender": "0403"}})
    assert refused is None
    state = two_combats(players_open=True)
    model = PLUGIN.build_panel(state, "a1", draft=Draft(), owing=True)
    assert "open" in {o.value for o in model.options("task")}
    model = press(PLUGIN, state, model, "task", ("open",))
    assert [o.value for o in model.options("at")] == ["0403"]
    model = press(PLUGIN, state, model, "at", ("0403",))
    assert [o.value for o in model.options("att")] == ["a2"], "the others that may join; a1 is in already"
    model = press(PLUGIN, state, model, "att", ("a2",))
    raw = PLUGIN.raw_order(model)
    assert raw == {"combat": {"attackers": ["a1", "a2"], "defender": "0403", "kind": "regular"}}
    order = accepted(state, "a1", raw)
    assert order is not None
    after = resolve_phase(OCS, state, {"a1": order}, dice_for=DiceFactory()).state
    assert [c.at.label for c in ext_of(after).combats] == ["0403"]
    assert not OCS.may_act(after, "a1"), "a unit in an open combat waits until it ends"


def test_terrain_kinds_are_the_crt_classes() -> None:
    """/director terrain offers data/ocs/terrain.toml's kinds: the CRT's terrain classes (OCS-4)."""
    assert set(load_table("ocs/terrain")["kinds"]) == set(tables().terrain_classes)


def test_result_card_has_every_figure_in_both_languages() -> None:
    """OCS-7 with the seed's terms: proporción, Action Rating, modificador, sorpresa, erizo, desplazamiento."""
    state = gazala()
    for raw in (
        {"combat": {"attackers": ["ariete", "trieste", "lt90"], "defender": "0608"}},
        {"ar": "ariete", "combat": 1},
        {"ar": "ffl1", "combat": 1},
    ):
        state = resolve_phase(
            OCS, state, {DIRECTOR: OCS.parse_order(state, DIRECTOR, raw)}, dice_for=DiceFactory()
        ).state
    state = state.replace(dice_script=(2, 2, 6, 6))  # 4 + (2-4) - 1 = 1: defender surprise; shift 6
    result = resolve_phase(OCS, state, {}, dice_for=DiceFactory())
    (card,) = step_cards(PLUGIN, result.state, result.events)
    es = {name.render("es"): value.render("es") for name, value in card.fields}
    assert set(es) == {
        "Action Rating",
        "Modificador (DRM)",
        "Cociente",
        "Proporción redondeada",
        "Columna",
        "Sorpresa",
        "Desplazamiento de columna",
        "Columna final",
        "Tirada de combate",
        "Resultado",
    }
    assert "erizo" in es["Sorpresa"] and "el defensor sorprende al atacante" in es["Sorpresa"]
    assert es["Desplazamiento de columna"] == "1d6 = 6 → -6"
    assert es["Columna final"].startswith("1 ")  # clamped at the left end (OCS-5)
    assert "−2 erizo" in es["Tirada de combate"]
    en = {name.render("en"): value.render("en") for name, value in card.fields}
    assert "hedgehog" in en["Surprise"] and en["Column shift"] == "1d6 = 6 → -6"
    assert card.title.render("es").startswith("Combate 1 en 0608")


def test_status_lines_list_open_combats_and_who_owes() -> None:
    state = gazala()
    assert [line.render("en") for line in status_lines(PLUGIN, state)] == [
        "No combat is open: the director opens one from their panel (/orders)."
    ]
    for raw in (
        {"combat": {"attackers": ["ariete", "trieste", "lt90"], "defender": "0608"}},
        {"combat": {"attackers": ["pz21", "pz15"], "defender": "0605"}},
    ):
        state = resolve_phase(
            OCS, state, {DIRECTOR: OCS.parse_order(state, DIRECTOR, raw)}, dice_for=DiceFactory()
        ).state
    lines = [line.render("es") for line in status_lines(PLUGIN, state)]
    assert lines[0] == "Combates abiertos: 2"
    assert "Combate 1 en 0608" in lines[1] and "atacante" in lines[1]
    assert "Combate 2 en 0605" in lines[2]


# --- through the service (no Discord) ------------------------------------------------------------------------


@pytest.fixture
async def service(tmp_path: Path) -> AsyncIterator[EncounterService]:
    async with sqlite_service(tmp_path / "ocs.sqlite3") as svc:
        yield svc


async def running(service: EncounterService) -> int:
    created = await service.create(10, 20, DORA, ruleset="ocs", toml_text=TWO_COMBATS)
    enc = created.encounter_id
    for user, units in ((ANA, ("a1", "a2", "x1", "x2")), (BEA, ("d1", "d2", "b1", "b2"))):
        for unit in units:
            await service.join(enc, user, unit=unit)
    await service.start(enc, Actor(DORA))
    return enc


async def director_gives(service: EncounterService, enc: int, picks: list[tuple[str, str]]) -> None:
    """The director's panel, the selects in order, Submit (what the Discord panel does), then the resolution.
    ``picks``: (select, value); a value ``"b1,b2"`` picks several in one select."""
    seen = await service.read(enc)
    model = PLUGIN.build_panel(seen.state, DIRECTOR, draft=Draft(), owing=True)
    for action, value in picks:
        model = press(PLUGIN, seen.state, model, action, tuple(value.split(",")))
    result = await service.submit(enc, DORA, DIRECTOR, PLUGIN.raw_order(model), actor=Actor(DORA))
    assert result.all_in
    await service.resolve(enc, expected_phase_no=result.phase_no, forced=True)


async def test_director_answers_for_an_absent_player(service: EncounterService) -> None:
    """OCS-2: Bea does not answer; the director names her attacker's AR unit from the director's panel. A player
    cannot use the director's panel."""
    enc = await running(service)
    seen = await service.read(enc)
    assert await service.panel_units(enc, Actor(DORA)) == [DIRECTOR]
    assert DIRECTOR not in await service.panel_units(enc, Actor(BEA))
    assert not await service.may_use_panel(seen, DIRECTOR, Actor(BEA))
    await director_gives(service, enc, [("task", "open"), ("at", "0606"), ("att", "b1,b2")])
    seen = await service.read(enc)
    (combat,) = ext_of(seen.state).combats
    assert combat.stage == "ar_attacker" and OCS.awaiting(seen.state) == ("b1",)
    with pytest.raises(Refused) as err:
        await service.submit(enc, BEA, DIRECTOR, {"ar": "b2", "combat": 1}, actor=Actor(BEA))
    assert err.value.code == "unit.not_yours"
    await director_gives(service, enc, [("task", "q1"), ("ar", "b2")])
    seen = await service.read(enc)
    (combat,) = ext_of(seen.state).combats
    assert combat.ar_attacker == "b2" and combat.stage == "ar_defender"
    assert OCS.awaiting(seen.state) == ("x1",)  # then the defender's player (Ana) is asked


async def test_director_reviews_the_rolls_before_they_apply(service: EncounterService) -> None:
    """DICE-3 with OCS-5/6: with review on, the combat's rolls are held for the director, who may replace one
    (the combat roll) before they apply."""
    enc = await running(service)
    await service.set_review_rolls(enc, Actor(DORA), True)
    await director_gives(
        service, enc, [("task", "open"), ("at", "0403"), ("att", "a1,a2"), ("kind", "regular")]
    )
    await director_gives(
        service, enc, [("task", "q1"), ("ar", "a1")]
    )  # d1 and d2 remain: the defender chooses
    seen = await service.read(enc)
    submitted = await service.submit(enc, BEA, "d1", {"ar": "d1", "combat": 1})
    held = await service.resolve(enc, expected_phase_no=submitted.phase_no, forced=True)
    assert held.held is not None
    rules = [rule for _, rule, _, _ in held.held.rolls]
    assert rules[0] == "OCS-5" and rules[-1] == "OCS-6"
    assert ext_of((await service.read(enc)).state).combats[0].result is None, "nothing applied while held"
    index = held.held.rolls[-1][0]
    await service.override_roll(enc, Actor(DORA), index, (1, 1))
    done = await service.resolve(enc, forced=True, approved=True)
    rolled = [e for step in done.steps for e in step.events if isinstance(e, OcsCombatRoll)]
    assert rolled and rolled[0].roll == 2, "the director's dice, not the held ones"
    assert seen.phase_no < (await service.read(enc)).phase_no


async def test_director_lets_players_open_combats_with_an_option(service: EncounterService) -> None:
    """OCS-2: ``/director option players_open_combats on`` (an undoable override) and Ana's unit panel offers
    to open a combat; an option the ruleset does not have is refused."""
    from bot.transforms import overrides

    enc = await running(service)
    seen = await service.read(enc)
    model = PLUGIN.build_panel(seen.state, "a1", draft=Draft(), owing=True)
    assert "open" not in {o.value for o in model.options("task")}
    with pytest.raises(Refused) as err:
        await service.override(
            enc, Actor(DORA), "option", "", lambda s: overrides.set_option(s, "nope", True)
        )
    assert err.value.code == "director.bad_option"
    done = await service.override(
        enc, Actor(DORA), "option", "", lambda s: overrides.set_option(s, "players_open_combats", True)
    )
    assert done.state.option("players_open_combats") is True
    seen = await service.read(enc)
    model = PLUGIN.build_panel(seen.state, "a1", draft=Draft(task="open", at="0403"), owing=True)
    raw = PLUGIN.raw_order(model)
    assert raw["combat"]["attackers"] == ["a1"]
    result = await service.submit(enc, ANA, "a1", raw)
    await service.resolve(enc, expected_phase_no=result.phase_no, forced=True)
    assert [c.at.label for c in ext_of((await service.read(enc)).state).combats] == ["0403"]
