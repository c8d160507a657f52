"""What storage speaks in, with no storage code: row types, errors, the event types storage writes itself and the
JSON text its columns hold (DESIGN §3). Every other module of ``bot/storage`` (the ``Storage`` interface, the
export format, the SQL backends) imports from here and this module imports nothing of storage, so the imports
of the package run one way.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Final, Literal, TypeAlias, cast

JsonDict: TypeAlias = dict[str, Any]
EventSpec: TypeAlias = tuple[str, Mapping[str, Any]]
EncounterStatus: TypeAlias = Literal["open", "running", "paused", "ended"]
Role: TypeAlias = Literal["director", "codirector", "player"]

STATUSES: Final[frozenset[str]] = frozenset({"open", "running", "paused", "ended"})
ROLES: Final[frozenset[str]] = frozenset({"director", "codirector", "player"})
#: encounters one member may keep open in a server unless its settings say otherwise (one channel each: a member
#: alone must not take every channel of a server)
DEFAULT_MAX_OPEN: Final = 3

# StoredEvent types written by storage itself. Callers may not append them: replay and undo depend on their meaning.
ENCOUNTER_CREATED: Final = "EncounterCreated"
ENCOUNTER_IMPORTED: Final = "EncounterImported"
ORDER_ACCEPTED: Final = "OrderAccepted"
PHASE_RESOLVED: Final = "PhaseResolved"
UNDONE: Final = "Undone"
STATUS_CHANGED: Final = "StatusChanged"
SETTINGS_CHANGED: Final = "SettingsChanged"
PARTICIPANT_ADDED: Final = "ParticipantAdded"
PARTICIPANT_REMOVED: Final = "ParticipantRemoved"
RESERVED_EVENT_TYPES: Final[frozenset[str]] = frozenset(
    {
        ENCOUNTER_CREATED,
        ENCOUNTER_IMPORTED,
        ORDER_ACCEPTED,
        PHASE_RESOLVED,
        UNDONE,
        STATUS_CHANGED,
        SETTINGS_CHANGED,
        PARTICIPANT_ADDED,
        PARTICIPANT_REMOVED,
    }
)


# --- errors -------------------------------------------------------------------------------------------------


class StorageError(Exception):
    """Base of every storage failure; the message is fit to show a director."""


class BackendUnavailableError(StorageError):
    """The database URL names a backend that is not available in this installation."""


class EncounterNotFoundError(StorageError):
    def __init__(self, encounter_id: int) -> None:
        super().__init__(f"encounter {encounter_id} does not exist")
        self.encounter_id = encounter_id


class ChannelBusyError(StorageError):
    """A channel holds at most one encounter that has not ended (enforced by a unique index)."""

    def __init__(self, guild_id: int, channel_id: int) -> None:
        super().__init__(f"channel {channel_id} already has an encounter that has not ended; end it first")
        self.guild_id = guild_id
        self.channel_id = channel_id


class EncounterEndedError(StorageError):
    def __init__(self, encounter_id: int) -> None:
        super().__init__(f"encounter {encounter_id} has ended; it accepts no more orders or resolutions")
        self.encounter_id = encounter_id


class StalePhaseError(StorageError):
    """The caller acted on a phase that is no longer the encounter's current phase."""

    def __init__(self, encounter_id: int, given_phase_no: int, current_phase_no: int) -> None:
        super().__init__(
            f"encounter {encounter_id} is in phase {current_phase_no}, not phase {given_phase_no}; "
            "reload and try again"
        )
        self.encounter_id = encounter_id
        self.given_phase_no = given_phase_no
        self.current_phase_no = current_phase_no


class UnitTakenError(StorageError):
    def __init__(self, encounter_id: int, unit: str, holder_id: int) -> None:
        super().__init__(f"unit {unit!r} of encounter {encounter_id} is already assigned to user {holder_id}")
        self.encounter_id = encounter_id
        self.unit = unit
        self.holder_id = holder_id


