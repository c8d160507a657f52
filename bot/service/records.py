"""The encounter's records: the public account (``/encounter log``), export and import."""

from __future__ import annotations

import asyncio
import gzip
import io
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from bot.dice_seal import SEAL_EVENT, Seal, seal_from
from bot.imaging import run_long_job
from bot.permissions import Actor
from bot.public_view import public_units
from bot.results import Refused, refuse
from bot.service.base import ServiceBase
from bot.service.replay import rule_events
from bot.storage import ChannelBusyError, InvalidExportError
from bot.storage.base import ExportRows, HistoryStep, ImportRows, StoredEvent, UndoneStep
from bot.storage.export import export_document, import_rows
from bot.storage.export import parse_export as parse_archive
from bot.verify import report_lines, verify_document
from rules.engine import visibility
from rules.events import Event
from rules.registry import ruleset_for
from rules.ruleset import DIRECTOR
from rules.scenario import MAX_NAME, MAX_UNIT_NAME, SAFE_ID
from rules.serial import from_json
from rules.state import EncounterState


class RecordActions(ServiceBase):
    # --- log, export, import -------------------------------------------------------------------------------
    async def history(self, encounter_id: int, round_no: int | None = None) -> list[tuple[int, str, Event]]:
        """Public events of the encounter (round, phase, event), optionally of one round. Each event is judged
        by what the public could see when it happened (the states before and after its step), so a hidden
        unit's history stays hidden after the unit leaves the board. Decoded off the event loop."""
        chain = await self.storage.snapshot_chain(encounter_id)
        return await asyncio.to_thread(public_history, chain, round_no)

    async def trace(self, encounter_id: int, round_no: int | None = None) -> list[TraceStep]:
        """``/encounter log``: :meth:`history` by step, with the steps the director undid where they happened."""
        chain = await self.storage.snapshot_chain(encounter_id)
        undone = await self.storage.undone_steps(encounter_id)
        return await asyncio.to_thread(public_trace, chain, undone, round_no)

    async def export(self, encounter_id: int, actor: Actor) -> dict[str, Any]:
        meta = await self.storage.get_encounter(encounter_id)
        await self.require_director(meta, actor)
        return await self.storage.export_encounter(encounter_id)

    async def verify(self, encounter_id: int, actor: Actor, locale: str | None) -> list[str]:
        """``/encounter verify``: every sealed step drawn again from its seed and orders (DICE-1), as lines in the
        reader's language. Anyone seated or a director may ask; a player's check leaves out the steps whose rolls
        some side could not see (their seeds are the director's, FOG-1). Run in the long-job worker."""
        meta = await self.storage.get_encounter(encounter_id)
        director = await self.is_director(meta, actor)
        if not director and all(p.user_id != actor.user_id for p in await self.storage.participants(meta.id)):
            raise refuse(
                "verify.not_seated",
                "Only the table's players and its director can check its dice; use /encounter join to play.",
            )
        rows = await self.storage.export_rows(encounter_id)
        return await run_long_job(verify_rows, rows, director, locale)

    async def export_file(self, encounter_id: int, actor: Actor) -> tuple[bytes, str]:
        """The export as the file to upload (:func:`export_file_of`), built in the long-job worker process from
        the rows as stored: the bot's own process never decodes, seals or serialises a large encounter, which
        held its event loop for most of a second at 800 ships."""
        meta = await self.storage.get_encounter(encounter_id)
        await self.require_director(meta, actor)
        rows = await self.storage.export_rows(encounter_id)
        return await run_long_job(export_file_of, rows, encounter_id)

    async def import_(
        self,
        data: Mapping[str, Any],
        guild_id: int,
        channel_id: int,
        user_id: int,
        *,
        actor: Actor | None = None,
    ) -> int:
        """Import an export already read as JSON into this channel (see :meth:`import_file`)."""
        await self._may_import(guild_id, actor or Actor(user_id))
        prepared = await asyncio.to_thread(_prepared_import, data)
        return (await self._store_import(prepared, guild_id, channel_id, user_id)).encounter_id

    async def import_file(
        self, blob: bytes, guild_id: int, channel_id: int, user_id: int, *, actor: Actor | None = None
    ) -> Imported:
        """Import an uploaded export file into this channel; the importer becomes its director and nobody else is
        seated (:meth:`_store_import`). Where the server names a director role, only members with it (or Manage
        Server) may import; a server may keep imports to Manage Server alone. Every snapshot and event is
        decoded and checked before anything is stored, so a crafted file can never leave a channel with an
        encounter that cannot be shown or ended. Reading, checking and encoding the file run in the long-job
        worker process: the bot's own process never decodes a large encounter."""
        await self._may_import(guild_id, actor or Actor(user_id))
        prepared = await run_long_job(prepared_import_file, blob)
        return await self._store_import(prepared, guild_id, channel_id, user_id)

    async def _may_import(self, guild_id: int, actor: Actor) -> None:
        settings = await self.guild_settings(guild_id)
        if settings.import_managers_only and not actor.manage_guild:
            raise refuse(
                "import.managers_only",
                "On this server only members with Manage Server may import an encounter.",
            )
        if settings.director_role_id is not None and not (
            actor.manage_guild or settings.director_role_id in actor.role_ids
        ):
            raise refuse("import.not_director", "Only the server's directors may import an encounter here.")

    async def _store_import(
        self, prepared: ImportRows | Refused, guild_id: int, channel_id: int, user_id: int
    ) -> Imported:
        """Store an import as the importer's own encounter. A file is anyone's to edit (its seal is a checksum
        anyone can compute again), so what it says about people and the bot's bookkeeping is not taken: nobody is
        seated but the importer, as director (the file's players are only listed, to be invited: a member plays
        once they join here); its creator, status and settings are not kept. A game under way comes back paused,
        so nothing is sent to anyone until the director resumes it."""
        if isinstance(prepared, Refused):
            raise prepared
        seats = tuple(
            sorted({(int(p[0]), str(p[3] or "")) for p in prepared.participants if p[1] == "player"})
        )
        prepared = replace(
            prepared,
            created_by=user_id,
            status=IMPORTED_STATUS.get(prepared.status, "paused"),
            settings=json.dumps({"review_rolls": False}),
            participants=[],
        )
        try:
            enc_id = await self.storage.import_prepared(prepared, guild_id, channel_id)
        except InvalidExportError as exc:
            raise _invalid(exc) from None
        except ChannelBusyError:
            raise refuse("encounter.exists", "This channel already has an encounter; end it first.") from None
        await self.storage.add_participant(enc_id, user_id, "director")
        return Imported(enc_id, prepared.status, seats)


