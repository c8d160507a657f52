"""The Discord client: ``HexBot`` loads the cogs from one list, syncs the commands, owns the storage, the
service, the deadline loop and the announcer, and turns every error into one localized ephemeral reply."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import hashlib
import logging
import signal
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from typing import Any, Final, Protocol

import aiohttp
import discord
from discord import app_commands
from discord.ext import commands
from discord.http import INTERNAL_API_VERSION, Route

from bot import offloop
from bot.click_limit import ClickLimiter
from bot.click_tokens import ClickTokens
from bot.dm_channels import DmChannels, in_bot_dm
from bot.handoff import Handoff, wanted
from bot.heavy import HeavyLimiter, Window
from bot.imaging import warm_up
from bot.logs import setup_logging, trace_id
from bot.membership import Membership
from bot.names import shown_name
from bot.process.config import Config, rest_base
from bot.request_plan import RequestPlan
from bot.results import OverrideDone, Resolution, StatusView, StepReport, UndoDone, refuse
from bot.scheduler import DeadlineScheduler
from bot.service import EncounterService, Reading
from bot.storage import (
    ChannelBusyError,
    Deadline,
    Encounter,
    EncounterEndedError,
    EncounterNotFoundError,
    NothingToUndoError,
    StalePhaseError,
    Storage,
    StorageError,
    open_storage,
)
from bot.translator import HexTranslator
from data.i18n import has, localized, t
from rules.errors import GameError
from rules.registry import ruleset_ids

log = logging.getLogger(__name__)

EXTENSIONS: tuple[str, ...] = (
    "cogs.announcements",
    "cogs.encounter",
    "cogs.orders",
    "cogs.director",
    "cogs.dice",
    "cogs.units",
    "cogs.help",
    "cogs.settings",
)


class Refusal(app_commands.CheckFailure):
    """A check refused the command with a ``GameError`` (raised from checks so the tree reports it)."""

    def __init__(self, original: GameError) -> None:
        super().__init__(str(original))
        self.original = original


#: what the store refuses when a race gets past the service's own checks (an encounter ended, a phase resolved
#: meanwhile), said in the person's words: its own messages are for logs, in English, with ids
STORE_REFUSALS: tuple[tuple[type[StorageError], str, str], ...] = (
    (EncounterEndedError, "encounter.ended", "This encounter has ended."),
    (StalePhaseError, "phase.changed", "The game moved on while I applied that; give it again."),
    (
        EncounterNotFoundError,
        "encounter.gone",
        "That encounter no longer exists, or you no longer play in it.",
    ),
    (ChannelBusyError, "encounter.exists", "This channel already has an encounter; end it first."),
    (NothingToUndoError, "undo.nothing", "There is nothing to undo."),
)


def in_their_words(error: Exception) -> Exception:
    """A store refusal listed in :data:`STORE_REFUSALS` as the refusal a person reads; anything else as it is."""
    for kind, code, text in STORE_REFUSALS:
        if isinstance(error, kind):
            return refuse(code, text)
    return error


#: a refusal's parameters that repeat what someone typed (a unit's or side's name, an id, a dice expression): shown
#: as themselves, never as markdown (bot/names.py)
TYPED_PARAMS = frozenset({"name", "unit", "side", "target", "other", "expression"})


def error_text(error: Exception, locale: str | None) -> str:
    """A ``GameError`` in the reader's language (``errors.<code>``), falling back to its English text."""
    if isinstance(error, GameError):
        key = f"errors.{error.code}"
        if has(key, "en") or has(key, locale):
            params = {
                k: shown_name(v) if k in TYPED_PARAMS and isinstance(v, str) else localized(v, locale)
                for k, v in error.params.items()
            }
            text = t(key, locale, **params)
            if error.rule and error.rule not in text:
                text = f"{text} [{error.rule}]"
            return text
        return str(error)
    return t("errors.internal", locale, trace=trace_id())


