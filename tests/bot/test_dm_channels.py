"""The DM channel book (bot/dm_channels.py) on its own, with Discord and storage stood in for: what only a stand-in
can show (a storage that fails, an interaction in a DM between two people). The behaviour against the local
Discord is in tests/e2e/test_e2e_dm_channels.py."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any, cast

import discord

from bot.dm_channels import DmChannels, in_bot_dm
from bot.storage import Storage, StorageError

ANA, ANA_DM = 10, 1010


class Opener:
    """Discord's side: ``POST /users/@me/channels`` answered with the person's channel, counted."""

    def __init__(self) -> None:
        self.opened: list[int] = []
        self.gate = asyncio.Event()
        self.gate.set()

    async def start_private_message(self, user_id: int) -> dict[str, Any]:
        self.opened.append(user_id)
        await self.gate.wait()
        return {"id": str(user_id + 1000), "type": 1}


def client(opener: Opener) -> discord.Client:
    def partial(channel_id: int, *, type: discord.ChannelType | None = None) -> Any:
        return SimpleNamespace(id=channel_id, type=type)

    return cast(discord.Client, SimpleNamespace(http=opener, get_partial_messageable=partial))


class BrokenStorage:
    async def dm_channel_of(self, user_id: int) -> int | None:
        raise StorageError("the database is gone")

    async def set_dm_channel(self, user_id: int, channel_id: int) -> None:
        raise StorageError("the database is gone")


async def test_a_storage_that_fails_never_stops_a_dm_and_dms_at_once_open_the_channel_once() -> None:
    opener = Opener()
    opener.gate.clear()
    noted: list[int] = []
    dms = DmChannels(client(opener), lambda: cast(Storage, BrokenStorage()), on_channel=noted.append)

    async def channel_id(channel: discord.PartialMessageable) -> int:
        return channel.id

    burst = [asyncio.ensure_future(dms.send_to(ANA, channel_id)) for _ in range(5)]
    await asyncio.sleep(0)
    opener.gate.set()
    assert await asyncio.gather(*burst) == [ANA_DM] * 5
    assert opener.opened == [ANA] and noted == [ANA_DM], (
        "opened once, and its DMs are DMs to the request plan"
    )
    assert (await dms.channel(ANA)).id == ANA_DM and opener.opened == [ANA], "kept in memory"
    assert (await dms.channel(ANA)).type is discord.ChannelType.private


def interaction(guild_id: int | None, context: discord.AppCommandContext) -> discord.Interaction:
    return cast(discord.Interaction, SimpleNamespace(guild_id=guild_id, context=context))


def test_only_an_interaction_in_the_persons_own_dm_with_the_bot_names_their_dm_channel() -> None:
    bot_dm = discord.AppCommandContext(guild=False, dm_channel=True, private_channel=False)
    between_people = discord.AppCommandContext(guild=False, dm_channel=False, private_channel=True)
    in_server = discord.AppCommandContext(guild=True, dm_channel=False, private_channel=False)
    assert in_bot_dm(interaction(None, bot_dm))
    assert not in_bot_dm(interaction(None, between_people)), "a user-installed app used in someone else's DM"
    assert not in_bot_dm(interaction(1, in_server))


async def test_channels_are_opened_one_at_a_time_so_discord_py_s_bucket_never_lets_too_many_through() -> None:
    """discord.py's bucket lets a request arriving as its window ends go beside the ones it woke: one opening in
    flight at a time keeps the bucket's count true (bot/dm_channels.py)."""
    in_flight, most = 0, 0

    class Counting(Opener):
        async def start_private_message(self, user_id: int) -> dict[str, Any]:
            nonlocal in_flight, most
            in_flight += 1
            most = max(most, in_flight)
            try:
                for _ in range(3):  # the answer takes a few turns of the loop
                    await asyncio.sleep(0)
                return await super().start_private_message(user_id)
            finally:
                in_flight -= 1

    opener = Counting()
    dms = DmChannels(client(opener), lambda: cast(Storage, BrokenStorage()))
    people = list(range(100, 110))
    found = await asyncio.gather(*(dms.channel(person) for person in people))
    assert [c.id for c in found] == [p + 1000 for p in people]
    assert sorted(opener.opened) == people and most == 1
