"""DM clicks handed to the process that runs the encounter's server.

Discord gives every DM interaction to shard 0, whatever server its encounter is in. When the bot's shards are split
across processes on one PostgreSQL, the process running shard 0 would answer every panel click of every encounter,
and resolve, draw and post every step those clicks complete. Instead, a DM click whose custom id names an
encounter of a server on a shard this process does not run is handed over: its raw gateway payload goes into the
``handoffs`` table with that shard, and ``NOTIFY hexd_handoff_<shard>`` wakes the process listening for it, which
claims the row (``DELETE … RETURNING``) and gives the payload to discord.py as its own gateway would have
(``ConnectionState.parse_interaction_create``): every guard, answer and follow-up runs there unchanged, since an
interaction's token works from any process.

The claim decides who answers, so a click is answered once and never lost: when the owner has not claimed the row
within :data:`GRACE` (it is down, restarting, or not listening), the process that received the click claims it
back and answers it itself, as it would without any hand-off. Discord allows 3 seconds for the first answer.
A shard whose click had to be claimed back is then left alone for :data:`QUIET`: its clicks are answered where
they arrive at once, rather than each waiting the grace for an owner that is down, and the next click after that
is handed again (an owner back up claims it).

Used only with PostgreSQL and when this process does not run every shard (:func:`wanted`); everything else (a
command, a click inside a server, a DM click that names no encounter) reaches discord.py untouched. asyncpg is
imported only when a hand-off is opened.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import time
from collections import OrderedDict, deque
from collections.abc import Awaitable, Callable, Collection, Coroutine, Mapping
from typing import Any, Final, cast

log = logging.getLogger(__name__)

#: every control the bot sends that acts on an encounter names it right after its kind:
#: ``hexd:enc:{encounter}:…`` (panels), ``hexd:dphase:…``, ``hexd:idle:…``, ``hexd:seat:…``, ``hexd:watch…:…``;
#: the draft a panel carries (``hexd:draft:…``) sits on a disabled button and is never clicked
ENCOUNTER_CONTROL: Final = re.compile(r"hexd:(?!draft:)[a-z]{1,16}:(?P<enc>\d{1,18})(?::.*)?", re.DOTALL)
#: Discord's interaction types that carry a control's custom id: a component click and a modal's submit
CLICKS: Final = frozenset({3, 5})
#: seconds the receiving process leaves the owner to claim a click before it claims it back: an owner claims as
#: soon as its event loop is free, and a busy one's loop was seen held up to ~0.3 s (bench/pace.py); answering
#: after this still leaves most of Discord's 3-second window to the click's own work
GRACE: Final = 0.6
#: seconds a shard whose click was claimed back gets no hand-off: a restart takes about this long, and a click
#: answered here meanwhile is answered as it would be without any hand-off
QUIET: Final = 10.0
#: encounters whose server is remembered (an encounter never changes server): a few MB at most
REMEMBERED: Final = 20_000
#: seconds between attempts to listen again after the listening connection was lost
RELISTEN: Final = (1.0, 2.0, 5.0, 10.0, 30.0)
#: rows left by a process that died between handing a click off and claiming it back are removed at start-up
STALE: Final = "1 minute"

INSERT: Final = (
    "WITH row AS (INSERT INTO handoffs (shard, payload) VALUES ($1, $2) RETURNING id) "
    "SELECT id, pg_notify($3, id::text) FROM row"
)
CLAIM: Final = "DELETE FROM handoffs WHERE id = $1 RETURNING payload"
SWEEP: Final = f"DELETE FROM handoffs WHERE created_at < now() - interval '{STALE}'"


#: the click routed before this one (None: none pending) and this one's, done once it is handled or handed
Turn = tuple[asyncio.Future[None] | None, asyncio.Future[None]]


def channel(shard: int) -> str:
    """The notification channel of ``shard``'s clicks."""
    return f"hexd_handoff_{shard}"


def shard_of(guild_id: int, shard_count: int) -> int:
    """The shard Discord gives ``guild_id``'s events to."""
    return (guild_id >> 22) % shard_count


def wanted(database_url: str, shard_ids: Collection[int] | None, shard_count: int | None) -> bool:
    """Whether DM clicks are handed off: several processes share a PostgreSQL database, and this one does not run
    every shard (SQLite serves one process, which runs them all)."""
    if not database_url.startswith(("postgresql://", "postgres://")):
        return False
    if not shard_count or shard_count <= 1 or shard_ids is None:
        return False
    return not set(range(shard_count)) <= set(shard_ids)


