"""DM clicks handed to the process that runs the encounter's server (bot/handoff.py).

Discord gives every DM interaction to shard 0. Two production bot processes (``SHARD_COUNT=2``, ``SHARD_IDS=0`` and
``1``, tests/bot_process.py) share one PostgreSQL; the encounter is in a guild of shard 1 and both players order on
their DM panels, so every click reaches the shard-0 process (A). While the shard-1 process (B) listens, A hands
each click to B, which answers it, stores the order, resolves the phase and posts; while B is down, A claims each
click back after a short grace and answers it itself. Which process answered which interaction is read from each
process's own record of the interactions it answered (``HEXD_BENCH_ANSWERS``, written when it stops cleanly), and
the local Discord refuses an interaction answered twice (400 / 40060, in its request log).

Skips, saying why, without a PostgreSQL server (HEXDIRECTOR_TEST_POSTGRES_URL; CI starts one, .ci/postgres.sh)."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path

import pytest

from bot.handoff import encounter_named, shard_of, wanted
from bot.service import EncounterService
from bot.storage import open_storage
from cogs.director_phase import phase_custom_id
from cogs.panel.components import ControlRef
from cogs.seating import seat_id
from tests.bot_process import BotProcess, bot_env
from tests.fakediscord import FakeDiscord
from tests.shard_duels import (
    Duel,
    check_everything_once,
    dm_clicks,
    missing,
    new_duel,
    open_duel,
    play_by_dm,
)
from tests.storage_fixtures import database_url

SHARDS = 2
CALLBACK = re.compile(r"^/interactions/(\d+)/[^/]+/callback")


def click(custom_id: str, **extra: object) -> dict[str, object]:
    """A component click's gateway payload, as far as the hand-off reads it."""
    return {"id": "1", "type": 3, "data": {"custom_id": custom_id, "component_type": 2}} | extra


def test_every_control_that_acts_on_an_encounter_names_it_to_the_hand_off() -> None:
    panel = ControlRef(7301, 4, "halcon", "submit").custom_id
    assert encounter_named(click(panel)) == 7301
    assert encounter_named(click(phase_custom_id(42, 3, "roll", "1_4,5"))) == 42
    assert encounter_named(click(seat_id(9, "pirata"))) == 9
    assert encounter_named(click("hexd:idle:55:2")) == 55
    assert encounter_named(click("hexd:watchpick:56")) == 56
    assert encounter_named(click("hexd:watch:57:1234:red:yes")) == 57
    assert encounter_named(click(panel) | {"type": 5}) == 7301  # a modal's submit carries its custom id too
    # stays where it arrived: a click inside a server (already on its own shard), a command, foreign controls
    assert encounter_named(click(panel, guild_id="1")) is None
    assert encounter_named({"id": "1", "type": 2, "data": {"name": "orders"}}) is None
    assert encounter_named(click("hexd:draft:1:abc")) is None
    assert encounter_named(click("other:enc:1")) is None
    # Discord's formula; only PostgreSQL with some shards elsewhere
    assert shard_of((5 << 22) | 123, 2) == 1
    assert wanted("postgresql://db", (0,), 2)
    assert not wanted("postgresql://db", (0, 1), 2)
    assert not wanted("sqlite:///x.db", (0,), 2)
    assert not wanted("postgresql://db", None, None)


def answered_by(path: Path) -> set[int]:
    """The interactions a bot process answered (its ``HEXD_BENCH_ANSWERS`` file; empty if it never stopped
    cleanly)."""
    return {int(k) for k in json.loads(path.read_text())} if path.exists() else set()


def answered_twice(fd: FakeDiscord) -> list[str]:
    """Interaction answers the local Discord refused because the interaction was already answered (or expired)."""
    return [r.path for r in fd.requests if CALLBACK.match(r.path) and r.status >= 400]


def boards_in(d: Duel) -> int:
    return sum(len(m.attachments) for m in d.channel.messages() if not m.deleted)


