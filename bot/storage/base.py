"""The storage interface every backend implements (DESIGN §3); its row types and errors are in ``model``.

Storage knows nothing about the rules: a game state is an opaque JSON-able ``dict`` (the engine has its own
``to_json``/``from_json``) and an event is a ``(type, payload)`` pair. What storage guarantees:

* every write is one transaction; a call that returns has been committed (durable);
* an encounter is an append-only event log plus snapshots; loading is "latest snapshot + later events";
* a phase is resolved at most once: resolution is guarded by the expected phase number inside the
  database's write lock, so racing resolvers (tasks or processes) get exactly one resolution;
* a player's pending orders are readable only by that player (``orders_of``); only the resolver reads them
  all (``orders_for_resolution``); the event log never carries order contents.
"""

from __future__ import annotations

import abc
import asyncio
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any

from .export import export_document, import_rows
from .model import (
    DEFAULT_MAX_OPEN,
    ENCOUNTER_CREATED,
    ENCOUNTER_IMPORTED,
    ORDER_ACCEPTED,
    PARTICIPANT_ADDED,
    PARTICIPANT_REMOVED,
    PHASE_RESOLVED,
    RESERVED_EVENT_TYPES,
    ROLES,
    SETTINGS_CHANGED,
    STATUS_CHANGED,
    STATUSES,
    UNDONE,
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
    ExportRows,
    GuildSettings,
    HistoryStep,
    ImportRows,
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
    StorageError,
    StoredEvent,
    UndoneStep,
    UnitTakenError,
    Unset,
)

# the row types, errors and event types are also read from here, beside the interface that uses them
__all__ = [
    "DEFAULT_MAX_OPEN",
    "ENCOUNTER_CREATED",
    "ENCOUNTER_IMPORTED",
    "ORDER_ACCEPTED",
    "PARTICIPANT_ADDED",
    "PARTICIPANT_REMOVED",
    "PHASE_RESOLVED",
    "RESERVED_EVENT_TYPES",
    "ROLES",
    "SETTINGS_CHANGED",
    "STATUSES",
    "STATUS_CHANGED",
    "UNDONE",
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
    "ExportRows",
    "GuildSettings",
    "HistoryStep",
    "ImportRows",
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
    "StalePhaseError",
    "Storage",
    "StorageError",
    "StoredEvent",
    "UndoneStep",
    "UnitTakenError",
    "Unset",
]

# --- the interface ------------------------------------------------------------------------------------------


