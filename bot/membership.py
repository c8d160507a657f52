"""Whether a person is still a member of an encounter's server, for the clicks that carry no server (a DM panel):
someone who left or was removed plays no more (DESIGN §4: DMs are checked against membership), and their units go
to the director, as when a player leaves. A click inside the server needs no check: Discord sends it only from
a member.

The answer comes from Discord (a member lookup, through the fetcher the Discord layer gives); a "still a member"
is reused for :data:`MEMBER_TTL` seconds, and a "gone" is never reused (it is acted on at once). The bot does not
receive member-remove events (they need the privileged members intent), so the reuse bounds how long someone
removed from the server may still answer their own panels: a few minutes, while the director's ``/director kick``
takes their units at once. A click the same person makes inside the server proves them a member again at no cost,
and a server that removes the bot forgets its members at once.

A lookup is a request Discord's global limit counts (bot/request_plan.py). At the pace people play, a player's
turn comes back every minute or so (a decision takes some 20 s, and the others decide in between), so a reuse
shorter than that would ask Discord again at nearly every turn of every player."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Final

from bot.bounded import Bounded

#: seconds a lookup that found the person still a member is reused: a player's turns over a few minutes of play
#: share one lookup
MEMBER_TTL: Final = 300.0
#: (server, person) pairs kept: every player of a thousand busy tables
KEPT: Final = 16_384

Fetcher = Callable[[int, int], Awaitable[bool]]  # (guild id, user id) -> still a member


class Membership:
    def __init__(self, fetch: Fetcher, *, clock: Callable[[], float] = time.monotonic) -> None:
        self._fetch = fetch
        self.clock = clock
        self._members: Bounded[tuple[int, int], float] = Bounded(KEPT)  # (guild, user) -> when last found
        self._asking: dict[tuple[int, int], asyncio.Future[bool]] = {}

    async def is_member(self, guild_id: int, user_id: int) -> bool:
        key = (guild_id, user_id)
        seen = self._members.get(key)
        if seen is not None and self.clock() - seen < MEMBER_TTL:
            return True
        asking = self._asking.get(key)
        if asking is not None:  # clicks at once share one lookup
            return await asyncio.shield(asking)
        future: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self._asking[key] = future
        try:
            found = await self._fetch(guild_id, user_id)
        except Exception as error:
            future.set_exception(error)
            future.exception()  # retrieved: a lookup nobody else waited for logs nothing
            raise
        except BaseException:  # cancelled: those waiting for it ask again
            future.cancel()
            raise
        finally:
            self._asking.pop(key, None)
        future.set_result(found)
        if found:
            self._members[key] = self.clock()
        else:
            self._members.pop(key, None)
        return found

    def seen(self, guild_id: int, user_id: int) -> None:
        """The person just used the bot inside the server: Discord sends that only from a member."""
        self._members[(guild_id, user_id)] = self.clock()

    def forget(self, guild_id: int, user_id: int) -> None:
        self._members.pop((guild_id, user_id), None)

    def forget_guild(self, guild_id: int) -> None:
        """The bot left the server (or was removed): none of its members is taken as one any more."""
        for key in [k for k in self._members if k[0] == guild_id]:
            del self._members[key]
