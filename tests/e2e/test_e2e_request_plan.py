"""The bot's requests inside Discord's limits, end to end through the real discord.py client against the local
Discord enforcing them (``FakeDiscord(rate_limits=True)``: the global limit and per-route buckets, with real 429s):

* once the second's budget is spent, a waiting DM panel goes before a waiting status edit (bot/request_plan.py),
  and the interaction answers meanwhile are not held at all, nor is a DM panel riding on the player's own click
  (bot/click_tokens.py);
* status refreshes queued for one channel while its edit waits make no edit of their own: the one status edit
  that goes out is the newest (bot/outbox/queue.py), and a refresh to the text shown sends nothing;
* several encounters resolving at once meet no 429 at all (so no invalid request counts towards Discord's ban),
  and every board and panel still goes out.

The request plan's clock is the test's while it holds requests back, and the plan is pumped by hand: nothing
here waits on the wall clock for its outcome.
"""

from __future__ import annotations

import asyncio
import datetime as dt
from collections.abc import AsyncIterator
from pathlib import Path

import discord
import pytest

from bot.request_plan import Kind, RequestPlan
from cogs.announcer import Announcer
from tests.e2e_helpers import (
    Table,
    current_panel_dm,
    fill_and_submit,
    open_duel,
    phase_seen,
    start_bot,
    wait_phase_after,
)
from tests.fakediscord import FakeDiscord, Message
from tests.fakediscord.rest import RequestRecord
from tests.storage_fixtures import database_url

pytestmark = pytest.mark.slow

TABLES = 4


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
async def tables(tmp_path: Path) -> AsyncIterator[list[Table]]:
    """:data:`TABLES` exo duels' tables in one guild (a director, Ana and Bea each), one bot, Discord's limits on."""
    async with FakeDiscord(rate_limits=True) as fd, database_url("sqlite", tmp_path) as db:
        guild = fd.create_guild("Wargames")
        made: list[tuple[object, ...]] = []
        for i in range(TABLES):
            channel = guild.create_text_channel(f"duel-{i}")
            people = [fd.create_user(f"{name}{i}") for name in ("dora", "ana", "bea")]
            for person in people:
                guild.add_member(person.user)
            made.append((channel, *people))
        bot = await start_bot(fd, db, guild.id)
        try:
            yield [Table(fd, bot, c, d, a, b, db, guild.id) for c, d, a, b in made]  # type: ignore[arg-type]
        finally:
            await bot.close()


def hold(plan: RequestPlan) -> Clock:
    """The plan on the test's clock with a budget of one request a second, already spent."""
    clock = Clock()
    plan.clock, plan.budget = clock, 1
    plan.pump()  # forgets what went out on the real clock
    return clock


async def let_one_go(t: Table, plan: RequestPlan, clock: Clock) -> RequestRecord:
    """The next second: the best waiting request goes out; returns it as the local Discord logged it."""
    before = len(t.fd.requests)
    clock.now += 1.0
    plan.pump()
    await t.fd.wait_for(lambda: len(t.fd.requests) > before, what="the request let go")
    return t.fd.requests[before]


def announcer_of(t: Table) -> Announcer:
    assert isinstance(t.bot.announcer, Announcer)
    return t.bot.announcer


def stale(t: Table) -> None:
    """Every click is older than the bot uses a click's token for: its DMs go by the channel's route."""
    t.bot.click_tokens.clock = lambda: discord.utils.utcnow() + dt.timedelta(days=1)


def limited(records: list[RequestRecord]) -> list[RequestRecord]:
    """The requests Discord's global limit counts (the interaction answers are exempt)."""
    return [r for r in records if not r.path.startswith(("/interactions/", "/webhooks/"))]


