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
import json
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bot.service import EncounterService
from bot.storage import Storage, open_storage
from bot.storage.base import ORDER_ACCEPTED, PHASE_RESOLVED
from tests.bot_process import BotProcess, bot_env
from tests.e2e_helpers import draft_in, fill_and_submit, panel_for_phase, panels_for
from tests.fakediscord import Channel, FakeDiscord, Person
from tests.storage_fixtures import database_url

pytestmark = pytest.mark.slow

SHARDS = 2
#: phases played at most until one awaits both players of a duel
PHASES_TO_BOTH = 10
POLL = 0.1  # seconds between each process's deadline checks (HEXD_DEADLINE_INTERVAL)


@dataclass
class Duel:
    shard: int
    guild_id: int
    channel: Channel
    dora: Person
    ana: Person  # Halcón, orders on her DM panel (clicks reach the shard-0 process, which may hand them over)
    bea: Person  # Pirata, orders on /orders in the channel (the guild's own process)
    enc: int = 0
    acked: list[tuple[int, str]] = field(default_factory=lambda: list[tuple[int, str]]())


def new_duel(fd: FakeDiscord, shard: int) -> Duel:
    guild = fd.create_guild(f"Shard {shard}", shard=shard)
    assert fd.shard_of(guild) == shard
    channel = guild.create_text_channel("duel")
    dora, ana, bea = (fd.create_user(f"{name}{shard}") for name in ("dora", "ana", "bea"))
    for person in (dora, ana, bea):
        guild.add_member(person.user)
    return Duel(shard, guild.id, channel, dora, ana, bea)


def newest_phase(d: Duel) -> int:
    """The newest phase any of the duel's players has a DM panel for (0: none yet)."""
    phases = [
        found[0]
        for person, unit in ((d.ana, "halcon"), (d.bea, "pirata"))
        for m in panels_for(person.dms(), unit)
        if (found := draft_in(m)) is not None
    ]
    return max(phases, default=0)


def over(d: Duel) -> bool:
    return any("🏁" in m.content for m in d.channel.messages() if not m.deleted)


async def open_duel(fd: FakeDiscord, service: EncounterService, d: Duel) -> None:
    for who, name, options in (
        (d.dora, "encounter new", {"ruleset": "exo", "scenario": "exo-duel"}),
        (d.ana, "encounter join", {}),
        (d.bea, "encounter join", {}),
        (d.dora, "encounter start", {}),
    ):
        await (await who.run_command(d.channel, name, options)).final_response(timeout=30)
    meta = await service.storage.active_encounter_in_channel(d.guild_id, d.channel.id)
    assert meta is not None
    d.enc = meta.id
    await until_next_phase(fd, service, d, 0)


async def give(fd: FakeDiscord, d: Duel, who: Person, phase_no: int) -> None:
    """``who`` gives the order of phase ``phase_no``: Ana on her DM panel, Bea on /orders in the channel."""
    if who is d.ana:
        panel = await panel_for_phase(fd, d.ana, "halcon", phase_no)
        ack = await fill_and_submit(fd, d.ana, panel, "halcon", fire=0)
        unit = "halcon"
    else:
        handle = await d.bea.run_command(d.channel, "orders")
        panel = await handle.final_response(timeout=30)
        assert panel.ephemeral
        found = draft_in(panel)
        assert found is not None and found[0] == phase_no, (found, phase_no)
        ack = await fill_and_submit(fd, d.bea, panel, "pirata", fire=0)
        unit = "pirata"
    assert ack.ephemeral
    d.acked.append((phase_no, unit))


async def missing(service: EncounterService, d: Duel) -> tuple[int, list[Person]]:
    status = await service.status(d.enc)
    people = {d.ana.id: d.ana, d.bea.id: d.bea}
    return status.phase_no, [people[m.user_id] for m in status.missing if m.user_id in people]


async def until_next_phase(fd: FakeDiscord, service: EncounterService, d: Duel, after: int) -> None:
    """Until a player has a DM panel for a phase after ``after`` (or the game is over): that phase was resolved
    and the next one opened; then until every player it awaits has their panel (so no process is still sending
    them when one is killed: a DM sent but not yet recorded when its process dies is sent again, the one post
    that may repeat)."""
    await fd.wait_for(
        lambda: newest_phase(d) > after or over(d), what=f"shard {d.shard}'s next phase", timeout=30
    )
    phase_no, owing = await missing(service, d)
    for person in owing:
        await panel_for_phase(fd, person, "halcon" if person is d.ana else "pirata", phase_no)


