"""Several processes on one database: what one process must do alone is claimed in storage, not in
process memory. A due deadline is fired by one process (``claim_deadline``), a process's clear never removes a
newer phase's deadline (``clear_deadline``), and a message (a step's post, a status, a panel) is sent by one
process (``claim_message_ref``); a restarted process takes back its own unsent claims, and anyone takes a claim
once it is stale. Every contender here
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
SHARD_0, SHARD_1 = 1001, 1002  # two processes' claimant ids (bot.process.client.HexBot.claimant)


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
    assert await storage.claim_message_ref(encounter_id, "step", "7", holder=SHARD_0, stale_before=fresh)
    assert not await storage.claim_message_ref(encounter_id, "step", "7", holder=SHARD_1, stale_before=fresh)
    ref = await storage.get_message_ref(encounter_id, "step", "7")
    assert ref is not None and ref.message_id == 0, "claimed, not sent yet"
    # the claimer died mid-send and never came back: once its claim is stale, another process takes it
    assert await storage.claim_message_ref(
        encounter_id, "step", "7", holder=SHARD_1, stale_before=now + timedelta(seconds=1)
    )
    await storage.set_message_ref(encounter_id, "step", "7", CHANNEL, 9001)
    # sent: never claimed again, however old, by anyone
    for holder in (SHARD_0, SHARD_1):
        assert not await storage.claim_message_ref(
            encounter_id, "step", "7", holder=holder, stale_before=now + timedelta(days=1)
        )
    assert await storage.delete_message_ref(encounter_id, "step", "7")
    assert await storage.claim_message_ref(encounter_id, "step", "7", holder=SHARD_0, stale_before=fresh)


async def test_a_restarted_process_takes_back_its_own_unsent_claims_at_once(storage: Storage) -> None:
    """The process of shards {0} died holding a claim; started again (same shards, same holder) it sends it
    without waiting for the claim to go stale, while another process still may not."""
    encounter_id = await running_encounter(storage)
    fresh = datetime.now(UTC) - timedelta(seconds=60)
    assert await storage.claim_message_ref(
        encounter_id, "panel", "3:halcon", holder=SHARD_0, stale_before=fresh
    )
    assert not await storage.claim_message_ref(
        encounter_id, "panel", "3:halcon", holder=SHARD_1, stale_before=fresh
    )
    assert await storage.claim_message_ref(
        encounter_id, "panel", "3:halcon", holder=SHARD_0, stale_before=fresh
    )
    await storage.set_message_ref(encounter_id, "panel", "3:halcon", 555, 9002)
    assert not await storage.claim_message_ref(
        encounter_id, "panel", "3:halcon", holder=SHARD_0, stale_before=fresh
    )


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
                        s.claim_message_ref(
                            encounter_id, "step", str(phase), holder=100 + i, stale_before=stale
                        )
                        for i, s in enumerate(storages)
                    )
                )
                assert sum(won) == 1, won
                await storages[0].commit_resolution(encounter_id, phase, [], {"phase": phase + 1})
        finally:
            for s in storages:
                await s.close()