class Announcing(Protocol):
    """What the cogs' announcer offers the rest of the bot (installed by the ``cogs.announcements`` extension)."""

    async def remind(self, due: Deadline) -> None: ...

    async def step_done(self, step: StepReport) -> None: ...

    async def after_resolution(self, result: Resolution) -> None: ...

    async def open_phase(self, encounter_id: int) -> None: ...

    def post_opening_board(self, encounter_id: int, *, reading: Reading | None = None) -> None: ...

    def override_done(self, meta: Encounter, done: OverrideDone) -> None: ...

    def undone_unseen(self, meta: Encounter, done: UndoDone) -> None: ...

    async def refresh_status(self, encounter_id: int, *, status: StatusView | None = None) -> None: ...

    def status_changed(self, encounter_id: int) -> None: ...

    def status_text(self, status: StatusView, locale: str) -> str: ...

    async def drain(self) -> None: ...

    async def claim(self, encounter_id: int, kind: str, key: str) -> bool: ...

    async def record(
        self, encounter_id: int, kind: str, key: str, channel_id: int, message_id: int
    ) -> None: ...

    async def release(self, encounter_id: int, kind: str, key: str) -> None: ...

    async def user_lang(self, meta: Encounter, user_id: int) -> str: ...

    async def dm(self, user_id: int, text: str | None, **kwargs: object) -> discord.Message | None: ...


_frozen = False

#: the garbage collector's thresholds in service (the interpreter's are 700, 10, 10). A click's work keeps its
#: objects for a few milliseconds to a few seconds (a reading, a request, a view); at the interpreter's thresholds
#: whatever lived past a few hundred allocations was promoted, and the oldest generation then filled fast enough
#: that a full collection, which walks every object with the event loop stopped, came every 15 s at 300 tables and
#: took 0.2-0.4 s. With these, objects must outlive 10,000 allocations times 20 to be promoted: a young collection
#: walks more (tens of ms at most) but the full ones became rare (one in a 3-minute run instead of 13-17;
#: bench/pace.py at 300 tables put acknowledgements' p99 at 64 ms against 160-200 ms)
COLLECTOR_THRESHOLDS: Final = (10_000, 20, 10)


def tune_collector() -> None:
    """Once per process, after start-up: move everything alive then (modules, catalogs, data tables, the command
    tree) out of the garbage collector's reach, and set :data:`COLLECTOR_THRESHOLDS`. A full collection walks every
    tracked object with the event loop stopped, whichever thread triggers it: at 800 ships they took 100-500 ms each
    on this machine, and the ~77,000 objects alive after start-up, which live as long as the process, were walked
    every time."""
    global _frozen
    if not _frozen:
        _frozen = True
        gc.collect()
        gc.freeze()
        gc.set_threshold(*COLLECTOR_THRESHOLDS)


#: seconds; the acknowledgement bar is 100 ms and a panel with its preview takes about 15-25 ms on a
#: quiet machine (bench/e2e.py, 3 duels), so most clicks are answered by their panel; a click that misses it has
#: waited this much more for its acknowledgement (50 ms put busy runs' p99 past the bar)
PANEL_ANSWER_WITHIN = 0.03
#: /roll: each roll is a public post, so one member may make this many in any ROLL_WINDOW_SECONDS
ROLLS_PER_WINDOW = 10
ROLL_WINDOW_SECONDS = 10.0


