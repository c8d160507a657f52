"""Keyed wake-ups of the local Discord: a waiter on named keys (a channel, an interaction) re-checks only
after the changes that name one of them, or name nothing; an unkeyed waiter still re-checks after every change.

The poll interval is set far beyond the tests' reach, so every re-check counted here comes from a change.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Iterable

import aiohttp
import pytest_asyncio

from tests.fakediscord import FakeDiscord
from tests.fakediscord.state import Key, World

NEVER = 3600.0


class Counted:
    """A predicate that never holds, counting how often it was checked."""

    def __init__(self) -> None:
        self.checks = 0

    def __call__(self) -> None:
        self.checks += 1


async def settle() -> None:
    """Lets every woken waiter run its check and go back to waiting (no clock involved)."""
    for _ in range(10):
        await asyncio.sleep(0)


async def waiting(world: World, on: Iterable[Key] = ()) -> tuple[Counted, asyncio.Task[None]]:
    check = Counted()
    task = asyncio.create_task(world.wait_for(check, timeout=NEVER, what="nothing", on=on))
    await settle()
    assert check.checks == 1
    return check, task


async def stop(*tasks: asyncio.Task[None]) -> None:
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


async def test_a_keyed_waiter_sleeps_through_another_keys_change_and_wakes_on_its_own() -> None:
    world = World()
    world.poll_interval = NEVER
    check, task = await waiting(world, on=(101,))
    world.touch(202)
    await settle()
    assert check.checks == 1
    world.touch(202, 101)
    await settle()
    assert check.checks == 2
    await stop(task)


async def test_a_keyed_waiter_wakes_on_an_unkeyed_change_and_an_unkeyed_waiter_on_every_change() -> None:
    world = World()
    world.poll_interval = NEVER
    keyed, keyed_task = await waiting(world, on=(101,))
    anything, anything_task = await waiting(world)
    world.touch()
    await settle()
    assert (keyed.checks, anything.checks) == (2, 2)
    world.touch(202)
    await settle()
    assert (keyed.checks, anything.checks) == (2, 3)
    await stop(keyed_task, anything_task)


async def test_a_waiter_on_several_keys_wakes_on_any_of_them_and_leaves_nothing_behind() -> None:
    world = World()
    world.poll_interval = NEVER
    check, task = await waiting(world, on=(101, "token"))
    world.touch("token")
    await settle()
    assert check.checks == 2
    await stop(task)
    # a cancelled waiter is gone: the next change wakes nobody and nothing is left registered
    world.touch(101)
    await settle()
    assert check.checks == 2
    assert not world._waiters  # pyright: ignore[reportPrivateUsage]


async def test_a_keyed_wait_returns_what_it_found_once_its_key_changes() -> None:
    world = World()
    world.poll_interval = NEVER
    found: list[str] = []
    task = asyncio.create_task(
        world.wait_for(lambda: found[0] if found else None, timeout=NEVER, what="x", on=(1,))
    )
    await settle()
    found.append("it")
    world.touch(1)
    assert await task == "it"


async def test_versions_count_the_changes_naming_a_key() -> None:
    world = World()
    assert world.version(101) == 0
    world.touch(101, 202)
    world.touch(101)
    world.touch()  # names nothing: no key's version moves
    assert (world.version(101), world.version(202)) == (2, 1)


# -- the changes the local Discord makes name what they touched ---------------------------------------


@pytest_asyncio.fixture
async def fd() -> AsyncIterator[FakeDiscord]:
    async with FakeDiscord() as fake:
        fake.world.poll_interval = NEVER
        yield fake


async def bot_request(fd: FakeDiscord, method: str, path: str, body: object | None = None) -> int:
    async with (
        aiohttp.ClientSession() as http,
        http.request(
            method,
            f"{fd.base_url}/api/v10{path}",
            json=body,
            headers={"Authorization": f"Bot {fd.bot_token}"},
        ) as response,
    ):
        return response.status


async def checks_after(fd: FakeDiscord, on: Iterable[Key], change: Callable[[], object]) -> int:
    """How many times a waiter on ``on`` re-checked after ``change`` (awaited when it is a coroutine)."""
    check, task = await waiting(fd.world, on)
    outcome = change()
    if asyncio.iscoroutine(outcome):
        await outcome
    await settle()
    await stop(task)
    return check.checks - 1


async def test_a_message_wakes_the_waiters_on_its_channel_not_on_another_channel(fd: FakeDiscord) -> None:
    guild = fd.create_guild("Tables")
    table, other = guild.create_text_channel("table"), guild.create_text_channel("other")
    ana = fd.create_user("ana")
    guild.add_member(ana)
    assert await checks_after(fd, [table.id], lambda: ana.send_message(other, "hello")) == 0
    assert await checks_after(fd, [table.id], lambda: ana.send_message(table, "hello")) == 1
    posted = "/channels/{}/messages"
    assert (
        await checks_after(
            fd,
            [table.id],
            lambda: bot_request(
                fd, "POST", posted.format(other.id), {"content": "x", "allowed_mentions": {"parse": []}}
            ),
        )
        == 0
    )
    assert (
        await checks_after(
            fd,
            [table.id],
            lambda: bot_request(
                fd, "POST", posted.format(table.id), {"content": "x", "allowed_mentions": {"parse": []}}
            ),
        )
        == 1
    )
    message = table.messages()[-1]
    edited = f"/channels/{table.id}/messages/{message.id}"
    assert (
        await checks_after(
            fd,
            [table.id],
            lambda: bot_request(fd, "PATCH", edited, {"content": "y", "allowed_mentions": {"parse": []}}),
        )
        == 1
    )
    assert await checks_after(fd, [other.id], lambda: bot_request(fd, "DELETE", edited)) == 0
    assert message.deleted


async def test_an_answer_wakes_the_waiters_on_its_interaction(fd: FakeDiscord) -> None:
    guild = fd.create_guild("Tables")
    table = guild.create_text_channel("table")
    ana, bea = fd.create_user("ana"), fd.create_user("bea")
    guild.add_member(ana)
    guild.add_member(bea)
    first = fd.rules.create(2, ana.user, table, {"name": "ping"}, attachment_size_limit=1 << 20)
    second = fd.rules.create(2, bea.user, table, {"name": "ping"}, attachment_size_limit=1 << 20)
    answer = f"/interactions/{first.id}/{first.token}/callback"
    body = {"type": 4, "data": {"content": "pong", "flags": 64, "allowed_mentions": {"parse": []}}}
    assert await checks_after(fd, [second.id], lambda: bot_request(fd, "POST", answer, body)) == 0
    followup = f"/webhooks/{fd.world.application_id}/{first.token}"
    assert (
        await checks_after(
            fd,
            [first.id],
            lambda: bot_request(fd, "POST", followup, {"content": "more", "allowed_mentions": {"parse": []}}),
        )
        == 1
    )
    assert [m.content for m in first.followups] == ["more"]
