"""Several processes, one database: two production bot processes (``HexBot``, ``SHARD_COUNT=2``,
``SHARD_IDS=0`` and ``1``, tests/bot_process.py) on one PostgreSQL, each connected to the local Discord serving two
shards. A duel runs in a guild on each shard. Players give orders on DM panels (every DM click reaches the shard-0
process, whatever the guild, which hands it to the guild's process while that one listens: bot/handoff.py,
tests/e2e/test_e2e_shards_handoff.py) and on ``/orders`` in the guild channel (the guild's own process); one
process is SIGKILLed mid-phase and restarted; a deadline comes due in both encounters while both processes poll
for it.

It checks: each phase resolved exactly once (the event log), each deadline fired once, every acknowledged order
kept and resolved, and no channel message, DM panel or status message sent twice. Skips, saying why, without a
PostgreSQL server (HEXDIRECTOR_TEST_POSTGRES_URL; CI starts one, .ci/postgres.sh)."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bot.service import EncounterService
from bot.storage import open_storage
from tests.bot_process import BotProcess, bot_env
from tests.fakediscord import FakeDiscord
from tests.shard_duels import (
    POLL,
    SHARDS,
    both_owe,
    check_everything_once,
    give,
    missing,
    new_duel,
    open_duel,
    play_phase,
    until_next_phase,
)
from tests.storage_fixtures import database_url

pytestmark = pytest.mark.slow


async def test_two_processes_on_one_postgresql_resolve_each_phase_once_and_survive_a_sigkill(
    tmp_path: Path,
) -> None:
    async with database_url("postgresql", tmp_path) as db, FakeDiscord(shards=SHARDS) as fd:
        duels = [new_duel(fd, shard) for shard in range(SHARDS)]
        bots = [
            BotProcess(
                bot_env(
                    fd, db, shard_count=SHARDS, shard_ids=(i,), deadline_interval=POLL, log_level="WARNING"
                ),
                name=f"shard-{i}",
            )
            for i in range(SHARDS)
        ]
        await asyncio.gather(*(b.start() for b in bots))
        storage = await open_storage(db)
        service = EncounterService(storage)
        deadline_phases: list[int] = []
        try:
            assert sorted(s.shard for s in fd.gateway.sessions.values()) == [(0, 2), (1, 2)]
            for d in duels:  # every phase gets an hour's deadline: a lost deadline race must not remove it
                await storage.set_guild_settings(d.guild_id, default_deadline_minutes=60)
            await asyncio.gather(*(open_duel(fd, service, d) for d in duels))

            # a phase in both guilds at once: DM clicks (received by shard 0's process) and /orders (each guild's)
            await asyncio.gather(*(play_phase(fd, service, d) for d in duels))

            # SIGKILL mid-phase: in the shard-1 guild, Ana's order is acknowledged (a DM click, received by the
            # shard-0 process), which is then killed and restarted; the order is kept, and the phase resolves once
            cross = duels[1]
            phase_no = await both_owe(fd, service, cross)
            await give(fd, cross, cross.ana, phase_no)
            await bots[0].kill()
            assert "halcon" in await storage.submitted_units(cross.enc, phase_no), "an acknowledged order"
            await bots[0].start()
            await bots[0].wait_resumed()
            await give(fd, cross, cross.bea, phase_no)
            await until_next_phase(fd, service, cross, phase_no)

            # and the other way round: Bea's /orders acknowledged by the shard-1 process, which is killed and
            # restarted; Ana's DM click then completes the phase (received by the shard-0 process, answered by
            # whichever process claims it), which resolves and posts
            phase_no = await both_owe(fd, service, cross)
            await give(fd, cross, cross.bea, phase_no)
            await bots[1].kill()
            assert "pirata" in await storage.submitted_units(cross.enc, phase_no), "an acknowledged order"
            await bots[1].start()
            await bots[1].wait_resumed()
            await give(fd, cross, cross.ana, phase_no)
            await until_next_phase(fd, service, cross, phase_no)

            # a deadline due in both encounters while both processes poll: each fires once (a stand-in for Bea)
            before_deadline = [(await missing(service, d))[0] for d in duels]
            for d in duels:
                phase_no, owing = await missing(service, d)
                if d.ana in owing:
                    await give(fd, d, d.ana, phase_no)
                deadline_phases.append(phase_no)
            for d, phase_no in zip(duels, deadline_phases, strict=True):
                await storage.set_deadline(d.enc, phase_no, datetime.now(UTC))
            for d, count in zip(duels, before_deadline, strict=True):
                await until_next_phase(fd, service, d, count)
            assert await storage.due_deadlines(datetime.now(UTC)) == []

            # both processes die right after a commit that nothing has posted yet (done here, offline, as the
            # dying process would have), then both start at once: each resumes every running encounter, and the
            # claims in storage make each owed post (the step, the next phase's status and panels) go out once
            await asyncio.gather(*(b.kill() for b in bots))
            before_crash = [(await missing(service, d))[0] for d in duels]
            for d in duels:
                phase_no, _ = await missing(service, d)
                committed = await service.resolve(d.enc, expected_phase_no=phase_no, forced=True)
                assert committed.steps and not committed.already
            await asyncio.gather(*(b.start() for b in bots))
            await asyncio.gather(*(b.wait_resumed() for b in bots))
            for d, count in zip(duels, before_crash, strict=True):
                await until_next_phase(fd, service, d, count)

            # one more phase everywhere, after all that
            await asyncio.gather(*(play_phase(fd, service, d) for d in duels))
        finally:
            stopped = await asyncio.gather(*(b.stop() for b in bots))
            try:
                await check_everything_once(storage, duels, fd, deadline_phases)
            finally:
                await storage.close()
        assert all(cpu is not None for cpu in stopped), [b.lines for b in bots]