def encounter_named(data: Mapping[str, Any]) -> int | None:
    """The encounter a DM click acts on, from its gateway payload; None for anything else (a command, a click
    inside a server, a control that names no encounter)."""
    if data.get("guild_id") or data.get("type") not in CLICKS:
        return None
    inner: object = data.get("data")
    custom_id = cast(Mapping[str, object], inner).get("custom_id") if isinstance(inner, Mapping) else None
    if not isinstance(custom_id, str):
        return None
    match = ENCOUNTER_CONTROL.fullmatch(custom_id)
    return int(match["enc"]) if match is not None else None


class Handoff:
    """One process's side of the hand-off: :meth:`receive` replaces discord.py's ``INTERACTION_CREATE`` parser,
    and :meth:`listen` claims the clicks handed to this process's shards. ``handle`` is discord.py's own parser
    (``ConnectionState.parse_interaction_create``); ``guild_of`` says an encounter's server (None: no such
    encounter, and the click is handled here, where its guards refuse it); ``spawn`` runs a coroutine in the
    background and logs its failure."""

    def __init__(
        self,
        *,
        shard_ids: Collection[int],
        shard_count: int,
        handle: Callable[[Any], None],
        guild_of: Callable[[int], Awaitable[int | None]],
        spawn: Callable[[Coroutine[Any, Any, None]], None],
        grace: float = GRACE,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.shard_ids = frozenset(shard_ids)
        self.shard_count = shard_count
        self.grace = grace
        self._clock = clock
        self._quiet_until: dict[int, float] = {}  # shard → until when its clicks stay here (see QUIET)
        self._handle = handle
        self._guild_of = guild_of
        self._spawn = spawn
        self._shards: OrderedDict[int, int] = OrderedDict()  # encounter → its server's shard
        #: asyncpg's pool, opened by :meth:`open`; anything with its ``fetchval`` does (tests)
        self.pool: Any = None
        self._listener: Any = None
        self._closed = False
        self._waiting: set[asyncio.Task[Any]] = set()  # clicks handed off, not yet claimed by either side
        self._tail: asyncio.Future[None] | None = None  # the last click routed, done once handled or handed
        self._notified: deque[int] = deque()  # rows handed to this process, to claim in order
        self._taking = False
        #: clicks this process handed off, claimed back after the grace, and claimed from other processes
        self.handed = 0
        self.taken_back = 0
        self.claimed = 0

    async def open(self, url: str) -> None:
        """Connect (a small pool of its own, so a hand-off never waits behind the game's transactions)."""
        import asyncpg  # pyright: ignore[reportMissingTypeStubs]  # the PostgreSQL backend's own driver

        self.pool = await asyncpg.create_pool(  # pyright: ignore[reportUnknownMemberType]
            url, min_size=1, max_size=4
        )
        await self.pool.execute(SWEEP)

    # --- the receiving side ----------------------------------------------------------------------------------

    def receive(self, data: Any) -> None:
        """discord.py's ``INTERACTION_CREATE``: handled here at once unless it is a DM click of an encounter whose
        server another process runs (or might: its server is looked up first)."""
        encounter_id = encounter_named(data) if self.pool is not None and not self._closed else None
        if encounter_id is None:
            self._handle(data)
            return
        shard = self._shards.get(encounter_id)
        if shard is not None and self._stays(shard):
            self._handle(data)
            return
        # the clicks routed from here keep the order they arrived in (a choice, then the Submit that sends it)
        turn = self._tail, asyncio.get_running_loop().create_future()
        self._tail = turn[1]
        self._spawn(self._route(data, encounter_id, shard, turn))

    async def _route(self, data: Any, encounter_id: int, shard: int | None, turn: Turn) -> None:
        before, mine = turn
        try:
            if shard is None:
                try:
                    guild_id = await self._guild_of(encounter_id)
                except Exception:  # the database could not say: answered here, as without a hand-off
                    log.warning(
                        "could not look up encounter %s's server; its DM click handled here", encounter_id
                    )
                    guild_id = None
                if guild_id is not None:
                    shard = self._remember(encounter_id, shard_of(guild_id, self.shard_count))
            if before is not None and not before.done():
                await asyncio.wait([before])  # the click before this one is handled or handed first
            if shard is None or self._stays(shard):
                self._handle(data)
                return
            row_id = await self._insert(data, shard)
        finally:
            if not mine.done():
                mine.set_result(None)
        if row_id is not None:
            await self._wait_claim(data, shard, row_id)

    def _stays(self, shard: int) -> bool:
        """Whether a click for ``shard`` is answered here: this process runs it, or its owner just failed to claim
        one (:data:`QUIET`)."""
        if shard in self.shard_ids:
            return True
        until = self._quiet_until.get(shard)
        if until is None:
            return False
        if self._clock() < until:
            return True
        del self._quiet_until[shard]
        return False

    def _remember(self, encounter_id: int, shard: int) -> int:
        self._shards[encounter_id] = shard
        if len(self._shards) > REMEMBERED:
            self._shards.popitem(last=False)
        return shard

    async def _insert(self, data: Any, shard: int) -> int | None:
        """The click's row for ``shard``'s process, notified (None: it could not be stored, and was handled here)."""
        try:
            row_id: int = await self.pool.fetchval(INSERT, shard, json.dumps(data), channel(shard))
        except Exception:
            log.warning("could not hand a DM click to shard %s; handled here", shard, exc_info=True)
            self._handle(data)
            return None
        return row_id

    async def _wait_claim(self, data: Any, shard: int, row_id: int) -> None:
        """Claim the handed click back and handle it here if ``shard``'s process has not claimed it within the
        grace. Whoever deletes the row handles the click: never both, never neither."""
        self.handed += 1
        waiting = {task} if (task := asyncio.current_task()) is not None else set[asyncio.Task[Any]]()
        self._waiting |= waiting
        try:
            await asyncio.sleep(self.grace)
            taken_back = await self._claim(row_id) is not None
        finally:
            self._waiting -= waiting
        if taken_back:
            self.taken_back += 1
            self._quiet_until[shard] = self._clock() + QUIET
            log.info(
                "shard %s did not claim a DM click within %.1f s; its clicks handled here for %.0f s",
                shard,
                self.grace,
                QUIET,
            )
            self._handle(data)

    async def _claim(self, row_id: int) -> str | None:
        for attempt in range(
            3
        ):  # a lost connection is retried: the row must not stay unclaimed by both sides
            try:
                return await self.pool.fetchval(CLAIM, row_id)
            except Exception:
                if attempt == 2:
                    raise
                log.warning("claiming handed click %s failed; again", row_id, exc_info=True)
                await asyncio.sleep(0.05)
        return None

    # --- the owning side ------------------------------------------------------------------------------------

    async def listen(self, url: str) -> None:
        """Listen on this process's shards' channels until :meth:`close`, connecting again when the connection is
        lost (meanwhile the senders answer their clicks themselves)."""
        attempt = 0
        while not self._closed:
            try:
                await self._listen_once(url)
                attempt = 0
            except Exception:
                log.warning("cannot listen for handed DM clicks; trying again", exc_info=True)
            if self._closed:
                return
            await asyncio.sleep(RELISTEN[min(attempt, len(RELISTEN) - 1)])
            attempt += 1

    async def _listen_once(self, url: str) -> None:
        """Until the listening connection is lost or closed."""
        import asyncpg  # pyright: ignore[reportMissingTypeStubs]

        lost = asyncio.Event()
        conn = cast(Any, await asyncpg.connect(url))  # pyright: ignore[reportUnknownMemberType]
        self._listener = conn
        try:
            conn.add_termination_listener(lambda _conn: lost.set())  # pyright: ignore[reportUnknownLambdaType]
            for shard in sorted(self.shard_ids):
                await conn.add_listener(channel(shard), self.notified)
            await lost.wait()
        finally:
            self._listener = None
            if not conn.is_closed():
                await conn.close()

    def notified(self, _conn: Any, _pid: int, _channel: str, payload: str) -> None:
        """asyncpg's listener: a click was handed to one of this process's shards (its row id). The rows are
        claimed one at a time, in the order they were notified, so the clicks are handled in the order they were
        made."""
        if not payload.isdigit() or self._closed:
            return
        self._notified.append(int(payload))
        if not self._taking:
            self._taking = True
            self._spawn(self._take_all())

    async def _take_all(self) -> None:
        try:
            while self._notified and not self._closed:
                row_id = self._notified.popleft()
                try:
                    payload = await self._claim(row_id)
                except Exception:  # its sender claims it back after the grace
                    log.warning("could not claim handed click %s", row_id, exc_info=True)
                    continue
                if payload is not None:  # else its sender claimed it back first
                    self.claimed += 1
                    self._handle(json.loads(payload))
        finally:
            self._taking = False

    async def close(self) -> None:
        """Stop listening first (clicks handed here from now on are answered by their senders), let the clicks
        this process handed off be claimed by one side or the other, then disconnect; every click received from
        now on is handled here."""
        self._closed = True
        if self._listener is not None:
            listener, self._listener = self._listener, None
            await listener.close()
        if self._waiting:
            await asyncio.gather(*self._waiting, return_exceptions=True)
        if self.pool is not None:
            pool, self.pool = self.pool, None
            await pool.close()
