"""Storage benchmark: prints one JSON line per figure.

* ``submit_order``: latency of one durable order (one fsync'd transaction), p50/p95 ms;
* ``append_batch``: a phase resolution of 10/100/1000 events in one transaction, events/s and p50 ms;
* ``load``: p50/p95 ms to load an encounter with 1,000 events after its last snapshot, and one just after a
  snapshot (the common case: events are folded into a snapshot at every phase end). Target: <= 10 ms.
* ``inline_read`` (SQLite): how long a read run on the event loop's thread holds the loop while durable writes
  commit on the commit thread, alone and with a Python thread busy beside it (the bot decodes large steps in
  worker threads): p50/p99/longest ms and how many held it over 2 ms. Target: longest <= 2 ms.

Run: ``.venv/bin/python bench/storage.py [--url URL]`` (a temporary SQLite file by default; give a
``postgresql://`` URL of an empty database to measure that backend).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot.storage import Storage, open_storage

LOAD_RUNS = 200


def unit_state(units: int) -> dict[str, Any]:
    return {
        "phase": 1,
        "units": {
            f"unit{i}": {
                "at": f"{i % 30:02}{i % 20:02}",
                "facing": i % 6,
                "vector": [1, -2],
                "damage": [],
                "crew": 3,
            }
            for i in range(units)
        },
    }


def event_payload(i: int) -> dict[str, Any]:
    return {
        "rule": "EXO-3.4",
        "unit": f"unit{i % 40}",
        "target": "pirata",
        "dice": [i % 10, 3, 7],
        "hit": i % 2 == 0,
    }


def percentile(samples: list[float], fraction: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def emit(**figures: Any) -> None:
    print(json.dumps(figures), flush=True)


async def bench_submit(storage: Storage, channel: int) -> None:
    encounter_id = await storage.create_encounter(1, channel, "exo", "submit", 1, unit_state(40))
    samples: list[float] = []
    for i in range(200):
        start = time.perf_counter()
        await storage.submit_order(
            encounter_id, 1, f"unit{i % 40}", 100 + i % 40, {"move": "DAA", "fire": [i]}
        )
        samples.append((time.perf_counter() - start) * 1000)
    emit(
        bench="submit_order",
        runs=len(samples),
        p50_ms=round(percentile(samples, 0.5), 3),
        p95_ms=round(percentile(samples, 0.95), 3),
    )


async def bench_batches(storage: Storage, channel: int) -> None:
    encounter_id = await storage.create_encounter(1, channel, "exo", "batches", 1, unit_state(40))
    phase = 1
    for size, runs in ((10, 50), (100, 30), (1000, 10)):
        samples: list[float] = []
        for _ in range(runs):
            events = [("ShotResolved", event_payload(i)) for i in range(size)]
            start = time.perf_counter()
            await storage.commit_resolution(encounter_id, phase, events, unit_state(40))
            samples.append(time.perf_counter() - start)
            phase += 1
        p50 = statistics.median(samples)
        emit(
            bench="append_batch",
            events_per_phase=size,
            runs=runs,
            p50_ms=round(p50 * 1000, 3),
            events_per_s=round(size / p50),
        )


async def bench_load(storage: Storage, channel: int) -> None:
    after = await storage.create_encounter(1, channel, "exo", "1000 after snapshot", 1, unit_state(40))
    for i in range(1000):
        await storage.append_event(after, "RollMade", event_payload(i))
    snapshotted = await storage.create_encounter(1, channel + 1, "exo", "snapshot", 1, unit_state(40))
    await storage.commit_resolution(
        snapshotted, 1, [("ShotResolved", event_payload(i)) for i in range(1000)], unit_state(40)
    )
    for label, encounter_id, expected_events in (
        ("1000_events_after_snapshot", after, 1000),
        ("just_after_snapshot_of_1000_events", snapshotted, 0),
    ):
        samples: list[float] = []
        for _ in range(LOAD_RUNS):
            start = time.perf_counter()
            loaded = await storage.load(encounter_id)
            samples.append((time.perf_counter() - start) * 1000)
            assert len(loaded.events) == expected_events
        emit(
            bench="load",
            encounter=label,
            runs=LOAD_RUNS,
            p50_ms=round(percentile(samples, 0.5), 3),
            p95_ms=round(percentile(samples, 0.95), 3),
            target_ms=10,
        )


INLINE_READ_SECONDS = 4.0


def _thread_times() -> tuple[float, float]:
    """(ms this thread ran on a CPU, ms it waited for one while runnable), Linux's schedstat; (0, 0) elsewhere."""
    try:
        with open(f"/proc/self/task/{threading.get_native_id()}/schedstat") as stat:
            running, waiting, _ = stat.read().split()
    except OSError:
        return 0.0, 0.0
    return int(running) / 1e6, int(waiting) / 1e6


