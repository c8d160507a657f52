"""The PostgreSQL backend through asyncpg, for deployments running several bot processes (DESIGN §3, §6).

Same logic and tests as SQLite (``sql.SqlStorage``); what differs is how the database serialises writers: each
write transaction starts with ``SELECT … FROM encounters WHERE id = $1 FOR UPDATE``, so writes to one encounter
queue on its row lock while other encounters proceed. Reads run in ``REPEATABLE READ READ ONLY`` transactions
(one consistent snapshot). Migrations hold a transaction-scoped advisory lock, so processes starting together
migrate once.

asyncpg (the ``postgres`` extra) is imported only when a PostgreSQL database is opened: a SQLite-only install can
import this module, and ``open`` says what to install when it is missing.
"""

from __future__ import annotations

import functools
from collections.abc import AsyncGenerator, Callable, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from datetime import datetime
from typing import Any, Final, cast

from .model import BackendUnavailableError, StorageError
from .schema import POSTGRES_MIGRATIONS
from .sql import Driver, Row, Session, SqlStorage, utc_now

# any constant works; it only has to be the same in every process that migrates this database ("hexd")
_MIGRATION_LOCK_KEY: Final = 0x68657864


@functools.lru_cache(maxsize=256)
def numbered_placeholders(sql: str) -> str:
    """``?`` placeholders (the shared SQL's style) to asyncpg's ``$1, $2, …``; our SQL has no literal ``?``."""
    parts = sql.split("?")
    return parts[0] + "".join(f"${number}{part}" for number, part in enumerate(parts[1:], start=1))


def _row_count(status: str) -> int:
    # asyncpg returns the command tag: "INSERT 0 1", "UPDATE 3", "DELETE 0"
    last = status.rsplit(" ", 1)[-1]
    return int(last) if last.isdigit() else 0


class _PostgresSession(Session):
    __slots__ = ("_conn", "lock_clause")

    def __init__(self, conn: Any, *, write: bool) -> None:
        self._conn = conn
        self.lock_clause = " FOR UPDATE" if write else ""

    async def fetch(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        # asyncpg's Records are read by column name as they are
        return cast(list[Row], await self._conn.fetch(numbered_placeholders(sql), *params))

    async def execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        return _row_count(cast(str, await self._conn.execute(numbered_placeholders(sql), *params)))

    async def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        if rows:
            await self._conn.executemany(numbered_placeholders(sql), rows)


class PostgresDriver(Driver):
    shared = True  # the deployment with several bot processes (DESIGN §3)

    def __init__(self, pool: Any) -> None:
        import asyncpg  # pyright: ignore[reportMissingTypeStubs]  # a pool exists: asyncpg is installed

        self._pool = pool
        self.integrity_errors = (asyncpg.IntegrityConstraintViolationError,)

    def transaction(
        self, *, write: bool, durable: bool = True, bulk: bool = False, key: int | None = None
    ) -> AbstractAsyncContextManager[Session]:
        return self._transaction(
            write, durable
        )  # asyncpg reads off the loop's hands anyway: bulk changes nothing

    @asynccontextmanager
    async def _transaction(self, write: bool, durable: bool) -> AsyncGenerator[Session]:
        async with self._pool.acquire() as conn:
            isolation = "read_committed" if write else "repeatable_read"
            async with conn.transaction(isolation=isolation, readonly=not write):
                if write and not durable:
                    await conn.execute("SET LOCAL synchronous_commit = off")  # this transaction only
                yield _PostgresSession(conn, write=write)

    async def close(self) -> None:
        await self._pool.close()


async def migrate_postgres(conn: Any, migrations: tuple[tuple[str, ...], ...] = POSTGRES_MIGRATIONS) -> int:
    target = len(migrations)
    while True:
        async with conn.transaction():
            await conn.execute("SELECT pg_advisory_xact_lock($1)", _MIGRATION_LOCK_KEY)
            await conn.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
            version = cast(int | None, await conn.fetchval("SELECT version FROM schema_version")) or 0
            if version > target:
                raise StorageError(
                    f"the database has schema version {version}, newer than this bot understands ({target}); "
                    "upgrade the bot"
                )
            if version == target:
                return version
            for statement in migrations[version]:
                await conn.execute(statement)
            if version == 0:
                await conn.execute("INSERT INTO schema_version (version) VALUES (1)")
            else:
                await conn.execute("UPDATE schema_version SET version = $1", version + 1)


class PostgresStorage(SqlStorage):
    @classmethod
    async def open(
        cls, url: str, *, clock: Callable[[], datetime] = utc_now, max_connections: int = 10
    ) -> PostgresStorage:
        try:
            import asyncpg  # pyright: ignore[reportMissingTypeStubs]
        except ImportError as error:
            raise BackendUnavailableError(
                "the PostgreSQL backend needs asyncpg: pip install 'hexdirector[postgres]'"
            ) from error
        try:
            pool: Any = await asyncpg.create_pool(  # pyright: ignore[reportUnknownMemberType]
                url, min_size=1, max_size=max_connections
            )
        except (OSError, asyncpg.PostgresError) as error:
            raise StorageError(f"cannot connect to PostgreSQL: {error}") from error
        try:
            async with pool.acquire() as conn:
                await migrate_postgres(conn)
        except BaseException:
            await pool.close()
            raise
        return cls(PostgresDriver(pool), clock=clock)
