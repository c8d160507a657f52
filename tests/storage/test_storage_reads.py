"""Reads asked on every panel and every step's close, on every backend: they read what they need, not the whole
game, and nothing already known again, while answering exactly what the long way answers."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Any

import pytest

from bot.storage import Storage, open_storage
from bot.storage import sqlite as sqlite_backend
from bot.storage.base import ORDER_ACCEPTED
from bot.storage.sql.driver import Session
from tests.storage_fixtures import ALICE, BOB, database_url, new_encounter


class _Counted:
    """The storage's transactions, counted by kind (read, bulk read, write)."""

    def __init__(self, storage: Storage) -> None:
        self.reads = self.bulk = self.writes = 0
        driver: Any = storage._driver  # type: ignore[attr-defined]  # the one way to see the reads a call makes
        opened: Callable[..., AbstractAsyncContextManager[Session]] = driver.transaction

        def counted(*, write: bool, **options: Any) -> AbstractAsyncContextManager[Session]:
            if write:
                self.writes += 1
            elif options.get("bulk"):
                self.bulk += 1
            else:
                self.reads += 1
            return opened(write=write, **options)

        driver.transaction = counted


async def _scanned_last_order(storage: Storage, encounter_id: int, user_id: int) -> int:
    """The long way: every order of the log decoded."""
    orders = await storage.events(encounter_id, types=(ORDER_ACCEPTED,))
    return max((e.seq for e in orders if e.payload.get("user_id") == user_id), default=0)


async def test_a_persons_palette_is_read_once_and_a_change_is_seen_by_the_next_read(storage: Storage) -> None:
    """Every panel and private picture asks for its reader's colour scheme: the embedded backend (one process)
    reads it once; the write that changes it is seen by the very next read, whatever the backend."""
    counted = _Counted(storage)
    assert await storage.get_user_palette(ALICE) is None
    for _ in range(5):
        assert await storage.get_user_palette(ALICE) is None
    single_process = not storage._driver.shared  # type: ignore[attr-defined]
    assert counted.reads == (1 if single_process else 6)
    await storage.set_user_palette(ALICE, "contrast")
    assert await storage.get_user_palette(ALICE) == "contrast"
    await storage.set_user_palette(ALICE, None)
    assert await storage.get_user_palette(ALICE) is None
    assert await storage.get_user_palette(BOB) is None  # someone else's is their own


@pytest.fixture(params=["postgresql"])
async def two_processes(
    request: pytest.FixtureRequest, tmp_path: Path
) -> AsyncIterator[tuple[Storage, Storage]]:
    """Two storages on one PostgreSQL database, as two bot processes have."""
    async with database_url(request.param, tmp_path) as url:
        first, second = await open_storage(url), await open_storage(url)
        yield first, second
        await first.close()
        await second.close()


async def test_a_palette_changed_by_another_process_is_seen_at_once(
    two_processes: tuple[Storage, Storage],
) -> None:
    """With several bot processes on one database, a person's choice made through one shows on the very next
    picture another one draws: no process keeps an answer the database would no longer give."""
    here, there = two_processes
    assert await here.get_user_palette(ALICE) is None
    await there.set_user_palette(ALICE, "contrast")
    assert await here.get_user_palette(ALICE) == "contrast"
    await there.set_user_palette(ALICE, None)
    assert await here.get_user_palette(ALICE) is None


async def test_the_last_order_of_a_player_is_the_one_the_log_says_without_decoding_it(
    storage: Storage,
) -> None:
    """A catch-up starts from the reader's last order: the answer read from the orders' rows is the one every
    order of the log decoded gives, through amendments, several players, resolutions and an undo."""
    encounter_id = await new_encounter(storage)
    for user in (ALICE, BOB):
        assert await storage.last_order_seq(encounter_id, user) == 0
    await storage.submit_order(encounter_id, 1, "halcon", ALICE, {"move": "A"})
    await storage.submit_order(encounter_id, 1, "halcon", ALICE, {"move": "B"})  # an amendment
    await storage.submit_order(encounter_id, 1, "pirata", BOB, {"move": "C"})
    await storage.commit_resolution(encounter_id, 1, [("UnitMoved", {"event": {"n": 1}})], {"phase": 2})
    await storage.submit_order(encounter_id, 2, "halcon", ALICE, {"move": "D"})
    await storage.commit_resolution(encounter_id, 2, [("UnitMoved", {"event": {"n": 2}})], {"phase": 3})
    await storage.undo(encounter_id)  # the order of the step undone stays in the log, as it did
    await storage.submit_order(encounter_id, 2, "pirata", BOB, {"move": "E"})
    counted = _Counted(storage)
    for user in (ALICE, BOB, 999):
        assert await storage.last_order_seq(encounter_id, user) == await _scanned_last_order(
            storage, encounter_id, user
        )
    assert (
        await storage.last_order_seq(encounter_id, BOB)
        > await storage.last_order_seq(encounter_id, ALICE)
        > 0
    )
    assert counted.bulk == 0


