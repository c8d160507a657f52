"""The click worker's two queues (bot/offloop.py): a click's job is taken before the background jobs handed in
ahead of it (a phase opening's panels for everyone), each kind keeps its order, the background is not starved,
and a job's result or error reaches the one who waits for it. No timing: the worker is held on an event while
the jobs are handed in, so the order it takes them in is the only thing that varies."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Callable

import pytest

from bot import offloop
from bot.offloop import FAIR, THREAD_NAME, behind_clicks, off_loop


@pytest.fixture
async def worker() -> AsyncIterator[None]:
    offloop.shutdown()  # a fresh worker for the test, let go after it
    yield
    offloop.shutdown()


def noting(ran: list[str], name: str) -> Callable[[], str]:
    def job() -> str:
        ran.append(name)
        return name

    return job


async def held(gate: threading.Event) -> asyncio.Future[bool]:
    """A job that keeps the worker until ``gate`` is set, already running when this returns."""
    started = threading.Event()

    def hold() -> bool:
        started.set()
        return gate.wait()

    running = asyncio.ensure_future(off_loop(hold))
    await asyncio.to_thread(started.wait)
    return running


async def handed_in_while_held(panels: int, clicks: int) -> list[str]:
    """``panels`` background jobs, then ``clicks`` clicks' jobs, all handed in while the worker is held; the order
    the worker ran them in, once let go (each job's result reaching its caller checked on the way)."""
    ran: list[str] = []
    gate = threading.Event()
    holding = await held(gate)
    with behind_clicks():
        built = [asyncio.ensure_future(off_loop(noting(ran, f"panel {i}"))) for i in range(panels)]
        await asyncio.sleep(0)  # each task hands its job in as it first runs, in the order made
    pressed = [asyncio.ensure_future(off_loop(noting(ran, f"click {i}"))) for i in range(clicks)]
    await asyncio.sleep(0)
    gate.set()
    assert await holding
    names = [f"click {i}" for i in range(clicks)] + [f"panel {i}" for i in range(panels)]
    assert await asyncio.gather(*pressed, *built) == names
    return ran


async def test_a_click_s_job_goes_before_the_background_jobs_handed_in_ahead_of_it(worker: None) -> None:
    assert await handed_in_while_held(3, 2) == ["click 0", "click 1", "panel 0", "panel 1", "panel 2"]


async def test_the_background_gets_one_job_after_every_fair_run_of_clicks(worker: None) -> None:
    ran = await handed_in_while_held(2, 2 * FAIR + 1)
    assert ran.index("panel 0") == FAIR and ran.index("panel 1") == 2 * FAIR + 1
    assert [r for r in ran if r.startswith("click")] == [f"click {i}" for i in range(2 * FAIR + 1)]


async def test_the_background_mark_ends_with_its_block_and_belongs_to_its_task(worker: None) -> None:
    threads: list[bool] = []

    def where() -> bool:
        return threading.current_thread().name.startswith(THREAD_NAME)

    with behind_clicks():
        threads.append(await off_loop(where))
    threads.append(await off_loop(where))
    assert threads == [True, True]
    assert not offloop._background.get()  # pyright: ignore[reportPrivateUsage]  # the block reset it


async def test_a_job_s_error_is_raised_where_it_was_waited_for_and_the_worker_goes_on(worker: None) -> None:
    def broken() -> None:
        raise ValueError("no such hex")

    with pytest.raises(ValueError, match="no such hex"):
        await off_loop(broken)
    assert await off_loop(lambda: 7) == 7


async def test_a_job_whose_caller_stopped_waiting_is_not_run(worker: None) -> None:
    ran: list[str] = []
    gate = threading.Event()
    holding = await held(gate)
    dropped = asyncio.ensure_future(off_loop(noting(ran, "dropped")))
    await asyncio.sleep(0)
    dropped.cancel()
    kept = asyncio.ensure_future(off_loop(noting(ran, "kept")))
    await asyncio.sleep(0)
    gate.set()
    await holding
    assert await kept == "kept"
    assert ran == ["kept"]
