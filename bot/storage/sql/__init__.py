"""The storage logic shared by the SQL backends (DESIGN §3), written once against a small ``Driver`` interface.

A backend supplies a ``Driver``: transactions and three statement calls, with ``?`` placeholders, rows read by
column name. Every write runs in one transaction that first reads the encounter's row under the database's write
lock (SQLite: ``BEGIN IMMEDIATE``; PostgreSQL: ``SELECT … FOR UPDATE``), so phase checks and sequence numbers are
decided by the database, never by process memory: racing tasks or processes give exactly one resolution.

``phase_no`` is the storage phase counter: it counts resolutions (the engine calls it ``step``; an encounter starts
at 1, each resolution adds one, undo steps back), never a ruleset's phase within a turn.

``SqlStorage`` is put together from one part per job: encounter rows, participants, the event log, the phase
machine (orders, resolution, override, undo), export/import records and bookkeeping.
"""

from __future__ import annotations

from .bookkeeping import Bookkeeping
from .codec import utc_now
from .driver import Driver, Row, Session
from .encounters import EncounterRows
from .events import EventLog
from .participants import Participants
from .phases import Phases
from .records import Records

__all__ = ["Driver", "Row", "Session", "SqlStorage", "utc_now"]


class SqlStorage(EncounterRows, Participants, EventLog, Phases, Records, Bookkeeping):
    """The ``Storage`` interface over any ``Driver``; construct it as ``SqlStorage(driver, clock=...)``."""
