"""The acknowledgement floor: what a burst of simultaneous interactions costs before any game logic.

The production bot (in its own process, as ``bench/e2e.py`` runs it) gets ``--burst`` ``/help`` commands from as
many people at the same instant, ``--waves`` times: ``/help`` reads nothing from the database and answers with one
ephemeral message, so what is measured is discord.py's own work (the gateway event, the interaction, the command
tree, the answer's HTTP request) and the local Discord's. Then the same number again, spread evenly over
``--spread`` seconds, as interactions from many servers arrive. One JSON line per wave:

* ``ack_p50_ms`` / ``ack_p99_ms``: from the person's click to Discord having the answer;
* ``bot_cpu_ms_each``: the bot's CPU per interaction (its ``/proc`` times, read before and after the wave);
* ``mode``: ``burst`` (all at once) or ``spread``.

When 100 come at the same instant, the last answer waits for the 99 before it, so the p99 of a burst is about
``burst x bot_cpu_ms_each``: the floor under ``bench/e2e.py``'s set-up burst, whatever the commands then do.

Run: ``.venv/bin/python bench/floor.py [--burst 100] [--waves 6] [--spread 1.0]``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.bot_process import BotProcess, spawn_bot
from tests.fakediscord import Channel, FakeDiscord, Person

TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """User + system CPU of process ``pid`` (not its children: the render workers draw nothing for /help)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))], 1)


async def ask_help(person: Person, channel: Channel, after: float) -> float:
    """One ``/help`` given ``after`` seconds from now; the ms from giving it to its acknowledgement."""
    if after:
        await asyncio.sleep(after)
    began = time.perf_counter()
    handle = await person.run_command(channel, "help", {})
    await handle.acknowledged()
    return (time.perf_counter() - began) * 1000


async def wave(
    child: BotProcess, people: list[Person], channel: Channel, mode: str, spread: float, n: int
) -> None:
    assert child.proc is not None
    pid = child.proc.pid
    before = cpu_seconds(pid)
    step = spread / len(people) if mode == "spread" else 0.0
    acks = await asyncio.gather(*(ask_help(p, channel, i * step) for i, p in enumerate(people)))
    await asyncio.sleep(0.3)  # the answers' HTTP responses are read by the bot after Discord has them
    used = cpu_seconds(pid) - before
    print(
        json.dumps(
            {
                "figure": "ack_floor",
                "mode": mode,
                "wave": n,
                "interactions": len(people),
                "ack_p50_ms": pct(acks, 0.5),
                "ack_p99_ms": pct(acks, 0.99),
                "bot_cpu_ms_each": round(used / len(people) * 1000, 2),
            }
        ),
        flush=True,
    )


async def main(burst: int, waves: int, spread: float) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        async with FakeDiscord() as fd:
            fd.world.poll_interval = 1.0
            guild = fd.create_guild("Floor")
            channel = guild.create_text_channel("help")
            people = [fd.create_user(f"p{i}") for i in range(burst)]
            for person in people:
                guild.add_member(person.user)
            child = await spawn_bot(fd, f"sqlite:///{tmp}/floor.sqlite3", guild_id=guild.id)
            try:
                await asyncio.sleep(1.0)  # past the start-up's own work
                for n in range(waves):
                    await wave(child, people, channel, "burst", spread, n)
                for n in range(max(1, waves // 2)):
                    await wave(child, people, channel, "spread", spread, n)
            finally:
                await child.stop()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--burst", type=int, default=100, help="interactions given at the same instant")
    parser.add_argument(
        "--waves", type=int, default=6, help="bursts in a row (the first one finds caches cold)"
    )
    parser.add_argument("--spread", type=float, default=1.0, help="seconds the spread waves take")
    args = parser.parse_args()
    asyncio.run(main(args.burst, args.waves, args.spread))