async def play_phase(fd: FakeDiscord, service: EncounterService, d: Duel) -> None:
    phase_no, owing = await missing(service, d)
    for who in owing:
        await give(fd, d, who, phase_no)
    await until_next_phase(fd, service, d, phase_no)


async def both_owe(fd: FakeDiscord, service: EncounterService, d: Duel) -> int:
    """Play on until a phase awaits both players, and its number: the dice are sealed (unknown to the test), so a
    step may first ask only one ship (a pilot's decision, a damaged ship's repairs in phase 5, EXO-6.1)."""
    for _ in range(PHASES_TO_BOTH):
        phase_no, owing = await missing(service, d)
        if d.ana in owing and d.bea in owing:
            return phase_no
        await play_phase(fd, service, d)
    raise AssertionError(f"no phase awaited both players in {PHASES_TO_BOTH}")


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


async def check_everything_once(
    storage: Storage, duels: list[Duel], fd: FakeDiscord, deadline_phases: list[int]
) -> None:
    for d in duels:
        events = await storage.events(d.enc)
        resolved = Counter(e.phase_no for e in events if e.type == PHASE_RESOLVED)
        assert resolved, f"shard {d.shard}: nothing resolved"
        twice = {phase: n for phase, n in resolved.items() if n != 1}
        assert not twice, f"shard {d.shard}: phases resolved more than once: {twice}"
        for phase_no in deadline_phases:
            assert resolved.get(phase_no, 0) <= 1
        # every acknowledged order is in the log, and its phase was resolved after it
        accepted = {
            (e.phase_no, str(e.payload.get("unit_id"))): e.seq for e in events if e.type == ORDER_ACCEPTED
        }
        resolved_at = {e.phase_no: e.seq for e in events if e.type == PHASE_RESOLVED}
        for phase_no, unit in d.acked:
            seq = accepted.get((phase_no, unit))
            assert seq is not None, (
                f"shard {d.shard}: {unit}'s acknowledged order of phase {phase_no} is lost"
            )
            assert resolved_at.get(phase_no, 0) > seq, (
                f"phase {phase_no} was not resolved with {unit}'s order"
            )
        # the open phase still has its deadline (a process that lost a deadline race cleared only its own)
        now = await storage.load(d.enc)
        pending = await storage.deadline_of(d.enc)
        if now.meta.status == "running":
            assert pending is not None and pending.phase_no == now.phase_no, (pending, now.phase_no)
        # nothing posted twice: the channel's boards and statuses, each player's DM panels
        posts = [
            json.dumps([m.content, m.embeds], sort_keys=True, ensure_ascii=False)
            for m in d.channel.messages()
            if not m.deleted
        ]
        doubled = [text[:120] for text, n in Counter(posts).items() if n > 1]
        assert not doubled, f"shard {d.shard}: posted twice: {doubled}"
        for person, unit in ((d.ana, "halcon"), (d.bea, "pirata")):
            phases = [found[0] for m in panels_for(person.dms(), unit) if (found := draft_in(m)) is not None]
            assert len(phases) == len(set(phases)), f"{person.name}'s panels sent twice: {phases}"
    assert fd.world.client_failure is None


async def give_by_dm(fd: FakeDiscord, d: Duel, who: Person, phase_no: int) -> None:
    """``who`` gives the order of phase ``phase_no`` on their DM panel (the click reaches the shard-0 process)."""
    unit = "halcon" if who is d.ana else "pirata"
    panel = await panel_for_phase(fd, who, unit, phase_no)
    ack = await fill_and_submit(fd, who, panel, unit, fire=0)
    assert ack.ephemeral
    d.acked.append((phase_no, unit))


def dm_clicks(fd: FakeDiscord) -> list[tuple[int, int]]:
    """Every interaction from outside any guild (a DM panel click) the local Discord gave a gateway session: the
    session's shard and the interaction's id."""
    return [
        (session.shard[0], int(frame["d"]["id"]))
        for session in fd.gateway.sessions.values()
        for frame in session.history
        if frame["t"] == "INTERACTION_CREATE" and not frame["d"].get("guild_id")
    ]


async def play_by_dm(fd: FakeDiscord, service: EncounterService, d: Duel) -> None:
    phase_no, owing = await missing(service, d)
    for who in owing:
        await give_by_dm(fd, d, who, phase_no)
    await until_next_phase(fd, service, d, phase_no)
