"""Crash-safe, event-sourced encounter storage (DESIGN §3).

``await open_storage(url)`` returns a ``Storage``: ``sqlite:///path.db`` or a bare path opens the embedded SQLite
backend (the default); ``postgresql://…`` opens the asyncpg backend (``pip install 'hexdirector[postgres]'``).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from pathlib import Path

from .base import (
    UNSET,
    Ack,
    AlreadyResolved,
    BackendUnavailableError,
    ChannelBusyError,
    CommitOutcome,
    Deadline,
    Encounter,
    EncounterEndedError,
    EncounterNotFoundError,
    EncounterStatus,
    EventSpec,
    GuildSettings,
    InputsChanged,
    InvalidExportError,
    JsonDict,
    Loaded,
    MessageRef,
    NothingToUndoError,
    OrdersForResolution,
    Participant,
    PendingOrder,
    PhaseShown,
    Resolved,
    Role,
    StalePhaseError,
    Storage,
    StorageError,
    StoredEvent,
    UnitTakenError,
)
from .export import EXPORT_FORMAT, EXPORT_VERSION
from .sql import utc_now
from .sqlite import SqliteStorage

__all__ = [
    "EXPORT_FORMAT",
    "EXPORT_VERSION",
    "UNSET",
    "Ack",
    "AlreadyResolved",
    "BackendUnavailableError",
    "ChannelBusyError",
    "CommitOutcome",
    "Deadline",
    "Encounter",
    "EncounterEndedError",
    "EncounterNotFoundError",
    "EncounterStatus",
    "EventSpec",
    "GuildSettings",
    "InputsChanged",
    "InvalidExportError",
    "JsonDict",
    "Loaded",
    "MessageRef",
    "NothingToUndoError",
    "OrdersForResolution",
    "Participant",
    "PendingOrder",
    "PhaseShown",
    "Resolved",
    "Role",
    "SqliteStorage",
    "StalePhaseError",
    "Storage",
    "StorageError",
    "StoredEvent",
    "UnitTakenError",
    "open_storage",
]


async def open_storage(url: str | Path, *, clock: Callable[[], datetime] | None = None) -> Storage:
    """Open (creating and migrating if needed) the database named by ``url``:
    ``sqlite:///path.db`` or a bare path (SQLite), ``postgresql://user@host/db`` (PostgreSQL)."""
    text = str(url)
    scheme, _, _ = text.partition("://")
    clock = clock or utc_now
    if scheme in ("postgresql", "postgres"):
        from .postgres import PostgresStorage  # loaded on demand; it imports asyncpg only when opening

        return await PostgresStorage.open(text, clock=clock)
    if "://" in text and scheme != "sqlite":
        raise StorageError(f"unknown database URL scheme {scheme!r}; use sqlite:///path.db or postgresql://…")
    return await SqliteStorage.open(text, clock=clock)
