"""End-to-end benchmark: 20 exo duels played at once through the local Discord (tests/fakediscord)
by the real bot and the unmodified discord.py client on 127.0.0.1.

By default the bot runs in its own process, as in production (Discord is not in the bot's process): the production
``HexBot`` configured from its environment (tests/bot_process.py); this process hosts the local Discord and the
simulated people, and times everything from their side. ``--in-process`` runs
the bot on the same event loop as the local Discord and the people (the first version of this bench), which
charges the fake server's own work to the bot.

Prints one JSON line per figure:

* ``ack``: from a player's interaction (slash command, button, select) to its acknowledgement, p50/p99 ms;
  bar p99 <= 100 ms;
* ``image``: from the click that gave a phase's last order to the board image posted in the channel,
  p50/p95 ms; bar p95 <= 500 ms;
* ``bot_answer`` (bot in its own process): from the click to the bot *starting* its answer (the callback request),
  p50/p99 ms, overall and by kind: ``ack`` without the local Discord's own handling of that answer, which runs in
  this process on the same two cores (the same monotonic clock in both processes).

Every figure line carries ``bot`` when comparing: ``--baseline REV`` also runs the bot of git revision REV (its
tree exported to a temporary folder, served by this tree's tests/bot_process.py), alternating with the work tree's
bot ``--repeat`` times in the same sitting, so both are measured under the same load.

Run: ``.venv/bin/python bench/e2e.py [--encounters 20] [--rounds 2] [--in-process] [--baseline REV --repeat 2]``;
``HEXD_BENCH_PROFILE=out.prof`` writes a cProfile of the bot process.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections import deque
from collections.abc import Generator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot.click_limit import CLICKS_PER_WINDOW, WINDOW_SECONDS
from tests.bot_process import ROOT, spawn_bot
from tests.e2e_helpers import button_id, draft_in, panels_for, picked_in, start_bot, step_of
from tests.fakediscord import Channel, FakeDiscord, Message, Person
from tests.fakediscord.people import InteractionHandle

#: the click limiter's window with a margin for the clicks' trip to the bot, which may bring two closer together
PACE_WINDOW = WINDOW_SECONDS + 0.05


class ClickPace:
    """No faster than a person: at most :data:`CLICKS_PER_WINDOW` clicks on one unit's panel in a window (a
    faster click is answered "Too fast" and dropped, bot/click_limit.py). Phases that resolve at once would
    otherwise bring a duel's clicks closer together than anyone clicks; a click is timed once it is made."""

    def __init__(self) -> None:
        self.clicks: dict[tuple[int, str], deque[float]] = {}

    async def ready(self, person: Person, unit: str) -> None:
        recent = self.clicks.setdefault((person.id, unit), deque())
        while True:
            now = time.monotonic()
            while recent and now - recent[0] >= PACE_WINDOW:
                recent.popleft()
            if len(recent) < CLICKS_PER_WINDOW:
                recent.append(now)
                return
            await asyncio.sleep(PACE_WINDOW - (now - recent[0]))


class Timings:
    def __init__(self) -> None:
        self.pace = ClickPace()
        self.ack: list[float] = []
        self.by_kind: dict[str, list[float]] = {}
        self.image: list[float] = []
        self.started: list[tuple[int, float, str]] = []  # (interaction id, clicked at, kind)

    async def timed(self, start: float, handle: InteractionHandle, kind: str) -> InteractionHandle:
        self.started.append((handle.interaction.id, start, kind))
        await handle.acknowledged()
        ms = (time.perf_counter() - start) * 1000
        self.ack.append(ms)
        self.by_kind.setdefault(kind, []).append(ms)
        return handle