def _busy_python(stop: threading.Event) -> None:
    """Pure-Python work, as a step decoded in a worker thread is: it holds the GIL between switch intervals."""
    while not stop.is_set():
        sum(i * i for i in range(2000))


async def bench_inline_read(storage: Storage, channel: int) -> None:
    if "Sqlite" not in type(storage).__name__:
        return
    written = [
        await storage.create_encounter(1, channel + i, "exo", f"w{i}", 1, unit_state(40)) for i in range(8)
    ]
    read = await storage.create_encounter(1, channel + 99, "exo", "read", 1, unit_state(40))

    async def write(encounter_id: int, stop: asyncio.Event) -> None:
        i = 0
        while not stop.is_set():  # durable orders: each batch's COMMIT (and checkpoints) on the commit thread
            await storage.submit_order(encounter_id, 1, f"unit{i % 40}", 100 + i % 7, {"move": "DAA", "n": i})
            i += 1

    for beside in ("commits", "commits+python_thread"):
        stop, stop_thread = asyncio.Event(), threading.Event()
        writers = [asyncio.create_task(write(e, stop)) for e in written]
        thread = threading.Thread(target=_busy_python, args=(stop_thread,), daemon=True)
        if beside.endswith("thread"):
            thread.start()
        samples: list[float] = []
        # of the reads over 2 ms: the time the loop's thread ran, waited for a CPU (the machine was busy), and
        # was blocked (waiting for the GIL, or inside SQLite)
        split = [0.0, 0.0, 0.0]
        end = time.perf_counter() + INLINE_READ_SECONDS
        while time.perf_counter() < end:
            # what a click reads: the encounter's newest seq, its row, its deadline (no write to it is pending,
            # so each runs inline without yielding to the loop: its time is the time it holds the loop)
            for one in (storage.last_seq, storage.get_encounter, storage.deadline_of):
                ran, waited = _thread_times()
                start = time.perf_counter()
                await one(read)
                took = (time.perf_counter() - start) * 1000
                samples.append(took)
                if took > 2:
                    ran_after, waited_after = _thread_times()
                    split[0] += ran_after - ran
                    split[1] += waited_after - waited
                    split[2] += took - (ran_after - ran) - (waited_after - waited)
            await asyncio.sleep(0.001)
        stop.set()
        stop_thread.set()
        await asyncio.gather(*writers)
        if thread.is_alive():
            thread.join()
        emit(
            bench="inline_read",
            beside=beside,
            reads=len(samples),
            p50_ms=round(percentile(samples, 0.5), 3),
            p99_ms=round(percentile(samples, 0.99), 3),
            longest_ms=round(max(samples), 2),
            over_2ms=sum(1 for s in samples if s > 2),
            over_2ms_running_ms=round(split[0], 1),
            over_2ms_waiting_for_cpu_ms=round(split[1], 1),
            over_2ms_blocked_ms=round(max(split[2], 0.0), 1),
            switch_interval_ms=round(sys.getswitchinterval() * 1000, 3),
            target_ms=2,
        )


async def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--url", help="database URL or SQLite path (default: a temporary SQLite file)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        url: str = args.url or str(Path(scratch) / "bench.db")
        storage = await open_storage(url)
        emit(bench="backend", storage=type(storage).__name__)
        try:
            await bench_submit(storage, 10)
            await bench_batches(storage, 20)
            await bench_load(storage, 30)
            await bench_inline_read(storage, 100)
        finally:
            await storage.close()


if __name__ == "__main__":
    asyncio.run(main())
