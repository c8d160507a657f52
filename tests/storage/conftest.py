"""The storage tests' fixture: a fresh, empty storage on each backend (PostgreSQL is skipped without a server)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.storage import Storage, open_storage
from tests.storage_fixtures import BACKENDS, database_url


@pytest.fixture(params=BACKENDS)
async def storage(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Storage]:
    async with database_url(request.param, tmp_path) as url:
        opened = await open_storage(url)
        yield opened
        await opened.close()
