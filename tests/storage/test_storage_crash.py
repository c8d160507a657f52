"""Crash safety (DESIGN §3): a writer process is SIGKILLed at random points, hundreds of times, and after every
kill the database must hold every acknowledged order, no phase resolved twice, a state equal to a replay of the
log with the toy resolver, and pass ``PRAGMA integrity_check``.

Random delays here only choose *when* to kill; nothing asserts on timing.
"""

from __future__ import annotations

import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from bot.storage import open_storage
from tests.paths import TESTS
from tests.storage_fixtures import database_url
from tests.storage_worker import CHANNEL_ID, GUILD_ID

WORKER = TESTS / "storage_worker.py"
#: SIGKILLs of the SQLite writer per run: 100 keep `make test` quick; CI sets HEXD_CRASH_KILLS=300
KILLS = int(os.environ.get("HEXD_CRASH_KILLS", "100"))
POSTGRES_KILLS = 60  # PostgreSQL's own durability is not ours to prove; this checks our transaction edges
SEED = 20261122


@dataclass
class Acknowledged:
    """Every order the writer said it committed: seq → (phase, unit, value)."""

    orders: dict[int, tuple[int, str, int]] = field(default_factory=dict)
    resolutions: int = 0

    def read(self, line: str) -> None:
        words = line.split()
        if words and words[0] == "ACK":
            phase, unit, seq, value = int(words[1]), words[2], int(words[3]), int(words[4])
            # the same order given again is acknowledged as the one stored (nothing is written): its seq again
            known = self.orders.setdefault(seq, (phase, unit, value))
            assert known == (phase, unit, value), f"seq {seq} acknowledged for two different orders"
        elif words and words[0] == "RESOLVED":
            self.resolutions += 1


