"""Two bot processes poll one database for due deadlines (each has its own storage connection here, as
separate processes would). A deadline fires once (``claim_deadline``), and a process that finds its phase already
resolved clears that phase's deadline only, never the next phase's that the winner has just set."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path

import pytest

from bot.permissions import Actor
from bot.results import Resolution
from bot.scheduler import DeadlineScheduler
from bot.service import EncounterService
from bot.storage import open_storage
from bot.storage.base import PHASE_RESOLVED
from data import SCENARIO_DIR
from tests.bot_fixtures import Clock

GUILD, CHANNEL, DIRECTOR, ANA, BEA = 10, 20, 1, 2, 3
DUEL = (SCENARIO_DIR / "exo-duel.toml").read_text(encoding="utf-8")


@pytest.fixture
async def processes(tmp_path: Path) -> AsyncIterator[tuple[EncounterService, EncounterService, Clock]]:
    """Two services, each on its own connection to one database, sharing a clock moved by hand."""
    clock = Clock()
    url = f"sqlite:///{tmp_path / 'shared.sqlite3'}"
    first = await open_storage(url, clock=clock)
    second = await open_storage(url, clock=clock)
    try:
        yield EncounterService(first, clock=clock), EncounterService(second, clock=clock), clock
    finally:
        await first.close()
        await second.close()


async def started_duel(service: EncounterService) -> int:
    """The duel with a 5-minute default deadline on every phase (DESIGN §4), nobody's orders in."""
    await service.storage.set_guild_settings(GUILD, default_deadline_minutes=5)
    created = await service.create(GUILD, CHANNEL, DIRECTOR, ruleset="exo", toml_text=DUEL)
    await service.join(created.encounter_id, ANA)
    await service.join(created.encounter_id, BEA)
    await service.start(created.encounter_id, Actor(DIRECTOR))
    return created.encounter_id


async def test_two_processes_polling_one_due_deadline_fire_it_once_and_keep_the_next(
    processes: tuple[EncounterService, EncounterService, Clock],
) -> None:
    one, two, clock = processes
    enc = await started_duel(one)
    phase_no = (await one.read(enc)).phase_no
    seen: list[Resolution] = []

    async def collect(result: Resolution) -> None:
        seen.append(result)

    schedulers = [DeadlineScheduler(s, collect) for s in (one, two)]
    clock.now += timedelta(minutes=6)
    fired = await asyncio.gather(*(s.tick() for s in schedulers))
    assert sorted(fired) == [0, 1], "one process fired the deadline"
    assert len(seen) == 1 and seen[0].steps
    events = await one.storage.events(enc, types=[PHASE_RESOLVED])
    assert Counter(e.phase_no for e in events)[phase_no] == 1
    now = await one.read(enc)
    pending = await one.storage.deadline_of(enc)
    assert pending is not None and pending.phase_no == now.phase_no > phase_no, (
        "the next phase keeps its deadline"
    )
    assert await asyncio.gather(*(s.tick() for s in schedulers)) == [0, 0]


async def test_a_deadline_losing_to_a_resolution_elsewhere_clears_only_its_own_phase(
    processes: tuple[EncounterService, EncounterService, Clock],
) -> None:
    one, two, clock = processes
    enc = await started_duel(one)
    phase_no = (await one.read(enc)).phase_no
    resolve = two.resolve

    async def resolved_elsewhere_first(encounter_id: int, **kwargs: object) -> Resolution:
        # meanwhile the other process resolved the phase (the director, or the last order) and set the next
        # phase's deadline
        done = await one.resolve(encounter_id, expected_phase_no=phase_no, forced=True)
        assert done.steps
        return await resolve(encounter_id, **kwargs)  # type: ignore[arg-type]

    two.resolve = resolved_elsewhere_first  # type: ignore[method-assign]
    announced: list[Resolution] = []

    async def collect(result: Resolution) -> None:
        announced.append(result)

    clock.now += timedelta(minutes=6)
    assert await DeadlineScheduler(two, collect).tick() == 0, "the phase was resolved elsewhere"
    assert announced == []
    now = await one.read(enc)
    pending = await one.storage.deadline_of(enc)
    assert now.phase_no > phase_no
    assert pending is not None and pending.phase_no == now.phase_no, "the next phase's deadline stays"


async def test_the_next_phases_deadline_set_by_another_process_shows_at_once(
    processes: tuple[EncounterService, EncounterService, Clock],
) -> None:
    """The status and panels show the phase's deadline from a short cache: a read made for the previous phase is
    not reused for the phase another process has just opened (and given its deadline)."""
    one, two, _ = processes
    enc = await started_duel(one)
    phase_no = (await two.read(enc)).phase_no
    assert await two.deadline_of(enc, phase_no) is not None  # cached by the second process
    done = await one.resolve(enc, expected_phase_no=phase_no, forced=True)
    assert done.steps
    now = (await two.read(enc)).phase_no
    assert now > phase_no
    assert await two.deadline_of(enc, now) == await one.deadline_of(enc, now) is not None
