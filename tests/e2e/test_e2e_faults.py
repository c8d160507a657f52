"""A load test with faults: the short version of bench/faults.py in the test suite.

Eight exo duels are played at once on DM panels through the local Discord while a fault task (fixed seed) makes
Discord refuse the bot's requests (429 with and without Via, global or not; 500, 502, 503, 504) and drops its
gateway (RECONNECT, INVALID_SESSION). Each table plays a bounded number of phases. The bot runs in-process (one
loop, no process start-up; its retry backoff is shortened so a refused post is retried within the test).

The verdict never depends on timing: every wait is on the local Discord's state (or on the bot's database with a
ceiling), and whatever the interleaving: no acknowledged order lost, no double post, every phase a player was told
"received" for resolved, every committed step shown, no table stuck.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from tests.e2e_helpers import start_bot
from tests.fakediscord import FakeDiscord
from tests.faults_fixtures import (
    FaultInjector,
    FaultRun,
    failures,
    play_table,
    seats,
    verdict,
    wait_announced,
)

pytestmark = pytest.mark.slow

SEED = 20
TABLES = 8
PHASES = 5  # per table


async def test_faults_lose_no_acknowledged_order_post_nothing_twice_and_resolve_every_phase(
    tmp_path: Path,
) -> None:
    path = str(tmp_path / "faults.sqlite3")
    async with FakeDiscord() as fd:
        tables = seats(fd, TABLES, SEED)
        bot = await start_bot(fd, f"sqlite:///{path}", tables[0].guild.id)
        assert bot.announcer is not None
        bot.announcer.retry_backoff = (0.1, 0.3, 1.0, 2.0, 5.0)  # type: ignore[attr-defined]
        run = FaultRun(fd, max_phases=PHASES, wait=60, answer_wait=5)
        injector = FaultInjector(fd, SEED, rest_rate=0.05, gateway_every=3.0)
        try:
            injector.start()
            await asyncio.gather(*(play_table(run, seat) for seat in tables))
            await injector.stop()
            shown = await wait_announced(path, ceiling=60)
            await bot.settle()
        finally:
            await injector.stop()
            await bot.close()
        found = verdict(run, tables, path)
        faults = injector.figures()
    assert not failures(found), (failures(found), found, faults)
    assert shown
    assert found["orders_acknowledged"] >= TABLES * PHASES, found
    assert found["phases_resolved"] >= TABLES * PHASES
    # the faults were served: REST refusals of each family, and the gateway dropped at least once
    refused = faults["rest_refused"]
    assert refused.get("429-no-via") and any(refused.get(s) for s in ("500", "502", "503", "504")), faults
    assert faults["identify"] + faults["resume"] >= 1, faults
