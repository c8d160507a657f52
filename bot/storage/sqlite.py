"""The embedded backend: one SQLite file through aiosqlite (DESIGN §3).

Durability: WAL journal with ``synchronous=FULL``, so a committed transaction survives a process kill *and* a
power loss (NORMAL survives only the former). Every write runs in ``BEGIN IMMEDIATE``: the file's write lock,
not process memory, serialises writers across tasks and processes, and the phase checks are made under it;
``busy_timeout`` makes a second writer wait instead of failing. Reads run in ``BEGIN DEFERRED`` and so see one
consistent snapshot. Always ``await close()`` (or use ``async with``): aiosqlite's worker thread is not a
daemon, so an unclosed storage keeps the process alive.

Latency: a statement sent through aiosqlite's thread costs one event-loop round trip, and a busy
loop made that 10-20 ms per statement, ~50 ms per transaction, ~500 ms per resolution. So transactions run
*inline*, on plain ``sqlite3`` connections used from the loop's thread with ``busy_timeout = 0``: their statements
take microseconds and complete without yielding to the loop.

* Reads have a connection of their own (``query_only``): in WAL mode a read sees the last commit and never queues
  behind writers. A read of an encounter waits only for a write to that encounter still syncing (one sync at
  most), so a caller acting right after another's write does not act on the state before it.
* Writes share a second one. A durable write's COMMIT (the WAL sync, the one slow statement) runs on a commit
  thread while the loop goes on; writes arriving meanwhile run, each in its own savepoint, in the next
  transaction, which one COMMIT then makes durable for all of them (group commit: each caller returns only once
  its write is synced). A burst of 100 joins otherwise synced 100 times in a row, and every read waited for those
  syncs (board p95 1.1-2.4 s without group commit, 0.17-0.71 s with it, at 100 encounters).
* No statement on the loop waits inside SQLite: in WAL mode a read takes no lock, and the checkpoints (copying the
  WAL into the database file, with its sync) run on a thread of their own, every :data:`CHECKPOINT_EVERY` commits,
  never at an inline COMMIT (SQLite's automatic checkpoint runs at whichever COMMIT crosses its threshold). What
  a statement on the loop can still wait for is the GIL: the ``sqlite3`` module gives it up around each step, and
  a Python thread busy beside the loop (a large step decoded in a worker thread) keeps it up to the interpreter's
  switch interval (5 ms) before handing it back, once per statement; ``bench/storage.py`` measures it.
* Only when the file's write lock is held by someone else (another process, or our own fallback in flight) does
  ``BEGIN`` report busy; that transaction then runs on the aiosqlite connection, whose ``busy_timeout`` waits in
  its thread without blocking the loop. One ``asyncio.Lock`` per connection keeps one task's transaction from
  interleaving with another's statements on it.
"""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
from collections.abc import AsyncGenerator, Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from contextvars import ContextVar
from datetime import datetime
from pathlib import Path
from typing import Any, Final

import aiosqlite

from .model import StorageError
from .schema import migrate
from .sql import Driver, Row, Session, SqlStorage, utc_now

BUSY_TIMEOUT_MS: Final = 15_000
#: set while a write's body runs in a batch: a read from it must not wait for that batch's COMMIT
_IN_WRITE: ContextVar[bool] = ContextVar("hexd_sqlite_in_write", default=False)
SYNCHRONOUS_MODES: Final = ("FULL", "EXTRA", "NORMAL")
#: inline commits between two checkpoints run on their own thread (the WAL grows by their pages meanwhile)
CHECKPOINT_EVERY: Final = 200


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


class _Moment:
    """A moment tasks wait for: a batch's COMMIT over, the connection free again. Each waiter awaits a future of its
    own, set when the moment comes, and so wakes one pass of the loop after it: one future shared through
    ``asyncio.shield`` or ``asyncio.wait`` took two passes, and in the set-up burst of 100 encounters a pass of the
    bot's loop is 10-40 ms. A cancelled waiter cancels only its own future."""

    __slots__ = ("_error", "_loop", "_waiting", "over")

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._waiting: list[asyncio.Future[None]] = []
        self._error: Exception | None = None
        self.over = False

    async def settled(self) -> None:
        """Until the moment has come, however it went."""
        if not self.over:
            mine = self._loop.create_future()
            self._waiting.append(mine)
            await mine

    async def wait(self) -> None:
        """Until the moment has come; raises what it failed with."""
        await self.settled()
        if self._error is not None:
            raise self._error

    def arrive(self, error: Exception | None = None) -> None:
        if self.over:
            return
        self.over, self._error = True, error
        waiting, self._waiting = self._waiting, []
        for mine in waiting:
            if not mine.done():
                mine.set_result(None)


