"""tests/fakediscord serving several gateway sessions of one application: GET /gateway/bot recommends
``FakeDiscord(shards=N)``, each IDENTIFY with ``shard=[id, count]`` is its own session, guild events go only to the
shard ``(guild_id >> 22) % count`` and DM events to shard 0, as Discord routes them."""

from __future__ import annotations

import discord
import pytest
from discord import app_commands
from discord.ext import commands

from tests.fakediscord import FakeDiscord

pytestmark = pytest.mark.slow


class ShardProbe(commands.AutoShardedBot):
    """A stock sharded bot answering ``/where`` with the shard the interaction arrived on."""

    def __init__(self, *, shard_ids: list[int] | None = None, shard_count: int | None = None) -> None:
        intents = discord.Intents.none()
        intents.guilds = True
        intents.guild_messages = True
        intents.dm_messages = True
        options: dict[str, object] = {}
        if shard_count is not None:
            options = {"shard_count": shard_count, "shard_ids": shard_ids}
        super().__init__(
            command_prefix=commands.when_mentioned,
            intents=intents,
            help_command=None,
            chunk_guilds_at_startup=False,
            guild_ready_timeout=0.05,
            allowed_mentions=discord.AllowedMentions.none(),
            **options,  # pyright: ignore[reportArgumentType]
        )
        self.seen: list[tuple[int | None, int | None]] = []  # (guild id, shard id) of each interaction
        self.messages: list[tuple[int | None, str]] = []  # (guild id, text) of each message event

        @self.tree.command(description="Which shard answers")
        async def where(interaction: discord.Interaction) -> None:  # pyright: ignore[reportUnusedFunction]
            shard = interaction.guild.shard_id if interaction.guild is not None else 0
            self.seen.append((interaction.guild_id, shard))
            await interaction.response.send_message(f"shard {shard}")

        self.tree.on_error = self._on_error

    async def _on_error(self, interaction: discord.Interaction, error: app_commands.AppCommandError) -> None:
        raise error

    async def setup_hook(self) -> None:
        await self.tree.sync()

    async def on_message(self, message: discord.Message) -> None:
        if not message.author.bot:
            self.messages.append((message.guild.id if message.guild else None, message.content))

    async def before_identify_hook(self, shard_id: int | None, *, initial: bool = False) -> None:
        """No 5 s wait between IDENTIFYs against the fake."""


async def test_gateway_bot_recommends_the_shard_count_and_one_client_runs_both_shards() -> None:
    async with FakeDiscord(shards=2) as fd:
        g0 = fd.create_guild("Zero", shard=0)
        g1 = fd.create_guild("One", shard=1)
        assert (fd.shard_of(g0), fd.shard_of(g1)) == (0, 1)
        bot = ShardProbe()  # no SHARD_COUNT: AutoShardedBot asks GET /gateway/bot
        await fd.start_client(bot)
        assert sorted(bot.shards) == [0, 1]
        assert {g.id: g.shard_id for g in bot.guilds} == {g0.id: 0, g1.id: 1}
        assert fd.gateway.identify_count == 2


async def test_each_process_gets_its_own_guilds_and_dms_arrive_on_shard_zero() -> None:
    async with FakeDiscord(shards=2) as fd:
        g0 = fd.create_guild("Zero", shard=0)
        g1 = fd.create_guild("One", shard=1)
        c0, c1 = g0.create_text_channel("t0"), g1.create_text_channel("t1")
        ana = fd.create_user("ana")
        for g in (g0, g1):
            g.add_member(ana.user)
        # two "processes" of one application: shard 0 of 2 and shard 1 of 2
        zero, one = ShardProbe(shard_ids=[0], shard_count=2), ShardProbe(shard_ids=[1], shard_count=2)
        await fd.start_client(zero)
        await fd.start_client(one)
        assert [g.id for g in zero.guilds] == [g0.id]
        assert [g.id for g in one.guilds] == [g1.id]
        shards = sorted(s.shard for s in fd.gateway.sessions.values())
        assert shards == [(0, 2), (1, 2)]

        reply = await (await ana.run_command(c1, "where")).final_response()
        assert reply.content == "shard 1"
        reply = await (await ana.run_command(c0, "where")).final_response()
        assert reply.content == "shard 0"
        reply = await (await ana.run_command(ana.dm_channel, "where")).final_response()
        assert reply.content == "shard 0"
        assert zero.seen == [(g0.id, 0), (None, 0)]
        assert one.seen == [(g1.id, 1)]

        # message events: a guild channel's to its shard, a DM's to shard 0 (content blanked without the intent)
        await ana.send_message(c1, "in guild one")
        await ana.send_dm("by DM")
        await fd.wait_for(lambda: len(zero.messages) + len(one.messages) == 2, what="two message events")
        assert [g for g, _ in one.messages] == [g1.id]
        assert zero.messages == [(None, "by DM")]

        # a guild created later, and its channel, reach only the shard that owns it
        g3 = fd.create_guild("Three", shard=1)
        await fd.wait_for(lambda: one.get_guild(g3.id) is not None, what="GUILD_CREATE on shard 1")
        g3.create_text_channel("late")
        await fd.wait_for(lambda: len(one.get_guild(g3.id).text_channels) == 1)  # pyright: ignore[reportOptionalMemberAccess]
        assert zero.get_guild(g3.id) is None


async def test_unsharded_identify_still_gets_every_guild() -> None:
    async with FakeDiscord(shards=2) as fd:
        guilds = [fd.create_guild(f"G{i}", shard=i % 2) for i in range(4)]
        bot = ShardProbe(shard_ids=[0], shard_count=1)  # IDENTIFY [0, 1]: the whole bot on one session
        await fd.start_client(bot)
        assert sorted(g.id for g in bot.guilds) == sorted(g.id for g in guilds)
