"""`FakeDiscord`: REST + gateway on 127.0.0.1 (random port) and the handles tests use to drive it."""

from __future__ import annotations

import asyncio
import contextlib
import re
import ssl
from collections.abc import Callable, Iterable
from types import TracebackType
from typing import Any, ClassVar, TypeVar

import discord
import yarl
from aiohttp import web
from discord.gateway import DiscordWebSocket
from discord.http import Route

from .commands import CommandRegistry
from .errors import RandomFaults
from .gateway import INVALID_SESSION, RECONNECT, Gateway, shard_of_guild
from .ids import new_token
from .interactions import InteractionRules
from .limits import DEFAULT_ATTACHMENT_SIZE_LIMIT
from .people import Person
from .ratelimits import InvalidRequests, RateLimits
from .rest import Fault, RequestRecord, RestApi
from .state import DEFAULT_BOT_PERMISSIONS, DEFAULT_EVERYONE_PERMISSIONS, Guild, Key, World

T = TypeVar("T")


class FakeDiscord:
    """An in-process Discord for one bot application.

    async with FakeDiscord() as fd:
        guild = fd.create_guild("Table")
        channel = guild.create_text_channel("general")
        alice = fd.create_user("alice"); guild.add_member(alice)
        await fd.start_client(bot)          # real discord.py client, waits for on_ready
        handle = await alice.run_command(channel, "ping")
        message = await handle.response()
    """

    #: every fake made in this process since the last :meth:`forget_instances` (the suite's checks)
    instances: ClassVar[list[FakeDiscord]] = []

    def __init__(
        self, *, bot_name: str = "hexbot", shards: int = 1, rate_limits: bool = False, global_limit: int = 50
    ) -> None:
        """``shards``: the shard count GET /gateway/bot recommends; each IDENTIFY with ``shard=[id, count]`` is
        its own session and gets only its guilds' events (DMs: shard 0), so several bot processes can share it.

        ``rate_limits``: enforce Discord's REST limits (``global_limit`` requests per second per bot token, the
        per-route buckets of ``ratelimits.DEFAULT_BUCKETS``) with real 429s and ``X-RateLimit-*`` headers. Off by
        default: a limit makes a test's pace depend on the clock, so only the tests about limits turn it on."""
        FakeDiscord.instances.append(self)
        self.world = World()
        self.world.bot_user.username = bot_name
        self.bot_token = new_token("ZmFrZWJvdA.")
        self.commands = CommandRegistry(self.world.ids, self.world.application_id)
        self.clock: Callable[[], float] = lambda: asyncio.get_running_loop().time()
        self.rules = InteractionRules(self.world, lambda: self.clock())
        self.rest = RestApi(self.world, self.commands, self.rules, self.bot_token)
        self.rest.invalid = InvalidRequests(lambda: self.clock())
        if rate_limits:
            self.rest.rate_limits = RateLimits(lambda: self.clock(), global_limit=global_limit)
        if shards < 1:
            raise ValueError("a bot has at least one shard")
        self.shards = shards
        self.rest.shard_count = shards
        self.gateway = Gateway(self.world, self.bot_token, shard_count=shards)
        self.attachment_size_limit = DEFAULT_ATTACHMENT_SIZE_LIMIT
        self.base_url = ""
        self._runner: web.AppRunner | None = None
        self._saved_urls: tuple[str, yarl.URL] | None = None
        self._clients: list[tuple[discord.Client, asyncio.Task[None]]] = []

    # -- lifecycle ---------------------------------------------------------------------------------

    async def __aenter__(self) -> FakeDiscord:
        await self.start()
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.close()

    async def start(self) -> None:
        # Large enough that the fake, not aiohttp's 1 MiB default, decides what is too big.
        app = web.Application(client_max_size=64 * 1024 * 1024, middlewares=[self.rest.middleware])
        app.add_routes([*self.rest.routes(), web.get("/gateway", self.gateway.handle)])
        self._runner = web.AppRunner(app, access_log=None, shutdown_timeout=1.0)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        # The port is known only now; the gateway URL is read by GET /gateway at request time.
        server = site._server  # pyright: ignore[reportPrivateUsage]
        assert server is not None
        port = server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        self.base_url = f"http://127.0.0.1:{port}"
        self.world.base_url = self.base_url
        self.gateway.url = f"ws://127.0.0.1:{port}/gateway"
        self.rest.gateway_url = self.gateway.url

    async def serve_https(self, host: str, certfile: str, keyfile: str) -> None:
        """Also answer on ``https://{host}:443`` with that certificate: a process that resolves discord.com to
        ``host`` and trusts the certificate (``SSL_CERT_FILE``) then reaches this Discord at Discord's own
        address. How a REST rate-limit proxy whose upstream is fixed to discord.com is put in front of it."""
        assert self._runner is not None, "start() first"
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(certfile, keyfile)
        await web.TCPSite(self._runner, host, 443, ssl_context=context).start()

    async def close(self) -> None:
        for client, task in self._clients:
            await client.close()
            task.cancel()
            with contextlib.suppress(BaseException):
                await task
        self._clients.clear()
        for connection in list(self.gateway.connections):
            await connection.close()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None
        self.restore_urls()

    # -- pointing discord.py at the fake ------------------------------------------------------------

    def point_discord_py_here(self) -> None:
        """The only two changes discord.py needs: the REST base and the gateway a plain Client dials."""
        if self._saved_urls is None:
            self._saved_urls = (Route.BASE, DiscordWebSocket.DEFAULT_GATEWAY)
        Route.BASE = f"{self.base_url}/api/v10"
        DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(self.gateway.url)

    def restore_urls(self) -> None:
        if self._saved_urls is not None:
            Route.BASE, DiscordWebSocket.DEFAULT_GATEWAY = self._saved_urls
            self._saved_urls = None

    def connect_client(self, client: discord.Client) -> Any:
        """Points discord.py here and returns `client.start(token)` for callers that run it themselves."""
        self.point_discord_py_here()
        return client.start(self.bot_token)

    async def start_client(self, client: discord.Client, *, timeout: float = 10.0) -> asyncio.Task[None]:
        """Starts `client` against the fake and returns once on_ready has fired (the task keeps it running)."""
        task = asyncio.create_task(self.connect_client(client))
        task.add_done_callback(self._client_stopped)
        self._clients.append((client, task))
        ready = asyncio.create_task(client.wait_until_ready())
        done, _ = await asyncio.wait({task, ready}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
        if ready not in done:
            ready.cancel()
            if task in done:
                task.result()  # re-raises the login/connect failure
            raise TimeoutError(f"the client was not ready within {timeout} s")
        return task

    def _client_stopped(self, task: asyncio.Task[None]) -> None:
        # A payload discord.py cannot parse kills its connect loop; fail waiting tests at once, loudly.
        if not task.cancelled() and task.exception() is not None:
            self.world.client_failure = task.exception()
            self.world.touch()

    # -- world building ----------------------------------------------------------------------------

    def create_guild(
        self,
        name: str,
        *,
        locale: str = "en-US",
        bot_permissions: int = DEFAULT_BOT_PERMISSIONS,
        everyone_permissions: int = DEFAULT_EVERYONE_PERMISSIONS,
        shard: int | None = None,
    ) -> Guild:
        """A guild the bot is in; a connected bot receives GUILD_CREATE (on the guild's shard: with ``shard``
        given, the guild's id is picked so that ``(id >> 22) % shards == shard``)."""
        if shard is not None and not 0 <= shard < self.shards:
            raise ValueError(f"shard {shard} is not one of this Discord's {self.shards} shards")
        guild = self.world.new_guild(
            name,
            locale=locale,
            bot_permissions=bot_permissions,
            everyone_permissions=everyone_permissions,
            shard=None if shard is None else (shard, self.shards),
        )
        self.world.dispatch("GUILD_CREATE", guild.to_payload())
        return guild

    def create_user(self, name: str, *, locale: str = "en-US") -> Person:
        return Person(self, self.world.new_user(name, locale=locale))

    def shard_of(self, guild: Guild) -> int:
        """The shard that gets ``guild``'s events (Discord's formula)."""
        return shard_of_guild(guild.id, self.shards)

    @property
    def bot_user_id(self) -> int:
        return self.world.bot_user.id

    @property
    def application_id(self) -> int:
        return self.world.application_id

    # -- rules and their knobs ---------------------------------------------------------------------

    @property
    def response_deadline(self) -> float:
        """Seconds the bot has for the first response (Discord: 3)."""
        return self.rules.response_deadline

    @response_deadline.setter
    def response_deadline(self, seconds: float) -> None:
        self.rules.response_deadline = seconds

    @property
    def token_lifetime(self) -> float:
        """Seconds an interaction token stays valid for follow-ups (Discord: 15 minutes)."""
        return self.rules.token_lifetime

    @token_lifetime.setter
    def token_lifetime(self, seconds: float) -> None:
        self.rules.token_lifetime = seconds

    def registered_commands(self, guild: Guild | None = None) -> list[dict[str, Any]]:
        return list(self.commands.list(guild.id if guild else None))

    # -- fault injection and observation -----------------------------------------------------------

    def fail_next(
        self,
        method: str,
        path_regex: str,
        *,
        status: int = 429,
        retry_after: float = 0.05,
        is_global: bool = False,
        via: bool = True,
    ) -> None:
        """The next request matching `method` ('*' for any) and `path_regex` (on the path after /api/v10)
        gets `status`: 429 with `retry_after` seconds (``via=False``: a Cloudflare 429, never retried), or a 5xx."""
        self.rest.faults.append(
            Fault(method.upper(), re.compile(path_regex), status, retry_after, is_global, via)
        )

    def fail_randomly(self, rate: float, *, seed: int | str = 0, **options: Any) -> RandomFaults | None:
        """From now on every API request fails with probability ``rate`` (a refusal drawn from
        ``errors.FAULT_KINDS`` by a ``random.Random(seed)``; ``options``: ``kinds``, ``retry_after``); ``rate`` 0
        stops it. Returns the draws' record (``served`` counts the refusals by kind)."""
        self.rest.random_faults = RandomFaults(rate, seed, **options) if rate > 0 else None
        return self.rest.random_faults

    @property
    def requests(self) -> list[RequestRecord]:
        return list(self.rest.log)

    @property
    def unchanged_edits(self) -> list[int]:
        """The bot's message edits (channel messages and interaction webhooks) that left the message as people
        see it, a request that carried nothing new: their indices in :attr:`requests`."""
        return list(self.rest.unchanged_edits)

    @property
    def rate_limits(self) -> RateLimits | None:
        """The limits enforced (``FakeDiscord(rate_limits=True)``), None when off; its fields may be changed
        (``clock``, ``global_limit``, ``buckets``) and ``refused`` counts the 429s it gave, by scope."""
        return self.rest.rate_limits

    @property
    def invalid_requests(self) -> int:
        """Discord's invalid-request count so far: 401, 403 and 429 answers (429s of scope ``shared``
        excepted), whether rate limits are enforced or injected. Discord bans a token's address for a while
        after 10,000 in 10 minutes: ``rest.invalid.in_window()`` / ``rest.invalid.banned``."""
        return self.rest.invalid.total

    # -- Discord's clock (what snowflakes are stamped with) --------------------------------------------

    def freeze_clock(self) -> int:
        """Stop Discord's clock (Unix ms, returned): ids are stamped with the time the test sets from now on."""
        return self.world.ids.freeze()

    def advance_clock(self, ms: int) -> int:
        """Move Discord's clock on by ``ms`` milliseconds (frozen); returns the new time."""
        return self.world.ids.advance(ms)

    def set_clock(self, unix_ms: int) -> None:
        """Put Discord's frozen clock at ``unix_ms``; earlier than before too (an interaction given then)."""
        self.world.ids.set_ms(unix_ms)

    def force_reconnect(self) -> None:
        """Sends op 7 RECONNECT: the client drops the socket and RESUMEs, getting missed events replayed."""
        self.gateway.send_control(RECONNECT, None)

    def invalidate_session(self) -> None:
        """Sends op 9 INVALID_SESSION (not resumable): the client must IDENTIFY again."""
        self.gateway.send_control(INVALID_SESSION, False)
        self.gateway.sessions.clear()

    async def wait_for(
        self,
        find: Callable[[], T | None],
        *,
        timeout: float = 5.0,
        what: str = "a condition",
        on: Iterable[Key] = (),
    ) -> T:
        """Waits (on state changes, not sleeps) until `find()` returns something other than None/False; with
        ``on`` (channel ids, interaction ids), re-checks only after the changes naming one of them (or naming
        nothing) and every `World.poll_interval` (`World.touch`)."""

        def truthy() -> T | None:
            value = find()
            return value if value else None

        return await self.world.wait_for(truthy, timeout=timeout, what=what, on=on)