class HexBotCore(commands.Bot):
    """Everything the bot does; :class:`HexBot` runs it sharded (most end-to-end tests run this class
    unsharded for speed; tests/test_e2e_launch.py runs :class:`HexBot` itself through :func:`serve`)."""

    def __init__(
        self,
        config: Config,
        *,
        storage: Storage | None = None,
        extensions: Sequence[str] = EXTENSIONS,
        deadline_interval: float = 5.0,
        guild_ready_timeout: float = 2.0,
    ) -> None:
        intents = discord.Intents.none()
        intents.guilds = True  # only interactions and guild/channel cache: no message events to parse
        super().__init__(
            command_prefix=commands.when_mentioned,
            intents=intents,
            help_command=None,
            chunk_guilds_at_startup=False,
            member_cache_flags=discord.MemberCacheFlags.none(),
            # names are typed by players: nothing pings unless a message names its ping
            allowed_mentions=discord.AllowedMentions.none(),
            guild_ready_timeout=guild_ready_timeout,
            **self.shard_options(config),
        )
        self.config = config
        self._storage = storage
        self._owns_storage = storage is None
        self.extension_names = tuple(extensions)
        self.failed_extensions: list[str] = []
        self.deadline_interval = deadline_interval
        # how long a panel click may take to draw its panel and still answer with it, in one request (past it the
        # click is deferred and the panel edited: cogs/panel/items.py); tests set it to choose either way
        self.panel_answer_within = PANEL_ANSWER_WITHIN
        self.announcer: Announcing | None = None  # set by the cogs.announcements extension
        #: tells a director their phase waits without a deadline (set by the cogs.encounter extension)
        self.idle_notifier: Callable[[Encounter], Awaitable[None]] | None = None
        self._service: EncounterService | None = None
        self.scheduler: DeadlineScheduler | None = None
        #: DM clicks handed to the process running their encounter's shard (bot/handoff.py); None: all here
        self.handoff: Handoff | None = None
        self._handoff_listener: asyncio.Task[None] | None = None
        self._background: set[asyncio.Task[None]] = set()
        self.heavy = HeavyLimiter()  # replay, export, import: per member, so nobody locks the others out
        self.rolls = Window(ROLLS_PER_WINDOW, ROLL_WINDOW_SECONDS)  # /roll posts in public: per member
        self.clicks = ClickLimiter()  # a burst of clicks is not a burst of work (bot/click_limit.py)
        self.membership = Membership(self._still_member)  # DM clicks carry no server (bot/membership.py)
        # answers first, then DMs, posts, status edits, within the global limit (bot/request_plan.py)
        self.requests = RequestPlan()
        # DM channels opened once, ever, and sent to by id (bot/dm_channels.py)
        self.dm_channels = DmChannels(
            self, lambda: self.service.storage, on_channel=self.requests.note_dm_channel
        )
        # DMs carried by the person's own fresh click, outside the global limit (bot/click_tokens.py)
        self.click_tokens = ClickTokens()
        self.http.request = self.requests.wrap(self.http.request)  # type: ignore[method-assign]
        self.tree.on_error = self.on_app_command_error

    async def _still_member(self, guild_id: int, user_id: int) -> bool:
        """Asked of Discord (a guild's members are not cached without the members intent; over HTTP, so a process
        answers for a guild on another shard too)."""
        try:
            await self.http.get_member(guild_id, user_id)
        except discord.NotFound:  # Unknown Member (left, kicked), or Unknown Guild (the bot was removed)
            return False
        except discord.HTTPException:  # Discord could not say: the click goes on rather than fail for all
            log.warning("membership lookup refused guild=%s user=%s", guild_id, user_id, exc_info=True)
        return True

    async def on_interaction(self, interaction: discord.Interaction) -> None:
        """A command or click inside a server comes only from a member: a DM click of theirs soon after needs no
        member lookup (bot/membership.py). One in the person's DM with the bot shows that channel's id, so no DM to
        them needs it opened (bot/dm_channels.py), and its token carries the next DMs to them for a while
        (bot/click_tokens.py); a DM between two people (a user-installed app) is not it."""
        if interaction.guild_id is not None and isinstance(interaction.user, discord.Member):
            self.membership.seen(interaction.guild_id, interaction.user.id)
        elif interaction.channel_id is not None and in_bot_dm(interaction):
            self.click_tokens.seen(interaction)
            await self.dm_channels.learn(interaction.user.id, interaction.channel_id)

    async def on_guild_remove(self, guild: discord.Guild) -> None:
        self.membership.forget_guild(guild.id)

    @staticmethod
    def shard_options(config: Config) -> dict[str, Any]:
        """Unsharded: nothing. :class:`HexBot` passes SHARD_COUNT/SHARD_IDS to AutoShardedBot."""
        return {}

    def owns_guild(self, guild_id: int) -> bool:
        """Whether this process runs the shard that gets ``guild_id``'s events (unsharded: every guild)."""
        return True

    def shards_run(self) -> tuple[tuple[int, ...], int] | None:
        """The shards this process runs and the shard count, when it runs only some (unsharded: None)."""
        return None

    async def _open_handoff(self) -> None:
        """Hand DM clicks to the process running their encounter's shard (bot/handoff.py), when several processes
        share a PostgreSQL database: discord.py's ``INTERACTION_CREATE`` parser goes through :class:`Handoff`,
        which calls it back for every interaction that stays here. The listening starts once the gateway is ready
        (a handed click is parsed as if it came from it); until then the senders answer their clicks themselves."""
        shards = self.shards_run()
        if shards is None or not wanted(self.config.database_url, *shards):
            return
        state = self._connection
        handoff = Handoff(
            shard_ids=shards[0],
            shard_count=shards[1],
            handle=state.parse_interaction_create,
            guild_of=self._guild_of,
            spawn=lambda coro: self.spawn(coro, what="handoff"),
        )
        try:
            await handoff.open(self.config.database_url)
        except Exception:
            log.warning("DM clicks will not be handed to their shard's process", exc_info=True)
            await handoff.close()
            return
        self.handoff = handoff
        state.parsers["INTERACTION_CREATE"] = handoff.receive

        async def listen() -> None:
            await self.wait_until_ready()
            await handoff.listen(self.config.database_url)

        self._handoff_listener = asyncio.create_task(listen(), name="hexd-handoff-listener")

    async def _guild_of(self, encounter_id: int) -> int | None:
        try:
            return (await self.service.storage.get_encounter(encounter_id)).guild_id
        except EncounterNotFoundError:
            return None

    @property
    def claimant(self) -> int:
        """Who this process is when it claims a post in storage (bot/outbox/claims.py): the same after a restart, so
        it takes back what it was sending when it died; different for each set of shards (unsharded: 1)."""
        return 1

    @property
    def service(self) -> EncounterService:
        if self._service is None:
            raise RuntimeError("the bot is not set up yet")
        return self._service

    async def setup_hook(self) -> None:
        if self._storage is None:
            self._storage = await open_storage(self.config.database_url)
        self._service = EncounterService(
            self._storage,
            director_role_name=self.config.director_role,
            seal_dice=self.config.seal_dice,
            shared=self.claimant
            != 1,  # other processes (shards) on this database: cached settings kept shortly
        )
        await self._open_handoff()
        # import the rulesets and the renderer now, not inside the first interaction (a cold import blocks the loop)
        ruleset_ids()
        await warm_up()
        await self.tree.set_translator(HexTranslator())
        for name in self.extension_names:
            try:
                await self.load_extension(name)
            except Exception:
                # a broken cog must not take the bot down (STYLE: RoboDanny)
                log.exception("extension failed to load, skipped: %s", name)
                self.failed_extensions.append(name)
        await self.sync_commands()
        self.scheduler = DeadlineScheduler(
            self.service,
            self.announce,
            on_step=self.step_done,
            on_reminder=self.remind,
            on_idle=self.remind_idle,
            interval=self.deadline_interval,
        )
        self.scheduler.start()
        tune_collector()

    async def announce(self, result: Resolution) -> None:
        """Tell the channel and the players what a resolution did (images, account, next phase's panels)."""
        if self.announcer is not None:
            await self.announcer.after_resolution(result)

    async def remind(self, due: Deadline) -> None:
        """A phase's deadline is near: the players still missing get a DM (unless they muted reminders)."""
        if self.announcer is not None:
            await self.announcer.remind(due)

    async def remind_idle(self, meta: Encounter) -> None:
        """A phase has waited, without a deadline, past the server's idle interval (bot/idle.py)."""
        if self.idle_notifier is not None:
            await self.idle_notifier(meta)

    async def step_done(self, step: StepReport) -> None:
        """A step was committed: the announcer posts it while the following phases resolve."""
        if self.announcer is not None:
            await self.announcer.step_done(step)

    async def resolve_and_announce(self, encounter_id: int, **kwargs: Any) -> Resolution:
        result = await self.service.resolve(encounter_id, on_step=self.step_done, **kwargs)
        await self.announce(result)
        return result

    def spawn(self, coro: Coroutine[Any, Any, Any], *, what: str) -> None:
        """Run ``coro`` in the background (an interaction already answered), logging any failure."""

        async def guarded() -> None:
            try:
                await coro
            except Exception:
                log.exception("background %s failed trace=%s", what, trace_id())

        task = asyncio.create_task(guarded(), name=f"hexd-{what}")
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def settle(self) -> None:
        """Wait until background work and announcements are done (tests, shutdown)."""
        while self._background:
            await asyncio.gather(*list(self._background), return_exceptions=True)
        if self.announcer is not None:
            await self.announcer.drain()

    async def sync_commands(self) -> None:
        if self.config.dev_guild:
            guild = discord.Object(id=self.config.dev_guild)
            self.tree.copy_global_to(guild=guild)
            synced = await self.tree.sync(guild=guild)
        else:
            synced = await self.tree.sync()
        log.info("commands synced count=%d guild=%s", len(synced), self.config.dev_guild)

    async def on_app_command_error(
        self, interaction: discord.Interaction, error: app_commands.AppCommandError
    ) -> None:
        original: Exception = error
        if isinstance(error, app_commands.CommandInvokeError | Refusal):
            original = error.original
        elif isinstance(error, app_commands.TransformerError) and isinstance(error.__cause__, GameError):
            original = error.__cause__
        await self.reply_error(interaction, original)

    async def reply_error(self, interaction: discord.Interaction, error: Exception) -> None:
        locale = interaction.locale.value
        error = in_their_words(error)
        if isinstance(error, GameError):
            text = error_text(error, locale)
            log.info("refused user=%s code=%s", interaction.user.id, error.code)
        elif isinstance(error, app_commands.TransformerError):
            text = t("errors.bad_argument", locale, value=str(error.value)[:50])
        elif isinstance(error, StorageError):
            text = t("errors.storage", locale, reason=str(error)[:200])
            log.warning("storage refused user=%s: %s", interaction.user.id, error)
        elif isinstance(error, discord.HTTPException) and (error.status == 429 or error.status >= 500):
            # Discord refused a request of ours (rate limited, or down for a moment): not a fault of the bot, and
            # giving the command again is what helps (found by bench/faults.py: it read "something went wrong")
            text = t("errors.discord_busy", locale)
            log.warning("discord refused a request user=%s status=%s", interaction.user.id, error.status)
        else:
            trace = trace_id()
            log.error("unhandled error trace=%s", trace, exc_info=error)
            text = t("errors.internal", locale, trace=trace)
        try:
            if interaction.response.is_done():
                await _clear_public_placeholder(interaction)
                await interaction.followup.send(text[:2000], ephemeral=True)
            else:
                await interaction.response.send_message(text[:2000], ephemeral=True)
        except discord.HTTPException:
            log.warning("could not deliver an error reply user=%s", interaction.user.id)

    async def close(self) -> None:
        if self.scheduler is not None:
            await self.scheduler.stop()
        if self.handoff is not None:  # before settling: no click is handed here, or from here, any more
            await self.handoff.close()
        if self._handoff_listener is not None:
            self._handoff_listener.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._handoff_listener
        try:
            await asyncio.wait_for(self.settle(), timeout=10)
        except TimeoutError:
            log.warning("shutting down with announcements still pending")
        await super().close()
        offloop.shutdown()
        if self._storage is not None and self._owns_storage:
            await self._storage.close()
            self._storage = None


