"""The pbw engine driven through the bot's application layer (bot/service/core.py, no Discord): declarations one at a
time from the lowest Initiative (PBW-1), each its own step; then before each segment every character that may
change its intention answers at once (PBW-2, ``Ruleset.step_mode``), and each segment is a step of its own."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.permissions import Actor
from bot.results import Refused
from bot.service import EncounterService
from rules.order_modes import policy_for
from rules.registry import ruleset_for
from rules.ruleset import OrderMode
from tests.bot_fixtures import sqlite_service
from tests.pbw_fixtures import person, scenario_text

GUILD, CHANNEL = 10, 20
DIRECTOR, ANA, BEA = 1, 2, 3
DUEL = scenario_text(
    [
        person("ana", "a", "0505", initiative=3, weapons=[{"type": "knife", "held": True}]),
        person("bea", "b", "0507", initiative=6, weapons=[{"type": "baton", "held": True}]),
    ],
    dice=[6, 5, 2, 2] * 20,
)


@pytest.fixture
async def service(tmp_path: Path) -> AsyncIterator[EncounterService]:
    async with sqlite_service(tmp_path / "bot.sqlite3") as service:
        yield service


async def test_pbw_1_2_a_turn_through_the_service(service: EncounterService) -> None:
    created = await service.create(GUILD, CHANNEL, DIRECTOR, ruleset="pbw", toml_text=DUEL)
    enc = created.encounter_id
    await service.join(enc, ANA, unit="ana")
    await service.join(enc, BEA, unit="bea")
    started = await service.start(enc, Actor(DIRECTOR))
    assert started.steps == ()
    _, state, _ = await service.load(enc)
    assert state.phase == "declare" and service.owing(state) == ("ana",)  # PBW-1: lowest Initiative first
    assert policy_for(ruleset_for(state), state).mode is OrderMode.SEQUENTIAL_OPEN

    with pytest.raises(Refused):  # not Bea's turn yet
        await service.submit(enc, BEA, "bea", {"segments": [{"action": "defend"}]})
    done = await service.submit(
        enc, ANA, "ana", {"segments": [{"action": "move", "path": ["0506"]}, {"action": "defend"}]}
    )
    assert done.all_in
    locked = await service.resolve(enc, expected_phase_no=done.phase_no, all_in=True)
    assert [s.phase for s in locked.steps] == ["declare"]
    assert type(locked.steps[0].public_events[0]).__name__ == "DeclarationLocked"

    done = await service.submit(
        enc,
        BEA,
        "bea",
        {"segments": [{"action": "defend"}, {"action": "melee", "target": "ana", "weapon": 1}]},
    )
    turn = await service.resolve(enc, expected_phase_no=done.phase_no, all_in=True)
    assert [s.phase for s in turn.steps] == ["declare"]
    _, state, phase_no = await service.load(enc)
    # PBW-2: before segment 1 both may change; the step waits for both answers (simultaneous)
    assert state.phase == "segment-1" and set(service.owing(state)) == {"ana", "bea"}
    assert policy_for(ruleset_for(state), state).mode is OrderMode.SIMULTANEOUS
    first = await service.submit(enc, BEA, "bea", "keep")
    assert not first.all_in
    second = await service.submit(enc, ANA, "ana", "keep")
    assert second.all_in
    seg = await service.resolve(enc, expected_phase_no=phase_no, all_in=True)
    assert [s.phase for s in seg.steps] == ["segment-1"]
    _, state, _ = await service.load(enc)
    assert state.phase == "segment-2"


async def test_pbw_2_a_segment_waits_for_every_answer_and_the_director_can_move_on(
    service: EncounterService,
) -> None:
    """Before a segment the step waits for every player's keep-or-change (no answer: the declared action stands,
    so the director or a deadline can resolve it without the missing ones)."""
    created = await service.create(GUILD, CHANNEL, DIRECTOR, ruleset="pbw", toml_text=DUEL)
    enc = created.encounter_id
    await service.join(enc, ANA, unit="ana")
    await service.join(enc, BEA, unit="bea")
    await service.start(enc, Actor(DIRECTOR))
    for user, unit in ((ANA, "ana"), (BEA, "bea")):
        done = await service.submit(enc, user, unit, {"segments": [{"action": "defend"}]})
        await service.resolve(enc, expected_phase_no=done.phase_no, all_in=True)
    _, state, phase_no = await service.load(enc)
    assert state.phase == "segment-1"
    await service.submit(enc, BEA, "bea", "keep")
    waiting = await service.resolve(enc, expected_phase_no=phase_no)
    assert waiting.steps == ()  # Ana has not answered
    status = await service.status(enc)
    assert [m.unit for m in status.missing] == ["ana"]
    forced = await service.resolve(enc, expected_phase_no=phase_no, forced=True)
    assert forced.steps[0].phase == "segment-1"
    assert not any(type(e).__name__ == "PbwIntentionChanged" for e in forced.steps[0].events)
