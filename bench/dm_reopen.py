"""DM channels across a restart: the bot DMs P players, is restarted on the same database, and DMs them again,
against the local Discord with Discord's rate limits (tests/fakediscord/ratelimits.py; opening DM channels is one
bucket of 5 per 5 s for the whole bot).

Prints one JSON line per start of the bot (``sitting``: ``first_start``, then ``after_restart``): ``dm_open``
(``POST /users/@me/channels``), ``user`` (``GET /users/{id}``), ``refused_429`` (by bucket), ``seconds`` until
every DM of that sitting was answered, ``delivered``. A second process on the same database meets what the
restarted one does.

``--baseline REV`` runs the same with the bot of git revision REV after this tree's (each line names its ``bot``):
a before and after in one sitting.

Run: ``.venv/bin/python bench/dm_reopen.py --people 30 [--baseline REV]``. A measurement, not a test.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent


async def sittings(people: int, label: str) -> None:
    from tests.e2e_helpers import start_bot
    from tests.fakediscord import FakeDiscord

    async with FakeDiscord(rate_limits=True) as fd:
        assert fd.rate_limits is not None
        with tempfile.TemporaryDirectory(prefix="hexd-dm-reopen-") as tmp:
            db = f"sqlite:///{tmp}/bench.db"
            guild = fd.create_guild("Wargames")
            persons = [fd.create_user(f"player{i}") for i in range(people)]
            for person in persons:
                guild.add_member(person.user)
            for sitting in ("first_start", "after_restart"):
                bot = await start_bot(fd, db, guild.id)
                announcer = bot.announcer
                assert announcer is not None
                start, refused = len(fd.requests), dict(fd.rate_limits.refused)
                began = time.perf_counter()
                sent = await asyncio.gather(*(announcer.dm(p.id, sitting) for p in persons))
                seconds = time.perf_counter() - began
                await bot.close()
                since = fd.requests[start:]
                figure = {
                    "figure": "dm_reopen",
                    "bot": label,
                    "sitting": sitting,
                    "people": people,
                    "dm_open": sum(1 for r in since if (r.method, r.path) == ("POST", "/users/@me/channels")),
                    "user": sum(
                        1 for r in since if r.method == "GET" and re.fullmatch(r"/users/\d+", r.path)
                    ),
                    "refused_429": {
                        k: v - refused.get(k, 0)
                        for k, v in fd.rate_limits.refused.items()
                        if v != refused.get(k, 0)
                    },
                    "seconds": round(seconds, 1),
                    "delivered": sum(1 for s in sent if s is not None),
                }
                print(json.dumps(figure), flush=True)


def child(code: Path, people: int, label: str) -> None:
    """This run in a process of its own, importing the bot from ``code``."""
    subprocess.run(
        [sys.executable, __file__, "--people", str(people), "--code", str(code), "--label", label],
        check=True,
        cwd=code,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--people", type=int, default=30)
    parser.add_argument("--baseline", metavar="REV", help="also run the bot of git revision REV")
    parser.add_argument("--code", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--label", default="", help=argparse.SUPPRESS)
    args = parser.parse_args()
    logging.basicConfig(level=logging.ERROR)
    if args.code is not None:
        sys.path.insert(0, str(args.code))
        asyncio.run(sittings(args.people, args.label))
        return
    sys.path.insert(0, str(HERE))
    from bench.e2e import baseline_tree

    if not args.baseline:
        child(HERE, args.people, "work tree")
        return
    with baseline_tree(args.baseline) as (tree, head):
        child(HERE, args.people, head)
        child(tree, args.people, args.baseline)


if __name__ == "__main__":
    main()
