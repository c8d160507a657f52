"""Idle encounters benchmark: the bot's start-up and memory with many open encounters in the database.

One exo duel is played through the local Discord by the real bot (in its own process) until its first phase is
open: status posted, both panels sent, the step announced. The bot stops, and the encounter's rows are copied
``--encounters`` times in SQL (each copy in its own channel), so the database holds that many running encounters
with nothing owed: what a busy bot restarts with. Then a fresh bot process starts on it, and this prints one JSON
line per figure:

* ``ready``: seconds from starting the bot process to discord.py's ready (bar: 5 s with 10,000 encounters);
* ``resumed``: seconds from ready until every running encounter is resumed (read, caught up, its phase checked);
* ``rss``: the bot's resident memory once all are resumed, in MB (bar: 300 MB with 1,000 encounters);
* ``bot_cpu_s``: the bot's CPU seconds from ready until all are resumed.

Run: ``.venv/bin/python bench/idle.py [--encounters 1000]``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.bot_process import spawn_bot
from tests.e2e_helpers import panels_for
from tests.fakediscord import FakeDiscord

TABLES_BY_ENCOUNTER = ("participants", "events", "orders", "snapshots", "deadlines", "message_refs")


def copy_encounter(path: Path, source: int, copies: int) -> None:
    """``copies`` more running encounters like ``source``, each in a channel of its own (ids above any in use)."""
    db = sqlite3.connect(path)
    with db:
        top = db.execute("SELECT max(id) FROM encounters").fetchone()[0]
        db.execute("CREATE TEMP TABLE n (i INTEGER PRIMARY KEY)")
        db.executemany("INSERT INTO n VALUES (?)", [(i,) for i in range(1, copies + 1)])
        columns = [row[1] for row in db.execute("PRAGMA table_info(encounters)")]
        picked = ", ".join(
            {"id": f"{top} + n.i", "channel_id": "channel_id + n.i"}.get(c, c) for c in columns
        )
        db.execute(
            f"INSERT INTO encounters ({', '.join(columns)}) SELECT {picked} FROM encounters, n WHERE id = ?",
            (source,),
        )
        for table in TABLES_BY_ENCOUNTER:
            columns = [row[1] for row in db.execute(f"PRAGMA table_info({table})")]
            picked = ", ".join(f"{top} + n.i" if c == "encounter_id" else c for c in columns)
            db.execute(
                f"INSERT INTO {table} ({', '.join(columns)}) SELECT {picked} FROM {table}, n"
                " WHERE encounter_id = ?",
                (source,),
            )
    db.execute("VACUUM")
    db.close()


async def main(encounters: int) -> None:
    logging.basicConfig(level=logging.ERROR)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "idle.sqlite3"
        database_url = f"sqlite:///{path}"
        async with FakeDiscord() as fd:
            fd.world.poll_interval = 1.0
            guild = fd.create_guild("Idle")
            channel = guild.create_text_channel("duel")
            director, ana, bea = people = [fd.create_user(n) for n in ("dir", "ana", "bea")]
            for p in people:
                guild.add_member(p.user)
            child = await spawn_bot(fd, database_url, guild_id=guild.id)
            try:
                for who, name, options in (
                    (director, "encounter new", {"ruleset": "exo", "scenario": "exo-duel"}),
                    (ana, "encounter join", {}),
                    (bea, "encounter join", {}),
                    (director, "encounter start", {}),
                ):
                    handle = await who.run_command(channel, name, options)
                    await handle.final_response(timeout=30)
                for person, unit in ((ana, "halcon"), (bea, "pirata")):
                    await fd.wait_for(lambda p=person, u=unit: panels_for(p.dms(), u), timeout=30)
            finally:
                await child.stop()
            copy_encounter(path, 1, encounters - 1)
            began = time.perf_counter()
            child = await spawn_bot(fd, database_url, guild_id=guild.id)
            cpu_at_ready = child.ready_cpu
            ready = time.perf_counter() - began
            try:
                cpu, rss = await child.wait_resumed(timeout=600)
                resumed = time.perf_counter() - began - ready
            finally:
                await child.stop()
    print(json.dumps({"figure": "ready", "encounters": encounters, "seconds": round(ready, 2), "bar_s": 5}))
    print(
        json.dumps(
            {
                "figure": "resumed",
                "encounters": encounters,
                "seconds_after_ready": round(resumed, 2),
                "bot_cpu_s": round(float(cpu) - cpu_at_ready, 2),
            }
        )
    )
    print(
        json.dumps(
            {"figure": "rss", "encounters": encounters, "mb": round(int(rss) / 1024, 1), "bar_mb": 300}
        )
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--encounters", type=int, default=1000)
    asyncio.run(main(parser.parse_args().encounters))
