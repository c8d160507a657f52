"""Heavy commands against everyone else: while one table runs the heaviest commands on a very
large exo encounter, another user in another channel keeps rolling dice; how long do their acknowledgements take?

By default the bot runs in its own process, as in production (tests/bot_process.py's ``spawn_bot``: the production ``HexBot``), and the encounter is
set up through slash commands. ``--in-process`` runs the bot on the local Discord's event loop instead (as in the
end-to-end tests): then every millisecond the fake server spends (parsing a large upload, for one) also shows up in
the other user's acknowledgement, and is charged to the bot. Bar: max ack < 500 ms.

Prints one JSON line per heavy command: ``{"heavy": "replay", "ships": 800, "heavy_ms": …, "acks": n,
"ack_p50_ms": …, "ack_max_ms": …, "bot_loop_held_max_ms": …}``. The last (own process only) is the longest the bot
held its own event loop meanwhile, measured inside the bot (bench/e2e.py ``report_loop_lag``): the acknowledgement
seen by the people also holds the local Discord's work. ``HEXD_BENCH_STALLS=150`` prints the stack of every stall
longer than 150 ms.

    .venv/bin/python bench/heavy.py [--ships 800] [--in-process]
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
from collections.abc import Awaitable, Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot.permissions import Actor
from bot.phase_gate import CONFIRM_WITHIN_MS
from tests.bot_process import BotProcess, spawn_bot
from tests.e2e_helpers import start_bot
from tests.fakediscord import Channel, FakeDiscord, Message, Person


def big_scenario(ships: int) -> str:
    lines = [
        'ruleset = "exo"\nname = "Big fleet"\nseed = 5\n[board]\nwidth = 99\nheight = 99\n',
        '[[sides]]\nid = "red"\n[[sides]]\nid = "blue"\n',
    ]
    for i in range(ships):
        col, row = 2 + (i % 48) * 2, 2 + (i // 48) * 2
        # the fleets face each other across the board's middle; a fleet too small to reach it alternates
        # sides, so that both sides are there and the encounter does not end as it starts
        side = "red" if (col < 50 if ships > 24 else i % 2 == 0) else "blue"
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


async def resolve_when_shown(fd: FakeDiscord, director: Person, channel: Channel) -> Message:
    """``/director resolve`` once the phase is shown in the channel (bot/phase_gate.py: a resolve given before it
    is refused, and one within 3 s of it is confirmed first); the local Discord's clock is moved past that."""
    for _ in range(120):
        fd.advance_clock(CONFIRM_WITHIN_MS + 1)
        answer = await (await director.run_command(channel, "director resolve")).final_response(timeout=600)
        if not answer.content.startswith("That phase"):
            return answer
        await asyncio.sleep(0.5)  # not shown yet: the bot shows it now
    raise SystemExit("the phase was never shown in the channel")


CASES = [("resolve", "director resolve"), ("replay", "encounter replay"), ("export", "encounter export")]


async def bot_lag(child: BotProcess) -> float:
    """The longest the bot process held its event loop since the last call (its ``lag`` line on SIGUSR1)."""
    return await child.lag()


Settle = Callable[[], Awaitable[None]]


async def measure(
    case: tuple[str, str],
    people: tuple[Person, Person],
    channels: tuple[Channel, Channel],
    ships: int,
    settle: Settle,
    child: BotProcess | None = None,
    options: dict[str, object] | None = None,
) -> Message:
    """One heavy command by the director while the other user rolls dice in another channel."""
    (name, command), (director, roller), (channel, elsewhere) = case, people, channels
    if child is not None:
        await bot_lag(child)  # start a fresh window
    acks: list[float] = []
    done = asyncio.Event()
    roller_task = asyncio.create_task(roll_until(done, roller, elsewhere, acks))
    await asyncio.sleep(0.1)
    start = time.perf_counter()
    handle = await director.run_command(channel, command, options or {})
    answer = await handle.final_response(timeout=600)
    await settle()
    heavy_ms = (time.perf_counter() - start) * 1000
    done.set()
    await roller_task
    figures: dict[str, object] = {
        "heavy": name,
        "ships": ships,
        "heavy_ms": round(heavy_ms),
        "acks": len(acks),
        "ack_p50_ms": round(statistics.median(acks), 1) if acks else None,
        "ack_max_ms": round(max(acks), 1) if acks else None,
    }
    if child is not None:
        figures["bot_loop_held_max_ms"] = await bot_lag(child)
    print(json.dumps(figures), flush=True)
    return answer


