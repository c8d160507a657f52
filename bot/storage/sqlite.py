"""The embedded backend: one SQLite file through aiosqlite (DESIGN §3).

Durability: WAL journal with ``synchronous=FULL``, so a committed transaction survives a process kill *and* a
power loss (NORMAL survives only the former). Every write runs in ``BEGIN IMMEDIATE``: the file's write lock,
not process memory, serialises writers across tasks and processes, and the phase checks are made under it;
``busy_timeout`` makes a second writer wait instead of failing. Reads run in ``BEGIN DEFERRED`` and so see one
consistent snapshot. Always ``await close()`` (or use ``async with``): aiosqlite's worker thread is not a
daemon, so an unclosed storage keeps the process alive.

Latency (issue 7 bench): a statement sent through aiosqlite's thread costs one event-loop round trip, and a busy
loop made that 10-20 ms per statement, ~50 ms per transaction, ~500 ms per resolution. So a transaction first
runs *inline* on a second, plain ``sqlite3`` connection with ``busy_timeout = 0``: in WAL mode it never waits
on another reader, its statements take microseconds, and it completes without yielding to the loop. Only when
the file's write lock is held by someone else (another process, or our own fallback in flight) does ``BEGIN``
report busy; that transaction then runs on the aiosqlite connection, whose ``busy_timeout`` waits in its thread
without blocking the loop. One ``asyncio.Lock`` per connection keeps one task's transaction from interleaving
with another's statements on it. A write's COMMIT (the WAL fsync, the one slow statement) runs on a commit thread
while the loop goes on; transactions arriving meanwhile wait those few milliseconds for the inline connection.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncGenerator, Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from datetime import datetime
from pathlib import Path
from typing import Any, Final

import aiosqlite

from .base import StorageError
from .schema import migrate
from .sql import Driver, Row, Session, SqlStorage, utc_now

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

    async def fetch(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        async with self._conn.execute(sql, params) as cursor:
            # named columns for this cursor only: the connection's own rows stay tuples (migrations read those)
            cursor.row_factory = sqlite3.Row
            return list(await cursor.fetchall())

    async def execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        async with self._conn.execute(sql, params) as cursor:
            return max(cursor.rowcount, 0)

    async def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        await self._conn.executemany(sql, rows)


class _InlineSession(Session):
    """Statements on the loop's own thread: no hop, microseconds each (see the module docstring)."""

    __slots__ = ("_conn",)

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn

    async def fetch(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        cursor = self._conn.cursor()
        cursor.row_factory = sqlite3.Row  # named columns, as on the aiosqlite connection
        return cursor.execute(sql, params).fetchall()

    async def execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        return max(self._conn.execute(sql, params).rowcount, 0)

    async def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        self._conn.executemany(sql, rows)


def _is_busy(error: sqlite3.OperationalError) -> bool:
    return getattr(error, "sqlite_errorcode", None) in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED) or (
        "locked" in str(error)
    )


class SqliteDriver(Driver):
    integrity_errors = (sqlite3.IntegrityError,)

    def __init__(
        self, conn: aiosqlite.Connection, inline: sqlite3.Connection | None = None, synchronous: str = "FULL"
    ) -> None:
        self._conn = conn
        self._synchronous = synchronous
        self._session = _SqliteSession(conn)
        self._lock = asyncio.Lock()
        self._inline = inline
        self._inline_session = _InlineSession(inline) if inline is not None else None
        self._inline_lock = asyncio.Lock()
        self._syncing = False  # a write's COMMIT is running on the commit thread
        self._committer = ThreadPoolExecutor(1, thread_name_prefix="hexd-sqlite-commit")
        self.fallbacks = 0  # transactions that found the write lock taken and went through the thread

    def transaction(
        self, *, write: bool, durable: bool = True, bulk: bool = False
    ) -> AbstractAsyncContextManager[Session]:
        if bulk:
            # megabytes of snapshots read or written inline held the loop for half a second at 800 ships (issue 15
            # item 3): a bulk transaction goes through aiosqlite's thread
            return self._threaded("BEGIN IMMEDIATE" if write else "BEGIN DEFERRED")
        return self._transaction(
            "BEGIN IMMEDIATE" if write else "BEGIN DEFERRED", write=write, durable=durable
        )

    @asynccontextmanager
    async def _transaction(self, begin: str, *, write: bool, durable: bool) -> AsyncGenerator[Session]:
        inline, session = self._inline, self._inline_session
        relaxed = write and not durable and self._synchronous != "NORMAL"
        # the inline connection is busy only for a moment while a commit is synced: wait for it then
        usable = not self._inline_lock.locked() or self._syncing
        if inline is not None and session is not None and usable:
            async with self._inline_lock:
                if relaxed:  # WAL + NORMAL: no sync at commit (the level cannot change inside a transaction)
                    inline.execute("PRAGMA synchronous = NORMAL")
                try:
                    try:
                        inline.execute(begin)
                        # a read snapshot starts at the first read: take it now, so "busy" can only happen here
                        inline.execute("SELECT 1 FROM schema_version LIMIT 1").fetchall()
                        started = True
                    except sqlite3.OperationalError as error:
                        if not _is_busy(error):
                            raise
                        if inline.in_transaction:
                            inline.execute("ROLLBACK")
                        started = False
                    if started:
                        try:
                            yield session
                        except BaseException:
                            if inline.in_transaction:
                                inline.execute("ROLLBACK")
                            raise
                        if write and durable and self._synchronous != "NORMAL":
                            await self._commit_off_loop(inline)
                        else:
                            inline.execute("COMMIT")  # nothing to sync: a read, or a relaxed write
                        return
                finally:
                    if relaxed:
                        inline.execute(f"PRAGMA synchronous = {self._synchronous}")
            self.fallbacks += 1
        async with self._threaded(begin) as threaded:
            yield threaded

    async def _commit_off_loop(self, inline: sqlite3.Connection) -> None:
        """COMMIT of a write syncs the WAL to disk (synchronous=FULL: ~1 ms here, far more on slow disks): do it
        on the commit thread so the loop keeps answering interactions meanwhile. The caller holds the inline lock
        until the commit is over, even if it is cancelled: nothing else may touch the connection mid-commit,
        and a cancelled caller's write still commits (an order stored but not acknowledged is harmless; the
        reverse would not be)."""
        self._syncing = True
        try:
            commit = asyncio.get_running_loop().run_in_executor(self._committer, inline.execute, "COMMIT")
            try:
                await asyncio.shield(commit)
            except asyncio.CancelledError:
                await asyncio.wait([commit])
                raise
        except sqlite3.Error:
            if inline.in_transaction:
                inline.execute("ROLLBACK")
            raise
        finally:
            self._syncing = False

    @asynccontextmanager
    async def _threaded(self, begin: str) -> AsyncGenerator[Session]:
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
            async with self._inline_lock:
                if self._inline is not None:
                    self._inline.close()
                    self._inline = self._inline_session = None
            self._committer.shutdown(wait=True)
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
            inline = None
            if path != ":memory:":  # a second connection to :memory: would be another, empty database
                # used from the loop's thread and (COMMIT only, under the inline lock) the commit thread
                inline = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
                inline.execute("PRAGMA busy_timeout = 0")  # never wait on the loop: fall back instead
                inline.execute(f"PRAGMA synchronous = {synchronous}")
                inline.execute("PRAGMA foreign_keys = ON")
        except BaseException:
            await conn.close()
            raise
        return cls(SqliteDriver(conn, inline, synchronous), clock=clock)
