"""Snowflake ids and tokens shaped like Discord's."""

from __future__ import annotations

import datetime as dt
import itertools
import secrets
import time

DISCORD_EPOCH_MS = 1420070400000


class SnowflakeFactory:
    """Snowflakes ordered by time, as Discord's are across everything it creates (interactions and messages alike):
    the milliseconds since Discord's epoch in the high bits, an increment below. The clock is the wall clock
    until a test takes it over (:meth:`freeze`, :meth:`advance`, :meth:`set_ms`): then every id (and a message's
    ``edited_timestamp``) is stamped with the time the test set, so a test decides how far apart two things
    happened without waiting, and an interaction stamped earlier than a message has the smaller id."""

    def __init__(self) -> None:
        self._counter = itertools.count()
        self._last = 0
        self._frozen_ms: int | None = None

    # -- the clock ---------------------------------------------------------------------------------------

    def now_ms(self) -> int:
        """Discord's clock, in Unix milliseconds."""
        return self._frozen_ms if self._frozen_ms is not None else int(time.time() * 1000)

    def now_iso(self) -> str:
        return dt.datetime.fromtimestamp(self.now_ms() / 1000, dt.UTC).isoformat()

    def freeze(self) -> int:
        """Stop the clock where it is (returns it): ids are stamped with the time the test sets from now on."""
        if self._frozen_ms is None:
            self._frozen_ms = max(int(time.time() * 1000), (self._last >> 22) + DISCORD_EPOCH_MS + 1)
        return self._frozen_ms

    def set_ms(self, unix_ms: int) -> None:
        """Put the frozen clock at ``unix_ms`` (earlier too: what is created then gets smaller ids)."""
        self._frozen_ms = unix_ms

    def advance(self, ms: int) -> int:
        """Move the frozen clock on by ``ms`` milliseconds (freezing it first); returns the new time."""
        self._frozen_ms = self.freeze() + ms
        return self._frozen_ms

    def thaw(self) -> None:
        """Back to the wall clock (ids stay increasing)."""
        self._frozen_ms = None

    # -- ids ---------------------------------------------------------------------------------------------

    def next(self) -> int:
        stamp = (self.now_ms() - DISCORD_EPOCH_MS) << 22
        if self._frozen_ms is not None:
            # the time the test set, whatever came before: ids within one millisecond increase (the increment)
            value = stamp | (next(self._counter) & 0x3FFFFF)
        else:
            value = max(stamp | (next(self._counter) & 0xFFF), self._last + 1)
        self._last = max(self._last, value)
        return value

    def next_on_shard(self, shard_id: int, shard_count: int) -> int:
        """The next snowflake whose shard is ``shard_id`` of ``shard_count`` (``(id >> 22) % count``): its
        timestamp part moves on by the few milliseconds that takes."""
        value = self.next()
        while (value >> 22) % shard_count != shard_id:
            value = ((value >> 22) + 1) << 22
        self._last = max(self._last, value)
        return value


def new_token(prefix: str = "") -> str:
    return prefix + secrets.token_urlsafe(48)