class Storage(abc.ABC):
    """Async, typed access to encounters. Backends: ``SqliteStorage`` (default), ``PostgresStorage``.

    Obtain one with ``await open_storage(url)``; call ``await close()`` when done (or use ``async with``).
    """

    async def __aenter__(self) -> Storage:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    @abc.abstractmethod
    async def close(self) -> None: ...

    # encounters
    @abc.abstractmethod
    async def create_encounter(
        self,
        guild_id: int,
        channel_id: int,
        ruleset: str,
        name: str,
        created_by: int,
        state: Mapping[str, Any],
        settings: Mapping[str, Any] | None = None,
        *,
        phase_no: int = 1,
    ) -> int:
        """Create an encounter (status ``open``) with its first snapshot; raises ``ChannelBusyError``."""

    @abc.abstractmethod
    async def get_encounter(self, encounter_id: int) -> Encounter: ...

    @abc.abstractmethod
    async def active_encounter_in_channel(self, guild_id: int, channel_id: int) -> Encounter | None: ...

    @abc.abstractmethod
    async def list_encounters(self, guild_id: int, active_only: bool = False) -> list[Encounter]: ...

    @abc.abstractmethod
    async def count_open_encounters(self, guild_id: int, created_by: int) -> int:
        """How many encounters ``created_by`` opened in the guild that have not ended (the open limit's count)."""

    @abc.abstractmethod
    async def running_encounters(self) -> list[Encounter]:
        """Every encounter being played, in all guilds (what the bot resumes when it starts)."""

    @abc.abstractmethod
    async def set_encounter_status(self, encounter_id: int, status: EncounterStatus) -> Encounter: ...

    @abc.abstractmethod
    async def update_settings(self, encounter_id: int, **changes: Any) -> Encounter:
        """Merge ``changes`` into the encounter's settings; a value of ``None`` removes the key."""

    @abc.abstractmethod
    async def swap_settings(self, encounter_id: int, **changes: Any) -> tuple[dict[str, Any], dict[str, Any]]:
        """As :meth:`update_settings`, returning the settings just before and just after this change, both read
        under the same write: of two changes made at once, each sees the other either before it or after it,
        never both (so only one of them completes a decision)."""

    @abc.abstractmethod
    async def note_settings(self, encounter_id: int, **changes: Any) -> None:
        """Bookkeeping settings (what the channel was last shown): merged like :meth:`update_settings` but
        logged as no event, so ``last_seq`` and every read cached on it stay valid, and written without a disk
        sync (a power cut may lose the note: the step is then posted again; a crash of the bot does not)."""

    # participants
    @abc.abstractmethod
    async def add_participant(
        self,
        encounter_id: int,
        user_id: int,
        role: Role,
        side: str | None = None,
        unit: str | None = None,
        *,
        reassign: bool = False,
    ) -> Participant:
        """Idempotent. A unit has one holder: another user's unit raises ``UnitTakenError`` unless
        ``reassign`` (a director's assignment) moves it."""

    @abc.abstractmethod
    async def remove_participant(
        self, encounter_id: int, user_id: int, *, role: Role | None = None, unit: str | None = None
    ) -> int:
        """Remove the user's rows (narrowed by role/unit when given); returns how many were removed."""

    @abc.abstractmethod
    async def participants(self, encounter_id: int) -> list[Participant]: ...

    # event log
    @abc.abstractmethod
    async def load(self, encounter_id: int) -> Loaded: ...

    @abc.abstractmethod
    async def last_seq(self, encounter_id: int) -> int:
        """The encounter's newest event number. Every change to the encounter row, its participants, events,
        orders and snapshots appends an event, so an unchanged number means an unchanged encounter: callers
        validate what they cached with one cheap read (several bot processes may share the database)."""

    @abc.abstractmethod
    async def events(
        self,
        encounter_id: int,
        since_seq: int = 0,
        types: Iterable[str] | None = None,
        limit: int | None = None,
    ) -> list[StoredEvent]:
        """The events after ``since_seq`` (of ``types``), oldest first; ``limit``: only the first that many (a
        question about the start of a range decodes no more of the log than it needs)."""

    @abc.abstractmethod
    async def append_event(self, encounter_id: int, type: str, payload: Mapping[str, Any]) -> StoredEvent:
        """Log an event that does not change the state (a table roll, a notice). Reserved types are refused."""

    @abc.abstractmethod
    async def snapshot_chain(self, encounter_id: int) -> list[HistoryStep]:
        """The snapshots that lead to the current state, oldest first, each with the events that produced it (for
        the replay). Undone steps are not on the chain; an undo's copy stands for the snapshot it restored."""

    @abc.abstractmethod
    async def undone_steps(self, encounter_id: int, after_seq: int = 0) -> list[UndoneStep]:
        """Every step an undo took back, in the order they were undone (nothing is deleted: the log keeps them);
        ``after_seq``: only the undos logged after that event."""

    @abc.abstractmethod
    async def last_order_seq(self, encounter_id: int, user_id: int) -> int:
        """The log number of the newest order ``user_id`` gave in the encounter (its ``OrderAccepted`` event; 0:
        none yet), found without decoding the log."""

    # orders
    @abc.abstractmethod
    async def submit_order(
        self, encounter_id: int, phase_no: int, unit_id: str, user_id: int, order: Mapping[str, Any]
    ) -> Ack:
        """Store an order durably; an amendment replaces the unit's earlier order of the phase; the same order as
        the one stored (same player, same body) writes nothing (``Ack.unchanged``), so rows grow with orders, not
        with clicks. Raises ``StalePhaseError`` when ``phase_no`` is not the current phase."""

    @abc.abstractmethod
    async def orders_of(self, encounter_id: int, phase_no: int, user_id: int) -> list[PendingOrder]:
        """The pending orders of the current phase whose latest version was given by ``user_id``."""

    @abc.abstractmethod
    async def submitted_units(self, encounter_id: int, phase_no: int) -> list[str]:
        """Units with an order in for the current phase, never what they ordered (sorted)."""

    @abc.abstractmethod
    async def orders_for_resolution(self, encounter_id: int, phase_no: int) -> OrdersForResolution:
        """Every pending order of the phase. For the resolver only."""

    @abc.abstractmethod
    async def commit_resolution(
        self,
        encounter_id: int,
        expected_phase_no: int,
        events: Sequence[EventSpec],
        new_state: Mapping[str, Any],
        *,
        based_on: OrdersForResolution | None = None,
        next_deadline: tuple[datetime, datetime | None] | None = None,
    ) -> CommitOutcome:
        """In one transaction: append ``events`` and a ``PhaseResolved`` event, snapshot ``new_state`` and move
        to phase ``expected_phase_no + 1``, with ``next_deadline`` (due, remind at) as that phase's deadline if
        given (so a crash never leaves the new phase without the deadline it was opened with). Returns
        ``AlreadyResolved`` (nothing written) when the phase is stale and ``InputsChanged`` when ``based_on`` no
        longer matches the pending orders or the snapshot."""

    @abc.abstractmethod
    async def record_override(
        self,
        encounter_id: int,
        expected_phase_no: int,
        event: EventSpec,
        new_state: Mapping[str, Any],
    ) -> StoredEvent:
        """A director's change to the state inside the current phase: logged and snapshotted (undoable).
        Raises ``StalePhaseError``."""

    @abc.abstractmethod
    async def undo(
        self, encounter_id: int, *, expected_phase_no: int | None = None, by: int | None = None
    ) -> int:
        """Restore the snapshot before the current one and append ``Undone``; returns the restored phase.
        ``by``: who undid it (a user id), kept in the ``Undone`` event so the log can say who (an undo recorded
        without it reads as the director's). Nothing is deleted. Raises ``NothingToUndoError`` (and
        ``StalePhaseError`` when guarded)."""

    @abc.abstractmethod
    async def can_undo(self, encounter_id: int) -> bool:
        """Whether :meth:`undo` has a snapshot to go back to now (asked before a public answer, so that "nothing
        to undo" stays private)."""

    # export / import
    @abc.abstractmethod
    async def export_rows(self, encounter_id: int) -> ExportRows:
        """What an export is built from, as stored (``storage.export.export_document`` builds it)."""

    async def export_encounter(self, encounter_id: int) -> JsonDict:
        """The export document (built in a worker thread; the bot builds large ones in a worker process)."""
        return await asyncio.to_thread(export_document, await self.export_rows(encounter_id))

    async def import_encounter(self, data: Mapping[str, Any], guild_id: int, channel_id: int) -> int:
        """Validate an export (``InvalidExportError`` with a clear message) and store it as a new encounter."""
        return await self.import_prepared(await asyncio.to_thread(import_rows, data), guild_id, channel_id)

    @abc.abstractmethod
    async def import_prepared(self, rows: ImportRows, guild_id: int, channel_id: int) -> int:
        """Store an import's checked rows as a new encounter (``ChannelBusyError`` when the channel has one)."""

    # guild settings
    @abc.abstractmethod
    async def get_guild_settings(self, guild_id: int) -> GuildSettings: ...

    @abc.abstractmethod
    async def set_guild_settings(
        self,
        guild_id: int,
        *,
        language: str | Unset | None = UNSET,
        director_role_id: int | Unset | None = UNSET,
        default_deadline_minutes: int | Unset | None = UNSET,
        tutorial_shown: bool | Unset = UNSET,
        max_open_encounters: int | Unset | None = UNSET,
        import_managers_only: bool | Unset = UNSET,
        idle_reminder_hours: int | Unset | None = UNSET,
        palette: str | Unset | None = UNSET,
    ) -> GuildSettings: ...

    # a person's own settings, in every server
    @abc.abstractmethod
    async def get_user_palette(self, user_id: int) -> str | None:
        """The colour scheme ``user_id`` chose for the pictures only they see (None: none chosen)."""

    @abc.abstractmethod
    async def set_user_palette(self, user_id: int, palette: str | None) -> None: ...

    @abc.abstractmethod
    async def dm_channel_of(self, user_id: int) -> int | None:
        """The id of ``user_id``'s DM channel with the bot, as last recorded (None: never recorded)."""

    @abc.abstractmethod
    async def set_dm_channel(self, user_id: int, channel_id: int) -> None:
        """Record ``user_id``'s DM channel (bookkeeping: no disk sync; a lost one is only opened again)."""

    @abc.abstractmethod
    async def forget_dm_channel(self, user_id: int, channel_id: int) -> None:
        """Drop ``user_id``'s DM channel if it is still ``channel_id`` (one Discord no longer knows); a newer one
        recorded meanwhile by another process stays."""

    # timers
    @abc.abstractmethod
    async def set_deadline(
        self,
        encounter_id: int,
        phase_no: int,
        when_utc: datetime | None,
        *,
        remind_at: datetime | None = None,
    ) -> None:
        """One pending deadline per encounter; ``None`` clears it. ``remind_at``: when to remind the missing."""

    @abc.abstractmethod
    async def deadline_of(self, encounter_id: int) -> Deadline | None:
        """The encounter's pending deadline, if any (whatever its phase: callers compare ``phase_no``)."""

    @abc.abstractmethod
    async def due_reminders(self, now: datetime) -> list[Deadline]:
        """Deadlines whose reminder time has come, of running encounters still in the deadline's phase."""

    @abc.abstractmethod
    async def clear_reminder(self, encounter_id: int, phase_no: int) -> bool:
        """Take the reminder off (it is sent once); False when another process took it first."""

    @abc.abstractmethod
    async def due_deadlines(self, now: datetime) -> list[Deadline]:
        """Deadlines at or before ``now`` of running encounters still in the deadline's phase."""

    @abc.abstractmethod
    async def claim_deadline(
        self, encounter_id: int, phase_no: int, now: datetime, lease_until: datetime
    ) -> bool:
        """Take phase ``phase_no``'s deadline, due at ``now``, to resolve it: True for exactly one of the processes
        that saw it due. Its time moves to ``lease_until``, so it fires again then only if the taker died before
        resolving the phase (a resolved phase's deadline never fires: it is no longer the current phase)."""

    @abc.abstractmethod
    async def clear_deadline(self, encounter_id: int, phase_no: int) -> bool:
        """Remove the deadline if it is still phase ``phase_no``'s (a newer phase's deadline stays)."""

    # message bookkeeping (status message of a phase, a DM panel per unit ...)
    @abc.abstractmethod
    async def set_message_ref(
        self, encounter_id: int, kind: str, key: str, channel_id: int, message_id: int
    ) -> None: ...

    @abc.abstractmethod
    async def get_message_ref(self, encounter_id: int, kind: str, key: str) -> MessageRef | None: ...

    @abc.abstractmethod
    async def message_refs(self, encounter_id: int, kind: str | None = None) -> list[MessageRef]: ...

    @abc.abstractmethod
    async def delete_message_ref(self, encounter_id: int, kind: str, key: str) -> bool: ...

    @abc.abstractmethod
    async def note_announcement(self, encounter_id: int, phase_no: int, message_id: int) -> bool:
        """Channel message ``message_id`` (a Discord snowflake, or the snowflake of the moment it was edited) shows
        phase ``phase_no``: recorded when that phase is still the current one and had not been shown yet (the
        first showing counts; every phase change forgets it). Bookkeeping: no event, no disk sync."""

    @abc.abstractmethod
    async def announcement(self, encounter_id: int) -> PhaseShown:
        """The current phase and the message that first showed it (``EncounterNotFoundError``)."""

    @abc.abstractmethod
    async def claim_message_ref(
        self, encounter_id: int, kind: str, key: str, *, holder: int, stale_before: datetime
    ) -> bool:
        """Take the sending of message (``kind``, ``key``) before sending it: True for exactly one process. The
        claim is a ref with ``message_id`` 0 (and ``holder`` as its channel) until :meth:`set_message_ref` records
        what was sent. A claim left unsent is taken again when it was last taken before ``stale_before`` (its
        process died mid-send), or when it is ``holder``'s own: a restarted process (same ``holder``: the same
        shards) takes back what it held before it died; it must not ask for a claim it is still sending."""
