"""Heavy commands (replay, export, import) are limited per member, so no member can keep the bot busy for
everyone else, nor lock anyone else out:

* each member has one heavy job at a time and a few a minute of their own; work that ends refused (a file that
  cannot be imported, a command the member may not give) costs nothing;
* a server runs one heavy job at a time for its plain members, but a director's export or replay of their own
  encounter is never refused because of what someone else is doing (``own=True``).

Pure bookkeeping with an injectable clock (no timers): a refusal is immediate and private, before any defer, and
says when to try again.
"""

from __future__ import annotations

import math
import time
from collections import deque
from collections.abc import Callable, Generator, Hashable
from contextlib import contextmanager
from dataclasses import dataclass, field

from bot.results import Refused, refuse


@dataclass
class Window:
    """At most ``limit`` uses per key in any ``seconds`` (a sliding window)."""

    limit: int
    seconds: float
    clock: Callable[[], float] = time.monotonic
    _uses: dict[Hashable, deque[float]] = field(default_factory=dict[Hashable, deque[float]])

    def wait(self, key: Hashable) -> int:
        """Whole seconds until ``key`` may use it again (0: now)."""
        now = self.clock()
        uses = self._uses.get(key)
        if uses is None:
            return 0
        while uses and now - uses[0] >= self.seconds:
            uses.popleft()
        if not uses:
            del self._uses[key]
            return 0
        if len(uses) < self.limit:
            return 0
        return max(1, math.ceil(self.seconds - (now - uses[0])))

    def take(self, key: Hashable) -> float:
        """Record one use now (the caller checked :meth:`wait`); returns its time, for :meth:`give_back`."""
        now = self.clock()
        self._uses.setdefault(key, deque()).append(now)
        return now

    def give_back(self, key: Hashable, at: float) -> None:
        """Forget a use that turned out to be refused: refused work costs nothing."""
        uses = self._uses.get(key)
        if uses is not None and at in uses:
            uses.remove(at)


@dataclass
class HeavyLimiter:
    per_minute: int = 6
    clock: Callable[[], float] = time.monotonic
    _running: dict[int, set[int]] = field(default_factory=dict[int, set[int]])  # guild -> members with a job
    window: Window = field(init=False)

    def __post_init__(self) -> None:
        self.window = Window(self.per_minute, 60.0, self.clock)

    @contextmanager
    def slot(self, guild_id: int | None, user_id: int, *, own: bool = False) -> Generator[None]:
        """Hold ``user_id``'s heavy slot for the ``with`` block, or refuse (the caller has not deferred yet).
        ``own``: a director's export or replay of their own encounter, which only their own use can hold up."""
        guild = guild_id or 0
        running = self._running.get(guild, set())
        if user_id in running:
            raise refuse(
                "heavy.busy_mine", "Your replay, export or import is still being prepared; wait for it first."
            )
        if running and not own:
            raise refuse(
                "heavy.busy",
                "Another replay, export or import is being prepared on this server; try again in a moment.",
            )
        key = (guild, user_id)
        if wait := self.window.wait(key):
            raise refuse(
                "heavy.too_many",
                "You asked for too many replays, exports or imports this minute; try again in {seconds} s.",
                seconds=wait,
            )
        at = self.window.take(key)
        running = self._running.setdefault(guild, set())
        running.add(user_id)
        try:
            yield
        except Refused:
            self.window.give_back(key, at)
            raise
        finally:
            running.discard(user_id)
            if not running:
                self._running.pop(guild, None)
