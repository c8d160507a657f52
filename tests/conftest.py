"""Fixtures shared by every test folder. Helpers that are not fixtures live in the ``tests/*_fixtures.py``,
``tests/e2e_helpers.py`` and ``tests/paths.py`` modules; no test module imports another test module."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from hypothesis import settings

from bot.service import EncounterService
from tests.bot_fixtures import sqlite_service
from tests.fakediscord import FakeDiscord

# A property test checks what holds, never how fast: Hypothesis's 200 ms per example would fail one whenever
# the machine is busy (make test runs the linter beside pytest on two cores)
settings.register_profile("hexdirector", deadline=None)
settings.load_profile("hexdirector")


@pytest.fixture
async def service(tmp_path: Path) -> AsyncIterator[EncounterService]:
    """The bot's application layer on a fresh SQLite database (no Discord)."""
    async with sqlite_service(tmp_path / "bot.sqlite3") as opened:
        yield opened


@pytest.fixture(autouse=True)
def no_ping_through_a_name(request: pytest.FixtureRequest) -> Iterator[None]:
    """For every test that runs the bot against the local Discord: each message the bot sends
    or edits carries ``allowed_mentions`` that parse nothing out of its text (a player's name may hold
    ``<@id>`` or ``@everyone``); the only pings are the users a message lists on purpose."""
    FakeDiscord.instances.clear()
    yield
    if request.node.path.name == "test_fakediscord.py":  # tests of the fake itself drive a bare client
        FakeDiscord.instances.clear()
        return
    loose = [found for fd in FakeDiscord.instances for found in fd.world.loose_mentions]
    FakeDiscord.instances.clear()
    assert not loose, f"bot messages that would ping through a name (message id, text): {loose}"
