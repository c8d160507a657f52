"""What the bot asks of Discord first when it asks a lot at once: Discord allows a bot about 50 requests a second in
all (its global limit, per token; the interaction answers are exempt) and bans a token that keeps meeting 429s.
discord.py already waits on each route's bucket and after a 429; what this module decides is the order in which
the bot's own requests take the second's budget, and that the budget is not overrun in the first place.

Requests are granted in four kinds, best first: what answers a person now (the membership lookup a DM click
waits on), a DM panel or any DM, a channel post, a status edit. The routes Discord's global limit exempts (an
interaction's answer and its follow-ups, on ``/interactions/`` and ``/webhooks/``) are never held nor counted; a
membership lookup is counted, so it waits at the head of the line like the rest (its click is acknowledged
meanwhile, cogs/panel/items.py: only the panel's update waits). Within the budget every request goes at once;
once a second's budget is spent, the waiting ones go in that order as it frees up, so a board or a panel never
waits behind a status edit that only repeats a name.

A request holds its place in the budget from the moment it is let go until a second after its answer came back.
Discord counts a request when it arrives, somewhere in between; counting it from the grant alone would let a busy
loop (or a slow network) deliver a second's grants late, beside the next second's, and meet a global 429. With
the whole span held, any second of arrivals holds at most the budget: the last request granted among them saw
every other one either still in flight or answered less than a second before.

A request's kind is its route's (a DM channel, the DM opening, a member lookup, a channel message), or the one
:func:`as_kind` gives the code sending it (the status, which is a channel edit like a post's).
"""

from __future__ import annotations

import asyncio
import contextlib
import heapq
import itertools
import time
from collections import deque
from collections.abc import AsyncGenerator, Awaitable, Callable, Generator
from contextvars import ContextVar
from dataclasses import dataclass
from enum import IntEnum
from typing import Final, Protocol


class Kind(IntEnum):
    """A request's place in line (lower goes first)."""

    ANSWER = 0
    DM = 1
    POST = 2
    STATUS = 3


#: requests a second this process asks for at most: under Discord's 50, for the answers it does not delay
BUDGET: Final = 45
PER_S: Final = 1.0

#: discord.py's route of a member lookup (bot/membership.py: a DM click waits on it)
MEMBER_LOOKUP: Final = "/guilds/{guild_id}/members/{member_id}"


def exempt(path: str) -> bool:
    """Whether Discord's global limit leaves a route out: an interaction's answer and its webhook's follow-ups."""
    return path.startswith(("/interactions/", "/webhooks/"))


_kind: ContextVar[Kind | None] = ContextVar("hexd_request_kind", default=None)


@contextlib.contextmanager
def as_kind(kind: Kind) -> Generator[None]:
    """The requests made inside (awaited, not spawned) are of ``kind``, whatever their route."""
    token = _kind.set(kind)
    try:
        yield
    finally:
        _kind.reset(token)


@dataclass(order=True)
class _Waiter:
    kind: int
    seq: int
    future: asyncio.Future[None]