async def _clear_public_placeholder(interaction: discord.Interaction) -> None:
    """A refusal after a public deferral: the first follow-up would fill the channel's "thinking…" message, for
    everyone to read. That placeholder goes first, so the refusal that follows is the person's alone (a command
    refuses before deferring wherever it can; this is for what can only be found out later, such as a race)."""
    if interaction.response.type is not discord.InteractionResponseType.deferred_channel_message:
        return
    with contextlib.suppress(discord.HTTPException):
        original = await interaction.original_response()
        if original.flags.loading and not original.flags.ephemeral:
            await interaction.delete_original_response()


class HexBot(HexBotCore, commands.AutoShardedBot):
    """The production client: ``AutoShardedBot`` (DESIGN §6 scale-out; ``SHARD_COUNT``/``SHARD_IDS``)."""

    @staticmethod
    def shard_options(config: Config) -> dict[str, Any]:
        options: dict[str, Any] = {}
        if config.shard_count:
            options["shard_count"] = config.shard_count
            if config.shard_ids:
                options["shard_ids"] = list(config.shard_ids)
        return options

    def shards_run(self) -> tuple[tuple[int, ...], int] | None:
        count = self.shard_count or 1
        if count <= 1 or self.shard_ids is None or set(self.shard_ids) >= set(range(count)):
            return None
        return tuple(self.shard_ids), count

    def owns_guild(self, guild_id: int) -> bool:
        """Whether ``guild_id``'s shard (Discord's formula, ``(guild_id >> 22) % shard_count``) runs here."""
        count = self.shard_count or 1
        if count <= 1 or self.shard_ids is None:
            return True
        return (guild_id >> 22) % count in self.shard_ids

    @property
    def claimant(self) -> int:
        """The shards this process runs, as a number (1: every shard, as an unsharded bot)."""
        count = self.shard_count or 1
        if count <= 1 or self.shard_ids is None or set(self.shard_ids) >= set(range(count)):
            return 1
        digest = hashlib.blake2b(f"{count}:{sorted(self.shard_ids)}".encode(), digest_size=7).digest()
        return 2 + int.from_bytes(digest, "big")  # 58 bits: a BIGINT, never 0 (unsent) or 1 (unsharded)


