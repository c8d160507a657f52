"""Many resolvers racing on one encounter give exactly one resolution, every time (DESIGN §3).

Contenders are asyncio tasks, each on its own connection, plus separate processes (tests/storage_worker.py),
so the guarantee has to come from the database's write lock and the phase check, not from process memory.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from bot.storage import Storage, open_storage
from tests.paths import TESTS
from tests.storage_fixtures import BACKENDS, database_url
from tests.storage_worker import CHANNEL_ID, GUILD_ID, resolve_once

WORKER = TESTS / "storage_worker.py"
TASKS = 20
PROCESSES = 3
ROUNDS = 6


@pytest.mark.parametrize("backend", BACKENDS)
async def test_racing_tasks_on_separate_connections_resolve_each_phase_exactly_once(
    backend: str, tmp_path: Path
) -> None:
    async with database_url(backend, tmp_path) as db:
        await race_tasks(db)


async def race_tasks(db: str) -> None:
    storages = [await open_storage(db) for _ in range(TASKS)]
    try:
        encounter_id = await storages[0].create_encounter(
            GUILD_ID, CHANNEL_ID, "toy", "race", 1, {"phase": 1, "total": 0}
        )
        for phase in range(1, ROUNDS + 1):
            await storages[0].submit_order(encounter_id, phase, "alpha", 100, {"value": phase})
            outcomes = await asyncio.gather(*(resolve_once(s, encounter_id, phase) for s in storages))
            counts = Counter(outcomes)
            assert counts["Resolved"] == 1, counts
            assert set(counts) <= {"Resolved", "AlreadyResolved", "StalePhaseError"}, counts
        await assert_each_phase_resolved_once(storages[0], encounter_id, ROUNDS)
    finally:
        for storage in storages:
            await storage.close()


@pytest.mark.parametrize("backend", BACKENDS)
async def test_racing_tasks_and_processes_resolve_each_phase_exactly_once(
    backend: str, tmp_path: Path
) -> None:
    async with database_url(backend, tmp_path) as db:
        await race_tasks_and_processes(db)


async def race_tasks_and_processes(db: str) -> None:
    storages = [await open_storage(db) for _ in range(TASKS // 2)]
    encounter_id = await storages[0].create_encounter(
        GUILD_ID, CHANNEL_ID, "toy", "race", 1, {"phase": 1, "total": 0}
    )
    workers = [
        subprocess.Popen(
            [sys.executable, str(WORKER), "race", db, str(encounter_id)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        for _ in range(PROCESSES)
    ]
    try:
        for worker in workers:
            assert worker.stdout is not None and worker.stdout.readline().strip() == "READY"
        loop = asyncio.get_running_loop()
        for phase in range(1, ROUNDS + 1):
            await storages[0].submit_order(encounter_id, phase, "alpha", 100, {"value": phase})
            for worker in workers:
                assert worker.stdin is not None
                worker.stdin.write(f"GO {phase}\n")
                worker.stdin.flush()
            in_process = asyncio.gather(*(resolve_once(s, encounter_id, phase) for s in storages))
            answers = [
                loop.run_in_executor(None, worker.stdout.readline) for worker in workers if worker.stdout
            ]
            outcomes = list(await in_process)
            for answer in await asyncio.gather(*answers):
                word, answered_phase, outcome = answer.split()
                assert (word, int(answered_phase)) == ("RESULT", phase)
                outcomes.append(outcome)
            counts = Counter(outcomes)
            assert counts["Resolved"] == 1, counts
            assert sum(counts.values()) == len(storages) + PROCESSES
        await assert_each_phase_resolved_once(storages[0], encounter_id, ROUNDS)
    finally:
        for worker in workers:
            if worker.stdin is not None:
                worker.stdin.close()
        for worker in workers:
            assert worker.wait(timeout=30) == 0
        for storage in storages:
            await storage.close()


async def assert_each_phase_resolved_once(storage: Storage, encounter_id: int, rounds: int) -> None:
    resolved = [e.payload["phase_no"] for e in await storage.events(encounter_id, types=["PhaseResolved"])]
    assert resolved == list(range(1, rounds + 1))
    loaded = await storage.load(encounter_id)
    assert loaded.state == {"phase": rounds + 1, "total": sum(range(1, rounds + 1))}


@pytest.mark.parametrize("contenders", [2, 8])
async def test_a_retry_after_success_is_already_resolved(tmp_path: Path, contenders: int) -> None:
    storage = await open_storage(tmp_path / "retry.db")  # one connection: the lock inside the process
    try:
        encounter_id = await storage.create_encounter(
            GUILD_ID, CHANNEL_ID, "toy", "retry", 1, {"phase": 1, "total": 0}
        )
        inputs = await storage.orders_for_resolution(encounter_id, 1)
        results = await asyncio.gather(
            *(
                storage.commit_resolution(encounter_id, 1, [], {"phase": 2, "total": 0}, based_on=inputs)
                for _ in range(contenders)
            )
        )
        assert Counter(type(r).__name__ for r in results) == {
            "Resolved": 1,
            "AlreadyResolved": contenders - 1,
        }
    finally:
        await storage.close()
