"""The click worker: one thread that does a click's pure CPU work (building a panel, pressing it, checking a
Submit's order), so the event loop is not held while it runs.

A panel build over a large board runs the rules' searches for every choice it offers, up to a tenth of a second;
on the loop that is a tenth of a second in which no other click is acknowledged. In a thread, the interpreter
hands the loop its turn within :data:`SWITCH_INTERVAL` (the GIL's switch interval), so acknowledgements and answers
go out while a build runs. One thread, not a pool: the work is CPU under the GIL (more threads would not make it faster,
only contend), and jobs of one kind run in the order they were handed in, so the clicks on one panel stay in order.

Two kinds of job. A click's own work is waited for by a person (the click's answer is the panel it builds); the
panels a phase opening sends to every player who owes orders (:func:`behind_clicks`) are waited for by nobody yet.
With many tables a phase opens somewhere every moment, and its batch of builds would stand in front of every click
handed in after it; so the worker takes clicks first, and a background job when no click waits, or after
:data:`FAIR` clicks in a row, so the background never starves while clicks keep coming.

What runs here reads immutable states and the plug-ins' memos (bot/panels/memo.py, locked), never storage or
Discord. The thread is started on first use and let go when the bot closes (:func:`shutdown`).
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import functools
import sys
import threading
from collections import deque
from collections.abc import Callable, Generator
from concurrent.futures import Future
from typing import ParamSpec, TypeVar, cast

P = ParamSpec("P")
T = TypeVar("T")

#: the worker thread's name, as log lines and stack dumps show it
THREAD_NAME = "hexd-click-worker"
#: seconds a thread keeps the interpreter while another waits for it (the interpreter's default is 5 ms). The loop
#: gives the interpreter up at every SQLite call and socket write; at the default it would wait up to 5 ms to get
#: it back from a busy worker each time, and its inline reads and sends would then hold it longer than the builds
SWITCH_INTERVAL = 0.0005
#: clicks' jobs taken in a row while a background job waits, before the worker takes one of those
FAIR = 8

_background: contextvars.ContextVar[bool] = contextvars.ContextVar("hexd_offloop_background", default=False)

Job = tuple[Callable[[], object], "Future[object]"]


class _Worker:
    """The thread and its two queues: clicks' jobs (``urgent``) and background ones (``later``)."""

    def __init__(self) -> None:
        self.urgent: deque[Job] = deque()
        self.later: deque[Job] = deque()
        self.ready = threading.Condition()
        self.closing = False
        self.run_of_urgent = 0  # clicks' jobs taken in a row while a background one waited
        self.thread = threading.Thread(target=self._run, name=THREAD_NAME, daemon=True)
        self.thread.start()

    def submit(self, fn: Callable[[], object], *, background: bool) -> Future[object]:
        done: Future[object] = Future()
        with self.ready:
            (self.later if background else self.urgent).append((fn, done))
            self.ready.notify()
        return done

    def close(self) -> None:
        """Stop once the jobs already handed in are done."""
        with self.ready:
            self.closing = True
            self.ready.notify()

    def _next(self) -> Job | None:
        with self.ready:
            while not self.urgent and not self.later:
                if self.closing:
                    return None
                self.ready.wait()
            if self.urgent and (not self.later or self.run_of_urgent < FAIR):
                self.run_of_urgent = self.run_of_urgent + 1 if self.later else 0
                return self.urgent.popleft()
            self.run_of_urgent = 0
            return self.later.popleft()

    def _run(self) -> None:
        while (job := self._next()) is not None:
            fn, done = job
            if not done.set_running_or_notify_cancel():
                continue  # its caller stopped waiting (a cancelled click): nobody wants the result
            try:
                result = fn()
            except BaseException as exc:  # handed to the caller, who raises it where it waited
                done.set_exception(exc)
            else:
                done.set_result(result)
            del job, fn, done  # a finished job's result is its caller's alone


_guard = threading.Lock()
_workers: list[_Worker] = []  # the running worker, when started


def _worker() -> _Worker:
    with _guard:
        if not _workers:
            sys.setswitchinterval(min(sys.getswitchinterval(), SWITCH_INTERVAL))
            _workers.append(_Worker())
        return _workers[0]


@contextlib.contextmanager
def behind_clicks() -> Generator[None]:
    """Within this block (of the running task), :func:`off_loop` hands its jobs in as background: they run when
    no click's job waits (a phase opening's panels for everyone who owes orders)."""
    token = _background.set(True)
    try:
        yield
    finally:
        _background.reset(token)


async def off_loop(fn: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> T:
    """``fn(*args, **kwargs)`` in the click worker, after every job of its kind handed in before it (a click's, or
    a background one within :func:`behind_clicks`); the caller's context (the log's trace id) goes with it."""
    job = functools.partial(contextvars.copy_context().run, fn, *args, **kwargs)
    done = _worker().submit(job, background=_background.get())
    return cast(T, await asyncio.wrap_future(done))  # the job's own result


def shutdown() -> None:
    """Let the worker go once the jobs already handed in are done (a bot closing). A bot started afterwards in the
    same process starts a new one; nothing waits here, so the closing loop is not held."""
    with _guard:
        worker = _workers.pop() if _workers else None
    if worker is not None:
        worker.close()
