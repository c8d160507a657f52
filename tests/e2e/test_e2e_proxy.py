"""Several processes, one rate limit: two production bot processes (``SHARD_COUNT=2``, ``SHARD_IDS=0`` and ``1``,
tests/bot_process.py) on one PostgreSQL send every REST request through one nirn.py proxy (``HEXD_DISCORD_API``),
unmodified, in front of the local Discord enforcing a low global limit for the token (tests/rate_proxy.py).

Both processes open duels in their guilds at once, then every player orders on their DM panel at once: each process
alone offers more requests than the limit allows in a second, and without the proxy the same load is refused for
the global limit (``bench/proxy.py --tables 1 --direct``). Through the proxy, none is, and every board and DM panel
arrives. Skips, saying why, where the proxy cannot be put in front of the local Discord (not root, no
unshare or openssl, nirn.py not installed) or without a PostgreSQL server; CI has all of them."""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path

import pytest

from tests.bot_process import BotProcess, bot_env
from tests.fakediscord import FakeDiscord
from tests.rate_proxy import (
    SHARDS,
    boards,
    cannot_run,
    new_duels,
    newest_phase,
    nirn_proxy,
    open_duel,
    play_phase,
)
from tests.storage_fixtures import database_url

pytestmark = pytest.mark.slow

#: the local Discord's global limit for the test: low, so that the processes go over it at once
GLOBAL_LIMIT = 10
#: the limit nirn.py is told to keep: its limiter lets its whole limit through at once and then refills at that
#: limit a second, and counts a request when it arrives, not when it leaves after waiting for its route's bucket,
#: so more than its limit can leave within one second; 30 % of Discord's, as the README advises
PROXY_LIMIT = 3
#: duels in each process's guild
TABLES = 1


async def test_two_processes_behind_one_nirn_proxy_stay_within_the_tokens_global_limit(
    tmp_path: Path,
) -> None:
    if (why := cannot_run()) is not None:
        pytest.skip(why)
    async with (
        database_url("postgresql", tmp_path) as db,
        FakeDiscord(shards=SHARDS, rate_limits=True, global_limit=GLOBAL_LIMIT) as fd,
        contextlib.AsyncExitStack() as stack,
    ):
        proxy = await stack.enter_async_context(nirn_proxy(fd, tmp_path, PROXY_LIMIT))
        duels = [d for shard in range(SHARDS) for d in new_duels(fd, shard, TABLES)]
        bots = [
            BotProcess(
                bot_env(fd, db, shard_count=SHARDS, shard_ids=(i,), extra={"HEXD_DISCORD_API": proxy}),
                name=f"shard-{i}",
            )
            for i in range(SHARDS)
        ]
        await asyncio.gather(*(b.start() for b in bots))
        try:
            await asyncio.gather(*(open_duel(fd, d) for d in duels))
            await asyncio.gather(*(play_phase(fd, d) for d in duels))
        finally:
            stopped = await asyncio.gather(*(b.stop() for b in bots))
        assert all(cpu is not None for cpu in stopped), [b.lines for b in bots]

        limits = fd.rate_limits
        assert limits is not None
        # nor for a route's bucket: nirn.py reads the x-ratelimit-* headers, which the local Discord spells in
        # lower case as Discord does, and holds a route's requests until its bucket refills, so the bucket both
        # processes share (DM channel creation, per token) is kept too
        assert limits.refused == {}, limits.refused
        assert fd.invalid_requests == 0
        for d in duels:  # every board, status and panel arrived: each duel is in its second phase
            assert newest_phase(d) >= 2 and boards(d) >= 2
