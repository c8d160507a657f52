"""Membership of an encounter's server for DM clicks (bot/membership.py): clicks at once share one lookup, a "still
a member" is reused a few minutes, a "gone" never is. The clock is moved by hand."""

from __future__ import annotations

import asyncio

from bot.membership import MEMBER_TTL, Membership


async def test_one_lookup_for_a_burst_and_a_member_gone_is_seen_at_once() -> None:
    asked: list[tuple[int, int]] = []
    members = {(1, 10)}
    gate = asyncio.Event()

    async def fetch(guild_id: int, user_id: int) -> bool:
        asked.append((guild_id, user_id))
        await gate.wait()
        return (guild_id, user_id) in members

    now = [0.0]
    membership = Membership(fetch, clock=lambda: now[0])
    burst = [asyncio.ensure_future(membership.is_member(1, 10)) for _ in range(20)]
    await asyncio.sleep(0)
    gate.set()
    assert all(await asyncio.gather(*burst)) and asked == [(1, 10)]
    assert await membership.is_member(1, 10) and len(asked) == 1, "reused within the TTL"
    members.clear()  # removed from the server
    now[0] += MEMBER_TTL
    assert not await membership.is_member(1, 10)
    assert not await membership.is_member(1, 10) and len(asked) == 3, "a 'gone' is asked again, never reused"


async def test_a_click_inside_the_server_proves_membership_and_a_server_that_removed_the_bot_is_forgotten() -> (
    None
):
    """A command or click inside the server comes only from a member: a DM click soon after asks Discord nothing;
    once the bot is removed from the server, its members are asked about again."""
    asked: list[tuple[int, int]] = []

    async def fetch(guild_id: int, user_id: int) -> bool:
        asked.append((guild_id, user_id))
        return False

    membership = Membership(fetch, clock=lambda: 0.0)
    membership.seen(1, 10)
    membership.seen(2, 10)
    assert await membership.is_member(1, 10) and not asked
    membership.forget_guild(1)
    assert not await membership.is_member(1, 10) and asked == [(1, 10)]
    assert await membership.is_member(2, 10), "another server's membership is kept"


async def test_a_player_s_turns_over_a_few_minutes_share_one_lookup() -> None:
    """A lookup counts against Discord's global limit: a player whose turn comes back every minute or two (the
    pace people play) is asked about once in :data:`MEMBER_TTL`, not at every turn; past it, Discord is asked
    again, so someone removed from the server stops playing within a few minutes."""
    asked: list[tuple[int, int]] = []

    async def fetch(guild_id: int, user_id: int) -> bool:
        asked.append((guild_id, user_id))
        return True

    now = [0.0]
    membership = Membership(fetch, clock=lambda: now[0])
    for turn in range(4):  # a turn every 70 s: four turns in 3.5 minutes
        now[0] = turn * 70.0
        assert await membership.is_member(1, 10)
    assert asked == [(1, 10)], "one lookup for four turns"
    now[0] = MEMBER_TTL
    assert await membership.is_member(1, 10) and len(asked) == 2, "asked again once the reuse is over"
    assert MEMBER_TTL <= 600, "someone removed from the server stops playing within minutes"
