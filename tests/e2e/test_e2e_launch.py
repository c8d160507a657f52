"""The production client through the launcher path: ``bot.process.client.serve`` runs the real sharded ``HexBot``
(``AutoShardedBot``) against tests/fakediscord, as ``run_bot`` does after reading the configuration, and stops it
the way SIGTERM does. The other end-to-end tests run the unsharded core for speed; this one proves the sharded
login (READY's ``shard``), the cogs and a command all work in the class that ships."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from discord.http import Route

from bot.process.client import HexBot, serve
from bot.process.config import Config
from tests.fakediscord import FakeDiscord

pytestmark = pytest.mark.slow


@pytest.mark.parametrize(
    ("shard_count", "shard_ids", "expected"),
    [
        (None, None, {0: 1}),  # SHARD_COUNT unset: AutoShardedBot asks GET /gateway/bot
        (2, (1,), {1: 2}),  # this process runs shard 1 of 2: READY must echo it
    ],
)
async def test_sharded_hexbot_logs_in_answers_and_stops_like_run_bot(
    tmp_path: Path, shard_count: int | None, shard_ids: tuple[int, ...] | None, expected: dict[int, int]
) -> None:
    # the local Discord routes a guild's events to its shard only: the guild is put on the shard this bot runs
    async with FakeDiscord(shards=shard_count or 1) as fd:
        guild = fd.create_guild("Wargames", shard=shard_ids[-1] if shard_ids else 0)
        channel = guild.create_text_channel("duel")
        dora = fd.create_user("dora")
        guild.add_member(dora.user)
        config = Config(
            token=fd.bot_token,
            database_url=f"sqlite:///{tmp_path / 'bot.sqlite3'}",
            dev_guild=guild.id,
            log_level="WARNING",
            shard_count=shard_count,
            shard_ids=shard_ids,
        )
        bot = HexBot(config)
        fd.point_discord_py_here()
        stop = asyncio.Event()
        served = asyncio.create_task(serve(bot, config.token, stop))
        try:
            await asyncio.wait_for(_ready(bot, served), timeout=20)
            assert {sid: shard.shard_count for sid, shard in bot.shards.items()} == expected
            assert bot.failed_extensions == []
            handle = await dora.run_command(channel, "roll", {"expression": "2d6+1"})
            reply = await handle.final_response(timeout=20)
            assert "2d6+1" in reply.content or reply.embeds
        finally:
            stop.set()  # what SIGTERM does in run_bot
            code = await asyncio.wait_for(served, timeout=30)
        assert code == 0
        assert bot.is_closed()


async def test_hexd_discord_api_sends_every_rest_request_through_the_proxy_address(tmp_path: Path) -> None:
    """``HEXD_DISCORD_API`` (a rate-limit proxy shared by the bot's processes) takes every REST request: login,
    the gateway's address, command sync, interaction answers. discord.py's own base is made unreachable first, so
    the bot logs in and answers only if all of them go to the configured address."""
    async with FakeDiscord() as fd:
        guild = fd.create_guild("Wargames")
        channel = guild.create_text_channel("duel")
        dora = fd.create_user("dora")
        guild.add_member(dora.user)
        fd.point_discord_py_here()  # the gateway; restored with the REST base when the local Discord closes
        Route.BASE = "http://127.0.0.1:9/api/v10"  # nothing listens there
        config = Config(
            token=fd.bot_token,
            database_url=f"sqlite:///{tmp_path / 'bot.sqlite3'}",
            dev_guild=guild.id,
            log_level="WARNING",
            discord_api=fd.base_url,
        )
        bot = HexBot(config)
        stop = asyncio.Event()
        served = asyncio.create_task(serve(bot, config.token, stop))
        try:
            await asyncio.wait_for(_ready(bot, served), timeout=20)
            base = Route.BASE
            assert base.startswith(fd.base_url) and base.endswith("/api/v10")
            handle = await dora.run_command(channel, "roll", {"expression": "2d6+1"})
            reply = await handle.final_response(timeout=20)
            assert "2d6+1" in reply.content or reply.embeds
        finally:
            stop.set()
            code = await asyncio.wait_for(served, timeout=30)
        assert code == 0


async def _ready(bot: HexBot, served: asyncio.Task[int]) -> None:
    """Until on_ready (wait_until_ready needs a login first, which serve does in its own task)."""
    while not bot.is_ready():
        if served.done():
            raise AssertionError(f"the bot stopped before it was ready: exit code {served.result()}")
        await asyncio.sleep(0.02)
