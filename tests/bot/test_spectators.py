"""Who a spectator is and what they may read (bot/spectators.py, NGT-9): a request needs every player of the side,
one refusal refuses it, a seat ends it, and the delayed view never reaches past the director's delay."""

from __future__ import annotations

from typing import Any

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

DIRECTOR, ANA, ABEL, BEA, CARO, DANI = 1, 10, 11, 20, 30, 40
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