class _Batch:
    """Durable writes that share one COMMIT (group commit): each ran in a savepoint of one open transaction."""

    __slots__ = ("committed", "keys", "lost")

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.committed = _Moment(loop)
        self.keys: set[int] = set()  # the encounters its writes change
        self.lost = False  # SQLite rolled the whole transaction back under a writer: nothing of it may commit


class SqliteDriver(Driver):
    integrity_errors = (sqlite3.IntegrityError,)

    def __init__(
        self,
        conn: aiosqlite.Connection,
        inline: sqlite3.Connection | None = None,
        synchronous: str = "FULL",
        reader: sqlite3.Connection | None = None,
        checkpointer: sqlite3.Connection | None = None,
    ) -> None:
        self._conn = conn
        self._synchronous = synchronous
        self._session = _SqliteSession(conn)
        self._lock = asyncio.Lock()
        self._inline = inline
        self._inline_session = _InlineSession(inline) if inline is not None else None
        self._inline_lock = asyncio.Lock()
        self._reader = reader
        self._reader_session = _InlineSession(reader) if reader is not None else None
        self._reader_lock = asyncio.Lock()
        #: set while a batch's COMMIT runs on the commit thread; done when the connection is free again
        self._sync_over: _Moment | None = None
        self._batch: _Batch | None = None  # the open write transaction collecting writers, not yet committing
        self._synced: _Batch | None = None  # the batch whose COMMIT is running
        self._commits: set[asyncio.Task[None]] = set()
        self._committer = ThreadPoolExecutor(1, thread_name_prefix="hexd-sqlite-commit")
        #: copies the WAL into the database file, only ever on a thread of its own: a COMMIT never queues behind it
        self._checkpointer = checkpointer
        self._checkpointing = ThreadPoolExecutor(1, thread_name_prefix="hexd-sqlite-checkpoint")
        self._checkpoint_due: Future[None] | None = None  # the checkpoint asked for and not over yet
        self._inline_commits = 0  # since the last checkpoint
        self.fallbacks = 0  # transactions that found their inline connection taken: run on aiosqlite's thread
        self.commits = 0  # COMMITs of batches (group commit: fewer than the durable writes they carry)
        self.checkpoints = 0

    def transaction(
        self, *, write: bool, durable: bool = True, bulk: bool = False, key: int | None = None
    ) -> AbstractAsyncContextManager[Session]:
        if bulk:
            # megabytes of snapshots read or written inline held the loop for half a second at 800 ships:
            # a bulk transaction goes through aiosqlite's thread
            return self._threaded("BEGIN IMMEDIATE" if write else "BEGIN DEFERRED")
        return self._write(durable=durable, key=key) if write else self._read(key)

    @asynccontextmanager
    async def _read(self, key: int | None) -> AsyncGenerator[Session]:
        """A read on its own connection: in WAL mode it never queues behind writers and their syncs, which made a
        burst of clicks wait for every COMMIT before theirs."""
        # A write to this encounter whose body is over is seen, so a caller acting on the encounter right after
        # another's write (a director's move after the step a resolution just wrote) does not act on the step
        # before: wait for the newest batch with such a write, one sync at most (not from inside a write, whose
        # batch waits for it). Other reads (a channel's encounter, settings) need not wait: nobody has been told
        # of a write still syncing.
        pending = self._pending(key)
        if pending is not None and not _IN_WRITE.get():
            await pending.committed.settled()
        reader, session = self._reader, self._reader_session
        if reader is not None and session is not None and not self._reader_lock.locked():
            async with self._reader_lock:
                if _begin(reader, "BEGIN DEFERRED"):
                    try:
                        yield session
                    except BaseException:
                        if reader.in_transaction:
                            reader.execute("ROLLBACK")
                        raise
                    reader.execute("COMMIT")
                    return
        # a read that yields mid-transaction holds the reader (rare), or there is no second connection
        self.fallbacks += 1
        async with self._threaded("BEGIN DEFERRED") as threaded:
            yield threaded

    @asynccontextmanager
    async def _write(self, *, durable: bool, key: int | None) -> AsyncGenerator[Session]:
        inline, session = self._inline, self._inline_session
        # the inline connection is busy only for a moment while a batch is synced: wait for the end of that sync
        # together with every writer that came meanwhile; they then run back to back in one pass of the loop.
        # Queued on the lock instead, each woke the next one pass later: n writers took n passes of a busy loop
        # (a join's write waited 130 ms (p50) in the set-up burst of 100 encounters)
        while self._sync_over is not None:
            await self._sync_over.settled()
        usable = not self._inline_lock.locked()
        if inline is not None and session is not None and usable:
            batch: _Batch | None = None
            async with self._inline_lock:
                batch = self._batch
                if batch is None and (not durable or self._synchronous == "NORMAL"):
                    # nothing to sync at its commit: a bookkeeping write (WAL + NORMAL), or every write is so
                    async with self._unsynced(inline, session, relaxed=not durable) as unsynced:
                        if unsynced is not None:
                            yield unsynced
                            return
                elif batch is not None or _begin(inline, "BEGIN IMMEDIATE"):
                    if batch is None:
                        batch = self._open_batch(inline)
                    elif batch.lost:
                        # outside a transaction a savepoint's RELEASE commits: this write would commit alone
                        raise sqlite3.OperationalError("the transaction was rolled back by SQLite")
                    if key is not None:
                        batch.keys.add(key)
                    inline.execute("SAVEPOINT hexd_write")
                    inside = _IN_WRITE.set(True)
                    try:
                        yield session
                    except BaseException:
                        if inline.in_transaction:  # this writer's work only; the batch goes on
                            inline.execute("ROLLBACK TO hexd_write")
                            inline.execute("RELEASE hexd_write")
                        else:  # SQLite undid the whole transaction: the writers before this one lose theirs too
                            batch.lost = True
                        raise
                    finally:
                        _IN_WRITE.reset(inside)
                    inline.execute("RELEASE hexd_write")
            if batch is not None:
                await self._committed(batch)
                return
            self.fallbacks += 1
        async with self._threaded("BEGIN IMMEDIATE") as threaded:
            yield threaded

    @asynccontextmanager
    async def _unsynced(
        self, inline: sqlite3.Connection, session: Session, *, relaxed: bool
    ) -> AsyncGenerator[Session | None]:
        """A write committed on the loop without a sync (None: the file's write lock is taken, fall back)."""
        if relaxed:  # WAL + NORMAL for this transaction (the level cannot change inside one)
            inline.execute("PRAGMA synchronous = NORMAL")
        try:
            if not _begin(inline, "BEGIN IMMEDIATE"):
                yield None
                return
            try:
                yield session
            except BaseException:
                if inline.in_transaction:
                    inline.execute("ROLLBACK")
                raise
            inline.execute("COMMIT")
            self._committed_inline()
        finally:
            if relaxed:
                inline.execute(f"PRAGMA synchronous = {self._synchronous}")

    def _pending(self, key: int | None) -> _Batch | None:
        """The newest batch not yet committed with a write to encounter ``key``."""
        if key is None:
            return None
        for batch in (self._batch, self._synced):
            if batch is not None and key in batch.keys and not batch.committed.over:
                return batch
        return None

    def _open_batch(self, inline: sqlite3.Connection) -> _Batch:
        """Group commit: the COMMIT starts a pass of the loop later, so the writers that run meanwhile (all those
        that waited for the previous sync wake in one pass) are in this same transaction; one sync then makes all
        of them durable (a burst of 100 joins synced 100 times, one after the other, and every read waited for
        those syncs)."""
        batch = self._batch = _Batch(asyncio.get_running_loop())
        task = asyncio.get_running_loop().create_task(self._commit(inline, batch))
        self._commits.add(task)
        task.add_done_callback(self._commits.discard)
        return batch

    async def _commit(self, inline: sqlite3.Connection, batch: _Batch) -> None:
        """COMMIT syncs the WAL to disk (synchronous=FULL: ~0.4 ms here, far more on slow disks): it runs on the
        commit thread so the loop keeps answering interactions meanwhile, holding the inline lock until it is over
        even if cancelled (nothing else may touch the connection mid-commit; a cancelled writer's order stays
        stored: stored but not acknowledged is harmless, the reverse would not be)."""
        try:
            await self._inline_lock.acquire()
        except BaseException:  # cancelled before its turn (the loop is closing): no writer waits forever
            batch.committed.arrive(sqlite3.OperationalError("the commit was cancelled"))
            raise
        loop = asyncio.get_running_loop()
        over = False

        def sync_over() -> None:
            """The connection is free again: writers may use it from this pass of the loop, not the next one."""
            nonlocal over
            if not over:
                over = True
                self._synced = None
                waiting, self._sync_over = self._sync_over, None
                if waiting is not None:
                    waiting.arrive()
                self._inline_lock.release()

        try:
            self._batch = None  # writers from now on open the next batch
            self._synced = batch
            self._sync_over = _Moment(loop)
            try:
                if batch.lost:
                    raise sqlite3.OperationalError("the transaction was rolled back by SQLite")

                def commit_and_tell() -> None:
                    inline.execute("COMMIT")
                    self.commits += 1  # only this thread counts
                    # the writers, and those waiting for the connection, wake from here: one pass of a busy loop
                    # sooner than through this task
                    with contextlib.suppress(RuntimeError):  # the loop closed: the task settles it, if ever
                        loop.call_soon_threadsafe(_committed_now, batch.committed, sync_over)

                commit = loop.run_in_executor(self._committer, commit_and_tell)
                try:
                    await asyncio.shield(commit)
                except asyncio.CancelledError:
                    await asyncio.wait([commit])
                    raise
            except BaseException as error:
                if not over and inline.in_transaction:  # the COMMIT failed: the connection is still ours
                    inline.execute("ROLLBACK")
                batch.committed.arrive(
                    error if isinstance(error, Exception) else sqlite3.OperationalError("commit cancelled")
                )
                if not isinstance(error, Exception):
                    raise
            else:
                batch.committed.arrive()
                self._committed_inline()
        finally:
            sync_over()

    def _committed_inline(self) -> None:
        """Count a commit of the inline connection; every :data:`CHECKPOINT_EVERY` of them, checkpoint the WAL on
        the checkpoint thread (PASSIVE: it copies what no reader still needs, and waits for no reader or writer)."""
        self._inline_commits += 1
        checkpointer = self._checkpointer
        if checkpointer is None or self._inline_commits < CHECKPOINT_EVERY:
            return
        if self._checkpoint_due is not None and not self._checkpoint_due.done():
            return  # one under way copies these commits' pages too
        self._inline_commits = 0

        def checkpoint() -> None:
            checkpointer.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
            self.checkpoints += 1  # only this thread counts

        # one thread, one job at a time: the connection is never used by two at once
        self._checkpoint_due = self._checkpointing.submit(checkpoint)

    async def _committed(self, batch: _Batch) -> None:
        """Wait for the batch's COMMIT; a cancelled writer still waits for it to end (see :meth:`_commit`)."""
        try:
            await batch.committed.wait()
        except asyncio.CancelledError:
            await batch.committed.settled()
            raise

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
        while self._commits:  # the writes already made are committed before the connection goes
            await asyncio.wait(set(self._commits))
        async with self._lock:
            async with self._inline_lock, self._reader_lock:
                for conn in (self._inline, self._reader):
                    if conn is not None:
                        conn.close()
                self._inline = self._inline_session = self._reader = self._reader_session = None
            self._committer.shutdown(wait=True)
            self._checkpointing.shutdown(wait=True)  # a checkpoint under way ends first
            if self._checkpointer is not None:
                self._checkpointer.close()
                self._checkpointer = None
            await self._conn.close()


