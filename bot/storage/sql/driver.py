"""What a SQL backend supplies to the shared storage logic: a ``Driver`` that opens transactions, and the
``Session`` of one open transaction, whose statements use ``?`` placeholders and return rows read by column name.
"""

from __future__ import annotations

import abc
from collections.abc import Sequence
from contextlib import AbstractAsyncContextManager
from typing import Any, Protocol


class Row(Protocol):
    """A result row read by column name (``row["phase_no"]``). SQLite's ``sqlite3.Row`` and asyncpg's ``Record``
    both are one, so a backend hands its rows over as the database driver made them."""

    def __getitem__(self, column: str, /) -> Any: ...


class Session(abc.ABC):
    """One open transaction. SQL uses ``?`` placeholders; rows are read by column name."""

    #: appended to the encounter-row read that starts a write ("FOR UPDATE" where row locks exist)
    lock_clause: str = ""

    @abc.abstractmethod
    async def fetch(self, sql: str, params: Sequence[Any] = ()) -> list[Row]: ...

    @abc.abstractmethod
    async def execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        """Run one statement; returns the number of rows it changed."""

    @abc.abstractmethod
    async def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None: ...

    async def fetch_row(self, sql: str, params: Sequence[Any] = ()) -> Row | None:
        """The first row of the result, or ``None`` when there is none."""
        rows = await self.fetch(sql, params)
        return rows[0] if rows else None


class Driver(abc.ABC):
    #: what the driver raises when a unique or foreign-key constraint refuses a row
    integrity_errors: tuple[type[Exception], ...] = ()
    #: whether other processes may write the database (PostgreSQL): what one process wrote it may then keep in
    #: memory only as long as its reads of it would tell no older story (see ``Bookkeeping.get_user_palette``)
    shared: bool = False

    @abc.abstractmethod
    def transaction(
        self, *, write: bool, durable: bool = True, bulk: bool = False, key: int | None = None
    ) -> AbstractAsyncContextManager[Session]:
        """Writes take the database's write lock (or row locks); reads see one consistent snapshot.
        ``durable=False`` (bookkeeping only, never game state or orders): the commit survives a crash of the
        bot but may be lost with a power cut, and costs no disk sync. ``bulk``: a read of many large rows (every
        snapshot of an encounter, or an import's), which must not run on the event loop's thread. ``key``: the
        encounter the transaction is about, if one (a read of it sees a write to it whose caller is still waiting
        for the commit; see bot/storage/sqlite.py)."""

    @abc.abstractmethod
    async def close(self) -> None: ...
