"""Which guilds a bot process owns (the shards it runs, Discord's formula ``(guild_id >> 22) % count``):
its running encounters are resumed first after a start (cogs/announcer.py ``resume_all``)."""

from __future__ import annotations

from pathlib import Path

from bot.process.client import HexBot, HexBotCore
from bot.process.config import Config, load_config
from bot.service import EncounterService
from bot.service.base import DEADLINE_TTL, GUILD_SETTINGS_TTL, SHARED_TTL
from bot.storage import open_storage


def shard_of(guild_id: int, count: int) -> int:
    return (guild_id >> 22) % count


def test_a_process_owns_the_guilds_of_its_shards_only() -> None:
    config = load_config({"DISCORD_TOKEN": "x", "SHARD_COUNT": "2", "SHARD_IDS": "1"}, dotenv=None)
    bot = HexBot(config)
    guilds = {shard_of(g, 2): g for g in (7 << 22, 8 << 22)}
    assert bot.owns_guild(guilds[1])
    assert not bot.owns_guild(guilds[0])


def test_one_process_with_every_shard_or_none_given_owns_every_guild() -> None:
    for env in ({}, {"SHARD_COUNT": "2"}, {"SHARD_COUNT": "2", "SHARD_IDS": "0,1"}):
        bot = HexBot(load_config({"DISCORD_TOKEN": "x", **env}, dotenv=None))
        assert bot.owns_guild(7 << 22) and bot.owns_guild(8 << 22), env
    assert HexBotCore(Config(token="x")).owns_guild(7 << 22)  # the unsharded core: every guild


def test_a_process_claims_posts_as_its_shards_the_same_after_a_restart() -> None:
    """cogs/announcer.py claims each post in storage under the process's claimant id: a process restarted with
    the same shards takes back what it was sending when it died; another set of shards is someone else."""

    def claimant(env: dict[str, str]) -> int:
        return HexBot(load_config({"DISCORD_TOKEN": "x", **env}, dotenv=None)).claimant

    zero = claimant({"SHARD_COUNT": "2", "SHARD_IDS": "0"})
    assert zero == claimant({"SHARD_COUNT": "2", "SHARD_IDS": "0"})
    assert zero != claimant({"SHARD_COUNT": "2", "SHARD_IDS": "1"})
    assert zero > 1 and zero < 2**63
    assert claimant({}) == claimant({"SHARD_COUNT": "2", "SHARD_IDS": "0,1"}) == 1
    assert HexBotCore(Config(token="x")).claimant == 1


async def test_a_service_among_several_processes_keeps_guild_settings_and_deadlines_shortly(
    tmp_path: Path,
) -> None:
    """Other processes change a guild's settings (language, director role, default deadline) and a phase's
    deadline without this one seeing it: with several processes those reads are kept seconds, not half a minute."""
    storage = await open_storage(f"sqlite:///{tmp_path / 'db.sqlite3'}")
    try:
        alone, shared = EncounterService(storage), EncounterService(storage, shared=True)
        assert (alone.settings_ttl, alone.deadline_ttl) == (GUILD_SETTINGS_TTL, DEADLINE_TTL)
        assert (shared.settings_ttl, shared.deadline_ttl) == (SHARED_TTL, SHARED_TTL)
        assert SHARED_TTL <= 5 < GUILD_SETTINGS_TTL
    finally:
        await storage.close()
