"""What DM clicks cost the process that runs shard 0: bench/pace.py's tables, played at human pace by two bot
processes (``SHARD_COUNT=2``, ``SHARD_IDS=0`` and ``1``) on one PostgreSQL, half of the tables in a guild of each
shard.

Discord gives every DM interaction to shard 0, whatever guild its encounter is in, and every order here is given
on a DM panel (as bench/pace.py's players do). The shard-0 process hands each DM click of a table in the shard-1
guild to the shard-1 process (bot/handoff.py), which answers it and resolves (and draws and posts the board of)
every step its Submit completes; each guild's own process also answers the commands given in its channels
(``/encounter …``, the director's ``/director resolve``).

Prints one JSON line per run, ``{"figure": "dm_shard", "encounters": N, …}``: for each process (``shard0``,
``shard1``) its CPU % (``…_cpu_pct``, its main process; ``…_workers_cpu_pct``, its render workers), the
interactions it answered (``…_answered``) and, of those, the DM clicks (``…_dm_answered``; of a table in the
other shard's guild: ``…_dm_answered_for_other_shard``), the DM interactions Discord gave its gateway
(``…_dm_interactions``), its resident memory; and the whole run's ``ack_p99_ms``, ``bot_answer_p99_ms`` (from
the click to the bot's first answer request, whichever process sent it; the DM clicks alone:
``dm_bot_answer_p50_ms``, ``…_p99_ms``), ``board_p95_ms`` and requests per second, as bench/pace.py reports
them. ``--baseline REV [--repeat R]`` runs the bots of git revision REV beside this tree's, alternately, R times
each (one sitting; ``bot`` says which).

Needs a PostgreSQL server, the tests' (HEXDIRECTOR_TEST_POSTGRES_URL): a throwaway database is made there and
dropped afterwards (``--database URL`` uses an empty database as it is); without one, it prints a ``skipped`` line
and exits 0.

Run: ``.venv/bin/python bench/shards.py --encounters 20 --minutes 1 [--compress 20] [--baseline REV]``.
This is a measurement, not a test: the figures depend on the machine and its load at the time.
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

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.e2e import baseline_tree, pct
from bench.pace import (
    Run,
    Table,
    children_of,
    play_tables,
    proc_cpu_s,
    route_class,
    rss_mb,
)
from tests.bot_process import ROOT, BotProcess, spawn_bot
from tests.fakediscord import FakeDiscord
from tests.storage_fixtures import database_url

SHARDS = 2


def dm_interactions(fd: FakeDiscord, shard: int) -> dict[int, int]:
    """Interactions from outside any guild (DM panel clicks) the local Discord gave to ``shard``'s sessions: each
    one's id and its user's."""
    return {
        int(frame["d"]["id"]): int(frame["d"]["user"]["id"])
        for session in fd.gateway.sessions.values()
        if session.shard[0] == shard
        for frame in session.history
        if frame["t"] == "INTERACTION_CREATE" and not frame["d"].get("guild_id")
    }


async def play(
    db: str,
    encounters: int,
    minutes: float,
    compress: float,
    seed: int,
    *,
    code: Path = ROOT,
    label: str = "",
) -> dict[str, object]:
    with tempfile.TemporaryDirectory() as tmp:
        async with FakeDiscord(shards=SHARDS) as fd:
            fd.world.poll_interval = 1.0  # every wait here is on the local Discord's own state (bench/e2e.py)
            guilds = [fd.create_guild(f"Shard {shard}", shard=shard) for shard in range(SHARDS)]
            tables: list[Table] = []
            shard_of_user: dict[int, int] = {}  # each person's table's shard
            for i in range(encounters):
                guild = guilds[i % SHARDS]
                people = [fd.create_user(f"{role}{i}") for role in ("dir", "ana", "bea")]
                for p in people:
                    guild.add_member(p.user)
                    shard_of_user[p.id] = i % SHARDS
                tables.append(Table(guild.create_text_channel(f"table-{i}"), people[0], people[1:], i))
            answers = [Path(tmp) / f"answers-{shard}.json" for shard in range(SHARDS)]
            bots: list[BotProcess] = list(
                await asyncio.gather(
                    *(
                        spawn_bot(
                            fd,
                            db,
                            name=f"shard-{shard}",
                            shard_count=SHARDS,
                            shard_ids=(shard,),
                            code=code,
                            extra={"HEXD_BENCH_ANSWERS": str(answers[shard])},
                        )
                        for shard in range(SHARDS)
                    )
                )
            )
            pids = [bot.proc.pid for bot in bots if bot.proc is not None]
            began = time.perf_counter()
            run = Run(fd, compress, began + minutes * 60, random.Random(seed))
            logged = len(fd.requests)
            cpu0 = [proc_cpu_s(pid) for pid in pids]
            workers0 = [{w: proc_cpu_s(w) for w in children_of(pid)} for pid in pids]
            dm0 = [dm_interactions(fd, shard) for shard in range(SHARDS)]
            try:
                wall = await play_tables(run, tables, minutes, began)
                cpu = [proc_cpu_s(pid) - before for pid, before in zip(pids, cpu0, strict=True)]
                workers = [
                    sum(proc_cpu_s(w) - before.get(w, 0.0) for w in children_of(pid))
                    for pid, before in zip(pids, workers0, strict=True)
                ]
                rss = [rss_mb(pid) for pid in pids]
                served = fd.requests[logged:]
                dms = [
                    {iid: user for iid, user in dm_interactions(fd, shard).items() if iid not in dm0[shard]}
                    for shard in range(SHARDS)
                ]
                dm_users = {iid: user for d in dms for iid, user in d.items()}
                dm_ids = set(dm_users)
            finally:
                await asyncio.gather(*(bot.stop() for bot in bots))
            clicked = {iid for iid, _, _ in run.tm.started}
            # each process's answers: interaction id → when it started answering (the machine's monotonic clock)
            by: list[dict[int, float]] = [
                {int(k): v for k, v in json.loads(path.read_text()).items()} if path.exists() else {}
                for path in answers
            ]
            answered = [len(clicked & ids.keys()) for ids in by]
            dm_answered = [len(dm_ids & ids.keys()) for ids in by]
            # DM clicks a process answered for a table of the other shard's guild (with the hand-off: those it
            # claimed back when the other process had not claimed them within the grace)
            dm_elsewhere = [
                sum(1 for iid in dm_ids & ids.keys() if shard_of_user[dm_users[iid]] != shard)
                for shard, ids in enumerate(by)
            ]
            when = {iid: at for ids in by for iid, at in ids.items()}
            answer_ms = [(when[iid] - start) * 1000 for iid, start, _ in run.tm.started if iid in when]
            dm_answer_ms = [
                (when[iid] - start) * 1000
                for iid, start, _ in run.tm.started
                if iid in when and iid in dm_ids
            ]
            figure: dict[str, object] = {
                "figure": "dm_shard",
                **({"bot": label} if label else {}),
                "encounters": encounters,
                **{
                    f"shard{shard}_{key}": value
                    for shard in range(SHARDS)
                    for key, value in (
                        ("cpu_pct", round(100 * cpu[shard] / wall, 1)),
                        ("workers_cpu_pct", round(100 * workers[shard] / wall, 1)),
                        ("answered", answered[shard]),
                        ("dm_answered", dm_answered[shard]),
                        ("dm_answered_for_other_shard", dm_elsewhere[shard]),
                        ("dm_interactions", len(dms[shard])),
                        ("rss_mb", rss[shard]),
                    )
                },
                "ack_p99_ms": pct(run.tm.ack, 0.99) if run.tm.ack else None,
                "bot_answer_p99_ms": pct(answer_ms, 0.99) if answer_ms else None,
                "dm_bot_answer_p50_ms": pct(dm_answer_ms, 0.5) if dm_answer_ms else None,
                "dm_bot_answer_p99_ms": pct(dm_answer_ms, 0.99) if dm_answer_ms else None,
                "board_p95_ms": pct(run.boards, 0.95) if run.boards else None,
                "requests_per_s": round(len(served) / wall, 1),
                "limited_requests_per_s": round(
                    sum(1 for r in served if route_class(r.method, r.path) != "interaction") / wall, 1
                ),
                "compress": compress,
                "minutes": minutes,
                "wall_s": round(wall, 1),
                "acks": len(run.tm.ack),
                "boards": len(run.boards),
                "sessions": run.sessions,
                "director_resolves": run.resolves,
                "failures": run.failures,
            }
            print(json.dumps(figure), flush=True)
            return figure


async def with_database(
    encounters: int, minutes: float, compress: float, seed: int, *, code: Path = ROOT, label: str = ""
) -> None:
    """A throwaway database on the test PostgreSQL server for the run, dropped afterwards (a ``skipped`` line
    when no server answers there)."""
    with tempfile.TemporaryDirectory() as tmp:
        try:
            async with database_url("postgresql", Path(tmp)) as url:
                await play(url, encounters, minutes, compress, seed, code=code, label=label)
        except pytest.skip.Exception as why:
            print(json.dumps({"figure": "dm_shard", "skipped": str(why)}), flush=True)


async def compare(args: argparse.Namespace) -> None:
    """This tree's bots and ``--baseline``'s, alternately, ``--repeat`` times each, on the same workload."""
    with baseline_tree(args.baseline) as (tree, head):
        for _ in range(args.repeat):
            common = (args.encounters, args.minutes, args.compress, args.seed)
            await with_database(*common, label=head)
            await with_database(*common, code=tree, label=args.baseline)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument(
        "--encounters", type=int, default=4, help="tables in play, half in each shard's guild"
    )
    parser.add_argument("--minutes", type=float, default=0.5, help="wall minutes the run plays")
    parser.add_argument("--compress", type=float, default=20.0, help="think times divided by this factor")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--database", default="", help="an empty PostgreSQL database to use as it is")
    parser.add_argument(
        "--baseline", metavar="REV", help="also run the bots of git revision REV, alternately"
    )
    parser.add_argument("--repeat", type=int, default=1, help="with --baseline: sittings of both bots")
    args = parser.parse_args()
    logging.basicConfig(level=logging.ERROR)
    if args.baseline:
        asyncio.run(compare(args))
        return
    if args.database:
        asyncio.run(play(args.database, args.encounters, args.minutes, args.compress, args.seed))
        return
    asyncio.run(with_database(args.encounters, args.minutes, args.compress, args.seed))


if __name__ == "__main__":
    main()
