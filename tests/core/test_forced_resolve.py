"""A step the director (or a deadline) forces on is told as forced, never as the absent player's choice: the
stand-in order each one-order-per-step ruleset makes (``Ruleset.stand_in``) reads "(forced by the director)" in
its account, in both languages (mech MECH-1.1, skirmish SK-1.1, pbw PBW-1)."""

from __future__ import annotations

import pytest

from bot.text.account import describe
from data import SCENARIO_DIR
from rules.engine import resolve_phase
from rules.order_modes import policy_for
from rules.registry import ruleset_for
from rules.scenario import load_scenario
from rules.state import EncounterState

FORCED = {"es": "(forzado por el director)", "en": "(forced by the director)"}
#: what the same step says when the player gave the order: never said of a forced one
CHOSEN = {
    "mech-duel": {"es": " declara:", "en": " declares:"},
    "skirmish-corridor": {"es": "PA sin gastar\n", "en": "AP unspent\n"},
    "pbw-brawl": {"es": "cierra su declaración", "en": "locks the declaration"},
}


def waiting(name: str, **options: bool) -> EncounterState:
    """The bundled scenario (with ``options``), on through the steps that take no orders, at the first that waits
    for one."""
    state = load_scenario(SCENARIO_DIR / f"{name}.toml").state
    state = state.replace(options={**state.options, **options})
    ruleset = ruleset_for(state)
    for _ in range(10):
        if ruleset.awaiting(state):
            return state
        state = resolve_phase(ruleset, state, {}).state
    raise AssertionError(f"{name}: nobody is awaited")


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("mech-duel", "se queda quieto"),  # MECH-1.1
        ("skirmish-corridor", "termina su fase de activación"),  # SK-1.1
        ("pbw-brawl", "se defiende los tres segmentos"),  # PBW-1
    ],
)
def test_mech_1_1_sk_1_1_pbw_1_a_forced_step_reads_as_forced(name: str, expected: str) -> None:
    state = waiting(name)
    ruleset = ruleset_for(state)
    absent = ruleset.awaiting(state)[0]
    orders = policy_for(ruleset, state).pick(ruleset, state, {}, stand_in=True)
    assert list(orders) == [absent]
    result = resolve_phase(ruleset, state, orders)
    name_of = state.units[absent].name
    for lang in ("es", "en"):
        account = "\n".join(describe(e, result.state, lang) for e in result.events) + "\n"
        forced = [line for line in account.splitlines() if FORCED[lang] in line]
        assert len(forced) == 1 and name_of in forced[0], account
        assert CHOSEN[name][lang] not in account.replace(forced[0], ""), account
        if lang == "es":
            assert expected in forced[0], forced[0]


def test_mech_1_1_a_forced_stand_in_a_secret_turn_stays_secret_and_reads_as_forced() -> None:
    state = waiting("mech-duel", secret_declarations=True)
    ruleset = ruleset_for(state)
    orders = policy_for(ruleset, state).pick(ruleset, state, {}, stand_in=True)
    result = resolve_phase(ruleset, state, orders)
    es, en = (describe(result.events[0], result.state, lang) for lang in ("es", "en"))
    assert "el director cierra su declaración (en secreto" in es and "quieto" not in es, es
    assert "the director locks it (secret" in en and "stands still" not in en, en
