"""The embedded backend: one SQLite file through aiosqlite (DESIGN §3).

Durability: WAL journal with ``synchronous=FULL``, so a committed transaction survives a process kill *and* a
power loss (NORMAL survives only the former). Every write runs in ``BEGIN IMMEDIATE``: the file's write lock,
not process memory, serialises writers across tasks and processes, and the phase checks are made under it;
``busy_timeout`` makes a second writer wait instead of failing. Reads run in ``BEGIN DEFERRED`` and so see one
consistent snapshot. One connection per ``SqliteStorage``; an ``asyncio.Lock`` keeps one task's transaction
from interleaving with another task's statements on that connection. Always ``await close()`` (or use
``async with``): aiosqlite's worker thread is not a daemon, so an unclosed storage keeps the process alive.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncGenerator, Callable, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from datetime import datetime
from pathlib import Path
from typing import Any, Final

import aiosqlite

from .base import StorageError
from .schema import migrate
from .sql import Driver, Session, SqlStorage, utc_now

BUSY_TIMEOUT_MS: Final = 15_000
SYNCHRONOUS_MODES: Final = ("FULL", "EXTRA", "NORMAL")


def sqlite_path(url: str | Path) -> str:
    """``sqlite:///relative.db``, ``sqlite:////absolute.db``, ``sqlite:///:memory:`` or a bare path."""
    text = str(url)
    if text.startswith("sqlite:///"):
        return text.removeprefix("sqlite:///")
    if text.startswith("sqlite:"):
        raise StorageError(
            f"cannot read SQLite URL {text!r}: use sqlite:///relative/path or sqlite:////abs/path"
        )
    return text


class _SqliteSession(Session):
    __slots__ = ("_conn",)

    def __init__(self, conn: aiosqlite.Connection) -> None:
        self._conn = conn

    async def fetch(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        return [tuple(row) for row in await self._conn.execute_fetchall(sql, params)]

    async def execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        async with self._conn.execute(sql, params) as cursor:
            return max(cursor.rowcount, 0)

    async def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        await self._conn.executemany(sql, rows)


class SqliteDriver(Driver):
    integrity_errors = (sqlite3.IntegrityError,)

    def __init__(self, conn: aiosqlite.Connection) -> None:
        self._conn = conn
        self._session = _SqliteSession(conn)
        self._lock = asyncio.Lock()

    def transaction(self, *, write: bool) -> AbstractAsyncContextManager[Session]:
        return self._transaction("BEGIN IMMEDIATE" if write else "BEGIN DEFERRED")

    @asynccontextmanager
    async def _transaction(self, begin: str) -> AsyncGenerator[Session]:
        async with self._lock:
            conn = self._conn
            await conn.execute(begin)
            try:
                yield self._session
            except BaseException:
                if conn.in_transaction:
                    await conn.execute("ROLLBACK")
                raise
            await conn.execute("COMMIT")

    async def close(self) -> None:
        async with self._lock:
            await self._conn.close()


class SqliteStorage(SqlStorage):
    @classmethod
    async def open(
        cls, url: str | Path, *, clock: Callable[[], datetime] = utc_now, synchronous: str = "FULL"
    ) -> SqliteStorage:
        if synchronous not in SYNCHRONOUS_MODES:
            raise ValueError(
                f"synchronous must be one of {', '.join(SYNCHRONOUS_MODES)}, not {synchronous!r}"
            )
        path = sqlite_path(url)
        conn = await aiosqlite.connect(path, isolation_level=None)  # autocommit: transactions are ours
        try:
            await conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            rows = list(await conn.execute_fetchall("PRAGMA journal_mode = WAL"))
            if rows[0][0] != "wal" and path != ":memory:":
                raise StorageError(f"could not switch {path!r} to WAL mode (it stays in {rows[0][0]!r})")
            await conn.execute(f"PRAGMA synchronous = {synchronous}")
            await conn.execute("PRAGMA foreign_keys = ON")
            await migrate(conn)
        except BaseException:
            await conn.close()
            raise
        return cls(SqliteDriver(conn), clock=clock)