def use_discord_api(config: Config) -> None:
    """Send discord.py's REST requests (interaction answers included) to ``HEXD_DISCORD_API`` when it is set: a
    rate-limit proxy shared by every process of the bot keeps their sum within the token's global limit, which
    no process can see alone. The gateway connection does not go through it. Unset: Discord itself."""
    if config.discord_api:
        Route.BASE = rest_base(config.discord_api, INTERNAL_API_VERSION)


async def serve(
    bot: HexBotCore, token: str, stop: asyncio.Event, *, failures: list[BaseException] | None = None
) -> int:
    """Log in and run ``bot`` until ``stop`` is set or the client fails; close it; return the exit code.
    ``run_bot`` wires it to SIGINT/SIGTERM; the end-to-end tests run it against the local Discord. The client's
    failure, if any, is appended to ``failures`` (an unreachable Discord is retried by the caller)."""
    use_discord_api(bot.config)
    runner = asyncio.create_task(bot.start(token))
    waiter = asyncio.create_task(stop.wait())
    done, _ = await asyncio.wait({runner, waiter}, return_when=asyncio.FIRST_COMPLETED)
    code = 0
    if runner in done:
        exc = runner.exception()
        if exc is not None and failures is not None:
            failures.append(exc)
        if isinstance(exc, discord.LoginFailure):
            log.error("Discord refused the token (check DISCORD_TOKEN)")
            code = 2
        elif exc is not None and failures is not None and unreachable_reason(exc) is not None:
            code = 1  # said in one line by serve_with_retry, no traceback
        elif exc is not None:
            log.error("the bot stopped", exc_info=exc)
            code = 1
    log.info("shutting down")
    await bot.close()
    waiter.cancel()
    if not runner.done():
        runner.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await runner
    return code


