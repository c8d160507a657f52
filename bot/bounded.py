"""A dict that keeps only its newest entries: the per-encounter caches of a long-running bot (with a
thousand open encounters, most of them idle, nothing is held for an encounter just because it was once seen)."""

from __future__ import annotations

from collections import OrderedDict
from typing import TypeVar

K = TypeVar("K")
V = TypeVar("V")


class Bounded(OrderedDict[K, V]):
    """At most ``limit`` entries; writing an entry makes it the newest, the oldest written goes first. Only for
    caches: whatever falls out must be readable again from storage."""

    def __init__(self, limit: int) -> None:
        super().__init__()
        if limit < 1:
            raise ValueError("a bounded cache keeps at least one entry")
        self.limit = limit

    def __setitem__(self, key: K, value: V) -> None:
        super().__setitem__(key, value)
        self.move_to_end(key)
        while len(self) > self.limit:
            self.popitem(last=False)
