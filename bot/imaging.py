"""Board images for the bot, rendered in a worker process so the event loop keeps answering interactions.

Drawing is CPU-bound Python and C: in a thread it would hold the GIL against the event loop and the database
thread (measured: under 20 concurrent encounters a thread pool doubled the time to the first image). A small
process pool (``spawn``, started and warmed once) takes it off the bot's process; ``HEXD_RENDER_WORKERS=0``
renders in threads instead. A rendering failure never blocks the game: it is logged with a trace id and the
message goes out without an image (the account text still tells what happened).

Jobs go to the pool through a priority queue, never more at once than there are workers: the channel's board
after a phase (everybody waits for it) overtakes the private previews that players' clicks queue up. Long jobs
(replays) have a worker of their own, started on first use. Measured with bench/e2e.py (20 duels): a board image waited behind up to 40 previews
(p50 120 ms per render job, 3 ms of which drawing) before this.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import json
import logging
import multiprocessing
import os
import time
from collections.abc import Callable, Hashable, Sequence
from concurrent.futures import Executor, ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any, TypeVar

from bot.logs import trace_id
from bot.results import refuse
from rules.events import Event
from rules.hexgrid import Hex
from rules.serial import from_json
from rules.state import EncounterState

log = logging.getLogger(__name__)
T = TypeVar("T")

_pool: Executor | None = None


def _warm() -> None:
    import render  # noqa: F401  # pyright: ignore[reportUnusedImport]  (Pillow, fonts, renderer: once per worker)


def cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def render_workers() -> int:
    """``HEXD_RENDER_WORKERS``, else one per core but the one the bot's own process needs, at least one.

    A board or preview takes ~5 ms to draw; at 100 encounters the bot's event loop, not drawing, is what boards
    wait for: on this 2-core machine a second worker took CPU from the bot (last order → board p50 1.6 s with one
    worker, 3.6 s with two, same sitting). With two workers or more, previews never take the last one, so a
    channel's board never waits behind a preview being drawn; with one, a board overtakes every queued preview
    and waits at most for the one being drawn."""
    configured = os.environ.get("HEXD_RENDER_WORKERS", "").strip()
    if configured:
        return max(0, int(configured))
    return max(1, cores() - 1)


def _spawn_pool(workers: int) -> Executor:
    return ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"), initializer=_warm)


def render_pool() -> Executor | None:
    """The shared render pool (None: render in threads)."""
    global _pool
    workers = render_workers()
    if workers <= 0:
        return None
    if _pool is None or _broken(_pool):  # a worker that died takes the pool with it: start a new one
        _pool = _spawn_pool(workers)
    return _pool


def _broken(pool: Executor) -> bool:
    return bool(getattr(pool, "_broken", False))


_long_pool: Executor | None = None


def long_pool() -> Executor | None:
    """A worker of its own for long jobs (a replay takes seconds), started on first use: once a job has started
    no priority can interrupt it, so a long one must never hold the worker that draws the channel's boards."""
    global _long_pool
    if render_workers() <= 0:
        return None
    if _long_pool is None or _broken(_long_pool):
        _long_pool = _spawn_pool(1)
    return _long_pool


def _long_pool_up() -> bool:
    return (_long_pool is not None and not _broken(_long_pool)) or render_workers() <= 0


def _start_long_pool() -> Executor | None:
    """The long-job pool with its worker process started (run in a thread)."""
    pool = long_pool()
    if pool is not None:
        pool.submit(_warm).result()
    return pool


async def warm_up() -> None:
    """Start the pool's workers now (bot start), not on the first image."""
    pool = render_pool()
    if pool is not None:
        await asyncio.get_running_loop().run_in_executor(pool, _warm)


BOARD, PREVIEW, LONG = 0, 1, 2  # render priorities: lower goes first
#: seconds the drawings queue's oldest job may have waited before a panel sent unasked goes without its preview
LATE_AFTER = 2.0


class Superseded(Exception):
    """A preview replaced in the queue by a newer one for the same panel before it was drawn (newest wins)."""


