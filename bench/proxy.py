"""Whether a shared REST rate-limit proxy keeps several bot processes within the token's global limit: two
production bot processes (``SHARD_COUNT=2``, ``SHARD_IDS=0`` and ``1``) on one PostgreSQL send their REST requests
through one nirn.py proxy (``HEXD_DISCORD_API``) to the local Discord, which enforces a low global limit per token
and its per-route buckets (``FakeDiscord(rate_limits=True)``); ``--direct`` runs the same load without the proxy.

nirn.py sends upstream to ``https://discord.com`` only, with no setting for it, so it runs unmodified in a mount
namespace of its own whose /etc/hosts resolves discord.com to a loopback address where the local Discord also
answers HTTPS, with a certificate made for discord.com for the run and trusted by the proxy alone
(``SSL_CERT_FILE``). nirn.py asks the token's limit of Discord at its start (``/api/v9/users/@me``,
``/gateway/bot``) and is told the local Discord's lower one with its own setting, ``BOT_RATELIMIT_OVERRIDES``.

The load: ``--tables`` duels in each process's guild are opened at once (boards, statuses, DM panels), then every
player orders on their DM panel at once and each step is resolved and posted. Prints one JSON line,
``{"figure": "proxy", …}``: the requests the local Discord served and refused (``global_refused``; per route,
``route_refused``), its invalid-request count, whether every table reached its second phase with its boards and
panels (``all_delivered``), and the run's seconds.

Needs root (a mount namespace, port 443), ``unshare``, ``openssl``, nirn.py (``pip install nirn.py==1.0.3``) and the
tests' PostgreSQL server (HEXDIRECTOR_TEST_POSTGRES_URL); without one of them it prints a ``skipped`` line.

Run: ``.venv/bin/python bench/proxy.py [--tables 3] [--global-limit 10] [--proxy-limit 10] [--direct]``.
This is a measurement, not a test: what the proxy lets through depends on the machine's pace at the time.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import sys
import tempfile
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

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


async def play(db: str, tmp: Path, args: argparse.Namespace) -> dict[str, object]:
    async with (
        FakeDiscord(shards=SHARDS, rate_limits=True, global_limit=args.global_limit) as fd,
        contextlib.AsyncExitStack() as stack,
    ):
        extra: dict[str, str] = {}
        if not args.direct:
            extra["HEXD_DISCORD_API"] = await stack.enter_async_context(nirn_proxy(fd, tmp, args.proxy_limit))
        duels = [d for shard in range(SHARDS) for d in new_duels(fd, shard, args.tables)]
        bots = [
            BotProcess(bot_env(fd, db, shard_count=SHARDS, shard_ids=(i,), extra=extra), name=f"shard-{i}")
            for i in range(SHARDS)
        ]
        started = time.perf_counter()
        await asyncio.gather(*(b.start() for b in bots))
        try:
            await asyncio.gather(*(open_duel(fd, d) for d in duels))
            await asyncio.gather(*(play_phase(fd, d) for d in duels))
        finally:
            await asyncio.gather(*(b.stop() for b in bots))
        limits = fd.rate_limits
        assert limits is not None
        figure: dict[str, object] = {
            "figure": "proxy",
            "through_proxy": not args.direct,
            "encounters": len(duels),
            "global_limit": args.global_limit,
            "proxy_limit": None if args.direct else args.proxy_limit,
            "requests": len(fd.requests),
            "global_refused": limits.refused.get("global", 0),
            "route_refused": {k: v for k, v in limits.refused.items() if k != "global"},
            "invalid_requests": fd.invalid_requests,
            "all_delivered": all(newest_phase(d) >= 2 and boards(d) >= 2 for d in duels),
            "seconds": round(time.perf_counter() - started, 1),
        }
        print(json.dumps(figure), flush=True)
        return figure


async def with_database(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        try:
            async with database_url("postgresql", Path(tmp)) as url:
                await play(url, Path(tmp), args)
        except pytest.skip.Exception as why:
            print(json.dumps({"figure": "proxy", "skipped": str(why)}), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--tables", type=int, default=3, help="duels in each process's guild")
    parser.add_argument("--global-limit", type=int, default=10, help="the local Discord's requests a second")
    parser.add_argument(
        "--proxy-limit", type=int, default=0, help="nirn.py's limit (default: the global one)"
    )
    parser.add_argument("--direct", action="store_true", help="no proxy: each process straight to Discord")
    args = parser.parse_args()
    args.proxy_limit = args.proxy_limit or args.global_limit
    logging.basicConfig(level=logging.ERROR)
    if not args.direct and (why := cannot_run()) is not None:
        print(json.dumps({"figure": "proxy", "skipped": why}), flush=True)
        return
    asyncio.run(with_database(args))


if __name__ == "__main__":
    main()
