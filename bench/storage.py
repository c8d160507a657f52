"""Storage benchmark: prints one JSON line per figure.

* ``submit_order``: latency of one durable order (one fsync'd transaction), p50/p95 ms;
* ``append_batch``: a phase resolution of 10/100/1000 events in one transaction, events/s and p50 ms;
* ``load``: p50/p95 ms to load an encounter with 1,000 events after its last snapshot, and one just after a
  snapshot (the common case: events are folded into a snapshot at every phase end). Target: <= 10 ms.

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
        finally:
            await storage.close()


if __name__ == "__main__":
    asyncio.run(main())