class RequestPlan:
    """The budget of one process's requests (``budget`` per ``per`` seconds, a sliding window on ``clock``) and the
    requests waiting for it, best kind first, then in arrival order."""

    def __init__(
        self, budget: int = BUDGET, per: float = PER_S, *, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.budget, self.per, self.clock = budget, per, clock
        self._answered: deque[float] = deque()  # when each request answered within the window came back
        self._in_flight = 0  # requests let go and not answered yet
        self._waiting: list[_Waiter] = []
        self._seq = itertools.count()
        self._dm_channels: set[int] = set()
        self._timer: asyncio.TimerHandle | None = None
        #: requests granted, by kind, and the longest any request waited (seconds on ``clock``)
        self.granted: dict[Kind, int] = dict.fromkeys(Kind, 0)
        self.longest_wait: dict[Kind, float] = dict.fromkeys(Kind, 0.0)

    @property
    def waiting(self) -> int:
        return len(self._waiting)

    @property
    def held(self) -> int:
        """Places in the budget taken now: requests in flight, and those answered within the last window."""
        self._expire()
        return self._held()

    def note_dm_channel(self, channel_id: int) -> None:
        """A player's DM channel: what is sent or edited there is a DM."""
        self._dm_channels.add(channel_id)

    def kind_of(self, method: str, path: str, channel_id: int | None) -> Kind:
        """The kind of a request: given by :func:`as_kind`, else its route's."""
        given = _kind.get()
        if given is not None:
            return given
        if exempt(path) or path == MEMBER_LOOKUP:
            return Kind.ANSWER
        if (method == "POST" and path == "/users/@me/channels") or channel_id in self._dm_channels:
            return Kind.DM
        return Kind.POST

    async def wait_turn(self, kind: Kind) -> None:
        """Until a request of ``kind`` may go out (best kind first once the budget is spent)."""
        self._expire()
        if not self._waiting and self._held() < self.budget:
            self._grant(kind)
            return
        asked = self.clock()
        waiter = _Waiter(kind, next(self._seq), asyncio.get_running_loop().create_future())
        heapq.heappush(self._waiting, waiter)
        self._schedule()
        try:
            await waiter.future
        except asyncio.CancelledError:
            if waiter in self._waiting:
                self._waiting.remove(waiter)
                heapq.heapify(self._waiting)
            elif not waiter.future.cancelled():  # its turn came as it was cancelled: it never goes out
                self._in_flight -= 1
                self.pump()
            raise
        waited = self.clock() - asked
        self.longest_wait[kind] = max(self.longest_wait[kind], waited)

    def pump(self) -> None:
        """Let the waiting requests go, best first, as far as the budget has freed up."""
        self._timer = None
        self._expire()
        while self._waiting and self._held() < self.budget:
            waiter = heapq.heappop(self._waiting)
            if waiter.future.done():  # cancelled meanwhile
                continue
            self._grant(Kind(waiter.kind))
            waiter.future.set_result(None)
        self._schedule()

    def done(self) -> None:
        """A request let go by :meth:`wait_turn` was answered (or failed): it holds its place a window more."""
        self._in_flight -= 1
        self._answered.append(self.clock())
        self._schedule()

    @contextlib.asynccontextmanager
    async def turn(self, kind: Kind) -> AsyncGenerator[None]:
        """Within: a request of ``kind`` that has had its turn, held in the budget until it is done."""
        await self.wait_turn(kind)
        try:
            yield
        finally:
            self.done()

    def _held(self) -> int:
        return self._in_flight + len(self._answered)

    def _grant(self, kind: Kind) -> None:
        self._in_flight += 1
        self.granted[kind] += 1

    def _expire(self) -> None:
        horizon = self.clock() - self.per
        while self._answered and self._answered[0] <= horizon:
            self._answered.popleft()

    def _schedule(self) -> None:
        """Pump when the oldest answer leaves the window (a request in flight frees its place through :meth:`done`,
        which schedules again)."""
        if not self._waiting or self._timer is not None:
            return
        if self._answered:
            delay = self._answered[0] + self.per - self.clock()
        elif self._in_flight >= self.budget:
            return  # every place is held by a request in flight: the first one done schedules the pump
        else:
            delay = 0.0
        self._timer = asyncio.get_running_loop().call_later(max(0.0, delay), self.pump)

    def wrap(self, request: Callable[..., Awaitable[object]]) -> Callable[..., Awaitable[object]]:
        """discord.py's ``HTTPClient.request``, each call waiting its turn first (discord.py's own bucket waits and
        retries happen inside, unchanged)."""

        async def planned(route: Route, **kwargs: object) -> object:
            if exempt(route.path):  # Discord does not count it: nothing to hold
                self.granted[Kind.ANSWER] += 1
                return await request(route, **kwargs)
            channel = route.channel_id  # a snowflake, as an int or its digits
            async with self.turn(
                self.kind_of(route.method, route.path, None if channel is None else int(channel))
            ):
                return await request(route, **kwargs)

        return planned


class Route(Protocol):
    """What :meth:`RequestPlan.wrap` reads of a discord.py ``Route``."""

    @property
    def method(self) -> str: ...

    @property
    def path(self) -> str: ...

    @property
    def channel_id(self) -> int | str | None: ...
