"""Behaviour of the storage interface (DESIGN §3), run against every backend available here."""

from __future__ import annotations

import asyncio
import copy
import json
import sqlite3
import subprocess
import sys
import threading
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import aiosqlite
import pytest

from bot.storage import (
    UNSET,
    AlreadyResolved,
    BackendUnavailableError,
    ChannelBusyError,
    Deadline,
    EncounterEndedError,
    EncounterNotFoundError,
    GuildSettings,
    InputsChanged,
    InvalidExportError,
    NothingToUndoError,
    Resolved,
    StalePhaseError,
    Storage,
    StorageError,
    UnitTakenError,
    open_storage,
)
from bot.storage.export import EXPORT_VERSION, seal
from bot.storage.postgres import numbered_placeholders
from bot.storage.schema import MIGRATIONS, POSTGRES_MIGRATIONS, SCHEMA_VERSION, migrate
from tests.paths import ROOT
from tests.storage_fixtures import ALICE, BOB, CHANNEL, DIRECTOR, GUILD, START, new_encounter

try:
    import asyncpg  # pyright: ignore[reportMissingTypeStubs]
except ImportError:  # no `postgres` extra: the PostgreSQL runs skip, the SQLite ones run as ever
    asyncpg = None

# PostgreSQL runs the same tests when a server answers here (a fresh database per test); otherwise it is skipped.


# --- opening, pragmas, migrations ---------------------------------------------------------------------------


async def test_open_storage_accepts_sqlite_urls_and_bare_paths(tmp_path: Path) -> None:
    for url in (f"sqlite:///{tmp_path / 'a.db'}", str(tmp_path / "b.db"), tmp_path / "c.db"):
        opened = await open_storage(url)
        await opened.close()
    assert {p.name for p in tmp_path.glob("*.db")} == {"a.db", "b.db", "c.db"}


async def test_open_storage_reports_unreachable_postgresql_and_unknown_schemes_clearly() -> None:
    if asyncpg is None:  # the missing driver is what gets reported then
        with pytest.raises(BackendUnavailableError, match=r"pip install 'hexdirector\[postgres\]'"):
            await open_storage("postgresql://user@127.0.0.1:1/hexdirector")
    else:
        with pytest.raises(StorageError, match="cannot connect to PostgreSQL"):
            await open_storage("postgresql://user@127.0.0.1:1/hexdirector")
    with pytest.raises(StorageError, match="unknown database URL scheme 'mysql'"):
        await open_storage("mysql://127.0.0.1/db")


# Run in a fresh interpreter where `import asyncpg` fails, as on an install without the `postgres` extra.
WITHOUT_ASYNCPG = """
import asyncio, sys
sys.modules["asyncpg"] = None  # blocks the import: ImportError, as if it were not installed
import bot.storage.postgres  # the module loads; only opening a PostgreSQL database needs asyncpg
import tests.storage.test_storage_crash, tests.storage.test_storage_race  # the storage tests collect (and test_storage)
from bot.storage import BackendUnavailableError, open_storage
from bot.storage.sqlite import SqliteStorage

async def main():
    storage = await open_storage(sys.argv[1])
    assert isinstance(storage, SqliteStorage)
    encounter_id = await storage.create_encounter(1, 2, "exo", "no asyncpg", 3, {"phase": 1})
    assert (await storage.load(encounter_id)).state == {"phase": 1}
    await storage.close()
    try:
        await open_storage("postgresql://user@127.0.0.1:1/db")
    except BackendUnavailableError as error:
        print(error)

asyncio.run(main())
"""


