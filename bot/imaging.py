"""Board images for the bot, rendered in a worker process so the event loop keeps answering interactions.

Drawing is CPU-bound Python and C: in a thread it would hold the GIL against the event loop and the database
thread (measured: under 20 concurrent encounters a thread pool doubled the time to the first image). A small
process pool (``spawn``, started and warmed once) takes it off the bot's process; ``HEXD_RENDER_WORKERS=0``
renders in threads instead. A rendering failure never blocks the game: it is logged with a trace id and the
message goes out without an image (the account text still tells what happened).
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
from collections.abc import Callable, Sequence
from concurrent.futures import Executor, ProcessPoolExecutor
from typing import Any, TypeVar

from bot.logs import trace_id
from rules.events import Event
from rules.hexgrid import Hex
from rules.state import EncounterState

log = logging.getLogger(__name__)
T = TypeVar("T")

_pool: Executor | None = None


def _warm() -> None:
    import render  # noqa: F401  (imports Pillow, fonts and the renderer once per worker)


def render_pool() -> Executor | None:
    """The shared render pool (None: render in threads)."""
    global _pool
    workers = int(os.environ.get("HEXD_RENDER_WORKERS", "1") or 0)
    if workers <= 0:
        return None
    if _pool is None:
        _pool = ProcessPoolExecutor(
            workers, mp_context=multiprocessing.get_context("spawn"), initializer=_warm
        )
    return _pool


async def warm_up() -> None:
    """Start the pool's workers now (bot start), not on the first image."""
    pool = render_pool()
    if pool is not None:
        await asyncio.get_running_loop().run_in_executor(pool, _warm)


async def _run(fn: Callable[..., T], *args: Any) -> T:
    pool = render_pool()
    if pool is None:
        return await asyncio.to_thread(fn, *args)
    return await asyncio.get_running_loop().run_in_executor(pool, fn, *args)


def _board(state: EncounterState, events: Sequence[Event], viewer: str, locale: str, title: str) -> bytes:
    from render import BoardSnapshot, RenderOptions, render_board

    snapshot = BoardSnapshot(state, tuple(events), title=title)
    return render_board(snapshot, viewer=viewer, options=RenderOptions(locale=locale))


def _preview(
    state: EncounterState,
    unit_id: str,
    path: tuple[Hex, ...],
    facing: int,
    vector: Hex | None,
    viewer: str,
    locale: str,
) -> bytes:
    from render import BoardSnapshot, RenderOptions, render_order_preview

    return render_order_preview(
        BoardSnapshot(state, ()),
        viewer=viewer,
        unit_id=unit_id,
        path=path,
        end_facing=facing,
        ghost_vector=vector,
        options=RenderOptions(locale=locale),
    )


async def board_png(
    state: EncounterState,
    events: Sequence[Event] = (),
    *,
    viewer: str = "public",
    locale: str = "en",
    title: str = "",
) -> bytes | None:
    try:
        return await _run(_board, state, tuple(events), viewer, locale, title)
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
) -> bytes | None:
    try:
        return await _run(_preview, state, unit_id, path, facing, vector, viewer, locale)
    except Exception:
        log.exception("preview render failed trace=%s unit=%s", trace_id(), unit_id)
        return None
