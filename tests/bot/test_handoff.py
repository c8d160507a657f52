"""bot/handoff.py without a database: which DM clicks are handed to another process, and that whoever claims the
row answers the click, once, with every failure ending in the click answered where it arrived. The table is a dict
and NOTIFY a direct call, as PostgreSQL delivers it (tests/e2e/test_e2e_shards_handoff.py runs the real thing)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Coroutine
from typing import Any

from bot.handoff import CLAIM, INSERT, QUIET, Handoff, channel

GUILD_ON_1 = (5 << 22) | 1  # (guild_id >> 22) % 2 == 1
GUILD_ON_0 = 4 << 22


class Table:
    """The ``handoffs`` table; an insert notifies the listeners of its channel at once."""

    def __init__(self) -> None:
        self.rows: dict[int, str] = {}
        self.listeners: dict[str, Handoff] = {}
        self.fail_insert = False
        self.slow_claims: dict[int, asyncio.Event] = {}  # rows whose claim waits for their event

    async def fetchval(self, sql: str, *args: Any) -> Any:
        if sql == INSERT:
            if self.fail_insert:
                raise OSError("connection lost")
            shard, payload, notify = args
            row_id = len(self.rows) + 1000
            self.rows[row_id] = payload
            assert notify == channel(shard)
            if (owner := self.listeners.get(notify)) is not None:
                owner.notified(None, 1, notify, str(row_id))
            return row_id
        assert sql == CLAIM
        if (slow := self.slow_claims.get(args[0])) is not None:
            await slow.wait()
        return self.rows.pop(args[0], None)


class Process:
    def __init__(self, table: Table, shard: int, guilds: dict[int, int]) -> None:
        self.handled: list[dict[str, Any]] = []
        self.tasks: list[asyncio.Task[None]] = []
        self.lookups = 0
        self.now = 0.0
        self.slow_lookup: asyncio.Event | None = None  # the next lookup waits for it

        async def guild_of(encounter_id: int) -> int | None:
            self.lookups += 1
            if (slow := self.slow_lookup) is not None:
                self.slow_lookup = None
                await slow.wait()
            if encounter_id < 0:
                raise OSError("database unreachable")
            return guilds.get(encounter_id)

        def spawn(coro: Coroutine[Any, Any, None]) -> None:
            self.tasks.append(asyncio.create_task(coro))

        self.handoff = Handoff(
            shard_ids=(shard,),
            shard_count=2,
            handle=self.handled.append,
            guild_of=guild_of,
            spawn=spawn,
            grace=0,  # the owner's claim is scheduled before the sender looks again: no wall clock involved
            clock=lambda: self.now,
        )
        self.handoff.pool = table

    def listen(self, table: Table) -> None:
        for shard in self.handoff.shard_ids:
            table.listeners[channel(shard)] = self.handoff

    async def settle(self) -> None:
        while any(not t.done() for t in self.tasks):
            await asyncio.gather(*self.tasks)


def dm_click(encounter_id: int, n: int = 1) -> dict[str, Any]:
    custom_id = f"hexd:enc:{encounter_id}:phase:2:unit:halcon:submit"
    return {"id": str(n), "type": 3, "data": {"custom_id": custom_id, "component_type": 2}}


async def test_a_dm_click_of_a_shard_1_encounter_is_answered_by_the_listening_shard_1_process_only() -> None:
    table = Table()
    a, b = Process(table, 0, {7: GUILD_ON_1}), Process(table, 1, {7: GUILD_ON_1})
    b.listen(table)
    a.handoff.receive(dm_click(7, 0))
    await a.settle()
    for n in (1, 2):
        a.handoff.receive(dm_click(7, n))
    await a.settle()
    await b.settle()
    assert [c["id"] for c in b.handled] == ["0", "1", "2"] and a.handled == []
    assert (a.handoff.handed, a.handoff.taken_back, b.handoff.claimed) == (3, 0, 3)
    assert table.rows == {} and a.lookups == 1  # an encounter's server is looked up once


async def test_a_click_nobody_claims_is_claimed_back_and_answered_where_it_arrived_once() -> None:
    table = Table()
    a = Process(table, 0, {7: GUILD_ON_1})  # no process listens for shard 1
    a.handoff.receive(dm_click(7))
    await a.settle()
    assert len(a.handled) == 1 and a.handoff.taken_back == 1 and table.rows == {}


async def test_after_a_click_was_claimed_back_its_shard_s_clicks_stay_here_for_a_while_then_are_handed_again() -> (
    None
):
    table = Table()
    a, b = Process(table, 0, {7: GUILD_ON_1}), Process(table, 1, {7: GUILD_ON_1})  # shard 1's process is down
    a.handoff.receive(dm_click(7, 1))
    await a.settle()
    assert (a.handoff.handed, a.handoff.taken_back) == (1, 1)
    a.now += QUIET - 1
    a.handoff.receive(dm_click(7, 2))  # no second wait for an owner that just failed to claim
    assert [c["id"] for c in a.handled] == ["1", "2"] and a.handoff.handed == 1
    b.listen(table)  # shard 1's process is back
    a.now += 2
    a.handoff.receive(dm_click(7, 3))
    await a.settle()
    await b.settle()
    assert [c["id"] for c in b.handled] == ["3"] and a.handoff.handed == 2 and table.rows == {}


async def test_two_quick_clicks_are_handed_over_in_the_order_they_were_made() -> None:
    """A choice then the Submit that sends it: the second is not handed over before the first, even when the first
    click's server lookup is the slower one."""
    table = Table()
    a, b = Process(table, 0, {7: GUILD_ON_1}), Process(table, 1, {7: GUILD_ON_1})
    b.listen(table)
    lookup = a.slow_lookup = asyncio.Event()
    a.handoff.receive(dm_click(7, 1))
    a.handoff.receive(dm_click(7, 2))
    for _ in range(20):
        await asyncio.sleep(0)
    assert table.rows == {} and b.handled == [], "the second waits for the first to be handed"
    lookup.set()
    await a.settle()
    await b.settle()
    assert [c["id"] for c in b.handled] == ["1", "2"] and a.handled == [] and table.rows == {}


