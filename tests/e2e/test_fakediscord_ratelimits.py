"""The local Discord's REST rate limits (``FakeDiscord(rate_limits=True)``): per-route buckets and the global
limit answer with Discord's 429s and ``X-RateLimit-*`` headers, the unmodified discord.py client paces itself
and retries by them, interaction answers are never limited, and the invalid-request count counts."""

from __future__ import annotations

import asyncio
import os
import random
import shutil
import ssl
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp
import discord
import pytest
import pytest_asyncio
from discord.ext import commands

from tests.fakediscord import FakeDiscord, Person
from tests.fakediscord.ratelimits import DEFAULT_BUCKETS, Bucket, RateLimits
from tests.fakediscord.state import Channel

pytestmark = pytest.mark.asyncio(loop_scope="module")


class Clock:
    """A clock the test moves: the limiter's windows open and close only when the test says."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class QuietBot(commands.Bot):
    async def before_identify_hook(self, shard_id: int | None, *, initial: bool = False) -> None:
        """discord.py's documented hook; its default sleeps 5 s before every re-IDENTIFY."""


def build_bot(guild_id: int) -> commands.Bot:
    intents = discord.Intents.none()
    intents.guilds = True
    bot = QuietBot(
        command_prefix=commands.when_mentioned,
        intents=intents,
        help_command=None,
        chunk_guilds_at_startup=False,
        guild_ready_timeout=0.05,
    )
    guild = discord.Object(id=guild_id)

    @bot.tree.command(name="ping", guild=guild)
    async def ping(interaction: discord.Interaction) -> None:  # pyright: ignore[reportUnusedFunction]
        await interaction.response.send_message("pong")
        await interaction.followup.send("pong again")

    async def setup_hook() -> None:
        await bot.tree.sync(guild=guild)

    bot.setup_hook = setup_hook
    return bot


@dataclass
class World:
    fd: FakeDiscord
    bot: commands.Bot
    table: Channel
    other: Channel
    alice: Person
    http: aiohttp.ClientSession


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def world() -> AsyncIterator[World]:
    async with FakeDiscord(rate_limits=True) as fd, aiohttp.ClientSession() as http:
        guild = fd.create_guild("Limits")
        table = guild.create_text_channel("table")
        other = guild.create_text_channel("other")
        alice = fd.create_user("alice")
        guild.add_member(alice)
        bot = build_bot(guild.id)
        await fd.start_client(bot)
        yield World(fd, bot, table, other, alice, http)
        await bot.close()


@pytest.fixture
def clock(world: World) -> Clock:
    """Fresh limits on a clock the test moves (the bot's start-up requests do not count against them)."""
    moved = Clock()
    world.fd.rest.rate_limits = RateLimits(moved)
    return moved


class WaitedClock(Clock):
    """Stands still, except that a request coming after a 429 finds the window it was refused in over: the
    client waited it out (discord.py really sleeps the short ``retry_after``), whatever the machine's load."""

    def __init__(self, window: float) -> None:
        super().__init__()
        self.window = window
        self.limits: RateLimits | None = None
        self.seen = 0

    def __call__(self) -> float:
        refused = sum(self.limits.refused.values()) if self.limits is not None else 0
        if refused > self.seen:
            self.seen = refused
            self.now += self.window
        return self.now


@pytest.fixture
def waited_limits(world: World) -> RateLimits:
    """Fresh limits with a short send window, on a clock that moves only when the client waits a 429 out."""
    clock = WaitedClock(0.2)
    limits = RateLimits(clock)
    sends = DEFAULT_BUCKETS[0]
    limits.buckets = (Bucket(sends.name, sends.method, sends.path, sends.limit, 0.2), *DEFAULT_BUCKETS[1:])
    clock.limits = limits
    world.fd.rest.rate_limits = limits
    return limits


async def raw(
    world: World, method: str, path: str, body: dict[str, Any] | None = None
) -> aiohttp.ClientResponse:
    """One request with the bot's token, outside discord.py (which would pace itself and hide the 429)."""
    async with world.http.request(
        method,
        f"{world.fd.base_url}/api/v10{path}",
        json=None if body is None else body | {"allowed_mentions": {"parse": []}},
        headers={"Authorization": f"Bot {world.fd.bot_token}"},
    ) as response:
        await response.read()
        return response


