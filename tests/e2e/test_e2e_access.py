"""Nobody is reached where they don't belong, and no member locks the others out (DESIGN §4 Permissions), end to
end through the real client against the local Discord:

* an edited export that names other people never makes the bot write to them: an import seats the importer
  alone, as director, and lists the file's players to invite;
* quotas are per member and say when to try again: a plain member's junk imports never hold up the director's
  export; at most 3 open encounters per member; 10 /roll in 10 s. Clocks are the limiters' own, moved by hand.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from bot.heavy import HeavyLimiter, Window
from bot.storage.export import seal
from tests.e2e_helpers import Table, open_duel, room, start_bot
from tests.fakediscord import Message, Person

pytestmark = pytest.mark.slow


class Clock:
    def __init__(self) -> None:
        self.now = 5000.0

    def __call__(self) -> float:
        return self.now


@dataclass
class Server:
    t: Table
    carla: Person  # a plain member of the server
    zed: Person  # in no server the bot shares
    clock: Clock


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[Server]:
    async with room(tmp_path, channel_name="duel") as t:
        carla, zed = t.fd.create_user("carla"), t.fd.create_user("zed")
        t.fd.world.guilds[t.guild_id].add_member(carla.user)
        clock = Clock()
        t.bot.heavy = HeavyLimiter(clock=clock)
        t.bot.rolls = Window(10, 10.0, clock)
        yield Server(t, carla, zed, clock)


async def answer(
    person: Person, channel: Any, command: str, options: dict[str, Any] | None = None
) -> Message:
    return await (await person.run_command(channel, command, options or {})).final_response(timeout=60)


def edited_export(blob: bytes, *, seat: int, creator: int) -> bytes:
    """An export as a member's text editor leaves it: someone else seated on the first unit, someone else its
    creator, the game running, and sealed again (the seal is a checksum anyone can compute)."""
    data = json.loads(blob)
    players = [p for p in data["participants"] if p["role"] == "player"]
    players[0]["user_id"] = seat
    data["encounter"]["created_by"] = creator
    data["encounter"]["status"] = "running"
    data["encounter"]["settings"] = {"review_rolls": False}
    body = {k: v for k, v in data.items() if k not in ("format", "version", "sha256")}
    return json.dumps(seal(body)).encode()


async def test_an_edited_export_naming_other_users_never_dms_them(server: Server) -> None:
    s, t = server, server.t
    await open_duel(t)
    export = await answer(t.director, t.channel, "encounter export")
    blob = export.attachments[0].read()
    await answer(t.director, t.channel, "encounter end")
    await t.bot.settle()
    forged = edited_export(blob, seat=s.zed.id, creator=t.ana.id)
    dms_before = {p.name: len(p.dms()) for p in (t.ana, t.bea, s.zed, t.director)}
    other = t.fd.world.guilds[t.guild_id].create_text_channel("elsewhere")

    imported = await answer(s.carla, other, "encounter import", {"file": ("duel.json", forged)})
    assert imported.visible_to == s.carla.id and "paused" in imported.content
    assert f"<@{s.zed.id}> (halcon)" in imported.content and f"<@{t.bea.id}>" in imported.content  # to invite
    meta = await t.bot.service.storage.active_encounter_in_channel(t.guild_id, other.id)
    assert meta is not None and meta.created_by == s.carla.id and meta.status == "paused"
    # the bot restarts (every running encounter is resumed) and the importer resumes the game
    await t.bot.close()
    t.bot = await start_bot(t.fd, t.db, t.guild_id)
    await t.bot.settle()
    resumed = await answer(s.carla, other, "director resume")
    assert not resumed.ephemeral
    await t.bot.settle()
    assert {p.name: len(p.dms()) for p in (t.ana, t.bea, s.zed, t.director)} == dms_before
    # whoever accepts plays: Ana joins here and gets her panel
    joined = await answer(t.ana, other, "encounter join", {"unit": "halcon"})
    assert "Halcón" in joined.content


async def test_a_members_junk_imports_never_hold_up_the_directors_export(server: Server) -> None:
    """A plain member spacing out refused imports a whole minute long costs them nothing and the director's
    export of their own encounter is answered every time; the member's own quota says when to try again."""
    s, t = server, server.t
    await open_duel(t)
    spare = t.fd.world.guilds[t.guild_id].create_text_channel("spare")
    for i in range(8):  # eight refused imports in a minute: over six, but refused work is not counted
        junk = await answer(s.carla, spare, "encounter import", {"file": ("junk.json", b"{}")})
        assert junk.ephemeral and "cannot be imported" in junk.content
        s.clock.now += 7
        if i % 2 == 0:
            export = await answer(t.director, t.channel, "encounter export")
            assert export.attachments, export.content
    for _ in range(2):  # the director's own quota: six a minute, the first of them 49 s ago
        assert (await answer(t.director, t.channel, "encounter export")).attachments
    refused = await answer(t.director, t.channel, "encounter export")
    assert refused.ephemeral and "try again in 11 s" in refused.content
    junk = await answer(s.carla, spare, "encounter import", {"file": ("junk.json", b"{}")})
    assert "cannot be imported" in junk.content  # the member's own quota was never spent
    assert not (await answer(s.carla, t.channel, "encounter replay")).ephemeral  # nobody else is held


async def test_three_open_encounters_per_member_then_a_private_refusal(server: Server) -> None:
    s, t = server, server.t
    guild = t.fd.world.guilds[t.guild_id]
    channels = [guild.create_text_channel(f"table-{i}") for i in range(4)]
    for channel in channels[:3]:
        opened = await answer(s.carla, channel, "encounter new", {"ruleset": "exo", "scenario": "exo-duel"})
        assert "is open" in opened.content
    refused = await answer(s.carla, channels[3], "encounter new", {"ruleset": "exo", "scenario": "exo-duel"})
    assert refused.visible_to == s.carla.id and "end one with /encounter end" in refused.content
    assert await t.bot.service.storage.active_encounter_in_channel(t.guild_id, channels[3].id) is None
    opened = await answer(t.ana, channels[3], "encounter new", {"ruleset": "exo", "scenario": "exo-duel"})
    assert "is open" in opened.content  # another member is not held by it


async def test_ten_rolls_in_ten_seconds_then_a_private_wait(server: Server) -> None:
    s, t = server, server.t
    for _ in range(10):
        rolled = await answer(s.carla, t.channel, "roll", {"expression": "2d6"})
        assert not rolled.ephemeral
        s.clock.now += 0.5
    posts = len(t.channel.messages())
    refused = await answer(s.carla, t.channel, "roll", {"expression": "2d6"})
    assert refused.visible_to == s.carla.id and "try again in 5 s" in refused.content
    assert len(t.channel.messages()) == posts  # nothing public
    assert not (await answer(t.ana, t.channel, "roll", {"expression": "1d6"})).ephemeral
    s.clock.now += 5
    assert not (await answer(s.carla, t.channel, "roll", {"expression": "2d6"})).ephemeral
