"""Process configuration from the environment (and an optional ``.env`` file).

The token is read here and nowhere else; ``Config.__repr__`` masks it so it never reaches a log line.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

DEFAULT_DATABASE = "sqlite:///hexdirector.sqlite3"


class ConfigError(SystemExit):
    """Raised with a message that tells the operator what to set."""


@dataclass(frozen=True, slots=True)
class Config:
    token: str = field(repr=False)
    database_url: str = DEFAULT_DATABASE
    dev_guild: int | None = None
    log_level: str = "INFO"
    shard_count: int | None = None
    shard_ids: tuple[int, ...] | None = None
    director_role: str | None = None
    #: every step's dice sealed before it resolves and revealed after (DICE-1); HEXD_SEAL_DICE=0 turns it
    #: off, so a table replays a scenario's own seeded dice
    seal_dice: bool = True
    #: where discord.py sends its REST requests (``HEXD_DISCORD_API``): a rate-limit proxy shared by every process
    #: of the bot, since Discord's global limit is the token's, not one process's; None: Discord itself
    discord_api: str | None = None

    def __repr__(self) -> str:
        return (
            f"Config(token=<{len(self.token)} chars hidden>, database_url={_mask_url(self.database_url)!r}, "
            f"dev_guild={self.dev_guild}, log_level={self.log_level!r}, "
            f"discord_api={_mask_url(self.discord_api) if self.discord_api else None!r})"
        )


def read_dotenv(path: Path) -> dict[str, str]:
    """Minimal ``KEY=value`` reader (comments and blank lines ignored, optional quotes stripped)."""
    values: dict[str, str] = {}
    if not path.is_file():
        return values
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if not line or line.startswith("#") or "=" not in line:
            continue
        key, _, value = line.partition("=")
        key = key.strip().removeprefix("export ").strip()
        values[key] = value.strip().strip('"').strip("'")
    return values


def load_config(env: dict[str, str] | None = None, dotenv: Path | None = Path(".env")) -> Config:
    merged = dict(read_dotenv(dotenv) if dotenv else {})
    merged.update(env if env is not None else os.environ)
    token = merged.get("DISCORD_TOKEN", "").strip()
    if not token:
        raise ConfigError(
            "hexdirector: no Discord bot token.\n"
            "Set DISCORD_TOKEN in the environment (DISCORD_TOKEN=... make run) or put a line\n"
            "DISCORD_TOKEN=your-token in a .env file next to the Makefile.\n"
            "Create a bot and copy its token at https://discord.com/developers/applications (Bot → Reset Token)."
        )
    guild = merged.get("HEXD_GUILD", "").strip()
    if guild and not guild.isdigit():
        raise ConfigError(f"hexdirector: HEXD_GUILD must be a guild id (digits), got {guild!r}.")
    discord_api = merged.get("HEXD_DISCORD_API", "").strip().rstrip("/")
    if discord_api and not re.fullmatch(r"https?://[^/\s]+(/\S*)?", discord_api):
        raise ConfigError(
            "hexdirector: HEXD_DISCORD_API must be the address of the REST rate-limit proxy, such as "
            f"http://127.0.0.1:8080 (got {_mask_url(discord_api)!r})."
        )
    shard_ids = merged.get("SHARD_IDS", "").strip()
    shard_count = merged.get("SHARD_COUNT", "").strip()
    return Config(
        token=token,
        database_url=merged.get("DATABASE_URL", "").strip() or DEFAULT_DATABASE,
        dev_guild=int(guild) if guild else None,
        log_level=(merged.get("LOG_LEVEL", "") or "INFO").upper(),
        shard_count=int(shard_count) if shard_count.isdigit() else None,
        shard_ids=tuple(int(x) for x in shard_ids.split(",") if x.strip().isdigit()) or None,
        director_role=merged.get("HEXD_DIRECTOR_ROLE") or None,
        seal_dice=merged.get("HEXD_SEAL_DICE", "").strip() not in ("0", "no", "off", "false"),
        discord_api=discord_api or None,
    )


def rest_base(discord_api: str, api_version: int) -> str:
    """discord.py's REST base for ``HEXD_DISCORD_API``: a proxy forwards paths unchanged, so the base is the
    proxy's address followed by Discord's ``/api/vN`` (kept when the setting already ends with one)."""
    if re.search(r"/api/v\d+$", discord_api):
        return discord_api
    return f"{discord_api}/api/v{api_version}"


def _mask_url(url: str) -> str:
    # postgresql://user:password@host/db → postgresql://user:***@host/db
    if "://" in url and "@" in url:
        scheme, rest = url.split("://", 1)
        creds, host = rest.rsplit("@", 1)
        user = creds.split(":", 1)[0]
        return f"{scheme}://{user}:***@{host}"
    return url
