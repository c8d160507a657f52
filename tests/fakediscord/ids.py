"""Snowflake ids and tokens shaped like Discord's."""

from __future__ import annotations

import itertools
import secrets
import time

DISCORD_EPOCH_MS = 1420070400000


class SnowflakeFactory:
    """Strictly increasing snowflakes; the timestamp part keeps discord.py's `created_at` sensible."""

    def __init__(self) -> None:
        self._counter = itertools.count()
        self._last = 0

    def next(self) -> int:
        stamp = (int(time.time() * 1000) - DISCORD_EPOCH_MS) << 22
        value = max(stamp | (next(self._counter) & 0xFFF), self._last + 1)
        self._last = value
        return value

    def next_on_shard(self, shard_id: int, shard_count: int) -> int:
        """The next snowflake whose shard is ``shard_id`` of ``shard_count`` (``(id >> 22) % count``): its
        timestamp part moves on by the few milliseconds that takes."""
        value = self.next()
        while (value >> 22) % shard_count != shard_id:
            value = ((value >> 22) + 1) << 22
        self._last = value
        return value


def new_token(prefix: str = "") -> str:
    return prefix + secrets.token_urlsafe(48)
