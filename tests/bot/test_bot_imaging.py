"""The render queue in bot/imaging.py: the channel's board after a phase overtakes queued private previews."""

from __future__ import annotations

import asyncio
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from bot.imaging import BOARD, LONG, PREVIEW, Superseded, _Queue, render_workers


async def test_a_board_queued_after_previews_is_drawn_before_them() -> None:
    ran: list[str] = []
    gate = threading.Event()

    def job(name: str) -> str:
        if name == "first":
            gate.wait(10)  # keeps the only worker busy while the others queue up
        ran.append(name)
        return name

    with ThreadPoolExecutor(1) as pool:
        queue = _Queue(pool, slots=1)
        first = asyncio.create_task(queue.run(PREVIEW, job, "first"))
        await asyncio.sleep(0)
        later = [asyncio.create_task(queue.run(PREVIEW, job, f"preview{i}")) for i in range(3)]
        replay = asyncio.create_task(queue.run(LONG, job, "replay"))
        board = asyncio.create_task(queue.run(BOARD, job, "board"))
        await asyncio.sleep(0)
        gate.set()
        results = await asyncio.gather(first, *later, replay, board)
    assert results == ["first", "preview0", "preview1", "preview2", "replay", "board"]
    assert ran == ["first", "board", "preview0", "preview1", "preview2", "replay"]


async def test_errors_reach_the_caller_and_a_cancelled_wait_skips_its_job() -> None:
    ran: list[str] = []
    gate = threading.Event()

    def job(name: str) -> str:
        if name == "first":
            gate.wait(10)
        if name == "bad":
            raise ValueError("broken drawing")
        ran.append(name)
        return name

    with ThreadPoolExecutor(1) as pool:
        queue = _Queue(pool, slots=1)
        first = asyncio.create_task(queue.run(BOARD, job, "first"))
        await asyncio.sleep(0)
        gone = asyncio.create_task(queue.run(PREVIEW, job, "gone"))
        bad = asyncio.create_task(queue.run(PREVIEW, job, "bad"))
        after = asyncio.create_task(queue.run(PREVIEW, job, "after"))
        await asyncio.sleep(0)
        gone.cancel()
        gate.set()
        assert await first == "first"
        with pytest.raises(ValueError, match="broken drawing"):
            await bad
        assert await after == "after"
    assert ran == ["first", "after"]
    assert gone.cancelled()


async def test_a_pool_that_cannot_take_a_job_fails_that_job_and_frees_its_slot() -> None:
    """A worker that died breaks the process pool: the job submitted then fails at once (the image is skipped),
    and the next one is not left waiting forever for a slot that was never given back."""
    from concurrent.futures import Executor

    class Broken(Executor):
        def submit(self, fn: object, /, *args: object, **kwargs: object) -> Any:
            raise RuntimeError("cannot schedule new futures after shutdown")

    queue = _Queue(Broken(), 1)
    for _ in range(3):
        with pytest.raises(RuntimeError, match="cannot schedule"):
            await asyncio.wait_for(queue.run(0, len, "abc"), timeout=10)


def test_a_job_left_in_flight_by_a_closed_loop_never_blocks_the_next_loops_images() -> None:
    """A bot stopped mid-render (its loop closed before the job's callback ran) kept the render slot forever:
    every later board of the process waited on it. The queue belongs to one event loop."""
    import bot.imaging as imaging

    gate = threading.Event()
    pool = ThreadPoolExecutor(1)
    try:

        async def stuck() -> None:
            job = asyncio.ensure_future(imaging._run(gate.wait, 30, priority=BOARD))  # pyright: ignore[reportPrivateUsage]
            await asyncio.sleep(0.05)
            job.cancel()

        original = imaging.render_pool
        imaging.render_pool = lambda: pool  # type: ignore[assignment]
        try:
            asyncio.run(stuck())  # this loop closes with the job still in the pool
            gate.set()

            async def next_image() -> int:
                return await asyncio.wait_for(
                    imaging._run(len, "abc", priority=BOARD),  # pyright: ignore[reportPrivateUsage]
                    timeout=10,
                )

            assert asyncio.run(next_image()) == 3
        finally:
            imaging.render_pool = original  # type: ignore[assignment]
    finally:
        gate.set()
        pool.shutdown(wait=True)