#: seconds between attempts to reach Discord when it cannot be reached (no network, Discord down)
RECONNECT_BACKOFF: tuple[float, ...] = (5, 10, 20, 40, 80, 160, 300)


def unreachable_reason(exc: BaseException) -> str | None:
    """A one-line reason when ``exc`` means Discord cannot be reached now (worth retrying), else None."""
    if isinstance(exc, aiohttp.ClientConnectionError | OSError | TimeoutError | discord.GatewayNotFound):
        return str(exc) or exc.__class__.__name__
    if isinstance(exc, discord.DiscordServerError):
        return f"Discord answered {exc.status}"
    return None


async def serve_with_retry(
    make_bot: Callable[[], HexBotCore],
    token: str,
    stop: asyncio.Event,
    *,
    backoff: Sequence[float] = RECONNECT_BACKOFF,
    say: Callable[[str], None] = print,
) -> int:
    """:func:`serve` a new bot until ``stop``; while Discord cannot be reached, say so in one line and try
    again after a growing wait (``make run`` with no network must not end in a traceback)."""
    attempt = 0
    while not stop.is_set():
        bot = make_bot()
        failure: list[BaseException] = []
        code = await serve(bot, token, stop, failures=failure)
        reason = unreachable_reason(failure[0]) if failure else None
        if reason is None:
            return code
        wait = backoff[min(attempt, len(backoff) - 1)]
        say(f"cannot reach Discord: {reason}; retrying in {wait:g} s")
        attempt += 1
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), timeout=wait)
    return 0


def run_bot(config: Config) -> int:
    """Run until SIGINT/SIGTERM; returns the process exit code."""
    setup_logging(config.log_level, token=config.token)
    log.info("starting %r", config)

    async def main() -> int:
        loop = asyncio.get_running_loop()
        stop = asyncio.Event()
        for sig in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(NotImplementedError, RuntimeError):  # no signals off the main thread
                loop.add_signal_handler(sig, stop.set)
        return await serve_with_retry(lambda: HexBot(config), config.token, stop)

    return asyncio.run(main())