class NothingToUndoError(StorageError):
    def __init__(self, encounter_id: int) -> None:
        super().__init__(f"encounter {encounter_id} is at its first snapshot; there is nothing to undo")
        self.encounter_id = encounter_id


class InvalidExportError(StorageError):
    """An import file is broken, tampered with or written in a format version this bot does not read."""


# --- rows ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Encounter:
    id: int
    guild_id: int
    channel_id: int
    ruleset: str
    name: str
    created_by: int
    status: EncounterStatus
    phase_no: int
    settings: JsonDict
    last_seq: int
    created_at: datetime
    updated_at: datetime

    @property
    def active(self) -> bool:
        return self.status != "ended"


@dataclass(frozen=True, slots=True)
class Participant:
    encounter_id: int
    user_id: int
    role: Role
    side: str | None
    unit: str | None


@dataclass(frozen=True, slots=True)
class StoredEvent:
    encounter_id: int
    seq: int
    type: str
    payload: JsonDict
    phase_no: int
    created_at: datetime


@dataclass(frozen=True, slots=True)
class Loaded:
    """What a cog needs to act on an encounter: the latest snapshot and the events appended after it."""

    meta: Encounter
    phase_no: int
    state: JsonDict
    snapshot_seq: int
    events: tuple[StoredEvent, ...]
    participants: tuple[
        Participant, ...
    ] = ()  # read in the same transaction: consistent with ``meta.last_seq``


@dataclass(frozen=True, slots=True)
class HistoryStep:
    """One snapshot on the way to the current state (``Storage.snapshot_chain``): the state it holds and the
    events that produced it — a resolution's events and its ``PhaseResolved``, a director's override event, the
    ``EncounterCreated`` of the first."""

    snapshot_seq: int
    phase_no: int
    #: the state as stored (JSON text): decoded by whoever needs it, where the work runs (a replay decodes it
    #: in the render worker, so a large encounter's snapshots never hold the bot's event loop)
    state_json: str
    events: tuple[StoredEvent, ...]

    @property
    def state(self) -> JsonDict:
        return cast(JsonDict, json.loads(self.state_json))


@dataclass(frozen=True, slots=True)
class UndoneStep:
    """A step the director took back (``Storage.undone_steps``): the ``Undone`` event, the step as it was (its
    snapshot and the events that made it) and the state it started from (the one the undo restored)."""

    undo: StoredEvent
    step: HistoryStep
    before_json: str


@dataclass(frozen=True, slots=True)
class ExportRows:
    """An encounter's rows as stored, its JSON columns (settings, payloads, orders, states) still text: plain
    values only, so a worker process is handed them cheaply and does the decoding, sealing and compression
    itself (a large encounter's export never holds the bot's event loop)."""

    exported_at: str
    encounter: dict[str, Any]
    participants: list[dict[str, Any]]
    events: list[dict[str, Any]]
    orders: list[dict[str, Any]]
    snapshots: list[dict[str, Any]]


@dataclass(frozen=True, slots=True)
class ImportRows:
    """A checked import file's rows, encoded as storage keeps them and ready to insert, each without its leading
    encounter id (known once inserted): plain values, so a worker process can hand them back cheaply
    (``storage.export.import_rows`` builds them)."""

    ruleset: str
    name: str
    created_by: int
    status: str
    settings: str
    phase_no: int
    snapshot_seq: int
    opened_seq: int
    last_seq: int
    created_at: str
    source: str
    events: list[tuple[Any, ...]]
    orders: list[tuple[Any, ...]]
    snapshots: list[tuple[Any, ...]]
    participants: list[tuple[Any, ...]]


@dataclass(frozen=True, slots=True)
class Ack:
    """Returned by ``submit_order`` only after the order is committed: safe to tell the player "received"."""

    encounter_id: int
    phase_no: int
    unit_id: str
    user_id: int
    seq: int
    amended: bool
    accepted_at: datetime
    unchanged: bool = False  # the same order as the one stored: nothing was written (``seq`` is that one's)


