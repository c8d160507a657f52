"""Two bot processes on one PostgreSQL, a duel in a guild on each shard, and what playing them must leave: the
set-up and moves tests/e2e/test_e2e_shards.py and tests/e2e/test_e2e_shards_handoff.py share."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field

from bot.service import EncounterService
from bot.storage import Storage
from bot.storage.base import ORDER_ACCEPTED, PHASE_RESOLVED
from tests.e2e_helpers import draft_in, fill_and_submit, newest_panel_phase, panel_for_phase, panels_for
from tests.fakediscord import Channel, FakeDiscord, Person

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
    return newest_panel_phase((d.ana, "halcon"), (d.bea, "pirata"))


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
