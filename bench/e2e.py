"""End-to-end benchmark (issue 7): 20 exo duels played at once through the local Discord (tests/fakediscord)
by the real bot and the unmodified discord.py client on 127.0.0.1.

By default the bot runs in its own process, as in production (Discord is not in the bot's process): this process
hosts the local Discord and the simulated people, and times everything from their side. ``--in-process`` runs
the bot on the same event loop as the local Discord and the people (the first version of this bench), which
charges the fake server's own work to the bot.

Prints one JSON line per figure:

* ``ack``: from a player's interaction (slash command, button, select) to its acknowledgement, p50/p99 ms;
  bar p99 <= 100 ms;
* ``image``: from the click that gave a phase's last order to the board image posted in the channel,
  p50/p95 ms; bar p95 <= 500 ms.

Run: ``.venv/bin/python bench/e2e.py [--encounters 20] [--rounds 2] [--in-process]``;
``HEXD_BENCH_PROFILE=out.prof`` writes a cProfile of the bot process.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import re
import resource
import signal
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.e2e_helpers import BotUnderTest, button_id, draft_in, panels_for, start_bot, step_of
from tests.fakediscord import Channel, FakeDiscord, Message, Person
from tests.fakediscord.people import InteractionHandle


class Timings:
    def __init__(self) -> None:
        self.ack: list[float] = []
        self.by_kind: dict[str, list[float]] = {}
        self.image: list[float] = []

    async def timed(self, start: float, handle: InteractionHandle, kind: str) -> InteractionHandle:
        await handle.acknowledged()
        ms = (time.perf_counter() - start) * 1000
        self.ack.append(ms)
        self.by_kind.setdefault(kind, []).append(ms)
        return handle


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))], 1)


async def panel_for(fd: FakeDiscord, person: Person, unit: str, after: int) -> Message:
    """The newest DM panel of ``unit`` for a phase later than ``after`` (waits on the fake's state, no polling)."""

    def find() -> Message | None:
        for m in reversed(panels_for(person.dms(), unit)):
            found = draft_in(m)
            if found is not None and found[0] > after:
                return m
        return None

    return await fd.wait_for(find, timeout=30, what=f"{person.name}'s panel")


async def give_orders(
    fd: FakeDiscord, tm: Timings, person: Person, panel: Message, unit: str, moves: str
) -> float:
    """Click the moves, declare a shot and Submit on the DM panel; returns when the Submit click was made."""
    for letter in moves:
        before = draft_in(panel)
        start = time.perf_counter()
        await tm.timed(start, await person.click(panel, button_id(panel, unit, letter)), "button")
        await fd.wait_for(lambda b=before: draft_in(panel) != b, timeout=30)
    fire_id = next((cid for cid in panel.custom_ids() if cid.endswith(f":unit:{unit}:fire")), None)
    if fire_id is not None:  # declare one shot, as a player would
        value = panel.custom_ids()[fire_id]["options"][0]["value"]
        start = time.perf_counter()
        await tm.timed(start, await person.select(panel, fire_id, [value]), "select")
        await fd.wait_for(
            lambda: (d := draft_in(panel)) is not None and d[1].list("fire") == (value,), timeout=30
        )
    start = time.perf_counter()
    handle = await tm.timed(start, await person.click(panel, button_id(panel, unit, "submit")), "submit")
    await handle.wait_for_followups(1, timeout=30)
    return start


async def duel(fd: FakeDiscord, tm: Timings, channel: Channel, people: list[Person], rounds: int) -> None:
    """One duel driven only as people would: commands, DM panels, and watching the channel."""
    director, ana, bea = people
    for who, name, options in (
        (director, "encounter new", {"ruleset": "exo", "scenario": "exo-duel"}),
        (ana, "encounter join", {}),
        (bea, "encounter join", {}),
        (director, "encounter start", {}),
    ):
        start = time.perf_counter()
        handle = await tm.timed(start, await who.run_command(channel, name, options), name)
        await handle.final_response(timeout=30)
    last = {"halcon": 0, "pirata": 0}  # the newest phase each player has acted on
    players = {"halcon": ana, "pirata": bea}
    played = 0
    while played < rounds:

        def next_panel() -> tuple[str, Message] | None:
            for unit, person in players.items():
                for m in reversed(panels_for(person.dms(), unit)):
                    found = draft_in(m)
                    if found is not None and found[0] > last[unit]:
                        return unit, m
            return None

        unit, panel = await fd.wait_for(next_panel, timeout=30, what="a new panel")
        draft = draft_in(panel)
        assert draft is not None
        if step_of(panel) == "repairs":  # phase 5 (EXO-6.1): this ship's crew declares no repairs
            handle = await players[unit].click(panel, button_id(panel, unit, "submit"))
            await handle.wait_for_followups(1, timeout=30)
            last[unit] = draft[0]
            continue
        if step_of(panel) == "decision":  # a piloting critical (EXO-4.1): keep the orders as written
            cid = button_id(panel, unit, "decide")
            await players[unit].select(panel, cid, [panel.custom_ids()[cid]["options"][0]["value"]])
            await fd.wait_for(
                lambda p=panel: (d := draft_in(p)) is not None and d[1].text("choice") != "", timeout=30
            )
            handle = await players[unit].click(panel, button_id(panel, unit, "submit"))
            await handle.wait_for_followups(1, timeout=30)
            last[unit] = draft[0]
            continue
        phase = draft[0]
        panel_a = await panel_for(fd, ana, "halcon", phase - 1)
        panel_b = await panel_for(fd, bea, "pirata", phase - 1)
        images = sum(1 for m in channel.messages() if m.attachments)
        await give_orders(fd, tm, ana, panel_a, "halcon", "D")
        submitted = await give_orders(fd, tm, bea, panel_b, "pirata", "I")
        last["halcon"] = last["pirata"] = phase
        await fd.wait_for(
            lambda n=images: sum(1 for m in channel.messages() if m.attachments) > n, timeout=30
        )
        tm.image.append((time.perf_counter() - submitted) * 1000)
        played += 1


async def main(encounters: int, rounds: int, in_process: bool) -> None:
    logging.basicConfig(level=logging.ERROR)
    tm = Timings()
    bot_cpu: float | None = None
    with tempfile.TemporaryDirectory() as tmp:
        async with FakeDiscord() as fd:
            # every wait here is on the local Discord's own state, which wakes waiters when it changes: the
            # 10 ms safety poll (for predicates over a bot's state) would only burn CPU the bot shares
            fd.world.poll_interval = 1.0
            guild = fd.create_guild("Bench")
            tables: list[tuple[Channel, list[Person]]] = []
            for i in range(encounters):
                channel = guild.create_text_channel(f"duel-{i}")
                people = [fd.create_user(f"{role}{i}") for role in ("dir", "ana", "bea")]
                for p in people:
                    guild.add_member(p.user)
                tables.append((channel, people))
            database_url = f"sqlite:///{tmp}/bench.sqlite3"
            if in_process:
                bot = await start_bot(fd, database_url, guild.id)
                try:
                    began = time.perf_counter()
                    await asyncio.gather(*(duel(fd, tm, ch, ppl, rounds) for ch, ppl in tables))
                    await bot.settle()
                    wall = time.perf_counter() - began
                finally:
                    await bot.close()
                routes = request_counts(fd, encounters)
            else:
                child, started_cpu = await spawn_bot(fd, database_url, guild.id)
                try:
                    began = time.perf_counter()
                    await asyncio.gather(*(duel(fd, tm, ch, ppl, rounds) for ch, ppl in tables))
                    wall = time.perf_counter() - began
                finally:
                    child.send_signal(signal.SIGTERM)
                    assert child.stdout is not None
                    tail = (await child.stdout.read()).decode().split()
                    await child.wait()
                if tail:  # the bot's CPU seconds from ready to exit (its render workers not included)
                    bot_cpu = round(float(tail[-1]) - started_cpu, 2)
            routes = request_counts(fd, encounters)
    print(
        json.dumps(
            {
                "figure": "ack",
                "encounters": encounters,
                "samples": len(tm.ack),
                "p50_ms": pct(tm.ack, 0.50),
                "p99_ms": pct(tm.ack, 0.99),
                "bar_p99_ms": 100,
            }
        )
    )
    print(
        json.dumps(
            {
                "figure": "image",
                "encounters": encounters,
                "samples": len(tm.image),
                "p50_ms": pct(tm.image, 0.50),
                "p95_ms": pct(tm.image, 0.95),
                "bar_p95_ms": 500,
            }
        )
    )
    for kind, values in sorted(tm.by_kind.items()):
        print(
            json.dumps(
                {
                    "figure": "ack_by_kind",
                    "kind": kind,
                    "samples": len(values),
                    "p50_ms": pct(values, 0.5),
                    "p99_ms": pct(values, 0.99),
                }
            )
        )
    print(json.dumps({"figure": "requests_per_encounter", **routes}))
    print(
        json.dumps(
            {
                "figure": "wall",
                "bot": "in-process" if in_process else "own process",
                "seconds": round(wall, 2),
                "mean_ack_ms": round(statistics.fmean(tm.ack), 1),
                "bot_cpu_s": bot_cpu,
            }
        )
    )


def request_counts(fd: FakeDiscord, encounters: int) -> dict[str, float]:
    """The bot's REST requests per encounter, by route (ids folded): what a round costs in Discord calls."""
    counts: dict[str, int] = {}
    for record in fd.requests:
        route = f"{record.method} {re.sub(r'/[0-9]+|/[A-Za-z0-9_-]{40,}', '/:id', record.path)}"
        counts[route] = counts.get(route, 0) + 1
    ordered = sorted(counts.items(), key=lambda kv: -kv[1])
    return {"total": round(sum(counts.values()) / encounters, 1)} | {
        route: round(n / encounters, 1) for route, n in ordered
    }


async def spawn_bot(
    fd: FakeDiscord, database_url: str, guild_id: int, *, report_resume: bool = False
) -> tuple[asyncio.subprocess.Process, float]:
    """The bot in a child process pointed at this process's local Discord; returns once it is ready, with the
    CPU seconds it had used by then."""
    spec = json.dumps(
        {
            "base": fd.base_url,
            "gateway": fd.gateway.url,
            "token": fd.bot_token,
            "database_url": database_url,
            "guild_id": guild_id,
            "report_resume": report_resume,
        }
    )
    child = await asyncio.create_subprocess_exec(
        sys.executable, __file__, "--serve-bot", spec, stdout=asyncio.subprocess.PIPE
    )
    assert child.stdout is not None
    line = await asyncio.wait_for(child.stdout.readline(), timeout=60)
    if not line.startswith(b"ready "):
        raise RuntimeError(f"the bot process did not start: {line!r}")
    return child, float(line.split()[1])


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def rss_kb() -> int:
    """This process's resident memory now (Linux), in kB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def watch_loop_stalls(loop: asyncio.AbstractEventLoop, threshold_ms: float) -> None:
    """``HEXD_BENCH_STALLS=<ms>``: whenever the bot's event loop is held longer than that, print to stderr the
    stack it is held in (sampled by a thread once per stall). How issue 15 item 3's stalls were found."""
    import threading
    import traceback

    beat = [time.monotonic()]
    loop_thread = threading.get_ident()

    def watch() -> None:
        reported = 0.0
        while True:
            time.sleep(0.02)
            held = time.monotonic() - beat[0]
            if held * 1000 > threshold_ms and beat[0] != reported:
                reported = beat[0]
                stack = traceback.format_stack(sys._current_frames().get(loop_thread), limit=14)
                print(f"loop held {held * 1000:.0f} ms in:\n{''.join(stack)}", file=sys.stderr, flush=True)

    async def heartbeat() -> None:
        while True:
            beat[0] = time.monotonic()
            await asyncio.sleep(0.01)

    threading.Thread(target=watch, daemon=True).start()
    _keep.add(loop.create_task(heartbeat()))


_keep: set[asyncio.Task[None]] = set()


async def report_loop_lag(tick: float = 0.005) -> None:
    """How long the bot's event loop was held: the largest overshoot of a short sleep since the last SIGUSR1,
    printed as ``lag <ms>`` on each SIGUSR1 (bench/heavy.py reads it around each heavy command). This measures the
    bot alone, where an acknowledgement timed from the people's side also holds the local Discord's own work."""
    worst = 0.0
    loop = asyncio.get_running_loop()

    def report() -> None:
        nonlocal worst
        print("lag", round(worst * 1000, 1), flush=True)
        worst = 0.0

    loop.add_signal_handler(signal.SIGUSR1, report)
    if stalls := os.environ.get("HEXD_BENCH_STALLS"):
        watch_loop_stalls(loop, float(stalls))
    while True:
        before = loop.time()
        await asyncio.sleep(tick)
        worst = max(worst, loop.time() - before - tick)


def serve_bot(spec: dict[str, object]) -> None:
    """Child side of ``spawn_bot``: the same ``BotUnderTest`` the end-to-end tests run, until SIGTERM."""
    import yarl
    from discord.gateway import DiscordWebSocket
    from discord.http import Route

    from bot.client import serve
    from bot.config import Config

    logging.basicConfig(level=logging.ERROR)
    Route.BASE = f"{spec['base']}/api/v10"
    DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(str(spec["gateway"]))

    async def run() -> int:
        config = Config(
            token=str(spec["token"]),
            database_url=str(spec["database_url"]),
            dev_guild=int(str(spec["guild_id"])),
            log_level="ERROR",
        )
        bot = BotUnderTest(config, deadline_interval=3600, guild_ready_timeout=0.05)
        stop = asyncio.Event()
        asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)

        async def announce_ready() -> None:
            print("ready", cpu_seconds(), flush=True)
            if spec.get(
                "report_resume"
            ):  # bench/idle.py: when every running encounter is resumed, and the RSS
                announcer = bot.announcer
                assert announcer is not None
                await announcer.resumed.wait()
                await announcer.drain()
                print("resumed", cpu_seconds(), rss_kb(), flush=True)

        bot.add_listener(announce_ready, "on_ready")
        lag = asyncio.create_task(report_loop_lag())
        try:
            return await serve(bot, config.token, stop)
        finally:
            lag.cancel()

    profile_to = os.environ.get("HEXD_BENCH_PROFILE")
    if profile_to:
        import cProfile

        cProfile.runctx("asyncio.run(run())", globals(), locals(), profile_to)
    else:
        asyncio.run(run())
    print(cpu_seconds(), flush=True)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--encounters", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--in-process", action="store_true", help="run the bot on the local Discord's loop")
    parser.add_argument("--serve-bot", metavar="JSON", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve_bot:
        serve_bot(json.loads(args.serve_bot))
    else:
        asyncio.run(main(args.encounters, args.rounds, args.in_process))
