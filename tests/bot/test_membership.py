"""Membership of an encounter's server for DM clicks (bot/membership.py): clicks at once share one lookup, a "still
a member" is reused a few seconds, a "gone" never is. The clock is moved by hand."""

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