class _Queue:
    """Feeds the pool in priority order (then first come, first served), at most ``slots`` jobs in it at once,
    so a job queued later with a higher priority does not wait behind the pool's own FIFO. With two slots or
    more, jobs other than boards leave one slot free: a board never waits for a preview being drawn.

    A job given a ``key`` (a panel) replaces the job with the same key still waiting: a player clicking faster
    than previews are drawn gets only the newest drawn; the replaced caller gets :class:`Superseded`."""

    def __init__(self, pool: Executor, slots: int, *, clock: Callable[[], float] = time.monotonic) -> None:
        # one queue per event loop: a job in flight when its loop closed (a bot stopped mid-render) never
        # gives its slot back, so a queue must not outlive the loop it counts for
        self._loop = asyncio.get_running_loop()
        self._pool = pool
        self._slots = slots
        self._running = 0
        self._waiting: list[tuple[int, int, Callable[[], None]]] = []
        self._tickets = itertools.count()
        self._keyed: dict[Hashable, asyncio.Future[Any]] = {}  # the waiting job of each key
        self._asked: dict[int, float] = {}  # each waiting job's ticket: when it was asked for, oldest first
        self._clock = clock

    def serves(self, pool: Executor) -> bool:
        """Whether this queue feeds ``pool`` for the running event loop."""
        return self._pool is pool and self.serves_loop()

    def serves_loop(self) -> bool:
        return self._loop is asyncio.get_running_loop()

    async def run(self, priority: int, fn: Callable[..., T], *args: Any, key: Hashable | None = None) -> T:
        loop = asyncio.get_running_loop()
        result: asyncio.Future[T] = loop.create_future()
        if key is not None:
            older = self._keyed.get(key)
            if older is not None and not older.done():  # still waiting: the newest wins
                older.set_exception(Superseded())
            self._keyed[key] = result

        ticket = next(self._tickets)
        self._asked[ticket] = self._clock()

        def start() -> None:
            self._asked.pop(ticket, None)
            if key is not None and self._keyed.get(key) is result:
                del self._keyed[key]  # started: a newer job with this key waits its turn
            if result.done():  # the caller went away (or was superseded) while it waited: skip the work
                self._release()
                return
            try:
                job = loop.run_in_executor(self._pool, fn, *args)
            except Exception as exc:  # a broken or shut-down pool: this job fails, its slot is freed
                result.set_exception(exc)
                self._release()
                return
            job.add_done_callback(lambda done: self._finished(done, result))

        heapq.heappush(self._waiting, (priority, ticket, start))
        self._pump()
        return await result

    def behind(self) -> float:
        """Seconds the oldest job still waiting has waited (0: none waits)."""
        oldest = next(iter(self._asked.values()), None)
        return 0.0 if oldest is None else self._clock() - oldest

    def backed_up(self) -> bool:
        """Whether a job asked for now would wait for more than one drawing already under way."""
        return bool(self._waiting) or self._running > 1

    def _pump(self) -> None:
        while self._running < self._slots and self._waiting:
            if self._waiting[0][0] != BOARD and 1 < self._slots <= self._running + 1:
                break  # the last slot is kept for a board
            self._running += 1
            heapq.heappop(self._waiting)[2]()

    def _release(self) -> None:
        self._running -= 1
        self._pump()

    def _finished(self, done: asyncio.Future[T], result: asyncio.Future[T]) -> None:
        if not result.done():
            if done.cancelled():
                result.cancel()
            elif (error := done.exception()) is not None:
                result.set_exception(error)
            else:
                result.set_result(done.result())
        self._release()


_queue: _Queue | None = None


_long_queue: _Queue | None = None


async def _run(fn: Callable[..., T], *args: Any, priority: int = PREVIEW, key: Hashable | None = None) -> T:
    global _queue, _long_queue
    if priority == LONG:
        # its process is started on first use, in a thread: spawning one from the bot's large process is not
        # work for the event loop
        pool = long_pool() if _long_pool_up() else await asyncio.to_thread(_start_long_pool)
        if pool is None:
            return await asyncio.to_thread(fn, *args)
        if _long_queue is None or not _long_queue.serves(pool):
            _long_queue = _Queue(pool, 1)
        return await _long_queue.run(priority, fn, *args)
    pool = render_pool()
    if pool is None:
        return await asyncio.to_thread(fn, *args)
    if _queue is None or not _queue.serves(pool):
        _queue = _Queue(pool, render_workers())
    return await _queue.run(priority, fn, *args, key=key)


def previews_late() -> bool:
    """Whether the drawings queue is so far behind (its oldest waiting job asked for over :data:`LATE_AFTER`
    seconds ago) that a panel sent now should not wait for its preview: the channels' boards go first there, and
    a preview may wait minutes on a host past its capacity."""
    queue = _queue
    return queue is not None and queue.serves_loop() and queue.behind() > LATE_AFTER


def previews_backed_up() -> bool:
    """Whether a preview asked for now would wait behind more than one other drawing (then a click does not wait
    for its preview to answer with it: cogs/panel/items.py)."""
    queue = _queue
    return queue is not None and queue.serves_loop() and queue.backed_up()


async def run_long_job(fn: Callable[..., T], *args: Any) -> T:
    """A long CPU job that is not a picture (an export file, an import's rows) on the long-job worker: its own
    process, so neither its work nor its garbage ever holds the bot's event loop; a thread when
    rendering runs in threads. ``fn`` and its arguments must pickle: hand it stored text, not decoded states."""
    return await _run(fn, *args, priority=LONG)


def _board(
    state: EncounterState,
    events: Sequence[Event],
    viewer: str,
    locale: str,
    title: str,
    step: tuple[int, str] | None = None,
    scheme: str = "standard",
    ghosts: tuple[tuple[str, Hex], ...] = (),
) -> bytes:
    from render import BoardSnapshot, RenderOptions, render_board

    snapshot = BoardSnapshot(state, tuple(events), title=title, step=step, ghosts=ghosts)
    return render_board(snapshot, viewer=viewer, options=RenderOptions(locale=locale, scheme=scheme))