async def main(ships: int, in_process: bool) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        async with FakeDiscord() as fd:
            fd.response_deadline = 60.0
            big = fd.create_guild("Fleet")
            channel, elsewhere = big.create_text_channel("fleet"), big.create_text_channel("dice")
            director, roller = fd.create_user("dora"), fd.create_user("rui")
            big.add_member(director.user)
            big.add_member(roller.user)
            database_url = f"sqlite:///{Path(tmp) / 'bench.sqlite3'}"
            if in_process:
                bot = await start_bot(fd, database_url, big.id)
                try:
                    created = await bot.service.create(
                        big.id, channel.id, director.id, ruleset="exo", toml_text=big_scenario(ships)
                    )
                    enc = created.encounter_id
                    await bot.service.start(enc, Actor(director.id))
                    for _ in range(3):  # a few resolved steps to replay
                        await bot.service.resolve(enc, forced=True)
                    if bot.announcer is not None:  # the phase the director resolves is shown in the channel
                        await bot.announcer.open_phase(enc)
                    await bot.settle()
                    # the director has had the phase in front of them for a while (bot/phase_gate.py)
                    fd.advance_clock(CONFIRM_WITHIN_MS + 1)
                    for case in CASES:
                        await measure(case, (director, roller), (channel, elsewhere), ships, bot.settle)
                finally:
                    await bot.close()
                return
            child = await spawn_bot(fd, database_url, guild_id=big.id)
            try:
                scenario = ("fleet.toml", big_scenario(ships).encode())
                for command, options in [
                    ("encounter new", {"ruleset": "exo", "file": scenario}),
                    ("encounter start", {}),
                    *[("director resolve", {})] * 3,  # a few resolved steps to replay
                ]:
                    if command == "director resolve":
                        answer = await resolve_when_shown(fd, director, channel)
                        continue
                    handle = await director.run_command(channel, command, options)
                    answer = await handle.final_response(timeout=600)
                    if command == "encounter new":  # refused unless the channel is told (in its own post)
                        try:
                            await channel.wait_for_message(timeout=30)
                        except Exception:
                            raise SystemExit(f"{command} was refused: {answer.content[:1500]}") from None
                posted = len(channel.messages())

                async def settle() -> None:  # the channel is quiet: no post for half a second
                    nonlocal posted
                    while True:
                        await asyncio.sleep(0.5)
                        if len(channel.messages()) == posted:
                            return
                        posted = len(channel.messages())

                await settle()
                fd.advance_clock(
                    CONFIRM_WITHIN_MS + 1
                )  # the measured resolve: long after the phase was shown
                exported: Message | None = None
                for case in CASES:
                    exported = await measure(
                        case, (director, roller), (channel, elsewhere), ships, settle, child
                    )
                assert exported is not None and exported.attachments, (
                    f"the export gave no file: {exported and exported.content}"
                )
                upload = (exported.attachments[0].filename, exported.attachments[0].read())
                await measure(
                    ("import", "encounter import"),
                    (director, roller),
                    (big.create_text_channel("fleet-copy"), elsewhere),
                    ships,
                    settle,
                    child,
                    {"file": upload},
                )
            finally:
                await child.stop()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--ships", type=int, default=800)
    parser.add_argument("--in-process", action="store_true", help="run the bot on the local Discord's loop")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    asyncio.run(main(args.ships, args.in_process))
