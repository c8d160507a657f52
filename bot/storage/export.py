"""Versioned JSON export of one encounter, and the validation an import must pass (DESIGN §3).

The file carries everything needed to continue the encounter elsewhere: its metadata, participants, the whole
event log, the order contents and every snapshot, plus a SHA-256 of its canonical JSON so that a truncated or
hand-edited file is refused instead of half-imported. Discord message ids and timers are not exported: they
belong to the old channel.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final, TypeVar, cast

from .model import (
    ENCOUNTER_CREATED,
    ORDER_ACCEPTED,
    ROLES,
    STATUSES,
    ExportRows,
    ImportRows,
    InvalidExportError,
    JsonDict,
    dumps,
)

EXPORT_FORMAT: Final = "hexdirector-encounter"
EXPORT_VERSION: Final = 1
#: the encounter setting never exported: the key its sealed dice come from (``bot/dice_seal.py``)
SECRET_SETTING: Final = "dice_key"
#: the settings keys of a spectator's request and its answers (bot/spectators.py): given at one table for its own
#: channel, so an encounter carried elsewhere starts with no spectator (dropped on export and on import)
SPECTATOR_PREFIX: Final = "watch_"

_R = TypeVar("_R")


@dataclass(frozen=True, slots=True)
class ArchivedEncounter:
    ruleset: str
    name: str
    created_by: int
    status: str
    phase_no: int
    settings: JsonDict
    snapshot_seq: int
    opened_seq: int
    last_seq: int
    created_at: str
    source_guild_id: int
    source_channel_id: int
    source_id: int


@dataclass(frozen=True, slots=True)
class ArchivedParticipant:
    user_id: int
    role: str
    side: str
    unit: str
    joined_at: str


@dataclass(frozen=True, slots=True)
class ArchivedEvent:
    seq: int
    type: str
    payload: JsonDict
    phase_no: int
    created_at: str


@dataclass(frozen=True, slots=True)
class ArchivedOrder:
    seq: int
    phase_no: int
    unit_id: str
    user_id: int
    order: JsonDict
    accepted_at: str


@dataclass(frozen=True, slots=True)
class ArchivedSnapshot:
    seq: int
    phase_no: int
    opened_seq: int
    parent_seq: int | None
    state: JsonDict
    created_at: str


@dataclass(frozen=True, slots=True)
class Archive:
    """A validated export, ready for a backend to insert."""

    encounter: ArchivedEncounter
    participants: tuple[ArchivedParticipant, ...]
    events: tuple[ArchivedEvent, ...]
    orders: tuple[ArchivedOrder, ...]
    snapshots: tuple[ArchivedSnapshot, ...]


def canonical_digest(document: Mapping[str, Any]) -> str:
    body = {key: value for key, value in document.items() if key != "sha256"}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def seal(document: JsonDict) -> JsonDict:
    """Add the format header and checksum to an export body built by a backend."""
    sealed: JsonDict = {"format": EXPORT_FORMAT, "version": EXPORT_VERSION, **document}
    sealed["sha256"] = canonical_digest(sealed)
    return sealed


def export_document(rows: ExportRows) -> JsonDict:
    """The sealed export of an encounter's stored rows: decoding every JSON column and sealing is CPU work, run
    in a worker (a thread, or the bot's long-job process for a large encounter)."""
    enc = rows.encounter
    return seal(
        {
            "exported_at": rows.exported_at,
            # the dice key stays home: with it, anyone could draw every step's dice before it resolves (DICE-1)
            "encounter": {**enc, "settings": _exported_settings(json.loads(enc["settings"]))},
            "participants": [
                {**p, "side": p["side"] or None, "unit": p["unit"] or None} for p in rows.participants
            ],
            "events": [
                {
                    "seq": e["seq"],
                    "type": e["type"],
                    "payload": json.loads(e["payload"]),
                    "phase_no": e["phase_no"],
                    "created_at": e["created_at"],
                }
                for e in rows.events
            ],
            "orders": [
                {
                    "seq": o["seq"],
                    "phase_no": o["phase_no"],
                    "unit_id": o["unit_id"],
                    "user_id": o["user_id"],
                    "order": json.loads(o["body"]),
                    "accepted_at": o["accepted_at"],
                }
                for o in rows.orders
            ],
            "snapshots": [{**s, "state": json.loads(s["state"])} for s in rows.snapshots],
        }
    )


def _exported_settings(settings: JsonDict) -> JsonDict:
    return {key: value for key, value in settings.items() if key != SECRET_SETTING and not _spectators(key)}


def _spectators(key: str) -> bool:
    return (
        key.startswith(SPECTATOR_PREFIX) and key[len(SPECTATOR_PREFIX) : len(SPECTATOR_PREFIX) + 1].isdigit()
    )


# --- validation ---------------------------------------------------------------------------------------------


def _fail(where: str, problem: str) -> InvalidExportError:
    return InvalidExportError(f"this encounter file cannot be imported: {where}: {problem}")


def _field(obj: Mapping[str, Any], key: str, kind: type, where: str, *, optional: bool = False) -> Any:
    if key not in obj:
        raise _fail(where, f"missing field {key!r}")
    value = obj[key]
    if value is None and optional:
        return None
    # bool is an int in Python; a JSON true where a number belongs is still a broken file
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise _fail(where, f"field {key!r} must be {kind.__name__}, not {type(value).__name__}")
    return value


def _objects(document: Mapping[str, Any], key: str) -> list[Mapping[str, Any]]:
    items = _field(document, key, list, "file")
    for index, item in enumerate(cast(list[object], items)):
        if not isinstance(item, dict):
            raise _fail(f"{key}[{index}]", "must be an object")
    return cast(list[Mapping[str, Any]], items)


# The fields of each exported record, in the order they are checked (the Archived* dataclasses' own order).
_PARTICIPANT_FIELDS: Final = {"user_id": int, "role": str, "side": str, "unit": str, "joined_at": str}
_EVENT_FIELDS: Final = {"seq": int, "type": str, "payload": dict, "phase_no": int, "created_at": str}
_ORDER_FIELDS: Final = {
    "seq": int,
    "phase_no": int,
    "unit_id": str,
    "user_id": int,
    "order": dict,
    "accepted_at": str,
}
_SNAPSHOT_FIELDS: Final = {
    "seq": int,
    "phase_no": int,
    "opened_seq": int,
    "parent_seq": int,
    "state": dict,
    "created_at": str,
}


def _archived(
    document: Mapping[str, Any],
    key: str,
    record: Callable[..., _R],
    fields: Mapping[str, type],
    *,
    nullable: Mapping[str, Any] | None = None,
) -> tuple[_R, ...]:
    """The list ``document[key]`` as ``record``s, each object's ``fields`` type-checked in order; a ``nullable``
    field may be null, read as the value given there."""
    null_as = nullable or {}
    return tuple(
        record(
            **{
                name: _nullable_field(obj, name, kind, f"{key}[{i}]", null_as)
                for name, kind in fields.items()
            }
        )
        for i, obj in enumerate(_objects(document, key))
    )


def _nullable_field(
    obj: Mapping[str, Any], name: str, kind: type, where: str, nullable: Mapping[str, Any]
) -> Any:
    if name not in nullable:
        return _field(obj, name, kind, where)
    value = _field(obj, name, kind, where, optional=True)
    return nullable[name] if value is None else value


def parse_export(data: object) -> Archive:
    """Validate an export document and return it typed; raises ``InvalidExportError`` saying what is wrong."""
    if not isinstance(data, dict):
        raise _fail("file", "the top level must be a JSON object")
    document = cast(Mapping[str, Any], data)
    if document.get("format") != EXPORT_FORMAT:
        raise _fail("file", f"it is not a hexdirector encounter export (format {document.get('format')!r})")
    version = document.get("version")
    if version != EXPORT_VERSION:
        raise _fail(
            "file", f"it has format version {version!r}; this bot reads version {EXPORT_VERSION} only"
        )
    digest = _field(document, "sha256", str, "file")
    if digest != canonical_digest(document):
        raise _fail("file", "its checksum does not match: the file is damaged or was edited")

    meta = _field(document, "encounter", dict, "file")
    encounter = ArchivedEncounter(
        ruleset=_field(meta, "ruleset", str, "encounter"),
        name=_field(meta, "name", str, "encounter"),
        created_by=_field(meta, "created_by", int, "encounter"),
        status=_field(meta, "status", str, "encounter"),
        phase_no=_field(meta, "phase_no", int, "encounter"),
        settings=_field(meta, "settings", dict, "encounter"),
        snapshot_seq=_field(meta, "snapshot_seq", int, "encounter"),
        opened_seq=_field(meta, "opened_seq", int, "encounter"),
        last_seq=_field(meta, "last_seq", int, "encounter"),
        created_at=_field(meta, "created_at", str, "encounter"),
        source_guild_id=_field(meta, "guild_id", int, "encounter"),
        source_channel_id=_field(meta, "channel_id", int, "encounter"),
        source_id=_field(meta, "id", int, "encounter"),
    )
    if encounter.status not in STATUSES:
        raise _fail("encounter", f"unknown status {encounter.status!r}")

    participants = _archived(
        document, "participants", ArchivedParticipant, _PARTICIPANT_FIELDS, nullable={"side": "", "unit": ""}
    )
    for i, participant in enumerate(participants):
        if participant.role not in ROLES:
            raise _fail(f"participants[{i}]", f"unknown role {participant.role!r}")
    events = _archived(document, "events", ArchivedEvent, _EVENT_FIELDS)
    orders = _archived(document, "orders", ArchivedOrder, _ORDER_FIELDS)
    snapshots = _archived(
        document, "snapshots", ArchivedSnapshot, _SNAPSHOT_FIELDS, nullable={"parent_seq": None}
    )
    archive = Archive(encounter, participants, events, orders, snapshots)
    _check_consistency(archive)
    return archive


def import_rows(data: Mapping[str, Any]) -> ImportRows:
    """An export's format checked (``InvalidExportError``) and its rows encoded as stored: CPU work over
    megabytes, run in a worker (a thread, or the bot's long-job process)."""
    archive = parse_export(data)
    meta = archive.encounter
    return ImportRows(
        ruleset=meta.ruleset,
        name=meta.name,
        created_by=meta.created_by,
        status=meta.status,
        settings=dumps({k: v for k, v in meta.settings.items() if not _spectators(k)}),
        phase_no=meta.phase_no,
        snapshot_seq=meta.snapshot_seq,
        opened_seq=meta.opened_seq,
        last_seq=meta.last_seq,
        created_at=meta.created_at,
        source=dumps(
            {
                "format_version": EXPORT_VERSION,
                "source": {
                    "encounter_id": meta.source_id,
                    "guild_id": meta.source_guild_id,
                    "channel_id": meta.source_channel_id,
                },
            }
        ),
        events=[(e.seq, e.type, dumps(e.payload), e.phase_no, e.created_at) for e in archive.events],
        orders=[
            (o.seq, o.phase_no, o.unit_id, o.user_id, dumps(o.order), o.accepted_at) for o in archive.orders
        ],
        snapshots=[
            (s.seq, s.phase_no, s.opened_seq, s.parent_seq, dumps(s.state), s.created_at)
            for s in archive.snapshots
        ],
        participants=[(p.user_id, p.role, p.side, p.unit, p.joined_at) for p in archive.participants],
    )


def _check_consistency(archive: Archive) -> None:
    """The references a backend relies on: a gap-free log, orders and snapshots that point into it."""
    events = archive.events
    if not events:
        raise _fail("events", "the event log is empty")
    for expected, event in enumerate(events, start=1):
        if event.seq != expected:
            raise _fail(f"events[{expected - 1}]", f"sequence number {event.seq}, expected {expected}")
    if events[0].type != ENCOUNTER_CREATED:
        raise _fail("events[0]", f"the log must start with {ENCOUNTER_CREATED}, not {events[0].type}")
    by_seq = {event.seq: event for event in events}
    if archive.encounter.last_seq != len(events):
        raise _fail(
            "encounter", f"last_seq {archive.encounter.last_seq} but the log has {len(events)} events"
        )
    for i, order in enumerate(archive.orders):
        event = by_seq.get(order.seq)
        if event is None or event.type != ORDER_ACCEPTED:
            raise _fail(f"orders[{i}]", f"seq {order.seq} is not an {ORDER_ACCEPTED} event")
        if event.payload.get("unit_id") != order.unit_id or event.phase_no != order.phase_no:
            raise _fail(f"orders[{i}]", "does not match its event (unit or phase)")
    snapshot_seqs = {snapshot.seq for snapshot in archive.snapshots}
    if 1 not in snapshot_seqs:
        raise _fail("snapshots", "the first snapshot (seq 1) is missing")
    for i, snapshot in enumerate(archive.snapshots):
        if snapshot.seq not in by_seq:
            raise _fail(f"snapshots[{i}]", f"seq {snapshot.seq} is not in the log")
        if snapshot.parent_seq is not None and snapshot.parent_seq not in snapshot_seqs:
            raise _fail(f"snapshots[{i}]", f"parent snapshot {snapshot.parent_seq} is missing")
    latest = max(archive.snapshots, key=lambda snapshot: snapshot.seq)
    meta = archive.encounter
    if (meta.snapshot_seq, meta.phase_no, meta.opened_seq) != (
        latest.seq,
        latest.phase_no,
        latest.opened_seq,
    ):
        raise _fail("encounter", "its phase does not match its latest snapshot")
