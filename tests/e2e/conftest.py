"""The end-to-end tests' usual table: the bot against the local Discord, a director and two players at the
exo duel (a module may define a ``table`` of its own)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.e2e_helpers import Table, duel_table


@pytest.fixture
async def table(tmp_path: Path) -> AsyncIterator[Table]:
    async with duel_table(tmp_path) as t:
        yield t