async def budget_spent(t: Table) -> tuple[int, RequestPlan, Message, Clock]:
    """A duel waiting for Ana's orders (Bea's DMs are closed: she orders with /orders), with the second's budget
    spent and the plan's clock held: the encounter, the plan, Ana's panel and the clock."""
    enc = await open_duel(t)
    await phase_seen(t)
    plan = t.bot.requests
    phase_no = (await t.bot.service.read(enc)).phase_no
    panel = await current_panel_dm(t, t.ana, "halcon", phase_no)
    clock = hold(plan)
    async with plan.turn(Kind.POST):  # answered at once: its place is held for the second that follows
        pass
    return enc, plan, panel, clock


async def test_past_the_budget_a_dm_panel_goes_before_a_status_edit_and_answers_are_not_held(
    tables: list[Table],
) -> None:
    t = tables[0]
    enc, plan, panel, clock = await budget_spent(t)
    # Ana's clicks are answered while nothing else may go out; her order changes the status, whose edit waits
    ack = await fill_and_submit(t.fd, t.ana, panel, "halcon", moves="A", fire=1)
    assert ack.content, "her Submit was answered"
    await t.fd.wait_for(lambda: plan.waiting == 1, what="the status edit waiting")
    reading = await t.bot.service.read(enc)
    announcer = announcer_of(t)
    meta = await announcer.outbox.meta(enc)
    stale(t)  # a DM by the channel's route: Ana's click no longer carries it
    panel_sent = asyncio.create_task(announcer.send_panel(meta, reading, t.ana.id, "halcon", None))
    await t.fd.wait_for(lambda: plan.waiting == 2, what="a DM panel waiting too")
    first = await let_one_go(t, plan, clock)
    assert (first.method, first.path) == ("POST", f"/channels/{t.ana.dm_channel.id}/messages"), first
    await panel_sent
    second = await let_one_go(t, plan, clock)
    assert second.method == "PATCH" and second.path.startswith(f"/channels/{t.channel.id}/messages/"), second
    assert "content" in second.fields and "embeds" not in second.fields, "the status, text alone"
    assert plan.granted[Kind.STATUS] >= 1 and plan.longest_wait[Kind.STATUS] >= 2.0
    assert not t.fd.rate_limits or not t.fd.rate_limits.refused


async def test_past_the_budget_a_dm_panel_on_the_players_fresh_click_goes_at_once(
    tables: list[Table],
) -> None:
    """The interaction webhook is exempt from the global limit: a panel riding on Ana's own Submit does not wait
    for the second's budget (bot/click_tokens.py)."""
    t = tables[0]
    enc, plan, panel, clock = await budget_spent(t)
    await fill_and_submit(t.fd, t.ana, panel, "halcon", moves="A", fire=1)
    await t.fd.wait_for(lambda: plan.waiting == 1, what="the status edit waiting")
    announcer = announcer_of(t)
    meta = await announcer.outbox.meta(enc)
    start = len(t.fd.requests)
    sent = await announcer.send_panel(meta, await t.bot.service.read(enc), t.ana.id, "halcon", None)
    assert sent is not None and sent.channel_id == t.ana.dm_channel.id
    assert plan.waiting == 1, "only the status edit waits"
    assert limited(t.fd.requests[start:]) == [], "the panel went by the click's webhook"
    await let_one_go(t, plan, clock)


async def test_status_refreshes_queued_while_its_edit_waits_make_one_status_edit(tables: list[Table]) -> None:
    t = tables[0]
    enc, plan, panel, clock = await budget_spent(t)
    start = len(t.fd.requests)
    await fill_and_submit(t.fd, t.ana, panel, "halcon", moves="A", fire=1)
    await t.fd.wait_for(lambda: plan.waiting == 1, what="the status edit waiting")
    outbox = announcer_of(t).outbox
    outbox.status_changed(enc)  # two more refreshes queued for the same channel meanwhile
    outbox.status_changed(enc)
    await let_one_go(t, plan, clock)
    plan.clock, plan.budget = RequestPlan().clock, RequestPlan().budget  # the real clock again: all may go
    plan.pump()
    await t.bot.settle()
    edits = [r for r in limited(t.fd.requests[start:]) if r.method == "PATCH" and str(t.channel.id) in r.path]
    assert len(edits) == 1, edits
    boards = [m.content for m in t.channel.messages() if m.author.bot and m.embeds and m.content]
    waiting = f"Pirata (<@{t.bea.id}>)"
    assert len(boards) == 1 and boards[0].endswith(waiting) and "Halc" not in boards[0], "the newest status"