#: the status an imported encounter starts in, by the file's: one not started stays so and one that ended stays
#: ended; one under way is paused (no panel, deadline or reminder goes out until its new director resumes it)
IMPORTED_STATUS: Mapping[str, str] = {"open": "open", "ended": "ended"}


@dataclass(frozen=True, slots=True)
class Imported:
    """An import as stored: the new encounter, its status, and the file's players as (user id, unit): listed for
    the director to invite, never seated."""

    encounter_id: int
    status: str
    seats: tuple[tuple[int, str], ...]


def prepared_import_file(blob: bytes) -> ImportRows | Refused:
    """An uploaded export read, checked and encoded (run in a worker process): its rows, or why it is refused
    (returned, not raised, so nothing but plain values crosses back to the bot)."""
    try:
        return _prepared_import(parse_export(blob))
    except Refused as refused:
        return refused


def _prepared_import(data: Mapping[str, Any]) -> ImportRows | Refused:
    try:
        check_archive(data)
        return import_rows(data)
    except InvalidExportError as exc:
        return _invalid(exc)


def _invalid(exc: InvalidExportError) -> Refused:
    return refuse("import.invalid", f"That file cannot be imported: {exc}", reason=str(exc)[:300])


#: an export larger than this is sent gzip-compressed (Discord's upload limit is 10 MB without boosts)
EXPORT_INLINE_BYTES = 8 * 1024 * 1024
#: the most an uploaded gzip export may expand to (a small bomb of zeros is refused, not unpacked)
MAX_EXPORT_BYTES = 256 * 1024 * 1024


def verify_rows(rows: ExportRows, director: bool, locale: str | None) -> list[str]:
    """The dice check of an encounter's stored rows, as the reader reads it (a worker's job: plain values)."""
    return report_lines(verify_document(export_document(rows), director=director), locale)


def export_file_of(rows: ExportRows, encounter_id: int) -> tuple[bytes, str]:
    return export_blob(export_document(rows), encounter_id)


def export_blob(data: Mapping[str, Any], encounter_id: int) -> tuple[bytes, str]:
    """An export as the file to upload: JSON, or gzip-compressed JSON when it would not fit. CPU work: callers
    run it in a thread."""
    blob = json.dumps(data, ensure_ascii=False).encode("utf-8")
    if len(blob) <= EXPORT_INLINE_BYTES:
        return blob, f"encounter-{encounter_id}.json"
    return gzip.compress(blob, compresslevel=6), f"encounter-{encounter_id}.json.gz"