async def test_a_burst_of_ten_channel_sends_gets_a_429_on_the_sixth(world: World, clock: Clock) -> None:
    before = world.fd.invalid_requests
    answers = [
        await raw(world, "POST", f"/channels/{world.table.id}/messages", {"content": f"m{i}"})
        for i in range(10)
    ]
    assert [a.status for a in answers] == [200] * 5 + [429] * 5
    assert [a.headers["X-RateLimit-Remaining"] for a in answers[:5]] == ["4", "3", "2", "1", "0"]
    first, sixth = answers[0], answers[5]
    assert first.headers["X-RateLimit-Limit"] == "5"
    assert first.headers["X-RateLimit-Bucket"] == "channel-message-send"
    assert float(first.headers["X-RateLimit-Reset-After"]) == 5.0
    assert sixth.headers["Retry-After"] == "5"
    assert sixth.headers["X-RateLimit-Scope"] == "user"
    assert "Via" in sixth.headers  # discord.py retries only a 429 from Discord itself
    assert world.fd.invalid_requests - before == 5
    assert world.fd.rate_limits is not None and world.fd.rate_limits.refused == {"channel-message-send": 5}
    # another channel has its own bucket (a top-level resource), and the window reopens after its 5 s
    assert (await raw(world, "POST", f"/channels/{world.other.id}/messages", {"content": "x"})).status == 200
    clock.now += 2.0
    retried = await raw(world, "POST", f"/channels/{world.table.id}/messages", {"content": "early"})
    assert retried.status == 429 and retried.headers["Retry-After"] == "3"
    clock.now += 3.0
    assert (await raw(world, "POST", f"/channels/{world.table.id}/messages", {"content": "m5"})).status == 200


async def test_discord_py_paces_itself_and_retries_and_all_ten_arrive(
    world: World, waited_limits: RateLimits
) -> None:
    channel = world.bot.get_channel(world.table.id)
    assert isinstance(channel, discord.TextChannel)
    # someone else's requests on the same token used the window up: discord.py's first send gets the 429
    for i in range(5):
        assert (
            await raw(world, "POST", f"/channels/{world.table.id}/messages", {"content": f"x{i}"})
        ).status == 200
    sent_before, logged_before = len(world.table.messages()), len(world.fd.requests)
    await asyncio.gather(*(channel.send(f"burst {i}") for i in range(10)))
    burst = [m.content for m in world.table.messages()[sent_before:]]
    assert sorted(burst) == sorted(f"burst {i}" for i in range(10))
    assert waited_limits.refused.get("channel-message-send", 0) >= 1
    refusals = [r for r in world.fd.requests[logged_before:] if r.status == 429]
    assert refusals and all(r.path == f"/channels/{world.table.id}/messages" for r in refusals)


async def test_the_global_limit_is_per_token_and_interaction_answers_are_exempt(
    world: World, clock: Clock
) -> None:
    before = world.fd.invalid_requests
    answers = [await raw(world, "GET", "/users/@me") for _ in range(51)]
    assert [a.status for a in answers].count(200) == 50
    refused = answers[50]
    assert refused.status == 429
    assert refused.headers["X-RateLimit-Global"] == "true"
    assert refused.headers["X-RateLimit-Scope"] == "global"
    assert refused.headers["Retry-After"] == "1"
    # the window is used up (the clock stands still), yet a player's command is answered and followed up
    handle = await world.alice.run_command(world.table, "ping")
    message = await handle.response()
    assert message is not None and message.content == "pong"
    followups = await handle.wait_for_followups(1)
    assert followups[0].content == "pong again"
    assert world.fd.rate_limits is not None and world.fd.rate_limits.refused == {"global": 1}
    assert world.fd.invalid_requests - before == 1
    clock.now += 1.0
    assert (await raw(world, "GET", "/users/@me")).status == 200


async def test_the_global_limit_is_counted_for_the_token_across_connections(
    world: World, clock: Clock
) -> None:
    """Two bot processes with one token (two connections of their own) share Discord's global limit: 30 requests
    from each in one second make 60, and the 51st of them is refused, whichever process sends it."""
    async with aiohttp.ClientSession() as second:
        headers = {"Authorization": f"Bot {world.fd.bot_token}"}
        statuses: list[int] = []
        for _ in range(30):
            for session in (world.http, second):
                async with session.get(f"{world.fd.base_url}/api/v10/users/@me", headers=headers) as answer:
                    await answer.read()
                    statuses.append(answer.status)
    assert statuses[:50] == [200] * 50 and statuses[50:] == [429] * 10
    assert world.fd.rate_limits is not None and world.fd.rate_limits.refused == {"global": 10}


