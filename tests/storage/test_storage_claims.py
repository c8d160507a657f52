"""Issue 20, several processes on one database: what one process must do alone is claimed in storage, not in
process memory. A due deadline is fired by one process (``claim_deadline``), a process's clear never removes a
newer phase's deadline (``clear_deadline``), and a message (a step's post, a status, a panel) is sent by one
process (``claim_message_ref``); claims of a process that died are taken again once stale. Every contender here
has its own connection (pool), as separate processes would."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bot.storage import Storage, open_storage
from tests.storage_fixtures import BACKENDS, database_url

GUILD, CHANNEL, DIRECTOR = 10, 20, 30
T0 = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
CONTENDERS = 6


async def running_encounter(storage: Storage) -> int:
    encounter_id = await storage.create_encounter(GUILD, CHANNEL, "exo", "Claims", DIRECTOR, {"phase": 1})
    await storage.set_encounter_status(encounter_id, "running")
    return encounter_id


async def test_a_due_deadline_is_claimed_once_and_again_only_after_its_lease(storage: Storage) -> None:
    encounter_id = await running_encounter(storage)
    await storage.set_deadline(encounter_id, 1, T0)
    assert not await storage.claim_deadline(encounter_id, 1, T0 - timedelta(seconds=1), T0), "not due yet"
    lease = T0 + timedelta(seconds=60)
    assert await storage.claim_deadline(encounter_id, 1, T0, lease)
    assert not await storage.claim_deadline(encounter_id, 1, T0, lease), "taken once"
    assert await storage.due_deadlines(T0 + timedelta(seconds=59)) == []
    # the taker died before resolving: the deadline fires again when the lease is over
    assert [d.phase_no for d in await storage.due_deadlines(lease)] == [1]
    assert await storage.claim_deadline(encounter_id, 1, lease, lease + timedelta(seconds=60))
    assert not await storage.claim_deadline(encounter_id, 2, lease, lease), "another phase's claim"


async def test_clearing_a_phases_deadline_keeps_a_newer_phases(storage: Storage) -> None:
    """The race it fixes: process A resolves phase 1 at its deadline and sets phase 2's; process B, which lost
    the race for phase 1, clears "its" deadline: phase 2's must stay, or phase 2 would wait forever."""
    encounter_id = await running_encounter(storage)
    await storage.set_deadline(encounter_id, 1, T0)
    await storage.commit_resolution(encounter_id, 1, [], {"phase": 2})
    await storage.set_deadline(encounter_id, 2, T0 + timedelta(minutes=5))
    assert not await storage.clear_deadline(encounter_id, 1)
    pending = await storage.deadline_of(encounter_id)
    assert pending is not None and pending.phase_no == 2
    assert await storage.clear_deadline(encounter_id, 2)
    assert await storage.deadline_of(encounter_id) is None


async def test_a_message_is_claimed_once_until_sent_and_a_stale_claim_is_taken_again(
    storage: Storage,
) -> None:
    encounter_id = await running_encounter(storage)
    now = datetime.now(UTC)
    fresh = now - timedelta(seconds=60)  # claims older than this are of a dead process
    assert await storage.claim_message_ref(encounter_id, "step", "7", stale_before=fresh)
    assert not await storage.claim_message_ref(encounter_id, "step", "7", stale_before=fresh)
    ref = await storage.get_message_ref(encounter_id, "step", "7")
    assert ref is not None and ref.message_id == 0, "claimed, not sent yet"
    # the claimer died mid-send: once its claim is stale, another process takes it
    assert await storage.claim_message_ref(encounter_id, "step", "7", stale_before=now + timedelta(seconds=1))
    await storage.set_message_ref(encounter_id, "step", "7", CHANNEL, 9001)
    # sent: never claimed again, however old
    assert not await storage.claim_message_ref(
        encounter_id, "step", "7", stale_before=now + timedelta(days=1)
    )
    assert await storage.delete_message_ref(encounter_id, "step", "7")
    assert await storage.claim_message_ref(encounter_id, "step", "7", stale_before=fresh)


@pytest.mark.parametrize("backend", BACKENDS)
async def test_contenders_on_their_own_connections_get_one_claim_each_time(
    backend: str, tmp_path: Path
) -> None:
    async with database_url(backend, tmp_path) as db:
        storages = [await open_storage(db) for _ in range(CONTENDERS)]
        try:
            encounter_id = await running_encounter(storages[0])
            for phase in range(1, 4):
                await storages[0].set_deadline(encounter_id, phase, T0)
                lease = T0 + timedelta(seconds=60)
                won = await asyncio.gather(
                    *(s.claim_deadline(encounter_id, phase, T0, lease) for s in storages)
                )
                assert sum(won) == 1, won
                stale = datetime.now(UTC) - timedelta(seconds=60)
                won = await asyncio.gather(
                    *(
                        s.claim_message_ref(encounter_id, "step", str(phase), stale_before=stale)
                        for s in storages
                    )
                )
                assert sum(won) == 1, won
                await storages[0].commit_resolution(encounter_id, phase, [], {"phase": phase + 1})
        finally:
            for s in storages:
                await s.close()