async def test_the_owner_claims_handed_clicks_in_the_order_they_were_notified() -> None:
    table = Table()
    b = Process(table, 1, {})
    table.rows = {1000: json.dumps(dm_click(7, 1)), 1001: json.dumps(dm_click(7, 2))}
    claim = table.slow_claims[1000] = asyncio.Event()  # the first row's claim is the slower one
    b.handoff.notified(None, 1, channel(1), "1000")
    b.handoff.notified(None, 1, channel(1), "1001")
    for _ in range(20):
        await asyncio.sleep(0)
    assert b.handled == [] and sorted(table.rows) == [1000, 1001], "the second waits for the first's claim"
    claim.set()
    await b.settle()
    assert [c["id"] for c in b.handled] == ["1", "2"] and table.rows == {}


async def test_what_stays_is_handled_at_once_and_failures_keep_the_click_here() -> None:
    table = Table()
    a = Process(table, 0, {7: GUILD_ON_1, 8: GUILD_ON_0})
    in_guild = dm_click(7) | {"guild_id": str(GUILD_ON_1)}
    a.handoff.receive(in_guild)  # a click inside a server arrives on its own shard
    assert a.handled == [in_guild] and a.tasks == []
    a.handoff.receive(dm_click(8))  # an encounter of this process's shard: looked up, then handled
    await a.settle()
    a.handoff.receive(dm_click(8, 2))  # now known: handled at once
    assert len(a.handled) == 3 and len(a.tasks) == 1
    a.handoff.receive(dm_click(9))  # no such encounter: its guards refuse it here
    a.handoff.receive(dm_click(-1))  # the lookup failed
    table.fail_insert = True
    a.handoff.receive(dm_click(7))  # the hand-off failed
    await a.settle()
    assert len(a.handled) == 6 and a.handoff.handed == 0 and table.rows == {}
