"""Heavy commands (replay, export, import) are limited per server, so one server's table cannot keep the bot
busy for everyone else (issue 15 item 3): at most one heavy job at a time per server, and a few per minute.

Pure bookkeeping with an injectable clock (no timers): a refusal is immediate and private, before any defer.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Generator
from contextlib import contextmanager
from dataclasses import dataclass, field

from bot.results import refuse


@dataclass
class HeavyLimiter:
    per_minute: int = 6
    clock: Callable[[], float] = time.monotonic
    _running: set[int] = field(default_factory=set[int])
    _started: dict[int, deque[float]] = field(default_factory=dict[int, deque[float]])

    @contextmanager
    def slot(self, guild_id: int | None) -> Generator[None]:
        """Hold the server's heavy slot for the ``with`` block, or refuse (the caller has not deferred yet)."""
        key = guild_id or 0
        if key in self._running:
            raise refuse(
                "heavy.busy",
                "Another replay, export or import is being prepared on this server; try again soon.",
            )
        now = self.clock()
        recent = self._started.setdefault(key, deque())
        while recent and now - recent[0] >= 60:
            recent.popleft()
        if len(recent) >= self.per_minute:
            wait = int(60 - (now - recent[0])) + 1
            raise refuse(
                "heavy.too_many",
                "Too many replays, exports or imports on this server this minute; try again in {seconds} s.",
                seconds=wait,
            )
        recent.append(now)
        self._running.add(key)
        try:
            yield
        finally:
            self._running.discard(key)
