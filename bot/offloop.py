"""The click worker: one thread that does a click's pure CPU work (building a panel, pressing it, checking a
Submit's order), so the event loop is not held while it runs.

A panel build over a large board runs the rules' searches for every choice it offers, up to a tenth of a second;
on the loop that is a tenth of a second in which no other click is acknowledged. In a thread, the interpreter
hands the loop its turn within :data:`SWITCH_INTERVAL` (the GIL's switch interval), so acknowledgements and answers
go out while a build runs. One thread, not a pool: the work is CPU under the GIL (more threads would not make it faster,
only contend), and jobs run in the order they were handed in, so the clicks on one panel stay in order.

What runs here reads immutable states and the plug-ins' memos (bot/panels/memo.py, locked), never storage or
Discord. The thread is started on first use and let go when the bot closes (:func:`shutdown`).
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import sys
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
T = TypeVar("T")

#: the worker thread's name, as log lines and stack dumps show it
THREAD_NAME = "hexd-click-worker"
#: seconds a thread keeps the interpreter while another waits for it (the interpreter's default is 5 ms). The loop
#: gives the interpreter up at every SQLite call and socket write; at the default it would wait up to 5 ms to get
#: it back from a busy worker each time, and its inline reads and sends would then hold it longer than the builds
SWITCH_INTERVAL = 0.0005

_guard = threading.Lock()
_pool: list[ThreadPoolExecutor] = []  # the running worker, when started


def _worker() -> ThreadPoolExecutor:
    with _guard:
        if not _pool:
            sys.setswitchinterval(min(sys.getswitchinterval(), SWITCH_INTERVAL))
            _pool.append(ThreadPoolExecutor(max_workers=1, thread_name_prefix=THREAD_NAME))
        return _pool[0]


async def off_loop(fn: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> T:
    """``fn(*args, **kwargs)`` in the click worker, after every job handed in before it; the caller's context
    (the log's trace id) goes with it."""
    job = functools.partial(contextvars.copy_context().run, fn, *args, **kwargs)
    return await asyncio.get_running_loop().run_in_executor(_worker(), job)


def shutdown() -> None:
    """Let the worker go once the jobs already handed in are done (a bot closing). A bot started afterwards in the
    same process starts a new one; nothing waits here, so the closing loop is not held."""
    with _guard:
        pool = _pool.pop() if _pool else None
    if pool is not None:
        pool.shutdown(wait=False)
