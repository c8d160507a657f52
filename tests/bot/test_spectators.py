"""Who a spectator is and what they may read (bot/spectators.py, NGT-9): a request needs every player of the side,
one refusal refuses it, a seat ends it, and the delayed view never reaches past the director's delay."""

from __future__ import annotations

from typing import Any

import pytest

from bot.permissions import Actor
from bot.results import Refused
from bot.service import EncounterService
from bot.spectators import (
    DELAY,
    DELAYED,
    OPEN,
    answer_key,
    delayed_round,
    delayed_spectators,
    side_spectators,
    standing,
    watch_cleanup,
    watch_key,
    watch_of,
    watch_setting,
)
from bot.storage import Participant
from tests.night_fixtures import RAID
from tests.toy_service_fixtures import CHANNEL, GUILD, TOY

DIRECTOR, ANA, ABEL, BEA, CARO, DANI, EVE = 1, 10, 11, 20, 30, 40, 50
PEOPLE = (
    Participant(1, ANA, "player", "rfp", "scout"),
    Participant(1, ABEL, "player", "rfp", "shade"),
    Participant(1, BEA, "player", "tyr", "raider"),
)


def asked(side: str, approvers: tuple[int, ...], **answers: bool) -> dict[str, Any]:
    settings: dict[str, Any] = {watch_key(CARO): watch_setting(side, approvers)}
    settings.update({answer_key(CARO, int(who)): yes for who, yes in answers.items()})
    return settings


def test_ngt_9_a_side_view_waits_for_every_player_of_the_side_and_one_refusal_refuses_it() -> None:
    pending = asked("rfp", (ANA, ABEL))
    watch = watch_of(pending, CARO)
    assert watch is not None and watch.side == "rfp" and watch.approvers == (ANA, ABEL)
    assert standing(pending, watch) == "pending"
    assert standing(asked("rfp", (ANA, ABEL), **{str(ANA): True}), watch) == "pending"
    assert standing(asked("rfp", (ANA, ABEL), **{str(ANA): True, str(ABEL): True}), watch) == "approved"
    assert standing(asked("rfp", (ANA, ABEL), **{str(ANA): True, str(ABEL): False}), watch) == "refused"
    # only the approved spectator reads the side's DMs (NGT-9): never a pending or refused one
    assert side_spectators(pending, PEOPLE, DIRECTOR, "rfp") == set()
    refused = asked("rfp", (ANA, ABEL), **{str(ANA): False})
    assert side_spectators(refused, PEOPLE, DIRECTOR, "rfp") == set()
    approved = asked("rfp", (ANA, ABEL), **{str(ANA): True, str(ABEL): True})
    assert side_spectators(approved, PEOPLE, DIRECTOR, "rfp") == {CARO}
    assert side_spectators(approved, PEOPLE, DIRECTOR, "tyr") == set()


def test_ngt_9_a_spectator_who_takes_a_seat_reads_no_other_view() -> None:
    approved = asked("rfp", (ANA, ABEL), **{str(ANA): True, str(ABEL): True})
    seated = (*PEOPLE, Participant(1, CARO, "player", "tyr", "ghost"))
    assert side_spectators(approved, seated, DIRECTOR, "rfp") == set()
    late = {watch_key(CARO): watch_setting(DELAYED), DELAY: 1}
    assert delayed_spectators(late, PEOPLE, DIRECTOR) == [CARO]
    assert delayed_spectators(late, seated, DIRECTOR) == []
    assert delayed_spectators(late, PEOPLE, CARO) == [], "the encounter's director is no spectator"


def test_the_delayed_view_needs_the_directors_delay_and_shows_only_rounds_that_old() -> None:
    late = {watch_key(CARO): watch_setting(DELAYED)}
    assert delayed_spectators(late, PEOPLE, DIRECTOR) == [], "a delay of 0 forbids it"
    assert delayed_spectators({**late, DELAY: 0}, PEOPLE, DIRECTOR) == []
    assert delayed_spectators({**late, DELAY: 2}, PEOPLE, DIRECTOR) == [CARO]
    # when round R ends, a delay of N shows round R - N, never newer; nothing before round 1
    assert delayed_round(2, 1) == 1
    assert delayed_round(5, 2) == 3
    assert delayed_round(1, 1) is None
    assert delayed_round(3, 0) is None


def test_ending_a_watch_removes_the_request_and_every_answer_and_nothing_else() -> None:
    settings: dict[str, Any] = {
        **asked("rfp", (ANA, ABEL), **{str(ANA): True}),
        watch_key(DANI): watch_setting(OPEN),
        watch_key(CARO * 10): watch_setting(OPEN),
        DELAY: 2,
        "locale_30": "es",
    }
    assert watch_cleanup(settings, CARO) == {watch_key(CARO): None, answer_key(CARO, ANA): None}


# --- the service's guards (bot/service/spectators.py) ---------------------------------------------------------