@contextlib.contextmanager
def baseline_tree(baseline: str) -> Generator[tuple[Path, str]]:
    """``baseline``'s files in a temporary folder (to run that revision's bot beside the work tree's in one
    sitting), and the work tree's short commit for the labels."""
    with tempfile.TemporaryDirectory(prefix="hexd-baseline-") as tree:
        export = subprocess.run(
            ["git", "-C", str(ROOT), "archive", baseline], capture_output=True, check=True
        )
        subprocess.run(["tar", "-x", "-C", tree], input=export.stdout, check=True)
        head = subprocess.run(
            ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        yield Path(tree), head


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))], 1)


def boards_in(channel: Channel) -> int:
    """The board images in the channel: a turn's message is edited with one more board per phase it shows."""
    return sum(
        1 for m in channel.messages() for a in m.attachments if (a.content_type or "").startswith("image/")
    )


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
        if panel.custom_ids()[button_id(panel, unit, letter)].get("disabled"):
            break  # no movement this round (adrift or no pilot at the controls, EXO-2.3, EXO-6.2)
        before = draft_in(panel)
        await tm.pace.ready(person, unit)
        start = time.perf_counter()
        await tm.timed(start, await person.click(panel, button_id(panel, unit, letter)), "button")
        await fd.wait_for(lambda b=before: draft_in(panel) != b, timeout=30)
    fire_id = next((cid for cid in panel.custom_ids() if cid.endswith(f":unit:{unit}:fire")), None)
    if fire_id is not None:  # declare one shot, as a player would
        value = panel.custom_ids()[fire_id]["options"][0]["value"]
        await tm.pace.ready(person, unit)
        start = time.perf_counter()
        await tm.timed(start, await person.select(panel, fire_id, [value]), "select")
        # the fire picks ride packed in the draft (bot/panels/picks.py): read them as the player sees them
        await fd.wait_for(lambda: value in picked_in(panel, "fire"), timeout=30, what="the shot on the panel")
    await tm.pace.ready(person, unit)
    start = time.perf_counter()
    handle = await tm.timed(start, await person.click(panel, button_id(panel, unit, "submit")), "submit")
    await handle.wait_for_replies(1, timeout=30)
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
        # phase 5 (EXO-6.1): this ship's crew declares no repairs; with nothing to repair the panel has no repairs
        # menu, only Submit (and station changes, EXO-6.5): not the movement buttons of the orders
        movement = any(cid.endswith(f":unit:{unit}:I") for cid in panel.custom_ids())
        if step_of(panel) == "repairs" or (step_of(panel) == "orders" and not movement):
            await tm.pace.ready(players[unit], unit)
            handle = await players[unit].click(panel, button_id(panel, unit, "submit"))
            await handle.wait_for_replies(1, timeout=30)
            last[unit] = draft[0]
            continue
        if step_of(panel) == "decision":  # a piloting critical (EXO-4.1): keep the orders as written
            cid = button_id(panel, unit, "decide")
            await tm.pace.ready(players[unit], unit)
            await players[unit].select(panel, cid, [panel.custom_ids()[cid]["options"][0]["value"]])
            await fd.wait_for(
                lambda p=panel: (d := draft_in(p)) is not None and d[1].text("choice") != "", timeout=30
            )
            await tm.pace.ready(players[unit], unit)
            handle = await players[unit].click(panel, button_id(panel, unit, "submit"))
            await handle.wait_for_replies(1, timeout=30)
            last[unit] = draft[0]
            continue
        phase = draft[0]
        panel_a = await panel_for(fd, ana, "halcon", phase - 1)
        panel_b = await panel_for(fd, bea, "pirata", phase - 1)
        images = boards_in(channel)
        await give_orders(fd, tm, ana, panel_a, "halcon", "D")
        submitted = await give_orders(fd, tm, bea, panel_b, "pirata", "I")
        last["halcon"] = last["pirata"] = phase
        await fd.wait_for(lambda n=images: boards_in(channel) > n, timeout=30, what="the phase's board")
        tm.image.append((time.perf_counter() - submitted) * 1000)
        played += 1