async def test_several_encounters_resolving_at_once_stay_within_the_global_limit_and_every_board_goes_out(
    tables: list[Table],
) -> None:
    """Four duels' directors resolve in the same instant (the players' stand-in orders): the posts, status
    edits and DM panels that follow all go out, and no limit is met, the global one included (Discord's
    invalid-request ban counts 429s, and the 403 of a DM to closed DMs)."""
    fd = tables[0].fd
    encounters = [await open_duel(t) for t in tables]
    # a smaller limit than Discord's 50 a second, so four encounters' burst meets it, and the bot's budget the
    # whole of it: the plan holds a request's place from its turn until a second after its answer, so however
    # late on a busy machine (the bot and the local Discord share this event loop) a request let go at the end
    # of one second arrives, the next second's are held for it. Without a budget (the bot asking as fast as it
    # can): 9 global 429s; counting a request from its turn alone: up to 2
    for t in tables:
        await phase_seen(t)
    await tables[0].bot.settle()
    # the new limit starts clean: no request let go under the old budget is still in flight or in the last
    # second, or it would arrive into the smaller one (the plan cannot call back what it let go)
    plan = tables[0].bot.requests
    plan.budget = 10
    async with asyncio.timeout(30):
        while plan.held:
            await asyncio.sleep(0.05)
    assert fd.rate_limits is not None
    fd.rate_limits.global_limit = 10
    before = {t.channel.id: sum(len(m.attachments) for m in t.channel.history) for t in tables}
    phases = [(await t.bot.service.read(enc)).phase_no for t, enc in zip(tables, encounters, strict=True)]

    async def resolve(t: Table) -> str:
        handle = await t.director.run_command(t.channel, "director resolve", {})
        return (await handle.final_response(timeout=60)).content

    answers = await asyncio.gather(*(resolve(t) for t in tables))
    assert all(a.startswith("Resolved") for a in answers), answers
    for t, enc, phase_no in zip(tables, encounters, phases, strict=True):
        await wait_phase_after(t, enc, phase_no)
    await tables[0].bot.settle()
    for t, enc in zip(tables, encounters, strict=True):
        assert sum(len(m.attachments) for m in t.channel.history) > before[t.channel.id], "the board went out"
        await current_panel_dm(t, t.ana, "halcon", (await t.bot.service.read(enc)).phase_no)
    assert fd.rate_limits is not None
    assert fd.rate_limits.refused == {}, fd.rate_limits.refused
    # what Discord counts as invalid besides those is only the DMs Bea's closed DMs refuse (403)
    closed = {f"/channels/{t.bea.dm_channel.id}/messages" for t in tables}
    refused = [r for r in fd.requests if r.status in (401, 403)]
    assert fd.invalid_requests == len(refused), refused
    assert all(r.path in closed for r in refused), refused


async def test_dms_sent_at_once_to_a_player_open_their_dm_channel_once(tables: list[Table]) -> None:
    """A player in several encounters gets DMs at the same time (a panel from each, a reminder): the bot, which
    caches no users, opens the DM channel with them once, not once per DM (each an extra request in a bucket all
    DM openings share)."""
    t = tables[0]
    start = len(t.fd.requests)
    dms = announcer_of(t).dms
    channels = await asyncio.gather(*(dms.dm_channel(t.ana.id) for _ in range(5)))
    assert {c.id for c in channels} == {t.ana.dm_channel.id}
    opened = [r for r in t.fd.requests[start:] if (r.method, r.path) == ("POST", "/users/@me/channels")]
    assert len(opened) == 1, opened
