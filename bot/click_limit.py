"""How fast one person may click one panel: a burst of clicks must not become a burst of work or of rows (the
database grows with orders, not with clicks). Beyond :data:`CLICKS_PER_WINDOW` clicks within
:data:`WINDOW_SECONDS` by one person on one panel, a click is answered privately ("Too fast") and does nothing.
No person clicks a panel faster than that on purpose; a stuck key, a script or a shaky connection does."""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Hashable
from typing import Final

from bot.bounded import Bounded
from bot.results import refuse

CLICKS_PER_WINDOW: Final = 5
WINDOW_SECONDS: Final = 1.0
#: people × panels whose recent clicks are kept (the oldest written falls out first: it is long past its window)
KEPT: Final = 4096


class ClickLimiter:
    """Clicks per key (person, encounter, panel) in the last :data:`WINDOW_SECONDS`; ``clock``: monotonic
    seconds (tests set it by hand, so no test waits on the wall clock)."""

    def __init__(
        self,
        *,
        limit: int = CLICKS_PER_WINDOW,
        window: float = WINDOW_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.limit = limit
        self.window = window
        self.clock = clock
        self._clicks: Bounded[Hashable, deque[float]] = Bounded(KEPT)

    def allow(self, key: Hashable) -> bool:
        """Count a click under ``key``; False when it is one too many for the window (it is not counted)."""
        now = self.clock()
        recent = self._clicks.get(key) or deque[float]()
        while recent and now - recent[0] >= self.window:
            recent.popleft()
        if len(recent) >= self.limit:
            return False
        recent.append(now)
        self._clicks[key] = recent
        return True

    def check(self, key: Hashable) -> None:
        """:meth:`allow`, refusing the click privately when it is one too many."""
        if not self.allow(key):
            raise refuse("click.too_fast", "Too fast: wait a second and click again.")