async def test_previews_leave_one_worker_free_so_a_board_never_waits_behind_one() -> None:
    """With two workers busy drawing previews a board would wait for one to finish; previews never
    take the last slot, so the board starts at once while the previews behind it still wait."""
    ran: list[str] = []
    gate = threading.Event()

    def job(name: str) -> str:
        if name.startswith("slow"):
            gate.wait(10)
        ran.append(name)
        return name

    with ThreadPoolExecutor(2) as pool:
        queue = _Queue(pool, slots=2)
        slow = asyncio.create_task(queue.run(PREVIEW, job, "slow"))
        await asyncio.sleep(0)
        # what a click asks before waiting for its preview to answer with it (cogs/panel/items.py): one drawing
        # ahead of it is not a backlog, one waiting is
        assert not queue.backed_up()
        waiting = asyncio.create_task(queue.run(PREVIEW, job, "preview"))
        await asyncio.sleep(0)
        assert queue.backed_up()
        assert await queue.run(BOARD, job, "board") == "board"  # while "slow" still holds a worker
        assert ran == ["board"] and not waiting.done()
        gate.set()
        assert await asyncio.gather(slow, waiting) == ["slow", "preview"]


async def test_how_far_behind_the_queue_is_is_the_wait_of_its_oldest_waiting_job() -> None:
    """What a phase's panels ask before drawing their previews (cogs/direct_messages.py): a job being drawn is not
    waiting; the oldest job still waiting says how late the queue runs, and a job started stops counting."""
    now = [100.0]
    gate = threading.Event()

    def job(name: str) -> str:
        if name == "busy":
            gate.wait(10)
        return name

    with ThreadPoolExecutor(1) as pool:
        queue = _Queue(pool, slots=1, clock=lambda: now[0])
        busy = asyncio.create_task(queue.run(BOARD, job, "busy"))
        await asyncio.sleep(0)
        assert queue.behind() == 0.0, "the job being drawn waits for nothing"
        first = asyncio.create_task(queue.run(PREVIEW, job, "first"))
        await asyncio.sleep(0)
        now[0] += 2.0
        second = asyncio.create_task(
            queue.run(BOARD, job, "second")
        )  # a board overtakes it: still the oldest
        await asyncio.sleep(0)
        now[0] += 1.5
        assert queue.behind() == 3.5
        gate.set()
        assert await asyncio.gather(busy, first, second) == ["busy", "first", "second"]
        assert queue.behind() == 0.0


async def test_a_newer_preview_of_the_same_panel_replaces_the_waiting_one() -> None:
    """A player clicking faster than previews are drawn gets only the newest drawn (newest wins); the
    replaced caller learns it was superseded; other panels' previews are untouched."""
    ran: list[str] = []
    gate = threading.Event()

    def job(name: str) -> str:
        if name == "first":
            gate.wait(10)
        ran.append(name)
        return name

    with ThreadPoolExecutor(1) as pool:
        queue = _Queue(pool, slots=1)
        first = asyncio.create_task(queue.run(PREVIEW, job, "first", key="panel-1"))  # started: kept
        await asyncio.sleep(0)
        older = asyncio.create_task(queue.run(PREVIEW, job, "older", key="panel-1"))
        other = asyncio.create_task(queue.run(PREVIEW, job, "other", key="panel-2"))
        await asyncio.sleep(0)
        newest = asyncio.create_task(queue.run(PREVIEW, job, "newest", key="panel-1"))
        await asyncio.sleep(0)
        gate.set()
        assert await first == "first"
        with pytest.raises(Superseded):
            await older
        assert await asyncio.gather(other, newest) == ["other", "newest"]
    assert ran == ["first", "other", "newest"]


def test_the_render_pool_is_sized_to_the_cores_unless_configured(monkeypatch: pytest.MonkeyPatch) -> None:
    from bot import imaging

    monkeypatch.delenv("HEXD_RENDER_WORKERS", raising=False)
    monkeypatch.setattr(imaging, "cores", lambda: 8)
    assert render_workers() == 7  # one core is the bot's own
    monkeypatch.setattr(imaging, "cores", lambda: 1)
    assert render_workers() == 1
    monkeypatch.setenv("HEXD_RENDER_WORKERS", "0")
    assert render_workers() == 0
    monkeypatch.setenv("HEXD_RENDER_WORKERS", "3")
    assert render_workers() == 3
