"""A player's DM channel is opened once, ever, whichever process or restart sends to it (bot/dm_channels.py), end to
end through the real discord.py client against the local Discord, on SQLite and (where a server is given) on
PostgreSQL:

* after a restart, the next DM to a player the bot has DMed before goes straight to their channel: no ``POST
  /users/@me/channels`` (a bucket of five a five seconds for the whole bot) and no ``GET /users``;
* a click in a player's DM teaches the bot that channel, so a channel nobody recorded is not opened either;
* a kept channel Discord does not know (Unknown Channel) is dropped and the channel opened again, once.
"""

from __future__ import annotations

import io
import re
from collections.abc import AsyncIterator
from pathlib import Path

import discord
import pytest

from bot.phase_gate import CONFIRM_WITHIN_MS
from cogs.announcer import Announcer
from tests.e2e_helpers import (
    E2E_BACKENDS,
    Table,
    button_id,
    current_panel_dm,
    draft_in,
    open_duel,
    room,
    start_bot,
    wait_phase_after,
)
from tests.fakediscord.rest import RequestRecord

pytestmark = pytest.mark.slow

#: a channel id no Discord ever gave (a record from another application, or a channel since gone)
GONE = 4242


@pytest.fixture(params=E2E_BACKENDS)
async def table(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Table]:
    async with room(tmp_path, backend=str(request.param)) as t:
        yield t


def openings(requests: list[RequestRecord]) -> list[RequestRecord]:
    return [r for r in requests if (r.method, r.path) == ("POST", "/users/@me/channels")]


def user_lookups(requests: list[RequestRecord]) -> list[RequestRecord]:
    return [r for r in requests if r.method == "GET" and re.fullmatch(r"/users/\d+", r.path)]


async def restart(t: Table) -> None:
    await t.bot.close()
    t.bot = await start_bot(t.fd, t.db, t.guild_id)
    await t.fd.wait_for(
        lambda: (isinstance(t.bot.announcer, Announcer) and t.bot.announcer.resumed.is_set()) or None,
        what="the running encounters to be resumed",
        timeout=30,
    )
    await t.bot.settle()


async def next_phase_by_director(t: Table, enc: int) -> int:
    """The director resolves the phase (the players' stand-in orders); returns the new phase's number."""
    before = await t.bot.service.read(enc)
    t.fd.advance_clock(CONFIRM_WITHIN_MS + 1)  # the phase has been in front of the director a while
    await (await t.director.run_command(t.channel, "director resolve")).final_response(timeout=60)
    await wait_phase_after(t, enc, before.phase_no)
    await t.bot.settle()
    return (await t.bot.service.read(enc)).phase_no


async def test_after_a_restart_a_dm_to_a_known_player_opens_no_channel_and_looks_nobody_up(
    table: Table,
) -> None:
    t = table
    enc = await open_duel(t)
    await current_panel_dm(t, t.ana, "halcon", (await t.bot.service.read(enc)).phase_no)
    await t.bot.settle()
    assert await t.bot.service.storage.dm_channel_of(t.ana.id) == t.ana.dm_channel.id
    start = len(t.fd.requests)
    await restart(t)
    phase_no = await next_phase_by_director(t, enc)
    panel = await current_panel_dm(
        t, t.ana, "halcon", phase_no
    )  # Ana's new panel, with its buttons and preview
    assert panel.components and panel.attachments
    since = t.fd.requests[start:]
    assert ("POST", f"/channels/{t.ana.dm_channel.id}/messages") in {(r.method, r.path) for r in since}
    assert openings(since) == [], "a DM channel recorded before the restart is not opened again"
    assert user_lookups(since) == [], "nobody is looked up to DM them"
    assert t.bot.dm_channels.opened == 0


async def test_a_second_process_on_the_same_database_dms_a_known_player_without_opening_their_channel(
    table: Table,
) -> None:
    """Two bot processes share the token's buckets: the channel one of them opened is the other's too."""
    t = table
    first = t.bot.announcer
    assert first is not None and await first.dm(t.ana.id, "from the first process") is not None
    assert len(openings(t.fd.requests)) == 1
    second = await start_bot(t.fd, t.db, t.guild_id)
    try:
        assert second.announcer is not None
        start = len(t.fd.requests)
        sent = await second.announcer.dm(t.ana.id, "from the second process")
        assert sent is not None and sent.channel.id == t.ana.dm_channel.id
        since = t.fd.requests[start:]
        assert openings(since) == [] and user_lookups(since) == [] and second.dm_channels.opened == 0
    finally:
        await second.close()
    assert [m.content for m in t.ana.dms()] == ["from the first process", "from the second process"]


async def test_a_click_in_a_players_dm_teaches_the_bot_their_channel(tmp_path: Path) -> None:
    async with room(tmp_path) as t:
        enc = await open_duel(t)
        panel = await current_panel_dm(t, t.ana, "halcon", (await t.bot.service.read(enc)).phase_no)
        await restart(t)
        # as if the channel had never been recorded (a process that opened it and died before writing it)
        await t.bot.service.storage.forget_dm_channel(t.ana.id, t.ana.dm_channel.id)
        before = draft_in(panel)
        await (await t.ana.click(panel, button_id(panel, "halcon", "A"))).acknowledged()
        await t.fd.wait_for(lambda: draft_in(panel) != before, what="the panel to show the new draft")
        await t.bot.settle()
        assert await t.bot.service.storage.dm_channel_of(t.ana.id) == t.ana.dm_channel.id
        start = len(t.fd.requests)
        phase_no = await next_phase_by_director(t, enc)
        await current_panel_dm(t, t.ana, "halcon", phase_no)
        assert openings(t.fd.requests[start:]) == [] and user_lookups(t.fd.requests[start:]) == []


async def test_a_kept_dm_channel_discord_does_not_know_is_dropped_and_opened_again_once(table: Table) -> None:
    t = table
    dms = t.bot.announcer
    assert dms is not None
    await t.bot.service.storage.set_dm_channel(t.ana.id, GONE)
    start = len(t.fd.requests)
    sent = await dms.dm(t.ana.id, "first")
    assert sent is not None and sent.channel.id == t.ana.dm_channel.id
    assert [m.content for m in t.ana.dms()] == ["first"]
    since = t.fd.requests[start:]
    assert [(r.path, r.status) for r in since if r.path == f"/channels/{GONE}/messages"] == [
        (f"/channels/{GONE}/messages", 404)
    ]
    assert len(openings(since)) == 1 and user_lookups(since) == []
    assert await t.bot.service.storage.dm_channel_of(t.ana.id) == t.ana.dm_channel.id
    start = len(t.fd.requests)
    assert await dms.dm(t.ana.id, "second") is not None
    assert openings(t.fd.requests[start:]) == [] and len(t.fd.requests) == start + 1


async def test_a_file_sent_again_in_the_reopened_channel_arrives_whole(tmp_path: Path) -> None:
    """The first try in the unknown channel read the file through: the second sends it from its start."""
    async with room(tmp_path) as t:
        assert t.bot.announcer is not None
        await t.bot.service.storage.set_dm_channel(t.ana.id, GONE)
        data = b"board" * 1000
        sent = await t.bot.announcer.dm(t.ana.id, None, file=discord.File(io.BytesIO(data), "b.png"))
        assert sent is not None
        assert t.ana.dms()[-1].attachments[0].read() == data