def _preview(
    state: EncounterState,
    unit_id: str,
    path: tuple[Hex, ...],
    facing: int,
    vector: Hex | None,
    viewer: str,
    locale: str,
    highlight: tuple[Hex, ...] = (),
    scheme: str = "standard",
) -> bytes:
    from render import BoardSnapshot, RenderOptions, render_order_preview

    return render_order_preview(
        BoardSnapshot(state, ()),
        viewer=viewer,
        unit_id=unit_id,
        path=path,
        end_facing=facing,
        ghost_vector=vector,
        options=RenderOptions(locale=locale, scheme=scheme),
        highlight=highlight,
    )


async def board_png(
    state: EncounterState,
    events: Sequence[Event] = (),
    *,
    viewer: str = "public",
    locale: str = "en",
    title: str = "",
    step: tuple[int, str] | None = None,
    scheme: str = "standard",
    ghosts: tuple[tuple[str, Hex], ...] = (),
) -> bytes | None:
    """``step``: the (round, phase) just resolved, named in the subtitle (else the state's current phase);
    ``scheme``: the colour scheme (render/options.py SCHEMES: the reader's or the server's, bot/palettes.py);
    ``ghosts``: (unit, hex) where units stood before, drawn as outlines (a catch-up's picture)."""
    try:
        return await _run(
            _board, state, tuple(events), viewer, locale, title, step, scheme, ghosts, priority=BOARD
        )
    except Exception:
        log.exception("board render failed trace=%s encounter=%s", trace_id(), state.name)
        return None


async def preview_png(
    state: EncounterState,
    unit_id: str,
    path: tuple[Hex, ...],
    facing: int,
    vector: Hex | None,
    *,
    viewer: str,
    locale: str = "en",
    highlight: tuple[Hex, ...] = (),
    coalesce: Hashable | None = None,
    scheme: str = "standard",
) -> bytes | None:
    """``coalesce``: a key for the panel this preview is for; a newer preview with the same key that comes while
    this one still waits replaces it, and this call raises :class:`Superseded` (the newer one shows)."""
    try:
        return await _run(
            _preview, state, unit_id, path, facing, vector, viewer, locale, highlight, scheme, key=coalesce
        )
    except Superseded:
        raise
    except Exception:
        log.exception("preview render failed trace=%s unit=%s", trace_id(), unit_id)
        return None


# --- the replay (/encounter replay) ------------------------------------------------------------------------

REPLAY_MAX_BYTES = 8 * 1024 * 1024  # Discord's smallest upload tier


@dataclass(frozen=True, slots=True)
class ReplayFile:
    """A drawn replay; a plain value, so the bot's process never imports Pillow to receive it."""

    data: bytes
    filename: str
    frames: int
    steps: int
    reduced: bool  # scaled down or steps left out to fit the upload limit


def _decoded(state: EncounterState | str) -> EncounterState:
    """A state, or a stored snapshot's JSON text decoded (in the worker that draws it)."""
    if not isinstance(state, str):
        return state
    decoded = from_json(json.loads(state))
    if not isinstance(decoded, EncounterState):
        raise TypeError(f"a snapshot holds {type(decoded).__name__}, not an EncounterState")
    return decoded


def _replay(
    steps: Sequence[tuple[EncounterState | str, tuple[Event, ...]]],
    viewer: str,
    locale: str,
    title: str,
    fmt: str,
    max_bytes: int,
) -> ReplayFile | None:
    from render import BoardSnapshot, RenderOptions, render_replay
    from render.replay import ReplayTooLargeError

    frames = [BoardSnapshot(_decoded(state), events, title=title) for state, events in steps]
    try:
        replay = render_replay(
            frames,
            viewer=viewer,
            options=RenderOptions(locale=locale),
            fmt="webp" if fmt == "webp" else "gif",
            max_bytes=max_bytes,
        )
    except ReplayTooLargeError:
        return None
    return ReplayFile(replay.data, replay.filename, replay.frames, replay.steps, replay.reduced)


async def replay_file(
    steps: Sequence[tuple[EncounterState | str, tuple[Event, ...]]],
    *,
    viewer: str,
    locale: str = "en",
    title: str = "",
    fmt: str = "gif",
    max_bytes: int = REPLAY_MAX_BYTES,
) -> ReplayFile:
    """The animated replay of ``steps`` (state after each step, or its stored JSON text, and that step's events)
    as ``viewer`` may see it. Runs after board images and previews (a long job). Refuses when it cannot be drawn
    or cannot fit. Stored text is decoded in the worker: a large encounter's states are never built here."""
    try:
        drawn = await _run(_replay, tuple(steps), viewer, locale, title, fmt, max_bytes, priority=LONG)
    except Exception:
        log.exception("replay render failed trace=%s title=%s", trace_id(), title)
        raise refuse("replay.failed", "The replay could not be drawn right now.") from None
    if drawn is None:
        raise refuse("replay.too_big", "The replay is too big to upload even when reduced.")
    return drawn