def test_storage_imports_and_runs_on_sqlite_without_asyncpg(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", WITHOUT_ASYNCPG, f"sqlite:///{tmp_path / 'plain.db'}"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "the PostgreSQL backend needs asyncpg: pip install 'hexdirector[postgres]'"


async def test_sqlite_file_is_wal_with_current_schema_version(tmp_path: Path) -> None:
    path = tmp_path / "x.db"
    opened = await open_storage(path)
    await opened.close()
    with sqlite3.connect(path) as raw:
        assert raw.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert raw.execute("SELECT version FROM schema_version").fetchall() == [(SCHEMA_VERSION,)]


async def test_connection_has_foreign_keys_full_sync_and_busy_timeout(tmp_path: Path) -> None:
    opened = await open_storage(tmp_path / "x.db")
    conn: aiosqlite.Connection = opened._driver._conn  # type: ignore[attr-defined]  # this backend's pragmas
    assert list(await conn.execute_fetchall("PRAGMA foreign_keys")) == [(1,)]
    assert list(await conn.execute_fetchall("PRAGMA synchronous")) == [(2,)]  # FULL
    assert next(iter(await conn.execute_fetchall("PRAGMA busy_timeout")))[0] >= 5000
    await opened.close()


async def test_reopening_keeps_data_and_does_not_migrate_again(tmp_path: Path) -> None:
    path = tmp_path / "x.db"
    first = await open_storage(path)
    encounter_id = await new_encounter(first)
    await first.close()
    second = await open_storage(path)
    assert (await second.get_encounter(encounter_id)).name == "Duel at Kessel"
    await second.close()


async def test_migrations_apply_in_order_and_a_failing_step_rolls_back(tmp_path: Path) -> None:
    steps = (
        ("CREATE TABLE a (x INTEGER)",),
        ("CREATE TABLE b (x INTEGER)", "INSERT INTO nowhere VALUES (1)"),
    )
    async with aiosqlite.connect(tmp_path / "m.db", isolation_level=None) as conn:
        with pytest.raises(sqlite3.OperationalError):
            await migrate(conn, steps)
        # step 1 committed; step 2 left nothing behind, not even table b
        assert list(await conn.execute_fetchall("SELECT version FROM schema_version")) == [(1,)]
        tables = {row[0] for row in await conn.execute_fetchall("SELECT name FROM sqlite_master")}
        assert "a" in tables and "b" not in tables
        assert await migrate(conn, (*steps[:1], ("CREATE TABLE b (x INTEGER)",))) == 2


def test_both_backends_have_the_same_migration_steps_and_placeholders_translate() -> None:
    assert len(POSTGRES_MIGRATIONS) == len(MIGRATIONS) == SCHEMA_VERSION
    assert [len(step) for step in POSTGRES_MIGRATIONS] == [len(step) for step in MIGRATIONS]
    assert numbered_placeholders("SELECT a FROM t WHERE b = ? AND c IN (?, ?)") == (
        "SELECT a FROM t WHERE b = $1 AND c IN ($2, $3)"
    )


async def test_database_newer_than_the_code_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "x.db"
    opened = await open_storage(path)
    await opened.close()
    with sqlite3.connect(path) as raw:
        raw.execute("UPDATE schema_version SET version = ?", (len(MIGRATIONS) + 1,))
    with pytest.raises(StorageError, match="newer than this bot"):
        await open_storage(path)


# --- encounters ---------------------------------------------------------------------------------------------


async def test_create_and_find_encounters(storage: Storage) -> None:
    encounter_id = await new_encounter(storage)
    encounter = await storage.get_encounter(encounter_id)
    assert (encounter.guild_id, encounter.channel_id, encounter.ruleset) == (GUILD, CHANNEL, "exo")
    assert (encounter.status, encounter.phase_no, encounter.settings) == ("open", 1, {"mode": "x"})
    assert encounter.created_at.tzinfo is not None
    assert (await storage.active_encounter_in_channel(GUILD, CHANNEL)) == encounter
    assert await storage.active_encounter_in_channel(GUILD, CHANNEL + 1) is None
    assert [e.id for e in await storage.list_encounters(GUILD)] == [encounter_id]
    with pytest.raises(EncounterNotFoundError):
        await storage.get_encounter(encounter_id + 100)


async def test_a_member_s_open_encounters_are_counted_in_their_guild_until_they_end(storage: Storage) -> None:
    first = await new_encounter(storage)
    await new_encounter(storage, channel=CHANNEL + 1)
    await storage.create_encounter(GUILD, CHANNEL + 2, "exo", "Another's", DIRECTOR + 1, START, {})
    await storage.create_encounter(GUILD + 1, CHANNEL, "exo", "Elsewhere", DIRECTOR, START, {})
    assert await storage.count_open_encounters(GUILD, DIRECTOR) == 2
    await storage.set_encounter_status(first, "running")
    assert await storage.count_open_encounters(GUILD, DIRECTOR) == 2
    await storage.set_encounter_status(first, "ended")
    assert await storage.count_open_encounters(GUILD, DIRECTOR) == 1
    assert await storage.count_open_encounters(GUILD, DIRECTOR + 2) == 0


async def test_one_live_encounter_per_channel(storage: Storage) -> None:
    first = await new_encounter(storage)
    with pytest.raises(ChannelBusyError):
        await new_encounter(storage)
    await storage.set_encounter_status(first, "ended")
    second = await new_encounter(storage)
    assert [e.id for e in await storage.list_encounters(GUILD, active_only=True)] == [second]
    assert [e.id for e in await storage.list_encounters(GUILD)] == [first, second]
    with pytest.raises(ChannelBusyError):  # reopening the old one would make two live encounters
        await storage.set_encounter_status(first, "paused")


async def test_status_and_settings_changes_are_logged(storage: Storage) -> None:
    encounter_id = await new_encounter(storage)
    assert (await storage.set_encounter_status(encounter_id, "running")).status == "running"
    updated = await storage.update_settings(encounter_id, deadline_minutes=30, mode=None)
    assert updated.settings == {"deadline_minutes": 30}
    types = [event.type for event in await storage.events(encounter_id)]
    assert types == ["EncounterCreated", "StatusChanged", "SettingsChanged"]
    with pytest.raises(ValueError, match="unknown encounter status"):
        await storage.set_encounter_status(encounter_id, "won")  # type: ignore[arg-type]


# --- participants -------------------------------------------------------------------------------------------


async def test_participants_roles_units_and_reassignment(storage: Storage) -> None:
    encounter_id = await new_encounter(storage)
    await storage.add_participant(encounter_id, DIRECTOR, "director")
    await storage.add_participant(encounter_id, ALICE, "player", side="red", unit="halcon")
    await storage.add_participant(encounter_id, ALICE, "player", side="red", unit="halcon")  # idempotent
    await storage.add_participant(encounter_id, BOB, "codirector")
    with pytest.raises(UnitTakenError, match="halcon"):
        await storage.add_participant(encounter_id, BOB, "player", side="red", unit="halcon")
    await storage.add_participant(encounter_id, BOB, "player", side="red", unit="halcon", reassign=True)
    rows = {(p.user_id, p.role, p.side, p.unit) for p in await storage.participants(encounter_id)}
    assert rows == {
        (DIRECTOR, "director", None, None),
        (BOB, "codirector", None, None),
        (BOB, "player", "red", "halcon"),
    }
    assert await storage.remove_participant(encounter_id, BOB, role="player") == 1
    assert {(p.user_id, p.role) for p in await storage.participants(encounter_id)} == {
        (DIRECTOR, "director"),
        (BOB, "codirector"),
    }
    with pytest.raises(ValueError, match="unknown participant role"):
        await storage.add_participant(encounter_id, BOB, "spectator")  # type: ignore[arg-type]


# --- orders -------------------------------------------------------------------------------------------------


async def test_orders_are_acknowledged_amended_and_private(storage: Storage) -> None:
    encounter_id = await new_encounter(storage)
    first = await storage.submit_order(encounter_id, 1, "halcon", ALICE, {"move": "DA", "secret": "s1"})
    amended = await storage.submit_order(encounter_id, 1, "halcon", ALICE, {"move": "AA", "secret": "s2"})
    await storage.submit_order(encounter_id, 1, "pirata", BOB, {"move": "I", "secret": "s3"})
    assert (first.amended, amended.amended, amended.seq > first.seq) == (False, True, True)

    alice = await storage.orders_of(encounter_id, 1, ALICE)
    assert [(o.unit_id, o.order["move"]) for o in alice] == [("halcon", "AA")]
    assert [o.unit_id for o in await storage.orders_of(encounter_id, 1, BOB)] == ["pirata"]
    assert await storage.submitted_units(encounter_id, 1) == ["halcon", "pirata"]
    everything = await storage.orders_for_resolution(encounter_id, 1)
    assert {u: o.order["move"] for u, o in everything.orders.items()} == {"halcon": "AA", "pirata": "I"}

    # neither the log nor a load reveals what anybody ordered
    public = json.dumps([e.payload for e in await storage.events(encounter_id)])
    public += json.dumps([e.payload for e in (await storage.load(encounter_id)).events])
    assert "secret" not in public and "DA" not in public
    assert '"unit_id": "halcon"' in public


async def test_an_amendment_by_another_user_takes_the_unit_out_of_the_first_users_orders(
    storage: Storage,
) -> None:
    encounter_id = await new_encounter(storage)
    await storage.submit_order(encounter_id, 1, "halcon", ALICE, {"move": "A"})
    await storage.submit_order(encounter_id, 1, "halcon", BOB, {"move": "D"})
    assert await storage.orders_of(encounter_id, 1, ALICE) == []
    assert [o.order for o in await storage.orders_of(encounter_id, 1, BOB)] == [{"move": "D"}]


async def test_orders_for_a_stale_phase_are_refused(storage: Storage) -> None:
    encounter_id = await new_encounter(storage)
    with pytest.raises(StalePhaseError) as caught:
        await storage.submit_order(encounter_id, 2, "halcon", ALICE, {"move": "A"})
    assert (caught.value.given_phase_no, caught.value.current_phase_no) == (2, 1)
    await storage.commit_resolution(encounter_id, 1, [], {"phase": 2})
    with pytest.raises(StalePhaseError, match="is in phase 2, not phase 1"):
        await storage.submit_order(encounter_id, 1, "halcon", ALICE, {"move": "A"})
    assert await storage.orders_of(encounter_id, 1, ALICE) == []
    with pytest.raises(StalePhaseError):
        await storage.orders_for_resolution(encounter_id, 1)


async def test_concurrent_submissions_on_one_connection_are_all_kept(storage: Storage) -> None:
    encounter_id = await new_encounter(storage)
    acks = await asyncio.gather(
        *(storage.submit_order(encounter_id, 1, f"u{i}", 1000 + i, {"value": i}) for i in range(40))
    )
    assert sorted(ack.seq for ack in acks) == list(range(2, 42))
    orders = (await storage.orders_for_resolution(encounter_id, 1)).orders
    assert {u: o.order["value"] for u, o in orders.items()} == {f"u{i}": i for i in range(40)}


# --- resolution ---------------------------------------------------------------------------------------------


async def test_resolution_appends_events_snapshots_and_opens_the_next_phase(storage: Storage) -> None:
    encounter_id = await new_encounter(storage)
    await storage.submit_order(encounter_id, 1, "halcon", ALICE, {"move": "A"})
    inputs = await storage.orders_for_resolution(encounter_id, 1)
    assert inputs.state == START
    batch = [("UnitMoved", {"unit": "halcon", "to": f"05{i:02}"}) for i in range(50)]
    result = await storage.commit_resolution(encounter_id, 1, batch, {"phase": 2}, based_on=inputs)
    assert isinstance(result, Resolved)
    assert (result.phase_no, result.next_phase_no, result.last_seq - result.first_seq) == (1, 2, 50)

    loaded = await storage.load(encounter_id)
    assert (loaded.phase_no, loaded.state, loaded.events, loaded.meta.phase_no) == (2, {"phase": 2}, (), 2)
    log = await storage.events(encounter_id, since_seq=inputs.orders["halcon"].seq)
    assert [e.type for e in log] == ["UnitMoved"] * 50 + ["PhaseResolved"]
    assert log[-1].payload == {
        "phase_no": 1,
        "next_phase_no": 2,
        "orders": {"halcon": inputs.orders["halcon"].seq},
    }
    assert [e.type for e in await storage.events(encounter_id, types=["PhaseResolved"])] == ["PhaseResolved"]
    assert await storage.submitted_units(encounter_id, 2) == []  # a new phase starts with no orders


async def test_resolving_twice_gives_already_resolved_and_writes_nothing(storage: Storage) -> None:
    encounter_id = await new_encounter(storage)
    assert isinstance(await storage.commit_resolution(encounter_id, 1, [("A", {})], {"phase": 2}), Resolved)
    last_seq = (await storage.get_encounter(encounter_id)).last_seq
    again = await storage.commit_resolution(encounter_id, 1, [("A", {})], {"phase": 99})
    assert again == AlreadyResolved(encounter_id, 1, 2)
    assert "already resolved" in again.message
    assert (await storage.get_encounter(encounter_id)).last_seq == last_seq
    assert (await storage.load(encounter_id)).state == {"phase": 2}
    with pytest.raises(StalePhaseError):  # a phase that has not opened yet cannot be resolved
        await storage.commit_resolution(encounter_id, 5, [], {})


async def test_an_order_arriving_during_resolution_is_never_silently_dropped(storage: Storage) -> None:
    encounter_id = await new_encounter(storage)
    await storage.submit_order(encounter_id, 1, "halcon", ALICE, {"move": "A"})
    inputs = await storage.orders_for_resolution(encounter_id, 1)
    await storage.submit_order(encounter_id, 1, "pirata", BOB, {"move": "D"})  # acknowledged to Bob
    result = await storage.commit_resolution(encounter_id, 1, [], {"phase": 2}, based_on=inputs)
    assert result == InputsChanged(encounter_id, 1)
    retry = await storage.orders_for_resolution(encounter_id, 1)
    assert set(retry.orders) == {"halcon", "pirata"}
    assert isinstance(
        await storage.commit_resolution(encounter_id, 1, [], {"phase": 2}, based_on=retry), Resolved
    )


async def test_an_override_during_resolution_is_not_overwritten(storage: Storage) -> None:
    encounter_id = await new_encounter(storage)
    inputs = await storage.orders_for_resolution(encounter_id, 1)
    await storage.record_override(
        encounter_id, 1, ("UnitPlaced", {"unit": "halcon"}), {"phase": 1, "moved": True}
    )
    result = await storage.commit_resolution(encounter_id, 1, [], {"phase": 2}, based_on=inputs)
    assert isinstance(result, InputsChanged)


async def test_reserved_event_types_and_ended_encounters_are_refused(storage: Storage) -> None:
    encounter_id = await new_encounter(storage)
    with pytest.raises(ValueError, match="written by storage itself"):
        await storage.commit_resolution(encounter_id, 1, [("PhaseResolved", {})], {})
    with pytest.raises(ValueError, match="written by storage itself"):
        await storage.append_event(encounter_id, "Undone", {})
    await storage.set_encounter_status(encounter_id, "ended")
    with pytest.raises(EncounterEndedError):
        await storage.submit_order(encounter_id, 1, "halcon", ALICE, {})
    with pytest.raises(EncounterEndedError):
        await storage.commit_resolution(encounter_id, 1, [], {})


async def test_append_event_logs_without_changing_the_state(storage: Storage) -> None:
    encounter_id = await new_encounter(storage)
    event = await storage.append_event(encounter_id, "RollMade", {"dice": [2, 6, 4], "rule": "DICE-2"})
    loaded = await storage.load(encounter_id)
    assert loaded.state == START
    assert loaded.events == (event,)


# --- overrides and undo -------------------------------------------------------------------------------------


async def test_undo_restores_the_previous_phase_and_deletes_nothing(storage: Storage) -> None:
    encounter_id = await new_encounter(storage)
    await storage.submit_order(encounter_id, 1, "halcon", ALICE, {"move": "A"})
    await storage.commit_resolution(encounter_id, 1, [("UnitMoved", {})], {"phase": 2})
    await storage.submit_order(encounter_id, 2, "halcon", ALICE, {"move": "I"})
    events_before = await storage.events(encounter_id)

    assert await storage.undo(encounter_id, expected_phase_no=2) == 1
    loaded = await storage.load(encounter_id)
    assert (loaded.phase_no, loaded.state) == (1, START)
    events_after = await storage.events(encounter_id)
    assert events_after[: len(events_before)] == events_before  # append-only
    assert events_after[-1].type == "Undone"
    assert events_after[-1].payload["from_phase_no"] == 2 and events_after[-1].payload["to_phase_no"] == 1
    # the restored phase's orders are pending again, so the director can resolve it again (redo)
    assert [o.order for o in await storage.orders_of(encounter_id, 1, ALICE)] == [{"move": "A"}]

    await storage.commit_resolution(encounter_id, 1, [], {"phase": 2, "again": True})
    # the order given for phase 2 before the undo belonged to a timeline that no longer exists
    assert await storage.submitted_units(encounter_id, 2) == []
    with pytest.raises(StalePhaseError):  # a second director clicking undo on a stale view
        await storage.undo(encounter_id, expected_phase_no=3)


async def test_undo_walks_back_through_overrides_and_phases(storage: Storage) -> None:
    encounter_id = await new_encounter(storage)
    await storage.submit_order(encounter_id, 1, "halcon", ALICE, {"move": "A"})
    await storage.record_override(encounter_id, 1, ("UnitPlaced", {"unit": "pirata"}), {"phase": 1, "o": 1})
    assert await storage.submitted_units(encounter_id, 1) == ["halcon"]  # an override keeps orders pending
    await storage.commit_resolution(encounter_id, 1, [], {"phase": 2})
    await storage.record_override(encounter_id, 2, ("UnitDamaged", {}), {"phase": 2, "o": 2})

    states = []
    for _ in range(3):
        assert await storage.can_undo(encounter_id)
        await storage.undo(encounter_id)
        loaded = await storage.load(encounter_id)
        states.append((loaded.phase_no, loaded.state))
    assert states == [(2, {"phase": 2}), (1, {"phase": 1, "o": 1}), (1, START)]
    assert await storage.submitted_units(encounter_id, 1) == ["halcon"]
    assert not await storage.can_undo(encounter_id)  # asked before a public answer (cogs/director.py undo)
    with pytest.raises(NothingToUndoError):
        await storage.undo(encounter_id)
    with pytest.raises(StalePhaseError):
        await storage.record_override(encounter_id, 2, ("X", {}), {})


# --- export / import ----------------------------------------------------------------------------------------


async def played_encounter(storage: Storage) -> int:
    encounter_id = await new_encounter(storage)
    await storage.add_participant(encounter_id, DIRECTOR, "director")
    await storage.add_participant(encounter_id, ALICE, "player", side="red", unit="halcon")
    for phase in (1, 2, 3):
        await storage.submit_order(encounter_id, phase, "halcon", ALICE, {"move": "A", "phase": phase})
        await storage.commit_resolution(
            encounter_id, phase, [("UnitMoved", {"p": phase})], {"phase": phase + 1}
        )
    await storage.undo(encounter_id)
    await storage.submit_order(encounter_id, 3, "halcon", ALICE, {"move": "D"})
    return encounter_id


async def test_export_import_round_trip(storage: Storage) -> None:
    source = await played_encounter(storage)
    exported = await storage.export_encounter(source)
    assert (exported["format"], exported["version"]) == ("hexdirector-encounter", EXPORT_VERSION)
    exported = json.loads(json.dumps(exported))  # through a real file format
    copy_id = await storage.import_encounter(exported, GUILD, CHANNEL + 1)

    original, imported = await storage.load(source), await storage.load(copy_id)
    assert (imported.phase_no, imported.state, imported.meta.status) == (
        original.phase_no,
        original.state,
        "open",
    )
    assert imported.meta.channel_id == CHANNEL + 1
    assert [(e.seq, e.type, e.payload) for e in await storage.events(copy_id)][:-1] == [
        (e.seq, e.type, e.payload) for e in await storage.events(source)
    ]
    assert (await storage.events(copy_id))[-1].type == "EncounterImported"
    assert [o.order for o in await storage.orders_of(copy_id, 3, ALICE)] == [{"move": "D"}]
    assert {(p.user_id, p.unit) for p in await storage.participants(copy_id)} == {
        (DIRECTOR, None),
        (ALICE, "halcon"),
    }
    assert await storage.undo(copy_id) == 2  # the snapshot chain came along
    with pytest.raises(ChannelBusyError):
        await storage.import_encounter(exported, GUILD, CHANNEL)


def _resealed(document: dict[str, Any]) -> dict[str, Any]:
    body = {k: v for k, v in document.items() if k not in ("format", "version", "sha256")}
    return seal(body)


def _broken_variants(good: dict[str, Any]) -> list[tuple[object, str]]:
    foreign = copy.deepcopy(good)
    foreign["version"] = EXPORT_VERSION + 1
    edited = copy.deepcopy(good)
    edited["encounter"]["name"] = "tampered"
    gap = copy.deepcopy(good)
    del gap["events"][2]
    missing = copy.deepcopy(good)
    del missing["snapshots"][0]["state"]
    wrong_type = copy.deepcopy(good)
    wrong_type["events"][0]["seq"] = "1"
    dangling = copy.deepcopy(good)
    dangling["orders"][0]["seq"] = 1
    return [
        ([1, 2, 3], "top level must be a JSON object"),
        ({"format": "something-else"}, "not a hexdirector encounter export"),
        (foreign, f"format version {EXPORT_VERSION + 1}; this bot reads version {EXPORT_VERSION} only"),
        (edited, "checksum does not match"),
        (_resealed(gap), "sequence number 4, expected 3"),
        (_resealed(missing), "missing field 'state'"),
        (_resealed(wrong_type), "field 'seq' must be int, not str"),
        (_resealed(dangling), "is not an OrderAccepted event"),
    ]


async def test_import_refuses_broken_and_foreign_files_with_a_clear_message(storage: Storage) -> None:
    good = json.loads(json.dumps(await storage.export_encounter(await played_encounter(storage))))
    before = await storage.list_encounters(GUILD)
    for broken, message in _broken_variants(good):
        with pytest.raises(InvalidExportError, match="cannot be imported") as caught:
            await storage.import_encounter(broken, GUILD, CHANNEL + 5)  # type: ignore[arg-type]
        assert message in str(caught.value)
    assert await storage.list_encounters(GUILD) == before  # nothing half-imported


# --- guild settings, deadlines, message refs ----------------------------------------------------------------


async def test_guild_settings_default_and_partial_updates(storage: Storage) -> None:
    assert await storage.get_guild_settings(GUILD) == GuildSettings(GUILD)
    await storage.set_guild_settings(GUILD, language="es", default_deadline_minutes=60)
    updated = await storage.set_guild_settings(GUILD, director_role_id=555, tutorial_shown=True)
    assert updated == GuildSettings(GUILD, "es", 555, 60, True)
    assert await storage.get_guild_settings(GUILD) == updated
    cleared = await storage.set_guild_settings(GUILD, default_deadline_minutes=None, language=UNSET)
    assert (cleared.language, cleared.default_deadline_minutes) == ("es", None)
    with pytest.raises(ValueError, match="positive number of minutes"):
        await storage.set_guild_settings(GUILD, default_deadline_minutes=0)


async def test_guild_settings_keep_the_open_limit_and_who_may_import(storage: Storage) -> None:
    """The open encounters a member may keep (3 unless set; 0: no limit) and imports kept to Manage Server."""
    assert (await storage.get_guild_settings(GUILD)).open_limit == 3
    changed = await storage.set_guild_settings(GUILD, max_open_encounters=5, import_managers_only=True)
    assert (changed.open_limit, changed.import_managers_only) == (5, True)
    unlimited = await storage.set_guild_settings(GUILD, max_open_encounters=0, language="es")
    assert unlimited.open_limit is None and unlimited.import_managers_only and unlimited.language == "es"
    with pytest.raises(ValueError, match="cannot be negative"):
        await storage.set_guild_settings(GUILD, max_open_encounters=-1)


async def test_the_servers_palette_and_each_persons_own_are_kept_apart(storage: Storage) -> None:
    """``/settings palette``: the server's default for public posts beside its other settings, and a person's own
    scheme for the pictures only they see (None: nothing chosen), changed and cleared without touching the other."""
    assert (await storage.get_guild_settings(GUILD)).palette is None
    assert await storage.get_user_palette(7) is None
    changed = await storage.set_guild_settings(GUILD, palette="contrast", language="es")
    assert (changed.palette, changed.language) == ("contrast", "es")
    await storage.set_user_palette(7, "contrast")
    await storage.set_user_palette(8, None)
    assert (await storage.get_user_palette(7), await storage.get_user_palette(8)) == ("contrast", None)
    await storage.set_user_palette(7, None)
    assert await storage.get_user_palette(7) is None
    assert (await storage.get_guild_settings(GUILD)).palette == "contrast"
    assert (await storage.set_guild_settings(GUILD, palette=None)).language == "es"


async def test_deadlines_fire_only_for_running_encounters_still_in_that_phase(storage: Storage) -> None:
    encounter_id = await new_encounter(storage)
    t0 = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
    await storage.set_deadline(encounter_id, 1, t0 + timedelta(minutes=30))
    assert await storage.due_deadlines(t0 + timedelta(hours=1)) == []  # not running yet
    await storage.set_encounter_status(encounter_id, "running")
    assert await storage.due_deadlines(t0 + timedelta(minutes=29)) == []
    due = await storage.due_deadlines(t0 + timedelta(minutes=30))
    assert [(d.encounter_id, d.phase_no, d.due_at) for d in due] == [
        (encounter_id, 1, t0 + timedelta(minutes=30))
    ]
    await storage.commit_resolution(encounter_id, 1, [], {"phase": 2})
    assert await storage.due_deadlines(t0 + timedelta(hours=1)) == []  # its phase is over
    await storage.set_deadline(encounter_id, 2, t0)
    assert len(await storage.due_deadlines(t0)) == 1
    await storage.set_deadline(encounter_id, 2, None)
    assert await storage.due_deadlines(t0 + timedelta(days=1)) == []
    with pytest.raises(ValueError, match="timezone-aware"):
        await storage.set_deadline(encounter_id, 2, datetime(2026, 1, 1))


async def test_a_resolution_opens_the_next_phase_with_its_deadline_in_the_same_transaction(
    storage: Storage,
) -> None:
    """A default deadline used to be written after the step that opened its phase: a crash in between left the
    phase with none, and the table waiting on nobody. Now it is part of the step's commit, or of nothing."""
    encounter_id = await new_encounter(storage)
    await storage.set_encounter_status(encounter_id, "running")
    t0 = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
    due, remind = t0 + timedelta(minutes=10), t0 + timedelta(minutes=8)
    with pytest.raises(ValueError, match="timezone-aware"):  # refused before anything is written
        await storage.commit_resolution(
            encounter_id, 1, [], {"phase": 2}, next_deadline=(datetime(2026, 1, 1), None)
        )
    assert (await storage.load(encounter_id)).phase_no == 1
    await storage.commit_resolution(encounter_id, 1, [], {"phase": 2}, next_deadline=(due, remind))
    assert await storage.deadline_of(encounter_id) == Deadline(encounter_id, 2, due, remind)
    stale = await storage.commit_resolution(encounter_id, 1, [], {"phase": 2}, next_deadline=(t0, None))
    assert isinstance(stale, AlreadyResolved)
    assert await storage.deadline_of(encounter_id) == Deadline(encounter_id, 2, due, remind)  # untouched
    await storage.commit_resolution(encounter_id, 2, [], {"phase": 3})  # no deadline for phase 3
    assert [d.phase_no for d in await storage.due_deadlines(t0 + timedelta(days=1))] == []


async def test_a_reminder_is_due_once_in_its_phase_and_a_new_deadline_replaces_it(storage: Storage) -> None:
    """The players still missing are reminded once, at a set point before the deadline."""
    encounter_id = await new_encounter(storage)
    await storage.set_encounter_status(encounter_id, "running")
    t0 = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
    await storage.set_deadline(
        encounter_id, 1, t0 + timedelta(minutes=40), remind_at=t0 + timedelta(minutes=30)
    )
    pending = await storage.deadline_of(encounter_id)
    assert pending is not None and pending.remind_at == t0 + timedelta(minutes=30)
    assert await storage.due_reminders(t0 + timedelta(minutes=29)) == []
    (due,) = await storage.due_reminders(t0 + timedelta(minutes=30))
    assert (due.encounter_id, due.phase_no) == (encounter_id, 1)
    assert await storage.clear_reminder(encounter_id, 1) is True
    assert await storage.clear_reminder(encounter_id, 1) is False, "taken once, by one process"
    assert await storage.due_reminders(t0 + timedelta(hours=2)) == []
    assert (await storage.due_deadlines(t0 + timedelta(hours=2)))[0].remind_at is None  # the deadline stays
    await storage.set_deadline(encounter_id, 1, t0 + timedelta(hours=3), remind_at=t0 + timedelta(hours=2))
    assert len(await storage.due_reminders(t0 + timedelta(hours=2))) == 1
    await storage.commit_resolution(encounter_id, 1, [], {"phase": 2})
    assert await storage.due_reminders(t0 + timedelta(hours=2)) == [], "its phase is over"
    await storage.set_deadline(encounter_id, 2, None)
    assert await storage.deadline_of(encounter_id) is None


async def test_message_refs_survive_as_bookkeeping(storage: Storage) -> None:
    encounter_id = await new_encounter(storage)
    await storage.set_message_ref(encounter_id, "status", "phase", 222, 9001)
    await storage.set_message_ref(encounter_id, "panel", "halcon", 333, 9002)
    await storage.set_message_ref(encounter_id, "status", "phase", 222, 9003)  # replaced
    ref = await storage.get_message_ref(encounter_id, "status", "phase")
    assert ref is not None and (ref.channel_id, ref.message_id) == (222, 9003)
    assert [r.key for r in await storage.message_refs(encounter_id)] == ["halcon", "phase"]
    assert [r.key for r in await storage.message_refs(encounter_id, "panel")] == ["halcon"]
    assert await storage.delete_message_ref(encounter_id, "panel", "halcon") is True
    assert await storage.delete_message_ref(encounter_id, "panel", "halcon") is False
    assert await storage.get_message_ref(encounter_id, "panel", "halcon") is None


# --- change detection ---------------------------------------------------------------------------------------


async def test_every_change_moves_last_seq_and_load_reads_participants_with_it(storage: Storage) -> None:
    """The bot reuses its last read of an encounter while ``last_seq`` is unchanged (bot/service_base.seen):
    each kind of write must move it, and ``load`` must return participants consistent with it."""
    encounter_id = await new_encounter(storage)
    seqs = [await storage.last_seq(encounter_id)]

    async def moved() -> None:
        seqs.append(await storage.last_seq(encounter_id))
        assert seqs[-1] > seqs[-2]
        loaded = await storage.load(encounter_id)
        assert loaded.meta.last_seq == seqs[-1]
        assert list(loaded.participants) == await storage.participants(encounter_id)

    await storage.add_participant(encounter_id, ALICE, "player", side="red", unit="halcon")
    await moved()
    await storage.add_participant(encounter_id, BOB, "player", side="red", unit="halcon", reassign=True)
    await moved()
    await storage.remove_participant(encounter_id, BOB, role="player")
    await moved()
    await storage.set_encounter_status(encounter_id, "running")
    await moved()
    await storage.update_settings(encounter_id, review_rolls=True)
    await moved()
    await storage.submit_order(encounter_id, 1, "halcon", ALICE, {"move": "A"})
    await moved()
    await storage.commit_resolution(encounter_id, 1, [("UnitMoved", {})], {"phase": 2})
    await moved()
    await storage.record_override(encounter_id, 2, ("UnitPlaced", {"unit": "halcon"}), {"phase": 2, "x": 1})
    await moved()
    await storage.undo(encounter_id)
    await moved()
    unchanged = await storage.last_seq(encounter_id)
    await storage.set_message_ref(encounter_id, "status", "2", CHANNEL, 99)  # bookkeeping, not the encounter
    assert await storage.last_seq(encounter_id) == unchanged
    with pytest.raises(EncounterNotFoundError):
        await storage.last_seq(encounter_id + 1000)


class _HeldExecutor(ThreadPoolExecutor):
    """Runs each job only once the test releases it: a COMMIT that is "still syncing" for as long as we like."""

    def __init__(self) -> None:
        super().__init__(1)
        self.started = threading.Event()
        self.release = threading.Event()

    def submit(self, fn: Any, /, *args: Any, **kwargs: Any) -> Any:
        def held() -> Any:
            self.started.set()
            self.release.wait(10)
            return fn(*args, **kwargs)

        return super().submit(held)


async def _syncing(held: _HeldExecutor) -> None:
    while not held.started.is_set():
        await asyncio.sleep(0.001)


@asynccontextmanager
async def _held_storage(
    path: Path, *, others: int = 0
) -> AsyncIterator[tuple[Storage, Any, _HeldExecutor, int]]:
    """A SQLite storage with an encounter (and ``others`` in the next channels), whose COMMITs then wait until the
    test sets ``held.release``: (storage, its driver, the executor holding the commits, the encounter)."""
    storage = await open_storage(f"sqlite:///{path}")
    held = _HeldExecutor()
    try:
        encounter_id = await new_encounter(storage)
        for n in range(others):
            await new_encounter(storage, channel=CHANNEL + 1 + n)
        driver: Any = storage._driver  # type: ignore[attr-defined]
        driver._committer = held
        yield storage, driver, held, encounter_id
    finally:
        held.release.set()
        await storage.close()


async def test_a_write_cancelled_while_its_commit_syncs_is_kept_and_others_wait(tmp_path: Path) -> None:
    """SQLite commits off the loop (bot/storage/sqlite.py): a caller cancelled mid-commit must not roll back or
    corrupt the connection, and a read of the encounter arriving meanwhile waits for that commit (a caller may act
    on another's write as soon as its body is over) instead of reading around it."""
    async with _held_storage(tmp_path / "held.db") as (storage, driver, held, encounter_id):
        submit = asyncio.create_task(storage.submit_order(encounter_id, 1, "halcon", ALICE, {"move": "A"}))
        await _syncing(held)
        reader = asyncio.create_task(storage.submitted_units(encounter_id, 1))
        await asyncio.sleep(0.01)
        assert not reader.done()  # waits for the commit, never reads around it
        submit.cancel()
        await asyncio.sleep(0.01)
        assert not submit.done()  # the cancelled caller still waits for its commit to end
        held.release.set()
        with pytest.raises(asyncio.CancelledError):
            await submit
        assert await reader == ["halcon"]
        assert driver.fallbacks == 0
        await storage.submit_order(encounter_id, 1, "pirata", BOB, {"move": "I"})
        assert await storage.submitted_units(encounter_id, 1) == ["halcon", "pirata"]


class _GatedExecutor(ThreadPoolExecutor):
    """Runs job n only once the test opens gate n: each COMMIT "still syncing" for as long as we like."""

    def __init__(self, jobs: int) -> None:
        super().__init__(1)
        self.started = [threading.Event() for _ in range(jobs)]
        self.gates = [threading.Event() for _ in range(jobs)]
        self.finished = [threading.Event() for _ in range(jobs)]
        self._next = 0

    def submit(self, fn: Any, /, *args: Any, **kwargs: Any) -> Any:
        n, self._next = self._next, self._next + 1

        def gated() -> Any:
            self.started[n].set()
            self.gates[n].wait(10)
            try:
                return fn(*args, **kwargs)
            finally:
                self.finished[n].set()

        return super().submit(gated)

    def open_all(self) -> None:
        for gate in self.gates:
            gate.set()


@asynccontextmanager
async def _gated_storage(path: Path) -> AsyncIterator[tuple[Storage, Any, _GatedExecutor, int]]:
    """A SQLite storage with an encounter whose next two COMMITs each wait for their gate, and a first order whose
    COMMIT is syncing (held at gate 0): (storage, its driver, the gates, the encounter). The order's task is
    ``driver.first``."""
    storage = await open_storage(f"sqlite:///{path}")
    gated = _GatedExecutor(2)
    try:
        encounter_id = await new_encounter(storage)
        driver: Any = storage._driver  # type: ignore[attr-defined]
        driver._committer = gated
        driver.first = asyncio.create_task(
            storage.submit_order(encounter_id, 1, "halcon", ALICE, {"move": "A"})
        )
        while not gated.started[0].is_set():
            await asyncio.sleep(0.001)
        yield storage, driver, gated, encounter_id
    finally:
        gated.open_all()
        await storage.close()


async def test_a_read_waits_for_the_sync_in_flight_but_not_behind_the_writers_queued_after_it(
    tmp_path: Path,
) -> None:
    """Reads have their own connection. Before, a read queued on the one connection behind every writer
    that came first, each syncing in turn: at 100 encounters a board waited 1.4-2.4 s (p95) for its reads."""
    async with _gated_storage(tmp_path / "queue.db") as (storage, driver, gated, encounter_id):
        second = asyncio.create_task(storage.submit_order(encounter_id, 1, "pirata", BOB, {"move": "I"}))
        await asyncio.sleep(0.01)  # the second writer now waits for the connection
        reader = asyncio.create_task(storage.submitted_units(encounter_id, 1))
        await asyncio.sleep(0.01)
        assert not reader.done()  # the first write's body is over: its sync is waited for
        gated.gates[0].set()
        assert await asyncio.wait_for(reader, 5) == ["halcon"]  # without waiting for the second one's
        assert not second.done()
        gated.gates[1].set()
        await asyncio.gather(driver.first, second)
        assert await storage.submitted_units(encounter_id, 1) == ["halcon", "pirata"]


async def test_writers_that_waited_for_a_sync_all_write_in_the_next_pass_of_the_loop(tmp_path: Path) -> None:
    """Writers that arrive while a COMMIT syncs used to queue on a lock, and each one woke the next a
    pass of the loop later: in the set-up burst of 100 encounters a join's write waited 70-114 ms (p50) for its
    turn, a pass of the busy loop being 10-40 ms. They now all wake together in the pass after the sync ends."""
    async with _gated_storage(tmp_path / "passes.db") as (_, driver, gated, encounter_id):
        commits = driver.commits
        wrote: list[int] = []

        async def write(n: int) -> None:
            async with driver.transaction(write=True, key=encounter_id) as db:
                wrote.append(n)
                await db.execute("UPDATE encounters SET name = ? WHERE id = ?", (f"n{n}", encounter_id))

        writers = [asyncio.create_task(write(n)) for n in range(20)]
        for _ in range(3):
            await asyncio.sleep(0)
        assert wrote == []  # the connection is the commit thread's
        gated.gates[0].set()
        gated.finished[0].wait(10)  # blocks the loop: the sync's end is now queued for its next pass
        passes = 0
        while len(wrote) < len(writers) and passes < 100:
            await asyncio.sleep(0)  # exactly one pass of the loop
            passes += 1
        assert sorted(wrote) == list(range(20)) and passes <= 3, f"{len(wrote)} writers after {passes} passes"
        gated.gates[1].set()
        await asyncio.gather(driver.first, *writers)
        assert driver.commits - commits == 2 and driver.fallbacks == 0  # the 20 shared the second COMMIT


async def test_reads_of_other_encounters_and_of_channels_never_wait_for_a_sync(tmp_path: Path) -> None:
    """Only a read of the encounter a syncing write changes waits for that sync. A burst of joins and
    starts read their channel's encounter first, and each waited for a commit of someone else's table."""
    async with _held_storage(tmp_path / "keys.db", others=1) as (storage, _, held, mine):
        other = await storage.active_encounter_in_channel(GUILD, CHANNEL + 1)
        assert other is not None
        submit = asyncio.create_task(storage.submit_order(mine, 1, "halcon", ALICE, {"move": "A"}))
        await _syncing(held)
        assert await asyncio.wait_for(storage.submitted_units(other.id, 1), 5) == []
        found = await asyncio.wait_for(storage.active_encounter_in_channel(GUILD, CHANNEL), 5)
        assert found is not None and found.id == mine
        mine_read = asyncio.create_task(storage.submitted_units(mine, 1))
        await asyncio.sleep(0.01)
        assert not mine_read.done()  # this one waits for the sync
        held.release.set()
        await submit
        assert await mine_read == ["halcon"]


async def test_writes_that_arrive_while_a_commit_syncs_share_the_next_one(tmp_path: Path) -> None:
    """Group commit: three orders given while the first one's COMMIT syncs are committed together,
    by one more COMMIT, each acknowledged only once that sync is over; another connection then sees them all."""
    async with _held_storage(tmp_path / "group.db") as (storage, driver, held, encounter_id):
        commits = driver.commits
        first = asyncio.create_task(storage.submit_order(encounter_id, 1, "halcon", ALICE, {"move": "A"}))
        await _syncing(held)
        later = [
            asyncio.create_task(storage.submit_order(encounter_id, 1, unit, user, {"move": "I"}))
            for unit, user in (("pirata", BOB), ("sable", 3), ("lince", 4))
        ]
        await asyncio.sleep(0.01)
        assert not any(task.done() for task in (first, *later))  # nobody is told "stored" before the sync
        held.release.set()
        await asyncio.gather(first, *later)
        assert driver.commits - commits == 2
        other = sqlite3.connect(tmp_path / "group.db")
        try:
            rows = other.execute("SELECT unit_id FROM orders WHERE encounter_id = ?", (encounter_id,))
            stored = {row[0] for row in rows}
        finally:
            other.close()
        assert stored == {"halcon", "pirata", "sable", "lince"}


async def test_a_write_that_fails_in_a_shared_commit_loses_only_its_own_work(tmp_path: Path) -> None:
    """Each write of a group commit runs in its own savepoint: one that raises is undone alone, the others of its
    batch are committed, and the connection stays usable."""
    async with _held_storage(tmp_path / "savepoint.db") as (storage, driver, held, encounter_id):
        name = (await storage.get_encounter(encounter_id)).name
        first = asyncio.create_task(storage.submit_order(encounter_id, 1, "halcon", ALICE, {"move": "A"}))
        await _syncing(held)

        async def failing() -> None:
            async with driver.transaction(write=True) as db:
                await db.execute("UPDATE encounters SET name = 'broken' WHERE id = ?", (encounter_id,))
                raise RuntimeError("the rules refused it")

        broken = asyncio.create_task(failing())
        kept = asyncio.create_task(storage.submit_order(encounter_id, 1, "pirata", BOB, {"move": "I"}))
        await asyncio.sleep(0.01)
        held.release.set()
        await first
        with pytest.raises(RuntimeError):
            await broken
        await kept
        assert await storage.submitted_units(encounter_id, 1) == ["halcon", "pirata"]
        assert (await storage.get_encounter(encounter_id)).name == name
        await storage.submit_order(encounter_id, 1, "lince", 4, {"move": "I"})
        assert await storage.submitted_units(encounter_id, 1) == ["halcon", "lince", "pirata"]


async def test_when_sqlite_undoes_a_shared_transaction_no_write_of_it_is_kept_or_acknowledged(
    tmp_path: Path,
) -> None:
    """Some errors (a full disk) make SQLite roll back the whole transaction under one writer of a batch: every
    writer of that batch is told it failed and none of their writes is kept (one joining after the rollback would
    otherwise start a transaction of its own and commit alone, yet be told it failed)."""
    async with _held_storage(tmp_path / "lost.db") as (storage, driver, held, encounter_id):
        name = (await storage.get_encounter(encounter_id)).name
        first = asyncio.create_task(storage.submit_order(encounter_id, 1, "halcon", ALICE, {"move": "A"}))
        await _syncing(held)

        async def rename(to: str) -> None:
            async with driver.transaction(write=True, key=encounter_id) as db:
                await db.execute("UPDATE encounters SET name = ? WHERE id = ?", (to, encounter_id))

        async def undone_by_sqlite() -> None:
            async with driver.transaction(write=True, key=encounter_id) as db:
                await db.execute("ROLLBACK")  # what SQLite does by itself on such an error
                raise sqlite3.OperationalError("database or disk is full")

        lost = asyncio.create_task(undone_by_sqlite())
        await asyncio.sleep(0)  # queued first for the connection
        batch = [lost, asyncio.create_task(rename("after"))]
        await asyncio.sleep(0.01)
        held.release.set()
        await first
        for task in batch:
            with pytest.raises(sqlite3.OperationalError):
                await task
        assert (await storage.get_encounter(encounter_id)).name == name
        await storage.submit_order(encounter_id, 1, "lince", 4, {"move": "I"})  # the connection goes on
        assert await storage.submitted_units(encounter_id, 1) == ["halcon", "lince"]


async def test_bookkeeping_writes_skip_the_sync_and_leave_the_connection_durable(tmp_path: Path) -> None:
    """Message refs are written with ``durable=False`` (synchronous=NORMAL for that transaction only): every other
    write must still run at FULL afterwards, also after a bookkeeping write that failed."""
    storage = await open_storage(f"sqlite:///{tmp_path / 'sync.db'}")
    try:
        encounter_id = await new_encounter(storage)
        driver: Any = storage._driver  # type: ignore[attr-defined]
        inline: sqlite3.Connection = driver._inline

        async def level_during(durable: bool) -> int:
            async with driver.transaction(write=True, durable=durable):
                return int(inline.execute("PRAGMA synchronous").fetchone()[0])

        assert await level_during(durable=False) == 1  # NORMAL
        assert await level_during(durable=True) == 2  # FULL
        await storage.set_message_ref(encounter_id, "status", "1", CHANNEL, 5)
        with pytest.raises(EncounterNotFoundError):
            await storage.set_message_ref(encounter_id + 99, "status", "1", CHANNEL, 5)
        assert int(inline.execute("PRAGMA synchronous").fetchone()[0]) == 2
        assert (await storage.get_message_ref(encounter_id, "status", "1")) is not None
    finally:
        await storage.close()


async def test_every_snapshot_is_read_off_the_event_loops_thread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The history (replay, log) and the export read every snapshot of an encounter, megabytes
    at 800 ships, which held the loop for half a second on the inline connection. They are bulk reads, made on
    aiosqlite's thread; the states stay the stored text until a worker decodes them."""
    import threading

    from bot.storage import sqlite as backend

    storage = await open_storage(f"sqlite:///{tmp_path / 'bulk.db'}")
    try:
        encounter_id = await played_encounter(storage)
        loop_thread = threading.get_ident()
        inline_snapshot_reads: list[str] = []
        real_fetch = backend._InlineSession.fetch  # pyright: ignore[reportPrivateUsage]

        async def watched(self: Any, sql: str, params: Any = ()) -> Any:
            if "FROM snapshots" in sql and threading.get_ident() == loop_thread:
                inline_snapshot_reads.append(sql)
            return await real_fetch(self, sql, params)

        monkeypatch.setattr(backend._InlineSession, "fetch", watched)  # pyright: ignore[reportPrivateUsage]
        chain = await storage.snapshot_chain(encounter_id)
        rows = await storage.export_rows(encounter_id)
        assert chain and all(isinstance(step.state_json, str) for step in chain)
        assert rows.snapshots and all(isinstance(s["state"], str) for s in rows.snapshots)
        assert inline_snapshot_reads == []
        assert (await storage.load(encounter_id)).phase_no == 3  # small reads still run inline
    finally:
        await storage.close()


async def test_a_settings_note_logs_no_event_and_keeps_last_seq(storage: Storage) -> None:
    """What the channel was last shown is bookkeeping. Noting it must not advance ``last_seq`` (every
    read cached on it would go stale after each post) nor add to the event log."""
    encounter_id = await new_encounter(storage)
    before = await storage.last_seq(encounter_id)
    await storage.note_settings(encounter_id, announced_seq=7, gone=None)
    await storage.note_settings(encounter_id, announced_seq=9)
    assert await storage.last_seq(encounter_id) == before
    assert (await storage.get_encounter(encounter_id)).settings["announced_seq"] == 9
    with pytest.raises(EncounterNotFoundError):
        await storage.note_settings(encounter_id + 99, announced_seq=1)