def _committed_now(committed: _Moment, free: Callable[[], None]) -> None:
    committed.arrive()
    free()


def _begin(conn: sqlite3.Connection, begin: str) -> bool:
    """Start a transaction on an inline connection; False if the file's lock is taken (busy: fall back)."""
    try:
        conn.execute(begin)
        # a read snapshot starts at the first read: take it now, so "busy" can only happen here
        conn.execute("SELECT 1 FROM schema_version LIMIT 1").fetchall()
        return True
    except sqlite3.OperationalError as error:
        if not _is_busy(error):
            raise
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        return False


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
            inline = reader = checkpointer = None
            if path != ":memory:":  # a second connection to :memory: would be another, empty database
                # used from the loop's thread and (COMMIT only, under the inline lock) the commit thread
                inline = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
                inline.execute("PRAGMA busy_timeout = 0")  # never wait on the loop: fall back instead
                inline.execute(f"PRAGMA synchronous = {synchronous}")
                inline.execute("PRAGMA foreign_keys = ON")
                # its COMMITs never checkpoint (an inline one would, on the loop): the checkpointer does
                inline.execute("PRAGMA wal_autocheckpoint = 0")
                checkpointer = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
                checkpointer.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")  # on its own thread only
                checkpointer.execute(f"PRAGMA synchronous = {synchronous}")
                # used under the reader lock, from the thread of whichever loop runs the storage
                reader = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
                reader.execute("PRAGMA busy_timeout = 0")
                reader.execute("PRAGMA query_only = ON")  # reads only: a write here would skip the batch
        except BaseException:
            await conn.close()
            raise
        return cls(SqliteDriver(conn, inline, synchronous, reader, checkpointer), clock=clock)
