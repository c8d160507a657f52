"""The order the bot's requests take Discord's global budget (bot/request_plan.py): within the budget all go at
once; past it the waiting ones go best kind first (a DM panel before a channel post before a status edit), an
interaction's answer never waits, and no window of ``per`` seconds ever holds more than the budget. The clock is
moved by hand and the plan pumped by the test, so nothing waits on the wall clock."""

from __future__ import annotations

import asyncio

from bot.request_plan import Kind, RequestPlan, as_kind


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


async def test_past_the_budget_a_dm_panel_goes_before_a_post_before_a_status_edit_and_answers_never_wait() -> (
    None
):
    clock = Clock()
    plan = RequestPlan(budget=2, per=1.0, clock=clock)
    await plan.wait_turn(Kind.POST)
    await plan.wait_turn(Kind.POST)  # the second's budget is spent
    went: list[Kind] = []

    async def ask(kind: Kind) -> None:
        await plan.wait_turn(kind)
        went.append(kind)

    waiting = [asyncio.create_task(ask(k)) for k in (Kind.STATUS, Kind.POST, Kind.STATUS, Kind.DM)]
    await asyncio.sleep(0)
    assert plan.waiting == 4 and not went
    await plan.wait_turn(Kind.ANSWER)  # an interaction's answer goes at once, counted all the same
    clock.now += 1.0
    plan.pump()
    await asyncio.sleep(0)
    assert went == [Kind.DM, Kind.POST], "the budget of the next second, best kinds first"
    clock.now += 0.5
    plan.pump()
    await asyncio.sleep(0)
    assert went == [Kind.DM, Kind.POST], "the window still holds two requests: nothing more goes"
    clock.now += 0.5
    plan.pump()
    await asyncio.gather(*waiting)
    assert went == [Kind.DM, Kind.POST, Kind.STATUS, Kind.STATUS]
    assert plan.granted == {Kind.ANSWER: 1, Kind.DM: 1, Kind.POST: 3, Kind.STATUS: 2}
    assert plan.longest_wait[Kind.STATUS] == 2.0 and plan.longest_wait[Kind.DM] == 1.0


async def test_a_request_s_kind_is_its_route_s_unless_the_sender_says_it_is_the_status() -> None:
    plan = RequestPlan()
    plan.note_dm_channel(7)
    assert plan.kind_of("POST", "/channels/{channel_id}/messages", 7) == Kind.DM
    assert plan.kind_of("POST", "/users/@me/channels", None) == Kind.DM
    assert plan.kind_of("POST", "/channels/{channel_id}/messages", 8) == Kind.POST
    assert plan.kind_of("GET", "/guilds/{guild_id}/members/{member_id}", None) == Kind.ANSWER
    with as_kind(Kind.STATUS):
        assert plan.kind_of("PATCH", "/channels/{channel_id}/messages/{message_id}", 8) == Kind.STATUS
    assert plan.kind_of("PATCH", "/channels/{channel_id}/messages/{message_id}", 8) == Kind.POST


async def test_a_cancelled_request_leaves_the_line() -> None:
    clock = Clock()
    plan = RequestPlan(budget=1, per=1.0, clock=clock)
    await plan.wait_turn(Kind.POST)
    gone = asyncio.create_task(plan.wait_turn(Kind.DM))
    kept = asyncio.create_task(plan.wait_turn(Kind.STATUS))
    await asyncio.sleep(0)
    gone.cancel()
    await asyncio.sleep(0)
    assert plan.waiting == 1
    clock.now += 1.0
    plan.pump()
    await kept
    assert plan.granted[Kind.STATUS] == 1 and plan.granted[Kind.DM] == 0
