"""What ``/orders`` answers (bot/orders_reply.py): the panels of the units that may act now, the others named on
one short line in the reader's language, and why nothing can be ordered while the encounter does not run."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime

import pytest

from bot.orders_reply import split_units, waiting_line
from bot.service import EncounterService
from bot.service.base import Reading
from bot.storage.base import Encounter, EncounterStatus
from data import SCENARIO_DIR
from rules.engine import resolve_phase
from rules.registry import get_ruleset
from rules.ruleset import DiceFactory
from rules.scenario import load_scenario
from rules.skirmish.activation import ext_of
from rules.state import EncounterState

CORRIDOR = (SCENARIO_DIR / "skirmish-corridor.toml").read_text(encoding="utf-8")
RULES = get_ruleset("skirmish")
TYR = ["tyrano", "brak", "kara", "zug"]


def drawn(*plan: str) -> EncounterState:
    """The corridor after the first chit draw, chits in ``plan`` order (SK-1.1)."""
    state = load_scenario(CORRIDOR).state
    state = state.replace(ext=dataclasses.replace(ext_of(state), draw_plan=plan))
    return resolve_phase(RULES, state, {}, dice_for=DiceFactory()).state


def reading(state: EncounterState, status: EncounterStatus = "running") -> Reading:
    now = datetime(2026, 1, 1, tzinfo=UTC)
    meta = Encounter(1, 1, 1, "skirmish", "corridor", 1, status, 3, {}, 0, now, now)
    return Reading(meta, state, 3, [])


def chit_of(state: EncounterState, side: str) -> str:
    return next(
        c
        for c in ext_of(state).bag
        if any(u.side == side and getattr(u, "unit_group", None) == c for u in state.units.values())
    )


async def test_sk_1_1_only_the_characters_of_the_drawn_chit_get_panels(service: EncounterService) -> None:
    state = load_scenario(CORRIDOR).state
    state = drawn(chit_of(state, "tyr"))
    awaited = set(RULES.awaiting(state))
    assert awaited and awaited <= set(TYR)
    reply = split_units(service, reading(state), TYR)
    assert set(reply.acting) == awaited and set(reply.waiting) == set(TYR) - awaited
    line = waiting_line(reading(state), reply, "es")
    assert line is not None and line.endswith("su turno.")
    assert all(state.units[u].name in line for u in reply.waiting), line


async def test_sk_1_1_none_acting_is_one_line_in_the_readers_language(service: EncounterService) -> None:
    state = load_scenario(CORRIDOR).state
    state = drawn(chit_of(state, "rfp"))
    reply = split_units(service, reading(state), TYR)
    assert reply.acting == () and reply.waiting == tuple(TYR)
    assert waiting_line(reading(state), reply, "en") == (
        "Nothing to order now: Tyrano, Brak, Kara and Zug wait for their turn. "
        "Use /orders again when the status names you."
    )
    es = waiting_line(reading(state), reply, "es")
    assert es is not None and es.startswith(
        "Nada que ordenar ahora: Tyrano, Brak, Kara y Zug esperan su turno."
    )


@pytest.mark.parametrize(
    ("status", "text"),
    [("open", "has not started yet"), ("paused", "paused this encounter"), ("ended", "has ended")],
)
async def test_an_encounter_that_does_not_run_says_why_nothing_can_be_ordered(
    service: EncounterService, status: EncounterStatus, text: str
) -> None:
    state = load_scenario(CORRIDOR).state
    state = drawn(chit_of(state, "tyr"))
    seen = reading(state, status)
    reply = split_units(service, seen, TYR)
    assert reply.acting == ()
    line = waiting_line(seen, reply, "en")
    assert line is not None and text in line, line
