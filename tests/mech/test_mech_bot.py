"""The mech engine driven through the bot's application layer (bot/service/core.py, no Discord): the initiative step
resolves by itself, one declarer is owed at a time, each declaration is its own step (so its announcement goes
out before the turn's account), and the turn resolves by itself after the last one."""

from __future__ import annotations

import pytest

from bot.permissions import Actor
from bot.results import Refused
from bot.service import EncounterService
from rules.mech.state import DECLARE, INITIATIVE, RESOLVE
from tests.mech_fixtures import scenario_text, unit

GUILD, CHANNEL = 10, 20
DIRECTOR, ANA, BEA = 1, 2, 3
DUEL = scenario_text(
    unit("hunter", "red", "0810", initiative=0),
    unit("raven", "blue", "0805", facing="S", initiative=9),
    seed=4,
)


async def test_a_mech_turn_through_the_service(service: EncounterService) -> None:
    created = await service.create(GUILD, CHANNEL, DIRECTOR, ruleset="mech", toml_text=DUEL)
    enc = created.encounter_id
    await service.join(enc, ANA, unit="hunter")
    await service.join(enc, BEA, unit="raven")
    started = await service.start(enc, Actor(DIRECTOR))
    assert [s.phase for s in started.steps] == [INITIATIVE]  # rolled by itself
    _, state, _ = await service.load(enc)
    first = service.owing(state)
    assert state.phase == DECLARE and len(first) == 1
    second = "raven" if first == ("hunter",) else "hunter"
    users = {"hunter": ANA, "raven": BEA}

    with pytest.raises(Refused):  # not its turn: the bot only takes the awaited declarer's order
        await service.submit(enc, users[second], second, {})

    raw = {"fire": [{"weapon": 1, "target": second}]}
    done = await service.submit(enc, users[first[0]], first[0], raw)
    assert done.all_in
    locked = await service.resolve(enc, expected_phase_no=done.phase_no, all_in=True)
    assert [s.phase for s in locked.steps] == [DECLARE]
    # the declaration and its two MECH-2.1a rolls, shown with it (open declarations)
    assert [type(e).__name__ for e in locked.steps[0].events] == [
        "DeclarationLocked",
        "RollMade",
        "RollMade",
        "DeclarationRolled",
    ]
    _, state, _ = await service.load(enc)
    assert service.owing(state) == (second,)

    done = await service.submit(enc, users[second], second, {"mode": "walk", "path": []})
    turn = await service.resolve(enc, expected_phase_no=done.phase_no, all_in=True)
    # the last declaration, then the turn, then the next initiative — each its own step
    assert [s.phase for s in turn.steps] == [DECLARE, RESOLVE, INITIATIVE]
    assert any(type(e).__name__ == "HeatChanged" for e in turn.steps[1].events)
    _, state, _ = await service.load(enc)
    assert state.round == 2 and state.phase == DECLARE and len(service.owing(state)) == 1


async def test_the_director_resolving_without_a_declaration_locks_standing_still(
    service: EncounterService,
) -> None:
    created = await service.create(GUILD, CHANNEL, DIRECTOR, ruleset="mech", toml_text=DUEL)
    enc = created.encounter_id
    await service.join(enc, ANA, unit="hunter")
    await service.join(enc, BEA, unit="raven")
    await service.start(enc, Actor(DIRECTOR))
    forced = await service.resolve(enc, forced=True)
    (step, *_) = forced.steps
    event, *rolled = step.events
    # MECH-1.1: it stands still, told as the director's doing, not as the player's declaration
    assert type(event).__name__ == "DeclarationLocked" and event.key == "mech.declared_forced"  # type: ignore[attr-defined]
    # MECH-2.1a: a forced stand-in carries its two rolls too (the seed's "siempre")
    assert [type(e).__name__ for e in rolled] == ["RollMade", "RollMade", "DeclarationRolled"]
