"""Who may open an encounter, and how many one member may keep open (DESIGN §4 Permissions).

Each encounter takes a channel (or a thread) of a server until it ends, so one member must not take them all: a
plain member keeps at most the server's ``open_limit`` open at once (``GuildSettings``, 3 unless the server
says otherwise). Members with Manage Server or the director role answer for the server and are not counted.
Where the server names a director role, opening an encounter is a director's act, like importing one.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator
from contextlib import asynccontextmanager

from bot.bounded import Bounded
from bot.permissions import Actor
from bot.results import refuse
from bot.storage import GuildSettings, Storage

#: members whose openings are counted at once (an idle member's lock is forgotten)
LOCKS_KEPT = 4096


def answers_for_server(actor: Actor, settings: GuildSettings, role_name: str | None = None) -> bool:
    """Manage Server or the server's director role: not held to a member's limit."""
    if actor.manage_guild:
        return True
    if settings.director_role_id is not None and settings.director_role_id in actor.role_ids:
        return True
    return bool(role_name) and role_name in actor.role_names


def check_may_open_role(actor: Actor, settings: GuildSettings, role_name: str | None = None) -> None:
    """Where a director role is set, only its members (and Manage Server) open encounters."""
    if settings.director_role_id is not None and not answers_for_server(actor, settings, role_name):
        raise refuse(
            "encounter.new_director_only",
            "On this server only members with the director role open encounters; ask one of them.",
        )


async def check_open_count(
    storage: Storage, actor: Actor, settings: GuildSettings, role_name: str | None = None
) -> None:
    """Refuses a member who already keeps the server's limit of encounters open there."""
    limit = settings.open_limit
    if limit is None or answers_for_server(actor, settings, role_name):
        return
    count = await storage.count_open_encounters(settings.guild_id, actor.user_id)
    if count >= limit:
        raise refuse(
            "encounter.too_many_open",
            f"You already have {count} open encounters here (the limit is {limit}); end one first.",
            count=count,
            limit=limit,
        )


class Openings:
    """One opening at a time per member and server, so a burst of ``/encounter new`` is counted one by one and
    never opens more than the limit between a count and the write."""

    def __init__(self) -> None:
        self._locks: Bounded[tuple[int, int], asyncio.Lock] = Bounded(LOCKS_KEPT)

    @asynccontextmanager
    async def one_at_a_time(self, guild_id: int, user_id: int) -> AsyncGenerator[None]:
        key = (guild_id, user_id)
        lock = self._locks.get(key)
        if lock is None:
            lock = self._locks[key] = asyncio.Lock()
        async with lock:
            yield
