"""A bot that died (or whose posts Discord refused) picks up where the table was, on SQLite and
(where a PostgreSQL server is given, as in CI) on PostgreSQL.

- A resolution committed while nothing was posted (killed mid-post): the restarted bot posts that step's board
  and account once, opens the next phase (status, DM panels, the closed-DMs notice), and a second restart
  repeats nothing.
- Every order in but the bot killed before resolving: the restarted bot resolves and announces the phase.
- A post refused for good by Discord (a 429 without Via) is retried from storage with backoff, in order.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

from bot.permissions import Actor
from bot.service import EncounterService
from bot.storage import open_storage
from tests.e2e_helpers import (
    E2E_BACKENDS,
    Table,
    current_panel_dm,
    duel_table,
    open_duel,
    play_phase,
    start_bot,
    wait_phase_after,
)
from tests.fakediscord import Message

pytestmark = pytest.mark.slow


@pytest.fixture(params=E2E_BACKENDS)
async def table(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Table]:
    """The duel's table on each backend: what a crash leaves behind is read back from SQLite and PostgreSQL alike."""
    async with duel_table(tmp_path, backend=str(request.param)) as t:
        yield t


def boards(t: Table) -> list[Message]:
    """The channel's step posts (an embed with the board or the account), oldest first."""
    return [m for m in t.channel.messages() if m.embeds and not m.deleted]


def step_embeds(posts: list[Message]) -> list[str]:
    """The titles of the steps shown in ``posts`` (one message holds the steps of one resolution, an embed each;
    the plug-ins' cards are not steps)."""
    return [str(e["title"]) for m in posts for e in m.embeds if " · Round " in str(e.get("title", ""))]


@asynccontextmanager
async def offline_service(t: Table) -> AsyncIterator[EncounterService]:
    storage = await open_storage(t.db)
    try:
        yield EncounterService(storage)
    finally:
        await storage.close()


async def restart(t: Table) -> None:
    t.bot = await start_bot(t.fd, t.db, t.guild_id)
    assert t.bot.announcer is not None
    await t.fd.wait_for(
        lambda: (t.bot.announcer is not None and t.bot.announcer.resumed.is_set()) or None,
        what="the running encounters to be resumed",
        timeout=30,
    )
    await t.bot.settle()


async def test_a_step_committed_but_never_posted_is_posted_once_and_the_next_phase_opens(
    table: Table,
) -> None:
    t = table
    enc = await open_duel(t)
    opened = await t.bot.service.status(enc)
    await t.bot.settle()
    posted_before = len(boards(t))
    await t.bot.close()
    # the bot died after committing the resolution and before posting anything about it
    async with offline_service(t) as service:
        resolved = await service.resolve(enc, expected_phase_no=opened.phase_no, forced=True)
        assert resolved.steps and not resolved.already

    shown = [s for s in resolved.steps if s.public_events]  # a step with nothing public is not posted
    assert len(shown) >= 2
    await restart(t)
    step_posts = boards(t)[posted_before:]
    assert len(step_embeds(step_posts)) == len(shown), "each committed step is posted exactly once"
    assert len(step_posts) == 1, "the steps of one resolution share one message"
    now = await t.bot.service.status(enc)
    assert now.phase_no > opened.phase_no
    # the next phase opened: Ana's DM panel for it, and Bea (DMs closed) is told in the channel
    await current_panel_dm(t, t.ana, "halcon", now.phase_no)
    assert any(f"<@{t.bea.id}>" in m.content for m in t.channel.messages()[-3:])

    await t.bot.close()
    await restart(t)
    assert len(boards(t)) == posted_before + 1, "a second start repeats nothing"
    assert len(step_embeds(boards(t)[posted_before:])) == len(shown)
    await play_phase(t, enc, ana_moves="A", bea_moves="D")
    await wait_phase_after(t, enc, now.phase_no)


async def test_every_order_in_but_the_bot_killed_before_resolving_resolves_on_start(table: Table) -> None:
    t = table
    enc = await open_duel(t)
    opened = await t.bot.service.status(enc)
    await t.bot.settle()
    await t.bot.close()
    async with offline_service(t) as service:
        for unit, user in (("halcon", t.ana.id), ("pirata", t.bea.id)):
            result = await service.submit(
                enc, user, unit, {"move": "-", "fire": []}, phase_no=opened.phase_no
            )
        assert result.all_in
        assert (await service.status(enc)).phase_no == opened.phase_no, "killed before resolving"

    await restart(t)
    assert (await t.bot.service.status(enc)).phase_no > opened.phase_no
    assert any("1" in (m.embeds[0].get("title") or "") for m in boards(t))


async def test_a_board_refused_by_discord_is_retried_from_storage_until_it_is_posted(table: Table) -> None:
    t = table
    enc = await open_duel(t)
    assert t.bot.announcer is not None
    t.bot.announcer.retry_backoff = (0.05, 0.05, 0.05)
    await t.bot.settle()
    status = await t.bot.service.status(enc)
    posted_before = len(boards(t))
    # Cloudflare's 429 (no Via): discord.py gives up at once, as on the day the board was lost for good
    for _ in range(2):
        t.fd.fail_next("POST", rf"^/channels/{t.channel.id}/messages$", status=429, via=False)
    await play_phase(t, enc, ana_moves="A", bea_moves="D")
    await wait_phase_after(t, enc, status.phase_no)
    await t.fd.wait_for(
        lambda: len(boards(t)) > posted_before or None, what="the refused board to be posted", timeout=30
    )
    await t.bot.settle()
    now = await t.bot.service.status(enc)
    status_refs = await t.bot.service.storage.message_refs(enc, "status")
    assert [r.key.rsplit(":", 1)[-1] for r in status_refs] == [str(now.phase_no)], (
        "the status of the open phase"
    )
    meta = await t.bot.service.storage.get_encounter(enc)
    assert meta.settings["announced_seq"] == (await t.bot.service.storage.load(enc)).snapshot_seq
    await t.bot.service.end(enc, Actor(t.director.id))