async def test_undone_steps_after_a_point_are_those_of_the_whole_log_after_it(storage: Storage) -> None:
    """A catch-up asks only for the undos since its reader's last order: the same steps as every undo of the log
    filtered, and none at all without a single look at every snapshot and event when there was no undo since."""
    encounter_id = await new_encounter(storage)
    await storage.commit_resolution(encounter_id, 1, [("UnitMoved", {"event": {"n": 1}})], {"phase": 2})
    await storage.undo(encounter_id)
    await storage.commit_resolution(encounter_id, 1, [("UnitMoved", {"event": {"n": 2}})], {"phase": 2})
    middle = await storage.last_seq(encounter_id)
    await storage.record_override(encounter_id, 2, ("UnitDamaged", {"event": {"n": 3}}), {"phase": 2, "o": 1})
    await storage.undo(encounter_id)
    every = await storage.undone_steps(encounter_id)
    assert len(every) == 2
    for after in (0, every[0].undo.seq - 1, every[0].undo.seq, middle, every[1].undo.seq):
        assert await storage.undone_steps(encounter_id, after_seq=after) == [
            u for u in every if u.undo.seq > after
        ]
    await storage.commit_resolution(encounter_id, 2, [("UnitMoved", {"event": {"n": 4}})], {"phase": 3})
    counted = _Counted(storage)
    assert await storage.undone_steps(encounter_id, after_seq=every[1].undo.seq) == []
    assert counted.bulk == 0  # no snapshot or event of the game was read for it


async def test_sqlite_checkpoints_run_on_a_thread_of_their_own_never_at_a_commit_on_the_loop(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SQLite's automatic checkpoint copies the WAL into the database file (and syncs it) at whichever COMMIT
    crosses its threshold, a COMMIT on the loop's thread included: the inline connection has it off, and a thread
    of its own checkpoints every few commits instead (no COMMIT queues behind it), so the WAL still stops
    growing."""
    monkeypatch.setattr(sqlite_backend, "CHECKPOINT_EVERY", 5)
    storage = await open_storage(f"sqlite:///{tmp_path / 'checkpoints.db'}")
    driver: Any = storage._driver  # type: ignore[attr-defined]
    assert driver._inline.execute("PRAGMA wal_autocheckpoint").fetchone() == (0,)
    encounter_id = await new_encounter(storage)
    for i in range(12):  # durable (commit thread) and bookkeeping (inline COMMIT) writes both count
        await storage.submit_order(encounter_id, 1, "halcon", ALICE, {"move": str(i)})
        await storage.note_settings(encounter_id, seen=i)
    await asyncio.get_running_loop().run_in_executor(driver._checkpointing, lambda: None)  # its queue is done
    assert driver.checkpoints >= 1
    assert await storage.last_order_seq(encounter_id, ALICE) == await _scanned_last_order(
        storage, encounter_id, ALICE
    )
    await storage.close()


async def test_the_first_events_of_a_range_are_those_the_whole_range_starts_with(storage: Storage) -> None:
    """Whether a player sat out two rounds needs only the first two steps after their last act: ``limit`` gives
    the start of the same range, by type, from any point, and the rest of the log is not decoded for it."""
    encounter_id = await new_encounter(storage)
    for phase in range(1, 5):
        await storage.submit_order(encounter_id, phase, "halcon", ALICE, {"move": str(phase)})
        await storage.commit_resolution(
            encounter_id, phase, [("UnitMoved", {"event": {"n": phase}})], {"phase": phase + 1}
        )
    for since in (0, 3, await storage.last_order_seq(encounter_id, ALICE)):
        for types in (None, ("PhaseResolved",), ("PhaseResolved", ORDER_ACCEPTED)):
            whole = await storage.events(encounter_id, since_seq=since, types=types)
            for limit in (0, 1, 2, 100):
                assert (
                    await storage.events(encounter_id, since_seq=since, types=types, limit=limit)
                    == whole[:limit]
                )


async def test_an_encounters_newest_seq_is_read_once_until_a_write_to_it(storage: Storage) -> None:
    """Every click checks its cached read against the encounter's newest seq: the embedded backend (one process)
    answers from memory until a write to that encounter, which the very next answer then includes, a write
    still syncing included; with several processes every answer is read."""
    encounter_id = await new_encounter(storage)
    other = await new_encounter(storage, channel=999)
    first = await storage.last_seq(encounter_id)
    counted = _Counted(storage)
    for _ in range(5):
        assert await storage.last_seq(encounter_id) == first
    single_process = not storage._driver.shared  # type: ignore[attr-defined]
    assert counted.reads == (0 if single_process else 5)
    await storage.submit_order(other, 1, "halcon", BOB, {"move": "A"})
    assert await storage.last_seq(encounter_id) == first  # another encounter's write changes nothing here
    ack = await storage.submit_order(encounter_id, 1, "halcon", ALICE, {"move": "A"})
    assert await storage.last_seq(encounter_id) == ack.seq > first

    # a read while a write to the encounter is under way waits for it (as every read of it does), and is kept
    # only once it is over
    writing = asyncio.create_task(storage.submit_order(encounter_id, 1, "halcon", ALICE, {"move": "B"}))
    await asyncio.sleep(0)
    seen = await storage.last_seq(encounter_id)
    second = await writing
    assert seen in (ack.seq, second.seq)
    assert await storage.last_seq(encounter_id) == second.seq
    await storage.note_settings(encounter_id, seen=1)  # bookkeeping: no event, the same seq
    assert await storage.last_seq(encounter_id) == second.seq
