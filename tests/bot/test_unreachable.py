"""``make run`` with no network says so in one line and tries again with a growing wait, instead of
ending in a traceback. Discord is "unreachable" here as it would be offline: nothing listens on its address."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

import discord
import pytest

from bot.process.client import HexBotCore, serve_with_retry
from bot.process.config import Config


async def test_no_network_is_one_line_per_attempt_and_a_retry_until_stopped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(discord.http.Route, "BASE", "http://127.0.0.1:9/api/v10")  # discard port: refused
    config = Config(token="x.y.z", database_url=f"sqlite:///{tmp_path / 'bot.sqlite3'}", log_level="WARNING")
    stop = asyncio.Event()
    said: list[str] = []
    made: list[HexBotCore] = []

    def say(line: str) -> None:
        said.append(line)
        if len(said) == 3:
            stop.set()

    def make() -> HexBotCore:
        made.append(HexBotCore(config, extensions=()))
        return made[-1]

    with caplog.at_level(logging.ERROR):
        code = await serve_with_retry(make, config.token, stop, backoff=(0, 0), say=say)
    assert code == 0 and len(said) == 3 and len(made) == 3, "a fresh client per attempt until stopped"
    assert all(line.startswith("cannot reach Discord: ") and "retrying in 0 s" in line for line in said)
    assert all("\n" not in line for line in said)
    assert not [r for r in caplog.records if r.exc_info], "no traceback in the log"
    assert all(bot.is_closed() for bot in made)


async def test_a_refused_token_is_not_retried(tmp_path: Path) -> None:
    class Refused(HexBotCore):
        async def start(self, token: str, *, reconnect: bool = True) -> None:
            raise discord.LoginFailure("Improper token has been passed.")

    config = Config(token="x.y.z", database_url=f"sqlite:///{tmp_path / 'bot.sqlite3'}", log_level="WARNING")
    said: list[str] = []
    code = await serve_with_retry(
        lambda: Refused(config, extensions=()), "x.y.z", asyncio.Event(), say=said.append
    )
    assert code == 2 and said == []