def _gunzip(blob: bytes) -> bytes:
    out = bytearray()
    try:
        with gzip.GzipFile(fileobj=io.BytesIO(blob)) as packed:
            while chunk := packed.read(1 << 20):
                out += chunk
                if len(out) > MAX_EXPORT_BYTES:
                    raise refuse(
                        "import.invalid", "That file is too big to import.", reason="too big unpacked"
                    )
    except (OSError, EOFError) as exc:
        raise refuse(
            "import.invalid", f"That file is not a gzip export: {exc}", reason=str(exc)[:200]
        ) from None
    return bytes(out)


def parse_export(blob: bytes) -> dict[str, Any]:
    """An uploaded export file (JSON, or the gzip-compressed JSON of a large export) as JSON; its content is
    checked by :func:`check_archive`."""
    if blob[:2] == b"\x1f\x8b":
        blob = _gunzip(blob)
    try:
        data = json.loads(blob.decode("utf-8"))
    except RecursionError:
        raise refuse(
            "import.invalid", "That file is nested too deeply.", reason="nested too deeply"
        ) from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise refuse("import.invalid", f"That file is not JSON: {exc}", reason=str(exc)[:200]) from None
    if not isinstance(data, dict):
        raise refuse("import.invalid", "That file is not an encounter export.", reason="not an object")
    return data  # type: ignore[return-value]


def events_for(state: EncounterState, events: Sequence[Event], viewer: str) -> tuple[Event, ...]:
    """The events ``viewer`` (a side, ``"public"`` or ``"director"``) may read of a step that ended in ``state``
    (FOG-1, NGT-9): as the ruleset words them for someone who sees what ``viewer`` sees."""
    if viewer == DIRECTOR:
        return tuple(events)
    ruleset = ruleset_for(state)
    seen = frozenset(visibility(ruleset, state, viewer).units)
    known = frozenset(state.units)
    shown = (ruleset.public_event(e, seen, known) for e in events)
    return tuple(e for e in shown if e is not None)


def public_history(chain: Sequence[HistoryStep], round_no: int | None = None) -> list[tuple[int, str, Event]]:
    """The events of the snapshot chain that the public saw happen (FOG-1): every unit an event names was
    public before or after its step (the same rule as the channel's account of a step)."""
    out: list[tuple[int, str, Event]] = []
    before: EncounterState | None = None
    for step in chain:
        after = from_json(step.state)
        if not isinstance(after, EncounterState):
            continue
        out.extend((rnd, phase, e) for _, rnd, phase, e in public_step_events(before, after, step, round_no))
        before = after
    return out


def public_step_events(
    before: EncounterState | None, after: EncounterState, step: HistoryStep, round_no: int | None = None
) -> list[tuple[StoredEvent, int, str, Event]]:
    """(stored row, round, phase, event) of one step's events the public may read (FOG-1, NGT-9): every unit an event
    names was public before or after the step. The one judgement of the log, for steps kept and undone alike."""
    seen = set(public_units(after, ruleset_for(after)))
    known = set(after.units)
    if before is not None:
        seen |= public_units(before, ruleset_for(before))
        known |= set(before.units)
    ruleset = ruleset_for(after)
    out: list[tuple[StoredEvent, int, str, Event]] = []
    for row in step.events:
        rnd = int(row.payload.get("round", 0) or 0)
        if round_no is not None and rnd != round_no:
            continue
        for event in rule_events((row,)):
            shown = ruleset.public_event(event, frozenset(seen), frozenset(known))
            if shown is not None:
                out.append((row, rnd, str(row.payload.get("phase", "")), shown))
    return out


def undone_public(steps: Sequence[UndoneStep]) -> tuple[tuple[Event, ...], EncounterState | None]:
    """What the public had read of the steps just taken back, in order, and the state the last one made (where
    the units it names are): the channel's announcement of the undo says what was undone, never more (FOG-1)."""
    events: list[Event] = []
    last: EncounterState | None = None
    for gone in sorted(steps, key=lambda g: g.step.snapshot_seq):
        start, after = from_json(gone.before_json), from_json(gone.step.state)
        if not isinstance(after, EncounterState):
            continue
        begun = start if isinstance(start, EncounterState) else None
        events.extend(e for _, _, _, e in public_step_events(begun, after, gone.step))
        last = after
    return tuple(events), last


@dataclass(frozen=True, slots=True)
class TraceStep:
    """One step of ``/encounter log``: its public events, and when the director undid it if they did."""

    seq: int
    round: int
    phase: str
    events: tuple[Event, ...]
    undone_at: datetime | None = None
    #: the step's sealed dice, when it may be revealed to all (DICE-1): the log repeats the account's reveal
    seal: Seal | None = None
    #: who undid it (a user id; None: an undo recorded before it kept who, or a step not undone)
    undone_by: int | None = None


