"""Heavy commands against everyone else (issue 15 item 3): while one table runs the heaviest commands on a very
large exo encounter, another user in another channel keeps rolling dice; how long do their acknowledgements take?

The bot, the local Discord and the people share one event loop here (as in the end-to-end tests), so every
millisecond the bot holds the loop shows up in the other user's acknowledgement. Bar: max ack < 500 ms.

Prints one JSON line per heavy command: ``{"heavy": "replay", "ships": 800, "heavy_ms": …, "acks": n,
"ack_p50_ms": …, "ack_max_ms": …}``.

    .venv/bin/python bench/heavy.py [--ships 800]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot.permissions import Actor
from tests.e2e_helpers import start_bot
from tests.fakediscord import FakeDiscord, Person


def big_scenario(ships: int) -> str:
    lines = [
        'ruleset = "exo"\nname = "Big fleet"\nseed = 5\n[board]\nwidth = 99\nheight = 99\n',
        '[[sides]]\nid = "red"\n[[sides]]\nid = "blue"\n',
    ]
    for i in range(ships):
        col, row = 2 + (i % 48) * 2, 2 + (i // 48) * 2
        side = "red" if col < 50 else "blue"
        lines.append(
            f'[[units]]\nid = "s{i}"\nside = "{side}"\nat = "{col:02d}{row:02d}"\nfacing = "N"\n'
            "maneuverability = 2\nengines = 2\narmor = 5\nstructure = 3\ncabin = 2\ncargo = 1\n"
            'weapons = ["Lx2"]\n'
        )
    return "\n".join(lines)


async def roll_until(done: asyncio.Event, person: Person, channel: object, acks: list[float]) -> None:
    while not done.is_set():
        start = time.perf_counter()
        handle = await person.run_command(channel, "roll", {"expression": "2d6"})  # type: ignore[arg-type]
        await handle.acknowledged()
        acks.append((time.perf_counter() - start) * 1000)
        await asyncio.sleep(0.02)


async def main(ships: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        async with FakeDiscord() as fd:
            fd.response_deadline = 60.0
            big = fd.create_guild("Fleet")
            channel, elsewhere = big.create_text_channel("fleet"), big.create_text_channel("dice")
            director, roller = fd.create_user("dora"), fd.create_user("rui")
            big.add_member(director.user)
            big.add_member(roller.user)
            bot = await start_bot(fd, f"sqlite:///{Path(tmp) / 'bench.sqlite3'}", big.id)
            try:
                created = await bot.service.create(
                    big.id, channel.id, director.id, ruleset="exo", toml_text=big_scenario(ships)
                )
                enc = created.encounter_id
                await bot.service.start(enc, Actor(director.id))
                for _ in range(3):  # a few resolved steps to replay
                    await bot.service.resolve(enc, forced=True)
                await bot.settle()
                cases = [
                    ("resolve", "director resolve", {}),
                    ("replay", "encounter replay", {}),
                    ("export", "encounter export", {}),
                ]
                for name, command, options in cases:
                    acks: list[float] = []
                    done = asyncio.Event()
                    roller_task = asyncio.create_task(roll_until(done, roller, elsewhere, acks))
                    await asyncio.sleep(0.1)
                    start = time.perf_counter()
                    handle = await director.run_command(channel, command, options)
                    await handle.final_response(timeout=600)
                    await bot.settle()
                    heavy_ms = (time.perf_counter() - start) * 1000
                    done.set()
                    await roller_task
                    print(
                        json.dumps(
                            {
                                "heavy": name,
                                "ships": ships,
                                "heavy_ms": round(heavy_ms),
                                "acks": len(acks),
                                "ack_p50_ms": round(statistics.median(acks), 1) if acks else None,
                                "ack_max_ms": round(max(acks), 1) if acks else None,
                            }
                        ),
                        flush=True,
                    )
            finally:
                await bot.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--ships", type=int, default=800)
    logging.basicConfig(level=logging.WARNING)
    asyncio.run(main(parser.parse_args().ships))