@contextmanager
def writer_server() -> Iterator[subprocess.Popen[str]]:
    """tests/storage_worker.py's fork server: each writer is a child of it, forked with the storage code
    already imported, and killed by its pid."""
    server = subprocess.Popen(
        [sys.executable, str(WORKER), "writers"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        bufsize=1,
    )
    try:
        yield server
    finally:
        if server.stdin is not None:
            server.stdin.close()  # the server ends at the end of its input
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:  # a failed check left a writer running: its server waits on it
            server.kill()
            server.wait()
        if server.stdout is not None:
            server.stdout.close()


def run_and_kill(
    server: subprocess.Popen[str],
    db: str,
    seed: int,
    rng: random.Random,
    acked: Acknowledged,
    writers: int,
    errors: Path,
) -> None:
    assert server.stdin is not None and server.stdout is not None
    server.stdin.write(f"CRASH {db} {seed} {writers} {errors}\n")
    server.stdin.flush()
    first = server.stdout.readline().split()
    assert first[:1] == ["WRITER"], first
    pid = int(first[1])
    status: int | None = None  # the writer's, once the server says it is gone
    if rng.random() < 0.1:
        # kill during start-up: open, migration, encounter creation (a forked writer is ready within ~10 ms)
        time.sleep(rng.uniform(0.0, 0.02))
    else:
        lines = rng.randint(1, 12)  # READY plus a few acknowledgements
        for _ in range(lines):
            line = server.stdout.readline()
            if not line or line.startswith("GONE "):
                status = int(line.split()[2]) if line else None
                break
            acked.read(line)
        if status is None and rng.random() < 0.5:
            time.sleep(rng.uniform(0.0, 0.004))  # land inside the next transaction
    if status is None:
        os.kill(pid, signal.SIGKILL)
        for line in server.stdout:  # acknowledgements already written before the kill count too
            if line.startswith(f"GONE {pid} "):
                status = int(line.split()[2])
                break
            acked.read(line)
    assert status == -signal.SIGKILL, f"the writer failed by itself:\n{errors.read_text()[-3000:]}"


@dataclass
class Dump:
    """What the checks read back: the encounter row, its log, order values and snapshots."""

    phase_no: int
    snapshot_seq: int
    last_seq: int
    events: list[tuple[int, str, str, int]]  # seq, type, payload, phase_no
    orders: dict[int, tuple[int, str, int]]  # seq -> phase, unit, value
    snapshots: dict[int, dict[str, Any]]


ENCOUNTER_SQL = "SELECT id, phase_no, snapshot_seq, last_seq FROM encounters"
EVENTS_SQL = "SELECT seq, type, payload, phase_no FROM events WHERE encounter_id = {} ORDER BY seq"
ORDERS_SQL = "SELECT seq, phase_no, unit_id, body FROM orders WHERE encounter_id = {}"
SNAPSHOTS_SQL = "SELECT seq, state FROM snapshots WHERE encounter_id = {}"


def dump(encounter: tuple[Any, ...], events: list[Any], orders: list[Any], snapshots: list[Any]) -> Dump:
    return Dump(
        phase_no=encounter[1],
        snapshot_seq=encounter[2],
        last_seq=encounter[3],
        events=[tuple(row) for row in events],
        orders={seq: (phase, unit, json.loads(body)["value"]) for seq, phase, unit, body in orders},
        snapshots={seq: json.loads(state) for seq, state in snapshots},
    )


def read_sqlite(db: str) -> Dump | None:
    with sqlite3.connect(db) as raw:
        assert raw.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        assert raw.execute("PRAGMA foreign_key_check").fetchall() == []
        tables = {row[0] for row in raw.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        encounters = raw.execute(ENCOUNTER_SQL).fetchall() if "encounters" in tables else []
        if not encounters:
            return None
        ((encounter_id, *_),) = encounters
        return dump(
            encounters[0],
            raw.execute(EVENTS_SQL.format(encounter_id)).fetchall(),
            raw.execute(ORDERS_SQL.format(encounter_id)).fetchall(),
            raw.execute(SNAPSHOTS_SQL.format(encounter_id)).fetchall(),
        )


async def read_postgres(url: str) -> Dump | None:
    import asyncpg  # pyright: ignore[reportMissingTypeStubs]  # only here: SQLite runs need no asyncpg

    conn = await asyncpg.connect(url)
    try:
        if await conn.fetchval("SELECT to_regclass('encounters')") is None:
            return None
        encounters = await conn.fetch(ENCOUNTER_SQL)
        if not encounters:
            return None
        encounter_id = encounters[0][0]
        return dump(
            tuple(encounters[0]),
            await conn.fetch(EVENTS_SQL.format(encounter_id)),
            await conn.fetch(ORDERS_SQL.format(encounter_id)),
            await conn.fetch(SNAPSHOTS_SQL.format(encounter_id)),
        )
    finally:
        await conn.close()


def replay_and_check(found: Dump | None, acked: Acknowledged) -> dict[str, Any] | None:
    """Check the database after a kill; returns the replayed state (None if nothing was created yet)."""
    if found is None:
        assert not acked.orders
        return None
    orders, events, snapshots = found.orders, found.events, found.snapshots
    # every acknowledged order is there, exactly as acknowledged
    for seq, order in acked.orders.items():
        assert orders.get(seq) == order, f"acknowledged order {seq} {order} lost or changed"
    # a gap-free log
    assert [row[0] for row in events] == list(range(1, found.last_seq + 1))

    # replay with the toy resolver
    first_type, first_payload = events[0][1], json.loads(events[0][2])
    assert first_type == "EncounterCreated"
    state: dict[str, Any] = first_payload["state"]
    pending: dict[str, int] = {}
    resolved_phases: list[int] = []
    for seq, event_type, payload_text, event_phase in events[1:]:
        payload = json.loads(payload_text)
        if event_type == "OrderAccepted":
            assert event_phase == state["phase"], "an order was accepted for a phase that was not current"
            pending[payload["unit_id"]] = seq
        elif event_type == "PhaseResolved":
            resolved_phases.append(payload["phase_no"])
            # the resolution consumed exactly the latest order of every unit: no acknowledged order ignored
            assert payload["orders"] == pending, f"phase {payload['phase_no']} consumed the wrong orders"
            state = {
                "phase": state["phase"] + 1,
                "total": state["total"] + sum(orders[s][2] for s in pending.values()),
            }
            assert snapshots[seq] == state, f"snapshot at {seq} differs from the replay"
            pending = {}
    assert resolved_phases == list(range(1, len(resolved_phases) + 1)), (
        "a phase was resolved twice or skipped"
    )
    assert found.phase_no == state["phase"] == len(resolved_phases) + 1
    assert snapshots[found.snapshot_seq] == state
    assert len(resolved_phases) >= acked.resolutions
    return state


@pytest.mark.slow
async def test_killed_sqlite_writer_loses_no_acknowledged_order_and_never_resolves_twice(
    tmp_path: Path,
) -> None:
    db = str(tmp_path / "crash.db")
    # three writer tasks at once: SQLite commits their writes in shared batches (group commit), and an
    # acknowledgement must still mean "synced" when a kill lands inside one
    state = await kill_loop(db, KILLS, lambda: as_awaitable(read_sqlite(db)), tmp_path, writers=3)
    await assert_public_api_agrees(db, state)


@pytest.mark.slow
async def test_killed_postgresql_writer_loses_no_acknowledged_order_and_never_resolves_twice(
    tmp_path: Path,
) -> None:
    async with database_url("postgresql", tmp_path) as url:
        state = await kill_loop(url, POSTGRES_KILLS, lambda: read_postgres(url), tmp_path)
        await assert_public_api_agrees(url, state)


async def as_awaitable(found: Dump | None) -> Dump | None:
    return found


async def kill_loop(
    url: str, kills: int, read: Callable[[], Awaitable[Dump | None]], tmp_path: Path, *, writers: int = 1
) -> dict[str, Any]:
    rng = random.Random(SEED)
    acked = Acknowledged()
    state: dict[str, Any] | None = None
    with writer_server() as server:
        for kill in range(kills):
            run_and_kill(server, url, SEED + kill, rng, acked, writers, tmp_path / "writer.err")
            state = replay_and_check(await read(), acked)
    assert state is not None and len(acked.orders) > kills and acked.resolutions > kills // 4
    return state


async def assert_public_api_agrees(url: str, state: dict[str, Any]) -> None:
    storage = await open_storage(url)
    try:
        encounter = await storage.active_encounter_in_channel(GUILD_ID, CHANNEL_ID)
        assert encounter is not None
        loaded = await storage.load(encounter.id)
        assert (loaded.phase_no, loaded.state) == (state["phase"], state)
    finally:
        await storage.close()
