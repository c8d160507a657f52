"""The garbage collector in service (bot/process/client.py ``tune_collector``): once a bot has started, what was
alive then is out of the collector's reach and young objects must outlive the service's thresholds to be promoted,
so the full collections that stop the event loop stay rare (bench/pace.py measures what they cost); and discord.py
takes its fast JSON path."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from bot.process import client


@pytest.fixture
def collector_as_before() -> Iterator[None]:
    thresholds = gc.get_threshold()
    yield
    gc.set_threshold(*thresholds)


def test_once_started_the_collector_runs_at_the_service_s_thresholds_with_the_start_up_heap_frozen(
    collector_as_before: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(client, "_frozen", False)
    gc.set_threshold(700, 10, 10)  # the interpreter's own
    client.tune_collector()
    assert gc.get_threshold() == client.COLLECTOR_THRESHOLDS
    assert gc.get_freeze_count() > 0
    gc.set_threshold(700, 10, 10)
    client.tune_collector()  # once per process: a second bot started here changes nothing
    assert gc.get_threshold() == (700, 10, 10)


def test_discord_py_decodes_and_encodes_with_its_fast_json_path() -> None:
    """Every gateway event and REST answer goes through discord.py's JSON; with orjson installed (its "speed"
    extra's, a dependency here) that takes ~5 % less of the bot's CPU per request at 450 tables (bench/pace.py)."""
    from discord import utils

    assert utils.HAS_ORJSON
