"""Discord's REST rate limits: a global limit per bot token, per-route buckets, and the invalid-request count.

What Discord documents (https://discord.com/developers/docs/topics/rate-limits):

* a bot may make 50 requests per second in all (the *global* limit, per token); interaction endpoints (the
  callback and the interaction webhook's follow-ups) are not bound to it;
* per-route limits are shared by a *bucket* (``X-RateLimit-Bucket``) and counted apart for each top-level
  resource in the path (a channel, a guild, a webhook): sending in one channel does not slow another;
* every response of a limited route carries ``X-RateLimit-Limit``, ``-Remaining``, ``-Reset`` (epoch seconds),
  ``-Reset-After`` (seconds) and ``-Bucket``; a 429 carries ``Retry-After`` and a JSON ``retry_after``,
  ``global``, and ``X-RateLimit-Scope`` (``user`` or ``global``; ``X-RateLimit-Global`` on a global one);
* header names arrive in lower case, as Discord's servers send them (``x-ratelimit-bucket``, ``retry-after``: so
  they read in the response traces developers post on Discord's API documentation repository, an aiohttp
  client's among them); the documentation's capitals are its own spelling, and a client reading them
  case-sensitively (nirn.py looks them up in lower case) must be served what Discord serves;
* 10,000 invalid requests (401, 403 and 429 answers, except 429s of scope ``shared``) in 10 minutes get the
  address banned for a while.

Discord publishes no per-route numbers (clients are told to read the headers); the buckets here use the
figures Discord's headers give bots for these routes (a channel's message sends: 5 per 5 s), and every figure is
a field of :class:`RateLimits` a test or a bench may change.
"""

from __future__ import annotations

import math
import re
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

#: Discord's ban window for invalid requests and the count that triggers it
INVALID_WINDOW_S = 600.0
INVALID_BAN_COUNT = 10_000


@dataclass(frozen=True)
class Bucket:
    """A per-route limit: ``limit`` requests per ``per`` seconds, counted per top-level resource."""

    name: str
    method: str
    path: re.Pattern[str]  # on the path after /api/v10; group 1 is the top-level resource
    limit: int
    per: float


def _route(name: str, method: str, pattern: str, limit: int, per: float) -> Bucket:
    return Bucket(name, method, re.compile(pattern), limit, per)


#: the routes a bot serving encounters uses most, with the limits Discord's headers give for them
DEFAULT_BUCKETS: tuple[Bucket, ...] = (
    _route("channel-message-send", "POST", r"^/channels/(\d+)/messages$", 5, 5.0),
    _route("channel-message-edit", "PATCH", r"^/channels/(\d+)/messages/\d+$", 5, 5.0),
    _route("channel-message-delete", "DELETE", r"^/channels/(\d+)/messages/\d+$", 5, 1.0),
    _route("dm-channel-create", "POST", r"^/users/(@me)/channels$", 5, 5.0),
    _route("thread-create", "POST", r"^/channels/(\d+)(?:/messages/\d+)?/threads$", 5, 5.0),
)


@dataclass
class _Window:
    """A fixed window: ``used`` requests since ``opened`` (seconds on the limiter's clock)."""

    opened: float
    used: int = 0


@dataclass(frozen=True)
class Verdict:
    """What the limiter says about one request: ``refused`` (a 429, with its ``retry_after`` and scope) or
    served, with the headers the response carries either way."""

    refused: bool
    retry_after: float
    is_global: bool
    headers: dict[str, str]


@dataclass
class RateLimits:
    """The limits one ``FakeDiscord`` enforces when ``rate_limits=True`` (every field may be changed by a test).

    ``clock`` gives seconds (the event loop's clock by default; a test may give its own to move time without
    waiting). The global limit counts every request authenticated with a bot token except the interaction
    endpoints, which Discord exempts.
    """

    clock: Callable[[], float]
    global_limit: int = 50
    global_per: float = 1.0
    buckets: tuple[Bucket, ...] = DEFAULT_BUCKETS
    #: requests refused with a 429, by scope (``global`` or the bucket's name)
    refused: dict[str, int] = field(default_factory=dict[str, int])
    _windows: dict[tuple[str, str], _Window] = field(default_factory=dict[tuple[str, str], _Window])

    def check(self, method: str, path: str, token: str) -> Verdict | None:
        """The verdict on a request (None: not limited at all: the interaction endpoints, unauthenticated
        routes); a served request is counted."""
        if path.startswith(("/interactions/", "/webhooks/", "/gateway")) or not token:
            return None
        now = self.clock()
        headers: dict[str, str] = {}
        bucket = next((b for b in self.buckets if b.method == method and b.path.search(path)), None)
        window: _Window | None = None
        if bucket is not None:
            match = bucket.path.search(path)
            assert match is not None
            window = self._window((bucket.name, match.group(1)), bucket.per, now)
            reset_after = max(0.0, window.opened + bucket.per - now)
            if window.used >= bucket.limit:
                self.refused[bucket.name] = self.refused.get(bucket.name, 0) + 1
                headers = self._bucket_headers(bucket, 0, reset_after)
                headers |= {"x-ratelimit-scope": "user"}
                return Verdict(True, reset_after, False, headers)
        global_window = self._window(("global", token), self.global_per, now)
        if global_window.used >= self.global_limit:
            self.refused["global"] = self.refused.get("global", 0) + 1
            retry_after = max(0.0, global_window.opened + self.global_per - now)
            return Verdict(
                True, retry_after, True, {"x-ratelimit-global": "true", "x-ratelimit-scope": "global"}
            )
        global_window.used += 1
        if bucket is not None and window is not None:
            window.used += 1
            reset_after = max(0.0, window.opened + bucket.per - now)
            headers = self._bucket_headers(bucket, bucket.limit - window.used, reset_after)
        return Verdict(False, 0.0, False, headers)

    def _window(self, key: tuple[str, str], per: float, now: float) -> _Window:
        window = self._windows.get(key)
        if window is None or now >= window.opened + per:
            window = self._windows[key] = _Window(now)
        return window

    @staticmethod
    def _bucket_headers(bucket: Bucket, remaining: int, reset_after: float) -> dict[str, str]:
        return {
            "x-ratelimit-limit": str(bucket.limit),
            "x-ratelimit-remaining": str(remaining),
            "x-ratelimit-reset": f"{time.time() + reset_after:.3f}",
            "x-ratelimit-reset-after": f"{reset_after:.3f}",
            "x-ratelimit-bucket": bucket.name,
        }


def retry_after_header(seconds: float) -> str:
    """``Retry-After`` is whole seconds, rounded up (the JSON body has the exact figure)."""
    return str(max(1, math.ceil(seconds)))


@dataclass
class InvalidRequests:
    """Discord's invalid-request count: 401, 403 and 429 answers (429s of scope ``shared`` excepted).
    ``total`` counts them all; :meth:`in_window` those of the last 10 minutes, which Discord bans at 10,000."""

    clock: Callable[[], float]
    total: int = 0
    _times: deque[float] = field(default_factory=deque[float])

    def record(self, status: int, scope: str | None) -> None:
        if status in (401, 403) or (status == 429 and scope != "shared"):
            self.total += 1
            self._times.append(self.clock())

    def in_window(self) -> int:
        horizon = self.clock() - INVALID_WINDOW_S
        while self._times and self._times[0] <= horizon:
            self._times.popleft()
        return len(self._times)

    @property
    def banned(self) -> bool:
        return self.in_window() >= INVALID_BAN_COUNT
