"""Idle encounters are not held in memory forever (the per-encounter caches of the service and the
announcer keep only the newest entries, an announcer queue goes once it is drained), and a click's panel costs
less (a select's size is added up, not searched for)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any, cast

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.bounded import Bounded
from bot.panels.draft import Draft, _most_that_fit_by_trying, most_that_fit  # pyright: ignore[reportPrivateUsage]
from bot.service import base as service_base
from cogs.announcer import Announcer
from tests.bot_fixtures import sqlite_service


def test_a_bounded_cache_keeps_the_newest_written_entries() -> None:
    cache: Bounded[int, str] = Bounded(2)
    cache[1], cache[2] = "a", "b"
    cache[1] = "a again"  # written again: now the newest
    cache[3] = "c"
    assert list(cache.items()) == [(1, "a again"), (3, "c")]
    with pytest.raises(ValueError):
        Bounded[int, int](0)


async def test_reading_many_encounters_keeps_only_the_newest_few(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(service_base, "READ_CACHE_SIZE", 2)
    async with sqlite_service(tmp_path / "db.sqlite3") as service:
        ids = [
            (await service.create(10, 100 + i, 1, ruleset="exo", scenario="exo-duel")).encounter_id
            for i in range(5)
        ]
        for encounter_id in ids:
            await service.read(encounter_id)
            await service.deadline_of(encounter_id, 1)
        kept = cast(Any, service)
        assert list(kept._reads) == ids[-2:]
        assert list(kept._states) == ids[-2:]
        assert (await service.read(ids[0])).meta.id == ids[0]  # fell out: read again from storage


async def test_an_announcer_keeps_no_queue_for_an_encounter_with_nothing_to_post() -> None:
    announcer = Announcer(cast(Any, None))  # plain jobs: the bot is never used
    done: list[int] = []
    for encounter_id in range(50):

        async def job(eid: int = encounter_id) -> None:
            done.append(eid)

        announcer.enqueue(encounter_id, job)
    await announcer.drain()
    await asyncio.sleep(0)
    assert sorted(done) == list(range(50))
    assert announcer.outbox.queue.idle()
    state = cast(Any, announcer.outbox)
    assert isinstance(state._metas, Bounded) and isinstance(state._announced, Bounded)


@settings(max_examples=300, deadline=None)
@given(
    others=st.dictionaries(
        st.sampled_from(["move", "stations", "crew", "choice"]),
        st.text(st.characters(min_codepoint=0x21, max_codepoint=0x17F), min_size=1, max_size=30),
        max_size=3,
    ),
    values=st.lists(
        st.text(st.characters(min_codepoint=0x21, max_codepoint=0x17F, exclude_characters=","), min_size=1),
        max_size=40,
    ),
)
def test_most_that_fit_counts_as_trying_each_count_did(others: dict[str, str], values: list[str]) -> None:
    """A select's size is added up from its values' quoted lengths, no longer found by building and
    encoding a draft per count; the answer is the same."""
    draft = Draft(**others)
    longest = sorted(values, key=len, reverse=True)
    assert most_that_fit(draft, "fire", values) == _most_that_fit_by_trying(draft, "fire", longest)


async def test_a_fresh_process_decodes_a_stored_state_before_its_ruleset_was_imported(tmp_path: Path) -> None:
    """Found by bench/idle.py: a bot restarted on running encounters resumes them first, and decoding
    their states failed ("unknown serialized type 'exo.Ship'") because nothing had imported rules.exo yet."""
    import json
    import subprocess
    import sys

    from rules.serial import to_json

    async with sqlite_service(tmp_path / "db.sqlite3") as service:
        created = await service.create(10, 100, 1, ruleset="exo", scenario="exo-duel")
        state = (await service.read(created.encounter_id)).state
    stored = tmp_path / "state.json"
    stored.write_text(json.dumps(to_json(state)))
    code = (
        "import json, sys; from rules.serial import from_json; assert 'rules.exo' not in sys.modules;"
        f" s = from_json(json.loads(open({str(stored)!r}).read())); print(sorted(set(type(u).__name__ for u in s.units.values())))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "Ship" in done.stdout


def test_a_panel_built_on_a_state_is_built_once_and_again_for_a_new_state() -> None:
    """A click built the panel it was made on, which the click before it had just built on the same
    state; a model is a pure function of (state, unit, draft, owing), so it is kept for the state."""
    import dataclasses

    from bot.panels import build, panel_for, press
    from rules.exo.state import ORDERS_STEP, ExoState
    from tests.exo_fixtures import load, ship_toml

    loaded = load(ship_toml("a", "red", "0805"), ship_toml("b", "blue", "0802"))
    assert isinstance(loaded.ext, ExoState)
    state = loaded.replace(ext=dataclasses.replace(loaded.ext, step=ORDERS_STEP))
    plugin = panel_for("exo")
    calls: list[Draft] = []

    class Counting:
        def __getattr__(self, name: str) -> Any:
            return getattr(plugin, name)

        def build_panel(self, state: Any, unit_id: str, *, draft: Draft, owing: bool) -> Any:
            calls.append(draft)
            return plugin.build_panel(state, unit_id, draft=draft, owing=owing)

    counting = cast(Any, Counting())
    first = build(counting, state, "a", draft=Draft(), owing=True)
    after = press(counting, state, first, "D")
    assert after.draft == Draft(move="D")
    assert build(counting, state, "a", draft=after.draft, owing=True) is after  # the next click's load
    assert calls == [Draft(), Draft(move="D")]
    later = state.replace()  # an equal state that is another object (the encounter changed): built again
    assert later is not state
    assert build(counting, later, "a", draft=after.draft, owing=True) == after
    assert len(calls) == 3
