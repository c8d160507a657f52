"""The words contract over a whole game: every bundled scenario is played through its scripted rounds, and after
every step each surface a reader gets is read in both languages: the record sheet of every unit (``/unit info``,
for the director and each side), the order panel of every unit (title, lines, figures, fields, every control and
option) and the step's account. None may show a catalog key (``stat.``, ``term.``, ``field[``…), an unfilled
template or an engine phase id. The scenarios and rulesets come from the registry and ``data/scenarios``, so a new
one is checked without being named here."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.panels import build, panel_for
from bot.panels.draft import Draft
from bot.panels.model import Button, PanelModel
from bot.rulesets.sheets import record_sheet
from bot.text.account import describe
from data import SCENARIO_DIR
from data.i18n import t
from rules.engine import visibility
from rules.events import Event
from rules.registry import discord_ruleset_ids, ruleset_for
from rules.ruleset import DIRECTOR, DiceFactory
from rules.scenario import load_scenario
from rules.state import EncounterState
from tests.words_fixtures import LOCALES, assert_reads_as_words, text_of

SCENARIOS = sorted(SCENARIO_DIR.glob("*.toml"))
#: steps checked per scenario: enough for every phase of a few rounds, few enough for two cores
MAX_STEPS = 12


def panel_text(model: PanelModel, locale: str) -> str:
    """Every word a panel shows, as cogs/panel/components.py draws it."""
    out: list[str] = [model.when.render(locale) if model.when is not None else ""]
    out += [line.render(locale) for line in model.lines]
    for stat in model.stats:
        value = stat.value if isinstance(stat.value, str) else stat.value.render(locale)
        out.append(f"{t(f'stat.{stat.name}', locale)}: {value}")
    for field in model.fields:
        out.append(field.name.render(locale))
        out += [line.render(locale) for line in field.lines]
    for control in model.controls:
        if isinstance(control, Button):
            out.append(control.label.render(locale))
        else:
            out.append(control.placeholder.render(locale))
            out += [option.text.render(locale) for option in control.options]
    return "\n".join(out)


def steps(path: Path) -> list[tuple[EncounterState, tuple[Event, ...]]]:
    """The scenario's start, then the state and events after each scripted step (at most ``MAX_STEPS``)."""
    scenario = load_scenario(path)
    state = scenario.state
    ruleset = ruleset_for(state)
    out: list[tuple[EncounterState, tuple[Event, ...]]] = [(state, ())]
    for spec in scenario.rounds:
        for step in ruleset.simulate_round(state, spec, DiceFactory()):
            out.append((step.state, step.events))
            state = step.state
            if len(out) > MAX_STEPS:
                return out
        if state.over:
            break
    return out


def check_sheets(state: EncounterState, where: str) -> None:
    for viewer in (DIRECTOR, *(s.id for s in state.sides)):
        seen = visibility(ruleset_for(state), state, viewer).units
        for uid in sorted(seen):
            sheet = record_sheet(state, uid, viewer)
            for locale in LOCALES:
                assert_reads_as_words(text_of(sheet, locale), state, locale, f"{where} sheet {uid} {viewer}")


def check_panels(state: EncounterState, where: str) -> None:
    if state.ruleset not in discord_ruleset_ids() or state.over:
        return
    plugin = panel_for(state.ruleset)
    owing = set(ruleset_for(state).awaiting(state))
    for uid, unit in sorted(state.units.items()):
        if unit.destroyed or unit.at is None:
            continue
        model = build(plugin, state, uid, draft=Draft(), owing=uid in owing)
        for locale in LOCALES:
            assert_reads_as_words(panel_text(model, locale), state, locale, f"{where} panel {uid}")


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: Path(p).stem)
def test_every_surface_of_every_bundled_scenario_reads_as_words_at_every_step(path: Path) -> None:
    played = steps(path)
    assert played
    for n, (state, events) in enumerate(played):
        where = f"{path.name} step {n}"
        check_sheets(state, where)
        check_panels(state, where)
        for locale in LOCALES:
            account = "\n".join(describe(ev, state, locale) for ev in events)
            assert_reads_as_words(account, state, locale, f"{where} account")