async def test_an_encounter_that_hides_nothing_makes_a_spectator_at_once_and_a_seat_is_refused(
    service: EncounterService,
) -> None:
    created = await service.create(GUILD, CHANNEL, DIRECTOR, ruleset="toy-sim", toml_text=TOY)
    enc = created.encounter_id
    await service.join(enc, ANA)
    offer = await service.offer_watch(enc, EVE)
    assert offer.sides == () and offer.delay == 0
    assert (watch := watch_of((await service.storage.get_encounter(enc)).settings, EVE)) is not None
    assert watch.view == OPEN
    for seated in (ANA, DIRECTOR):
        with pytest.raises(Refused) as refused:
            await service.offer_watch(enc, seated)
        assert refused.value.code == "spectator.seated"
    await service.unwatch(enc, EVE)
    with pytest.raises(Refused) as again:
        await service.unwatch(enc, EVE)
    assert again.value.code == "spectator.not_watching"


async def test_ngt_9_only_the_sides_players_answer_and_a_seat_ends_the_watch(
    service: EncounterService,
) -> None:
    created = await service.create(GUILD, CHANNEL, DIRECTOR, ruleset="skirmish", toml_text=RAID)
    enc = created.encounter_id
    await service.join(enc, ANA, side="rfp")
    offer = await service.offer_watch(enc, EVE)
    assert (
        offer.sides == ("rfp", "tyr")
        and watch_of((await service.storage.get_encounter(enc)).settings, EVE) is None
    )
    watch = await service.ask_side(enc, EVE, "rfp")
    assert watch.approvers == (ANA,)
    # a side nobody plays: its director answers
    assert (await service.ask_side(enc, CARO, "tyr")).approvers == (DIRECTOR,)
    for forger in (BEA, DIRECTOR):  # an id in a button is never trusted
        with pytest.raises(Refused) as refused:
            await service.answer_watch(enc, forger, EVE, "rfp", True)
        assert refused.value.code == "spectator.not_yours"
    with pytest.raises(Refused) as wrong_side:
        await service.answer_watch(enc, ANA, EVE, "tyr", True)
    assert wrong_side.value.code == "spectator.no_request"
    done = await service.answer_watch(enc, ANA, EVE, "rfp", True)
    assert done.standing == "approved" and done.decided
    meta = await service.storage.get_encounter(enc)
    assert side_spectators(meta.settings, await service.storage.participants(enc), DIRECTOR, "rfp") == {EVE}
    # the director gives Eve a unit: her watch ends, and leaving the unit later brings it not back
    await service.assign(enc, Actor(DIRECTOR), "ghost", EVE)
    assert watch_of((await service.storage.get_encounter(enc)).settings, EVE) is None
    await service.leave(enc, EVE)
    meta = await service.storage.get_encounter(enc)
    assert side_spectators(meta.settings, await service.storage.participants(enc), DIRECTOR, "rfp") == set()


async def test_the_delayed_view_is_the_directors_to_allow(service: EncounterService) -> None:
    created = await service.create(GUILD, CHANNEL, DIRECTOR, ruleset="skirmish", toml_text=RAID)
    enc = created.encounter_id
    with pytest.raises(Refused) as forbidden:
        await service.watch_delayed(enc, EVE)
    assert forbidden.value.code == "spectator.no_delay"
    with pytest.raises(Refused) as not_director:
        await service.set_spectator_delay(enc, Actor(ANA), 1)
    assert not_director.value.code == "director.only"
    await service.set_spectator_delay(enc, Actor(DIRECTOR), 2)
    assert await service.watch_delayed(enc, EVE) == 2
    assert (await service.offer_watch(enc, CARO)).delay == 2
    await service.set_spectator_delay(enc, Actor(DIRECTOR), 0)
    meta = await service.storage.get_encounter(enc)
    assert delayed_spectators(meta.settings, [], DIRECTOR) == [], "0 stops what was allowed"


async def test_ngt_9_of_two_approvals_written_at_once_only_the_one_that_completes_the_request_decides_it(
    service: EncounterService,
) -> None:
    """Each decision is told once: the second approver's answer lands while the first's is being written (its
    read-back, if any, sees both), and only one of the two says it decided."""
    created = await service.create(GUILD, CHANNEL, DIRECTOR, ruleset="skirmish", toml_text=RAID)
    enc = created.encounter_id
    await service.join(enc, ANA, unit="scout")
    await service.join(enc, ABEL, side="rfp")
    assert (await service.ask_side(enc, EVE, "rfp")).approvers == (ANA, ABEL)
    storage = service.storage
    read = storage.get_encounter
    second: list[Any] = []

    async def reading_after_the_first_answer(encounter_id: int) -> Any:
        meta = await read(encounter_id)
        if not second and answer_key(EVE, ANA) in meta.settings:  # Abel answers meanwhile
            second.append(None)
            second[0] = await service.answer_watch(enc, ABEL, EVE, "rfp", True)
            meta = await read(encounter_id)
        return meta

    storage.get_encounter = reading_after_the_first_answer  # type: ignore[method-assign]
    first = await service.answer_watch(enc, ANA, EVE, "rfp", True)
    if not second:  # the answer read nothing back after writing: Abel answers after it
        second.append(await service.answer_watch(enc, ABEL, EVE, "rfp", True))
    assert second[0].standing == "approved"
    assert [first.decided, second[0].decided].count(True) == 1
