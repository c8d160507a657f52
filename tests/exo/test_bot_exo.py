"""Exo through the application layer (no Discord): a whole duel from the panel's own orders, the pilot's
critical asked as a decision (EXO-4.1), "director reviews rolls" with an overridden roll, and deadlines."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

from bot.panels import exo as exo_panel
from bot.panels.draft import Draft
from bot.permissions import Actor
from bot.results import Resolution
from bot.scheduler import DeadlineScheduler
from bot.service import EncounterService
from rules.errors import GameError
from rules.events import GameOver, RollMade
from rules.registry import get_ruleset
from tests.exo_service_fixtures import ANA, BEA, CHANNEL, DIRECTOR, DUEL, GUILD, give, start_duel, with_dice


async def test_the_bundled_duel_played_through_the_service_ends_with_a_winner(
    service: EncounterService,
) -> None:
    """The scenario's own [[rounds]] orders, given as players would (a decision takes the last option)."""
    from rules.scenario import load_scenario

    rounds = [dict(r.raw.get("orders", {})) for r in load_scenario(DUEL).rounds]
    enc = await start_duel(service)
    results: list[Resolution] = []
    for _ in range(200):
        status = await service.status(enc)
        if status.over:
            break
        _, state, phase_no = await service.load(enc)
        orders = rounds[min(state.round, len(rounds)) - 1]
        for missing in status.missing:
            if state.pending is not None:
                all_in = await give(service, enc, missing.unit, missing.user_id)
            else:
                raw = dict(orders.get(missing.unit, {}))
                try:
                    all_in = (
                        await service.submit(enc, missing.user_id, missing.unit, raw, phase_no=phase_no)
                    ).all_in
                except GameError:  # the written order no longer fits (a disabled weapon): the panel's choice
                    all_in = await give(service, enc, missing.unit, missing.user_id)
            if all_in:
                results.append(await service.resolve(enc, expected_phase_no=phase_no, all_in=True))
    status = await service.status(enc)
    assert status.over and status.winner in ("red", "blue")
    assert (await service.storage.get_encounter(enc)).status == "ended"
    assert any(isinstance(e, GameOver) for r in results for s in r.steps for e in s.events)


async def test_exo_4_1_a_piloting_critical_is_asked_and_the_answer_runs(service: EncounterService) -> None:
    # no fire declared, so the first rolls are the pilots' (EXO-4.1): 1,1,1 is a critical success
    enc = await start_duel(service, with_dice(DUEL, "[1, 1, 1, 1, 1, 1]"))
    assert not await give(service, enc, "halcon", ANA, moves="DA", fire=0)
    assert await give(service, enc, "pirata", BEA, moves="I", fire=0)
    result = await service.resolve(enc, all_in=True)
    assert result.decision_unit in ("halcon", "pirata") and result.decision_user in (ANA, BEA)
    _, state, phase_no = await service.load(enc)
    assert state.pending is not None and state.pending.kind == "pilot_change"
    holder = ANA if state.pending.unit == "halcon" else BEA
    model = exo_panel.build_panel(state, state.pending.unit, draft=Draft(), owing=True)
    assert model.step == "decision" and model.options("decide")
    for _ in range(3):  # both pilots may have rolled a critical
        _, state, phase_no = await service.load(enc)
        if state.pending is None:
            break
        holder = ANA if state.pending.unit == "halcon" else BEA
        assert await give(service, enc, state.pending.unit, holder)
        result = await service.resolve(enc, expected_phase_no=phase_no, all_in=True)
    _, state, _ = await service.load(enc)
    assert state.pending is None and (state.round, state.phase) == (2, "1")


async def test_director_reviews_rolls_and_overrides_one(service: EncounterService) -> None:
    enc = await start_duel(service)
    await service.set_review_rolls(enc, Actor(DIRECTOR), True)
    await give(service, enc, "halcon", ANA, moves="D")
    await give(service, enc, "pirata", BEA, moves="I")
    first = await service.resolve(enc, all_in=True)
    # phase 1 locks the orders (no rolls), combat is held for the director
    assert first.held is not None and first.held.rolls
    index, _, _, dice = first.held.rolls[0]
    forced = tuple(10 for _ in dice)
    await service.override_roll(enc, Actor(DIRECTOR), index, forced)
    applied = await service.resolve(enc, forced=True, approved=True)
    rolls = [e for s in applied.steps[:1] for e in s.events if isinstance(e, RollMade)]
    assert rolls[index].dice == forced and rolls[index].source == "override"


async def test_a_deadline_resolves_the_phase_once(service: EncounterService) -> None:
    enc = await start_duel(service)
    await give(service, enc, "halcon", ANA, moves="D")
    await service.director_deadline(enc, Actor(DIRECTOR), 5)
    seen: list[Resolution] = []

    async def collect(result: Resolution) -> None:
        seen.append(result)

    scheduler = DeadlineScheduler(service, collect)
    assert await scheduler.tick() == 0  # not due yet
    service.clock.now += timedelta(minutes=6)  # type: ignore[attr-defined]
    assert await scheduler.tick() == 1
    assert seen and seen[0].steps and seen[0].steps[0].round == 1
    assert await scheduler.tick() == 0  # resolved once


async def test_repairs_of_a_ship_nobody_plays_never_hold_the_game(service: EncounterService) -> None:
    """Phase 5 asks only players: a damaged ship without a player (the director's) does not stop the round."""
    from rules.serial import to_json

    created = await service.create(GUILD, CHANNEL, DIRECTOR, ruleset="exo", toml_text=DUEL)
    enc = created.encounter_id
    await service.join(enc, ANA)  # Bea never joins: the pirate is nobody's
    await service.start(enc, Actor(DIRECTOR))
    seen = await service.read(enc)
    pirata = seen.state.units["pirata"]
    damaged = seen.state.with_units([replace(pirata, engines=1)]).replace(phase="5")  # type: ignore[type-var]
    await service.storage.commit_resolution(enc, seen.phase_no, [], to_json(damaged))

    assert get_ruleset("exo").awaiting(damaged) == ("pirata",)
    result = await service.advance(enc)
    assert result.steps and result.steps[0].phase == "5", "phase 5 resolved without waiting"
    assert (await service.read(enc)).state.phase == "1"