@dataclass(frozen=True, slots=True)
class PendingOrder:
    phase_no: int
    unit_id: str
    user_id: int
    order: JsonDict
    seq: int
    accepted_at: datetime


@dataclass(frozen=True, slots=True)
class OrdersForResolution:
    """What a resolver works from, read in one transaction: the current snapshot and every pending order of the
    phase (latest per unit). Pass it back as ``commit_resolution(based_on=...)`` so that an order accepted, or a
    director's override made, while the resolver was working is never silently lost."""

    encounter_id: int
    phase_no: int
    snapshot_seq: int
    state: JsonDict
    orders: Mapping[str, PendingOrder]

    @property
    def order_seqs(self) -> dict[str, int]:
        return {unit: order.seq for unit, order in self.orders.items()}


@dataclass(frozen=True, slots=True)
class Resolved:
    encounter_id: int
    phase_no: int
    next_phase_no: int
    first_seq: int
    last_seq: int


@dataclass(frozen=True, slots=True)
class AlreadyResolved:
    """The loser of a resolution race (or a retry after success): nothing was written."""

    encounter_id: int
    expected_phase_no: int
    current_phase_no: int

    @property
    def message(self) -> str:
        return (
            f"phase {self.expected_phase_no} of encounter {self.encounter_id} was already resolved; "
            f"the encounter is in phase {self.current_phase_no}"
        )


@dataclass(frozen=True, slots=True)
class InputsChanged:
    """Orders were accepted or amended, or the state was overridden, after the resolver read them: nothing was
    written; read the inputs again and resolve again."""

    encounter_id: int
    phase_no: int

    @property
    def message(self) -> str:
        return (
            f"orders or state of phase {self.phase_no} changed while it was being resolved; resolve it again"
        )


CommitOutcome: TypeAlias = Resolved | AlreadyResolved | InputsChanged


@dataclass(frozen=True, slots=True)
class GuildSettings:
    guild_id: int
    language: str | None = None  # None: follow the guild's Discord locale
    director_role_id: int | None = None
    default_deadline_minutes: int | None = None  # None: phases wait for every order or the director
    tutorial_shown: bool = False
    #: encounters one member may keep open here (None: ``DEFAULT_MAX_OPEN``; 0: no limit); members with Manage
    #: Server or the director role are never held to it
    max_open_encounters: int | None = None
    #: only members with Manage Server may import an encounter (else: directors, as ``director_role_id`` says)
    import_managers_only: bool = False
    #: hours a phase without a deadline waits, nobody acting, before the director is reminded (None: the default)
    idle_reminder_hours: int | None = None
    #: the colour scheme of the server's public pictures (None: the standard one; render/options.py SCHEMES)
    palette: str | None = None

    @property
    def open_limit(self) -> int | None:
        """How many encounters one member may keep open (None: no limit)."""
        limit = DEFAULT_MAX_OPEN if self.max_open_encounters is None else self.max_open_encounters
        return limit or None


@dataclass(frozen=True, slots=True)
class Deadline:
    encounter_id: int
    phase_no: int
    due_at: datetime
    remind_at: datetime | None = None  # when the players still missing get a reminder (None: sent, or none)


@dataclass(frozen=True, slots=True)
class PhaseShown:
    """The encounter's current phase and the Discord id of the channel message that first showed it (0: not
    shown yet), read together."""

    phase_no: int
    message_id: int


@dataclass(frozen=True, slots=True)
class MessageRef:
    encounter_id: int
    kind: str
    key: str
    channel_id: int
    message_id: int


class Unset:
    __slots__ = ()

    def __repr__(self) -> str:
        return "UNSET"


UNSET: Final = Unset()


def dumps(value: Mapping[str, Any]) -> str:
    """A JSON column's text, as storage writes it (and as an import's rows are encoded before they are stored)."""
    # allow_nan=False: NaN is not JSON, and an export must stay readable by any JSON parser
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
