"""A load test with faults: 50 exo duels played for 5 minutes through the local Discord
(tests/fakediscord) while Discord refuses the bot's requests at random (429 with and without Via, global or not;
500, 502, 503, 504) and drops its gateway (RECONNECT, INVALID_SESSION). A seeded RNG decides the faults (printed, and
``--seed`` replays the same sequence); the players click their DM panels and Submit, clicking again when nothing
answers, and start a new game in a new channel when one ends.

The bot runs in its own process by default (tests/bot_process.py's ``spawn_bot``, as bench/e2e.py); ``--in-process`` runs it on this loop.
When the time is up the faults stop, every table finishes the phase it is in, and the bench waits until every
committed step was shown. Then it prints JSON lines:

* ``faults``: the seed, the bot's requests, those refused by kind, gateway faults by kind, IDENTIFYs and RESUMEs,
  interactions acknowledged too late;
* ``ack``: from a person's click or command to its acknowledgement, p50/p99 ms;
* ``verdict``: orders acknowledged vs lost, phases expected vs resolved, double posts (a step's account and board,
  a phase's status message, the winner, a DM panel), tables stuck, retries, games;

and exits 1 when an invariant fails (an acknowledged order not stored, a double post, a phase not resolved, a
step never shown, a table stuck).

Run: ``.venv/bin/python bench/faults.py [--encounters 50] [--seconds 300] [--seed N] [--in-process]``.
The player code and the verdict live in tests/faults_fixtures.py (tests/e2e/test_e2e_faults.py runs a short one).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from e2e import pct

from tests.bot_process import BotProcess, spawn_bot
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


async def main(args: argparse.Namespace) -> int:
    logging.basicConfig(level=logging.ERROR)
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1 << 31)
    print(json.dumps({"figure": "seed", "seed": seed}), flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        path = f"{tmp}/faults.sqlite3"
        async with FakeDiscord() as fd:
            fd.world.poll_interval = 1.0  # waits are on the fake's own state (see bench/e2e.py)
            tables = seats(fd, args.encounters, seed)
            run = FaultRun(fd)
            injector = FaultInjector(fd, seed, rest_rate=args.rest_rate, gateway_every=args.gateway_every)
            guild_id = tables[0].guild.id
            child: BotProcess | None = None
            bot = None
            if args.in_process:
                bot = await start_bot(fd, f"sqlite:///{path}", guild_id)
            else:
                child = await spawn_bot(fd, f"sqlite:///{path}", guild_id=guild_id)
            began = time.perf_counter()
            try:
                injector.start()
                playing = [asyncio.create_task(play_table(run, s)) for s in tables]
                await asyncio.wait(playing, timeout=args.seconds)
                played = time.perf_counter() - began
                run.stop.set()
                await injector.stop()
                await asyncio.gather(*playing)  # each table finishes the phase it is in
                announced = await wait_announced(path)
                wall = time.perf_counter() - began
            finally:
                if bot is not None:
                    await bot.close()
                if child is not None:
                    await child.stop()
            found = verdict(run, tables, path)
            faults = injector.figures()
    print(json.dumps({"figure": "faults", "seed": seed, **faults}))
    print(
        json.dumps(
            {
                "figure": "ack",
                "encounters": args.encounters,
                "samples": len(run.ack_ms),
                "p50_ms": pct(run.ack_ms, 0.5),
                "p99_ms": pct(run.ack_ms, 0.99),
            }
        )
    )
    print(
        json.dumps(
            {
                "figure": "wall",
                "bot": "in-process" if args.in_process else "own process",
                "played_s": round(played, 1),
                "seconds": round(wall, 1),
                "all_shown": announced,
            }
        )
    )
    print(json.dumps({"figure": "verdict", **found}, ensure_ascii=False))
    bad = failures(found)
    for line in bad:
        print(f"FAILED: {line}", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--encounters", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=300)
    parser.add_argument("--seed", type=int, help="the fault sequence to replay (default: a new one, printed)")
    parser.add_argument("--rest-rate", type=float, default=0.03, help="share of the bot's requests refused")
    parser.add_argument("--gateway-every", type=float, default=20, help="mean seconds between gateway faults")
    parser.add_argument("--in-process", action="store_true", help="run the bot on the local Discord's loop")
    sys.exit(asyncio.run(main(parser.parse_args())))