def public_trace(
    chain: Sequence[HistoryStep], undone: Sequence[UndoneStep], round_no: int | None = None
) -> list[TraceStep]:
    """The log with its undone steps where they happened, each marked (an undo leaves a trace, DESIGN §4):
    kept and undone steps are judged by the same rule (:func:`public_step_events`), so an undone step names
    nothing the public could not see, and one with nothing public leaves no line."""
    parts: list[tuple[HistoryStep, EncounterState | None, StoredEvent | None]] = []
    before: EncounterState | None = None
    for step in chain:
        parts.append((step, before, None))
        after = from_json(step.state)
        before = after if isinstance(after, EncounterState) else before
    for gone in undone:
        start = from_json(gone.before_json)
        parts.append((gone.step, start if isinstance(start, EncounterState) else None, gone.undo))
    out: list[TraceStep] = []
    for step, start, undo in parts:
        after = from_json(step.state)
        if not isinstance(after, EncounterState):
            continue
        shown = public_step_events(start, after, step, round_no)
        groups: dict[tuple[int, str], list[tuple[int, Event]]] = {}
        for row, rnd, phase, event in shown:
            groups.setdefault((rnd, phase), []).append((row.seq, event))
        seals = (seal_from(row.payload) for row in step.events if row.type == SEAL_EVENT)
        seal = next((s for s in seals if s is not None and s.public), None)
        undone_at = undo.created_at if undo is not None else None
        by = undo.payload.get("by") if undo is not None else None
        undone_by = by if isinstance(by, int) and not isinstance(by, bool) else None
        for (rnd, phase), events in groups.items():
            shown_events = tuple(e for _, e in events)
            out.append(TraceStep(events[0][0], rnd, phase, shown_events, undone_at, seal, undone_by))
    return sorted(out, key=lambda s: s.seq)


def check_archive(data: Mapping[str, Any]) -> None:
    """An export's content, beyond its format (``bot/storage/export.py``): every snapshot decodes to a state of
    a known ruleset with unique unit ids, every rule event decodes, every time stamp reads. Raises
    ``InvalidExportError`` saying where; never RecursionError, whatever the nesting."""
    try:
        archive = parse_archive(data)
        if len(archive.encounter.name) > MAX_NAME:
            raise InvalidExportError(f"encounter: its name is over {MAX_NAME} characters")
        for i, snap in enumerate(archive.snapshots):
            state = from_json(snap.state)
            if not isinstance(state, EncounterState):
                raise InvalidExportError(f"snapshots[{i}]: not an encounter state")
            ruleset_for(state)  # a ruleset (and layers) this bot knows
            ids = [u.id for u in state.units.values()]
            if len(ids) != len(set(ids)) or any(key != u.id for key, u in state.units.items()):
                raise InvalidExportError(f"snapshots[{i}]: two units share an id")
            _names_fit(state, f"snapshots[{i}]")
            _timestamp(snap.created_at, f"snapshots[{i}]")
        for i, event in enumerate(archive.events):
            for body in (event.payload.get("event"), *event.payload.get("extra", ())):
                if isinstance(body, dict) and not isinstance(from_json(body), Event):
                    raise InvalidExportError(f"events[{i}]: not a rule event")
            _timestamp(event.created_at, f"events[{i}]")
        for i, part in enumerate(archive.participants):
            _timestamp(part.joined_at, f"participants[{i}]")
    except InvalidExportError:
        raise
    except RecursionError:
        raise InvalidExportError("the file is nested too deeply") from None
    except (TypeError, KeyError, ValueError, AttributeError) as exc:
        raise InvalidExportError(f"it holds data this bot cannot read ({str(exc)[:120]})") from None


def _names_fit(state: EncounterState, where: str) -> None:
    """An imported encounter's names and ids meet a scenario file's limits (rules/scenario.py), as those a command
    gives do: ids a panel's custom id can carry, names every message that repeats them has room for."""
    if len(state.name) > MAX_NAME:
        raise InvalidExportError(f"{where}: the encounter's name is over {MAX_NAME} characters")
    for kind, pieces in (("side", state.sides), ("unit", tuple(state.units.values()))):
        for piece in pieces:
            if not SAFE_ID.match(piece.id):
                raise InvalidExportError(
                    f"{where}: {kind} id {piece.id[:40]!r} is not letters, digits, - and _ (at most 32)"
                )
            if len(piece.name) > MAX_UNIT_NAME:
                raise InvalidExportError(
                    f"{where}: {kind} {piece.id}'s name is over {MAX_UNIT_NAME} characters"
                )


def _timestamp(text: str, where: str) -> None:
    try:
        datetime.fromisoformat(text)
    except (TypeError, ValueError):
        raise InvalidExportError(f"{where}: {str(text)[:40]!r} is not a time") from None