async def play(encounters: int, rounds: int, in_process: bool, code: Path = ROOT, label: str = "") -> None:
    """One sitting's workload, its figures printed (each tagged ``bot``: which code ran it when comparing)."""
    tm = Timings()
    bot_cpu: float | None = None
    answer_ms: dict[str, list[float]] = {}  # by kind: click → the bot starting its answer
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
            else:  # the production HexBot in its own process (tests/bot_process.py)
                answers_file = Path(tmp) / "answers.json"
                child = await spawn_bot(
                    fd,
                    database_url,
                    guild_id=guild.id,
                    code=code,
                    extra={"HEXD_BENCH_ANSWERS": str(answers_file)},
                )
                try:
                    began = time.perf_counter()
                    await asyncio.gather(*(duel(fd, tm, ch, ppl, rounds) for ch, ppl in tables))
                    wall = time.perf_counter() - began
                finally:
                    exit_cpu = await child.stop()
                if exit_cpu is not None:  # the bot's CPU seconds from ready to exit (not its render workers)
                    bot_cpu = round(exit_cpu - child.ready_cpu, 2)
                if answers_file.exists():
                    answered = json.loads(answers_file.read_text())
                    answer_ms = {
                        kind: [
                            (answered[str(iid)] - start) * 1000
                            for iid, start, k in tm.started
                            if k == kind and str(iid) in answered
                        ]
                        for kind in tm.by_kind
                    }
            routes = request_counts(fd, encounters)
    tag = {"bot": label} if label else {}
    print(
        json.dumps(
            {
                **tag,
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
                **tag,
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
                    **tag,
                    "figure": "ack_by_kind",
                    "kind": kind,
                    "samples": len(values),
                    "p50_ms": pct(values, 0.5),
                    "p99_ms": pct(values, 0.99),
                }
            )
        )
    if answer_ms:
        every = [ms for values in answer_ms.values() for ms in values]
        print(
            json.dumps(
                {
                    **tag,
                    "figure": "bot_answer",
                    "samples": len(every),
                    "p50_ms": pct(every, 0.50),
                    "p99_ms": pct(every, 0.99),
                    "p99_by_kind_ms": {k: pct(v, 0.99) for k, v in sorted(answer_ms.items()) if v},
                }
            )
        )
    print(json.dumps({**tag, "figure": "requests_per_encounter", **routes}))
    print(
        json.dumps(
            {
                **tag,
                "figure": "wall",
                "process": "in-process" if in_process else "own process",
                "seconds": round(wall, 2),
                "mean_ack_ms": round(statistics.fmean(tm.ack), 1),
                "bot_cpu_s": bot_cpu,
            }
        )
    )


async def main(encounters: int, rounds: int, in_process: bool, baseline: str | None, repeat: int) -> None:
    """The workload ``repeat`` times; with ``baseline``, each time also with the bot of that revision, alternately
    in the same sitting (this shared machine's load swings figures 2-3x from one minute to the next: only runs
    side by side compare)."""
    logging.basicConfig(level=logging.ERROR)
    if baseline is None:
        for _ in range(repeat):
            await play(encounters, rounds, in_process)
        return
    if in_process:
        raise SystemExit("--baseline runs both bots in their own process: drop --in-process")
    with baseline_tree(baseline) as (tree, head):
        for _ in range(repeat):
            await play(encounters, rounds, False, label=f"work tree ({head})")
            await play(encounters, rounds, False, code=tree, label=baseline)


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


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--encounters", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--in-process", action="store_true", help="run the bot on the local Discord's loop")
    parser.add_argument("--baseline", metavar="REV", help="also run the bot of git revision REV, alternately")
    parser.add_argument(
        "--repeat", type=int, default=1, help="sittings (each: this bot, then the baseline's)"
    )
    args = parser.parse_args()
    asyncio.run(main(args.encounters, args.rounds, args.in_process, args.baseline, args.repeat))
