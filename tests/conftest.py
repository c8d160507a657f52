"""Fixtures shared by every test folder. Helpers that are not fixtures live in the ``tests/*_fixtures.py``,
``tests/e2e_helpers.py`` and ``tests/paths.py`` modules; no test module imports another test module."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.service import EncounterService
from tests.bot_fixtures import sqlite_service


@pytest.fixture
async def service(tmp_path: Path) -> AsyncIterator[EncounterService]:
    """The bot's application layer on a fresh SQLite database (no Discord)."""
    async with sqlite_service(tmp_path / "bot.sqlite3") as opened:
        yield opened
