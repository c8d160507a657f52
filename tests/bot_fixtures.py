"""Shared set-up of the application-layer tests (no Discord): a clock moved by hand and an ``EncounterService`` on a
temporary SQLite file that uses it."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from pathlib import Path

from bot.service import EncounterService
from bot.storage import open_storage


class Clock:
    """The service's and the storage's clock: tests move ``now`` by hand, so no test waits on wall time."""

    def __init__(self) -> None:
        self.now = datetime(2026, 1, 1, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


@asynccontextmanager
async def sqlite_service(path: Path) -> AsyncIterator[EncounterService]:
    """A service on a fresh SQLite database at ``path``, storage and service sharing one ``Clock``."""
    clock = Clock()
    storage = await open_storage(f"sqlite:///{path}", clock=clock)
    try:
        yield EncounterService(storage, clock=clock)
    finally:
        await storage.close()
