"""Shared pieces of the storage tests: a database URL for each backend (a throwaway PostgreSQL database when one is reachable)."""

from __future__ import annotations

import os
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest

from bot.storage import Storage

try:
    import asyncpg  # pyright: ignore[reportMissingTypeStubs]
except ImportError:  # the SQLite tests run without the postgres extra
    asyncpg = None

POSTGRES_ADMIN_URL = os.environ.get(
    "HEXDIRECTOR_TEST_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/postgres"
)


BACKENDS = ["sqlite", "postgresql"]


@asynccontextmanager
async def database_url(backend: str, tmp_path: Path) -> AsyncIterator[str]:
    """A URL to a new, empty database of ``backend``, removed afterwards."""
    if backend == "sqlite":
        yield f"sqlite:///{tmp_path / 'encounters.db'}"
        return
    if asyncpg is None:
        pytest.skip("asyncpg is not installed (pip install 'hexdirector[postgres]')")
    try:
        admin = await asyncpg.connect(POSTGRES_ADMIN_URL, timeout=2)
    except (OSError, asyncpg.PostgresError, TimeoutError) as error:
        pytest.skip(f"no PostgreSQL server at {POSTGRES_ADMIN_URL} ({error.__class__.__name__})")
    name = f"hexd_test_{uuid.uuid4().hex[:12]}"
    await admin.execute(f'CREATE DATABASE "{name}"')
    try:
        yield urlunsplit(urlsplit(POSTGRES_ADMIN_URL)._replace(path=f"/{name}"))
    finally:
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await admin.close()


GUILD = 111


CHANNEL = 222


DIRECTOR = 1


ALICE = 10


BOB = 20


START = {"phase": 1, "units": {"halcon": "0505", "pirata": "0909"}}


async def new_encounter(storage: Storage, channel: int = CHANNEL) -> int:
    return await storage.create_encounter(
        GUILD, channel, "exo", "Duel at Kessel", DIRECTOR, START, {"mode": "x"}
    )
