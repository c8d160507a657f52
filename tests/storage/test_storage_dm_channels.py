"""Each person's DM channel with the bot, kept in storage (schema step 8) so a DM to them goes straight there from
any process and after a restart: on every backend available here."""

from __future__ import annotations

from pathlib import Path
from typing import Any, cast

import aiosqlite
import pytest

from bot.storage import Storage, open_storage
from bot.storage.postgres import migrate_postgres
from bot.storage.schema import MIGRATIONS, POSTGRES_MIGRATIONS, migrate
from tests.storage_fixtures import BACKENDS, database_url

try:
    import asyncpg  # pyright: ignore[reportMissingTypeStubs]
except ImportError:  # no `postgres` extra: database_url skips the PostgreSQL runs
    asyncpg = None

ANA, BEA = 10, 20
#: Discord snowflakes are past 32 bits: PostgreSQL needs BIGINT for them
ANA_DM, BEA_DM, NEWER_DM = 1_311_432_198_765_432_101, 1_311_432_198_765_432_202, 1_311_432_198_765_439_999


async def test_a_persons_dm_channel_is_kept_replaced_and_forgotten_only_while_it_is_the_same(
    storage: Storage,
) -> None:
    assert await storage.dm_channel_of(ANA) is None
    await storage.set_dm_channel(ANA, ANA_DM)
    await storage.set_dm_channel(BEA, BEA_DM)
    assert (await storage.dm_channel_of(ANA), await storage.dm_channel_of(BEA)) == (ANA_DM, BEA_DM)
    await storage.set_dm_channel(ANA, ANA_DM)  # learnt again (a click in it): one row still
    assert await storage.dm_channel_of(ANA) == ANA_DM
    # one process finds Ana's channel unknown to Discord and opens a new one; another, still holding the old id,
    # finds it unknown too: its late forgetting must not drop the new one
    await storage.set_dm_channel(ANA, NEWER_DM)
    await storage.forget_dm_channel(ANA, ANA_DM)
    assert await storage.dm_channel_of(ANA) == NEWER_DM
    await storage.forget_dm_channel(ANA, NEWER_DM)
    assert (await storage.dm_channel_of(ANA), await storage.dm_channel_of(BEA)) == (None, BEA_DM)


@pytest.mark.parametrize("backend", BACKENDS)
async def test_schema_step_8_adds_dm_channels_to_a_database_of_step_6_and_keeps_its_data(
    backend: str, tmp_path: Path
) -> None:
    """A bot upgraded in place: its database, at step 6 with a person's palette, opens at the current version
    with the palette kept and DM channels recorded from then on."""
    async with database_url(backend, tmp_path) as url:
        if backend == "sqlite":
            async with aiosqlite.connect(url.removeprefix("sqlite:///"), isolation_level=None) as conn:
                assert await migrate(conn, MIGRATIONS[:6]) == 6
                await conn.execute(
                    "INSERT INTO user_settings (user_id, palette, updated_at) VALUES (?, 'contrast', 'x')",
                    (ANA,),
                )
        else:
            assert asyncpg is not None
            conn: Any = await cast(Any, asyncpg).connect(url)  # untyped driver
            try:
                assert await migrate_postgres(conn, POSTGRES_MIGRATIONS[:6]) == 6
                await conn.execute(
                    "INSERT INTO user_settings (user_id, palette, updated_at) VALUES ($1, 'contrast', 'x')",
                    ANA,
                )
            finally:
                await conn.close()
        storage = await open_storage(url)
        try:
            assert await storage.get_user_palette(ANA) == "contrast"
            assert await storage.dm_channel_of(ANA) is None
            await storage.set_dm_channel(ANA, ANA_DM)
            assert await storage.dm_channel_of(ANA) == ANA_DM
        finally:
            await storage.close()