async def test_invalid_requests_count_401_and_403_answers_too(world: World, clock: Clock) -> None:
    before = world.fd.invalid_requests
    async with world.http.get(
        f"{world.fd.base_url}/api/v10/users/@me", headers={"Authorization": "Bot wrong"}
    ) as unauthorized:
        assert unauthorized.status == 401
    world.alice.close_dms()
    dm = await raw(world, "POST", "/users/@me/channels", {"recipient_id": str(world.alice.user.id)})
    body = await dm.json()
    closed = await raw(world, "POST", f"/channels/{body['id']}/messages", {"content": "hi"})
    assert closed.status == 403
    assert (await raw(world, "GET", "/users/@me")).status == 200
    assert world.fd.invalid_requests - before == 2
    assert world.fd.rest.invalid.in_window() >= 2 and not world.fd.rest.invalid.banned


async def test_limits_are_off_unless_asked_for() -> None:
    async with FakeDiscord() as fd, aiohttp.ClientSession() as http:
        channel = fd.create_guild("Plain").create_text_channel("table")
        statuses: list[int] = []
        for i in range(10):
            async with http.post(
                f"{fd.base_url}/api/v10/channels/{channel.id}/messages",
                json={"content": str(i), "allowed_mentions": {"parse": []}},
                headers={"Authorization": f"Bot {fd.bot_token}"},
            ) as response:
                statuses.append(response.status)
                assert "X-RateLimit-Bucket" not in response.headers
        assert statuses == [200] * 10 and fd.rate_limits is None


async def test_an_edit_that_changes_nothing_people_see_is_noted(world: World) -> None:
    posted = await raw(
        world, "POST", f"/channels/{world.other.id}/messages", {"content": "Waiting for orders"}
    )
    message_id = (await posted.json())["id"]
    path = f"/channels/{world.other.id}/messages/{message_id}"
    before = len(world.fd.unchanged_edits)
    assert (await raw(world, "PATCH", path, {"content": "Waiting for orders"})).status == 200
    assert (await raw(world, "PATCH", path, {"content": "Waiting for Bea"})).status == 200
    noted = world.fd.unchanged_edits[before:]
    assert len(noted) == 1
    record = world.fd.requests[noted[0]]
    assert (record.method, record.path) == ("PATCH", path)


async def test_discords_own_address_answers_a_proxys_start_up_calls_over_https(tmp_path: Path) -> None:
    """A rate-limit proxy whose upstream is fixed to https://discord.com (nirn.py) is put in front of the local
    Discord by resolving discord.com to an address where it answers HTTPS with a certificate made for discord.com.
    The proxy's start-up calls (v9: the bot user, GET /gateway/bot) are answered there, and the bot user's counts
    for the token's global limit like any other request (the gateway's address never does)."""
    if os.geteuid() != 0 or shutil.which("openssl") is None:
        pytest.skip("needs root (port 443) and openssl, as CI has")
    cert, key = tmp_path / "discord.pem", tmp_path / "discord.key"
    made = await asyncio.create_subprocess_exec(
        *(
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "1",
            "-subj",
            "/CN=discord.com",
        ),
        *("-keyout", str(key), "-out", str(cert), "-addext", "subjectAltName=DNS:discord.com"),
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.DEVNULL,
    )
    assert await made.wait() == 0
    host = f"127.{random.randint(1, 254)}.{random.randint(1, 254)}.{random.randint(2, 254)}"
    async with FakeDiscord(rate_limits=True, global_limit=1) as fd, aiohttp.ClientSession() as http:
        await fd.serve_https(host, str(cert), str(key))
        trusted = ssl.create_default_context(cafile=str(cert))
        headers = {"Authorization": f"Bot {fd.bot_token}"}
        answers: list[tuple[int, Any]] = []
        for path in ("/api/v9/users/@me", "/api/v9/gateway/bot", "/api/v10/users/@me"):
            async with http.get(
                f"https://{host}{path}", headers=headers, ssl=trusted, server_hostname="discord.com"
            ) as answer:
                answers.append((answer.status, await answer.json()))
    assert answers[0] == (200, answers[0][1]) and answers[0][1]["id"] == str(fd.bot_user_id)
    assert answers[1][0] == 200 and answers[1][1]["session_start_limit"]["max_concurrency"] == 1
    assert answers[2][0] == 429 and answers[2][1]["global"] is True  # the second of one a second
    assert fd.rate_limits is not None and fd.rate_limits.refused == {"global": 1}
