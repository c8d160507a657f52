"""The order the bot's requests take Discord's global budget (bot/request_plan.py): within the budget all go at
once; past it the waiting ones go best kind first (a DM panel before a channel post before a status edit), an
interaction's answer never waits, and no window of ``per`` seconds ever holds more than the budget. The clock is
moved by hand and the plan pumped by the test, so nothing waits on the wall clock."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.request_plan import Kind, RequestPlan, as_kind


async def answered_at_once(plan: RequestPlan, kind: Kind) -> None:
    async with plan.turn(kind):
        pass


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


async def test_past_the_budget_a_member_lookup_goes_before_a_dm_panel_before_a_post_before_a_status_edit() -> (
    None
):
    clock = Clock()
    plan = RequestPlan(budget=2, per=1.0, clock=clock)
    await answered_at_once(plan, Kind.POST)
    await answered_at_once(plan, Kind.POST)  # the second's budget is spent
    went: list[Kind] = []

    async def ask(kind: Kind) -> None:
        await answered_at_once(plan, kind)
        went.append(kind)

    kinds = (Kind.STATUS, Kind.POST, Kind.STATUS, Kind.DM, Kind.ANSWER)
    waiting = [asyncio.create_task(ask(k)) for k in kinds]
    await asyncio.sleep(0)
    assert plan.waiting == 5 and not went, "Discord counts a member lookup: it waits for the budget too"
    clock.now += 1.0
    plan.pump()
    await asyncio.sleep(0)
    assert went == [Kind.ANSWER, Kind.DM], "the budget of the next second, best kinds first"
    clock.now += 0.5
    plan.pump()
    await asyncio.sleep(0)
    assert went == [Kind.ANSWER, Kind.DM], "the window still holds two requests: nothing more goes"
    clock.now += 0.5
    plan.pump()
    await asyncio.sleep(0)
    assert went == [Kind.ANSWER, Kind.DM, Kind.POST, Kind.STATUS]
    clock.now += 1.0
    plan.pump()
    await asyncio.gather(*waiting)
    assert went == [Kind.ANSWER, Kind.DM, Kind.POST, Kind.STATUS, Kind.STATUS]
    assert plan.granted == {Kind.ANSWER: 1, Kind.DM: 1, Kind.POST: 3, Kind.STATUS: 2}
    assert plan.longest_wait[Kind.STATUS] == 3.0 and plan.longest_wait[Kind.DM] == 1.0


@dataclass(frozen=True)
class FakeRoute:
    method: str
    path: str
    channel_id: int | None = None


async def test_what_discord_exempts_goes_at_once_and_takes_no_place_in_the_budget() -> None:
    """An interaction's answer and its follow-ups (``/interactions/``, ``/webhooks/``) are not counted by Discord's
    global limit: however spent the budget, they go, and they leave every place to what is counted."""
    clock = Clock()
    plan = RequestPlan(budget=1, per=1.0, clock=clock)
    sent: list[str] = []

    async def request(route: FakeRoute, **_: object) -> object:
        sent.append(route.path)
        return None

    planned = plan.wrap(request)  # type: ignore[arg-type]
    await planned(FakeRoute("POST", "/channels/{channel_id}/messages", 5))  # the budget is spent
    await planned(FakeRoute("POST", "/interactions/{interaction_id}/{interaction_token}/callback"))
    await planned(FakeRoute("PATCH", "/webhooks/{webhook_id}/{webhook_token}/messages/@original"))
    assert len(sent) == 3 and plan.waiting == 0
    assert plan.granted[Kind.ANSWER] == 2
    clock.now += 1.0
    plan.pump()
    await planned(FakeRoute("POST", "/channels/{channel_id}/messages", 5))  # the one place, freed: not taken
    assert len(sent) == 4


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
    await answered_at_once(plan, Kind.POST)
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


async def test_a_request_still_in_flight_holds_its_place_until_a_window_after_its_answer() -> None:
    clock = Clock()
    plan = RequestPlan(budget=1, per=1.0, clock=clock)
    slow = plan.turn(Kind.POST)
    await slow.__aenter__()  # let go, its answer not back yet (a busy loop, a slow network)
    after = asyncio.create_task(plan.wait_turn(Kind.DM))
    clock.now += 5.0
    plan.pump()
    await asyncio.sleep(0)
    assert not after.done(), "Discord may count the slow request only now: its place is still taken"
    await slow.__aexit__(None, None, None)  # answered at 105.0
    clock.now += 0.5
    plan.pump()
    await asyncio.sleep(0)
    assert not after.done()
    clock.now += 0.5
    plan.pump()
    await after
    assert plan.granted[Kind.DM] == 1


@settings(max_examples=60, deadline=None)
@given(
    requests=st.lists(
        st.tuples(
            st.integers(0, 200),  # when it is asked for, in ticks of 10 ms
            st.integers(1, 150),  # how long from its turn to its answer, in ticks
            st.sampled_from(list(Kind)),
        ),
        min_size=1,
        max_size=40,
    ),
    budget=st.integers(1, 5),
)
def test_wherever_discord_counts_a_request_between_its_turn_and_its_answer_no_second_holds_more_than_the_budget(
    requests: list[tuple[int, int, Kind]], budget: int
) -> None:
    """Discord counts a request when it arrives: anywhere between the plan letting it go and its answer coming
    back. Played on a clock of 10 ms ticks, every window of one second that any request's span meets holds at
    most the budget of spans, so no placing of the arrivals can meet a global 429."""
    spans = asyncio.run(_play(requests, budget))
    assert len(spans) == len(requests), "every request had its turn"
    starts = {answer for _, answer in spans} | {turn - 100 + 1 for turn, _ in spans}
    for start in starts:  # a window [start, start + 100) of ticks: the spans that meet it
        meeting = sum(1 for turn, answer in spans if turn < start + 100 and answer >= start)
        assert meeting <= budget, (start, spans)


async def _play(requests: list[tuple[int, int, Kind]], budget: int) -> list[tuple[int, int]]:
    clock = Clock()
    clock.now = 0.0
    plan = RequestPlan(budget=budget, per=1.0, clock=lambda: clock.now / 100)  # ticks to seconds
    spans: list[tuple[int, int]] = []
    due: dict[int, list[asyncio.Future[None]]] = {}  # tick: the answers that come back then

    async def one(asked: int, lasts: int, kind: Kind) -> None:
        await plan.wait_turn(kind)
        turn = int(clock.now)
        answer: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        due.setdefault(turn + lasts, []).append(answer)
        await answer
        plan.done()
        spans.append((turn, int(clock.now)))

    tasks: list[asyncio.Task[None]] = []
    end = max(a for a, _, _ in requests) + sum(n + 110 for _, n, _ in requests)  # even one at a time
    for tick in range(end):
        clock.now = float(tick)
        tasks += [asyncio.create_task(one(a, n, k)) for a, n, k in requests if a == tick]
        for answer in due.pop(tick, []):
            answer.set_result(None)
        for _ in range(3):
            await asyncio.sleep(0)
        plan.pump()
        await asyncio.sleep(0)
        if len(spans) == len(requests):
            break
    for task in tasks:
        task.cancel()
    return spans


async def test_a_request_cancelled_as_its_turn_comes_gives_its_place_back() -> None:
    clock = Clock()
    plan = RequestPlan(budget=1, per=1.0, clock=clock)
    await answered_at_once(plan, Kind.POST)
    late = asyncio.create_task(plan.wait_turn(Kind.DM))
    await asyncio.sleep(0)
    clock.now += 1.0
    plan.pump()  # its turn: granted, not yet resumed
    late.cancel()
    await asyncio.sleep(0)
    assert late.cancelled() and plan.held == 0, "the place it never used is free"
