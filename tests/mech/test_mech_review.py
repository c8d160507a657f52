"""MECH-4 with "director reviews rolls" (/director review): every roll of a mech turn (initiative, fire, heat)
is held for the director before anything is applied or published, a roll can be changed, and the approval
applies exactly what the director saw."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.permissions import Actor
from bot.service import EncounterService
from rules.mech.state import DECLARE, INITIATIVE, RESOLVE
from tests.bot_fixtures import sqlite_service
from tests.mech_fixtures import scenario_text, unit

GUILD, CHANNEL = 10, 20
DIRECTOR, ANA, BEA = 1, 2, 3
DUEL = scenario_text(
    unit("hunter", "red", "0810", initiative=0),
    unit("raven", "blue", "0806", facing="S", initiative=9),
    seed=4,
    rolls="weapon",  # MECH-2.1a [HOUSE]: every shot rolls when the turn resolves
)
#: the default (MECH-2.1a): each declaration carries its Gunnery and Piloting rolls from the moment it locks
DUEL_BY_DECLARATION = scenario_text(
    unit("hunter", "red", "0810", initiative=0),
    unit("raven", "blue", "0806", facing="S", initiative=9),
    seed=4,
)


@pytest.fixture
async def service(tmp_path: Path) -> AsyncIterator[EncounterService]:
    async with sqlite_service(tmp_path / "bot.sqlite3") as service:
        yield service


async def test_mech_4_the_director_sees_every_roll_of_a_turn_before_it_is_applied(
    service: EncounterService,
) -> None:
    enc = (await service.create(GUILD, CHANNEL, DIRECTOR, ruleset="mech", toml_text=DUEL)).encounter_id
    await service.join(enc, ANA, unit="hunter")
    await service.join(enc, BEA, unit="raven")
    await service.set_review_rolls(enc, Actor(DIRECTOR), True)
    started = await service.start(enc, Actor(DIRECTOR))
    assert started.held is not None and not started.steps  # the initiative rolls, held (MECH-1.1)
    assert all(rule == "MECH-1.1" for _, rule, _, _ in started.held.rolls)
    _, state, phase_no = await service.load(enc)
    assert state.phase == INITIATIVE
    # the director changes the first initiative roll, then approves: what they saw is what is applied
    first = started.held.rolls[0][0]
    await service.override_roll(enc, Actor(DIRECTOR), first, (6, 6))
    approved = await service.resolve(enc, forced=True, approved=True, expected_phase_no=phase_no)
    assert [s.phase for s in approved.steps] == [INITIATIVE]
    rolled = [e for e in approved.steps[0].events if type(e).__name__ == "RollMade"]
    assert rolled[0].dice == (6, 6)  # type: ignore[attr-defined]
    _, state, _ = await service.load(enc)
    assert state.phase == DECLARE
    users = {"hunter": ANA, "raven": BEA}
    locked = approved
    for _ in range(2):  # both declare: per shot, a declaration rolls nothing, so nothing is held
        _, state, _ = await service.load(enc)
        (uid,) = service.owing(state)
        other = "raven" if uid == "hunter" else "hunter"
        done = await service.submit(enc, users[uid], uid, {"fire": [{"weapon": 1, "target": other}]})
        locked = await service.resolve(enc, expected_phase_no=done.phase_no, all_in=True)
        assert locked.steps and locked.steps[0].phase == DECLARE
    # the turn: its rolls (fire, MECH-2.1) held before anything moves or is posted
    assert locked.held is not None
    assert any(rule == "MECH-2.1" for _, rule, _, _ in locked.held.rolls)
    _, state, phase_no = await service.load(enc)
    assert state.phase == RESOLVE and state.round == 1
    turn = await service.resolve(enc, forced=True, approved=True, expected_phase_no=phase_no)
    assert turn.steps[0].phase == RESOLVE
    assert any(type(e).__name__ == "WeaponFired" for e in turn.steps[0].events)
    assert turn.held is not None  # and the next turn's initiative waits for the director again


async def test_mech_2_1a_a_declarations_rolls_are_held_for_the_director_before_it_is_posted(
    service: EncounterService,
) -> None:
    """MECH-4 review over MECH-2.1a: the declaration's Gunnery and Piloting 2d6 are rolled as it locks, so the
    director sees them (and may change them) before the declaration is posted; every shot then reads the
    approved Gunnery roll."""
    enc = (
        await service.create(GUILD, CHANNEL, DIRECTOR, ruleset="mech", toml_text=DUEL_BY_DECLARATION)
    ).encounter_id
    await service.join(enc, ANA, unit="hunter")
    await service.join(enc, BEA, unit="raven")
    await service.set_review_rolls(enc, Actor(DIRECTOR), True)
    started = await service.start(enc, Actor(DIRECTOR))
    assert started.held is not None
    _, state, phase_no = await service.load(enc)
    await service.resolve(enc, forced=True, approved=True, expected_phase_no=phase_no)
    _, state, _ = await service.load(enc)
    (uid,) = service.owing(state)
    other = "raven" if uid == "hunter" else "hunter"
    users = {"hunter": ANA, "raven": BEA}
    done = await service.submit(enc, users[uid], uid, {"fire": [{"weapon": 1, "target": other}]})
    held = await service.resolve(enc, expected_phase_no=done.phase_no, all_in=True)
    assert held.held is not None and not held.steps  # nothing posted yet
    rules = [rule for _, rule, _, _ in held.held.rolls]
    assert rules == ["MECH-2.1a", "MECH-2.1a"]  # Gunnery, then Piloting
    gunnery = held.held.rolls[0][0]
    _, state, phase_no = await service.load(enc)
    assert state.phase == DECLARE
    await service.override_roll(enc, Actor(DIRECTOR), gunnery, (6, 6))
    approved = await service.resolve(enc, forced=True, approved=True, expected_phase_no=phase_no)
    shown = [e for e in approved.steps[0].events if type(e).__name__ == "DeclarationRolled"]
    assert [(e.unit, e.gunnery_roll) for e in shown] == [(uid, 12)]  # type: ignore[attr-defined]