def two_processes(fd: FakeDiscord, db: str, tmp_path: Path) -> tuple[list[BotProcess], list[Path]]:
    answers = [tmp_path / f"answers-{shard}.json" for shard in range(SHARDS)]
    bots = [
        BotProcess(
            bot_env(
                fd,
                db,
                shard_count=SHARDS,
                shard_ids=(shard,),
                log_level="WARNING",
                extra={"HEXD_BENCH_ANSWERS": str(answers[shard])},
            ),
            name=f"shard-{shard}",
        )
        for shard in range(SHARDS)
    ]
    return bots, answers


@pytest.mark.slow
async def test_dm_clicks_of_a_shard_1_encounter_are_answered_once_by_the_shard_1_process(
    tmp_path: Path,
) -> None:
    """Both processes up: every DM click reaches A, and B answers every one of them (A answers none), once; the
    phase resolves and posts (B's work) with every order kept and nothing posted twice."""
    async with database_url("postgresql", tmp_path) as db, FakeDiscord(shards=SHARDS) as fd:
        d = new_duel(fd, 1)
        bots, answers = two_processes(fd, db, tmp_path)
        await asyncio.gather(*(bot.start() for bot in bots))
        storage = await open_storage(db)
        service = EncounterService(storage)
        try:
            await storage.set_guild_settings(d.guild_id, default_deadline_minutes=60)
            await open_duel(fd, service, d)
            await play_by_dm(fd, service, d)
        finally:
            stopped = await asyncio.gather(*(bot.stop() for bot in bots))
            try:
                await check_everything_once(storage, [d], fd, [])
            finally:
                await storage.close()
        assert all(cpu is not None for cpu in stopped), [bot.lines for bot in bots]
        clicks = dm_clicks(fd)
        assert {shard for shard, _ in clicks} == {0}, "Discord gives every DM interaction to shard 0"
        assert len(clicks) >= len(d.acked) == 2
        ids = {iid for _, iid in clicks}
        by_a, by_b = answered_by(answers[0]), answered_by(answers[1])
        assert ids <= by_b, f"DM clicks not answered by the shard-1 process: {sorted(ids - by_b)}"
        assert not ids & by_a, "the shard-0 process answered a click it handed over"
        assert answered_twice(fd) == []


@pytest.mark.slow
async def test_dm_clicks_are_answered_by_the_shard_0_process_while_the_shard_1_process_is_down(
    tmp_path: Path,
) -> None:
    """B is SIGKILLed: A hands each click over, nobody claims it, and A claims it back and answers it itself (so
    the click is not lost), once, stores the order, resolves the phase and posts the board in B's guild.
    (tests/e2e/test_e2e_shards.py restarts a killed process: it resumes, and posts nothing twice.)"""
    async with database_url("postgresql", tmp_path) as db, FakeDiscord(shards=SHARDS) as fd:
        d = new_duel(fd, 1)
        bots, answers = two_processes(fd, db, tmp_path)
        a, b = bots
        await asyncio.gather(*(bot.start() for bot in bots))
        storage = await open_storage(db)
        service = EncounterService(storage)
        try:
            await storage.set_guild_settings(d.guild_id, default_deadline_minutes=60)
            await open_duel(fd, service, d)  # commands in the guild's channel: B's
            await b.kill()
            phase_no, owing = await missing(service, d)
            assert set(owing) == {d.ana, d.bea}
            boards_before = boards_in(d)
            await play_by_dm(fd, service, d)
            await fd.wait_for(lambda: boards_in(d) > boards_before, what="the step's board", timeout=30)
            assert (await missing(service, d))[0] > phase_no
        finally:
            stopped = await asyncio.gather(a.stop(), b.stop())
            try:
                await check_everything_once(storage, [d], fd, [])
            finally:
                await storage.close()
        assert stopped[0] is not None, a.lines
        clicks = {iid for _, iid in dm_clicks(fd)}
        assert len(clicks) >= len(d.acked) == 2
        by_a = answered_by(answers[0])
        assert clicks <= by_a, f"clicks lost while B was down: {sorted(clicks - by_a)}"
        assert answered_twice(fd) == []
