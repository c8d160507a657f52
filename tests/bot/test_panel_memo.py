"""The panel memos (bot/panels/memo.py) under the click worker (bot/offloop.py): a memo is used from the worker
thread and from the event loop's at once without failing or mixing up values, and it keeps a table's state
while a thousand other encounters' states go by; the service hands out the same state object meanwhile, so a
slow player's click finds its panel built."""

from __future__ import annotations

import gc
import sys
import threading
import weakref
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, cast

import pytest

from bot.panels.memo import per_state
from bot.permissions import Actor
from bot.service.panel_click import Opened, PanelRequest, open_panel
from rules.state import EncounterState
from tests import toy_ruleset  # noqa: F401  # pyright: ignore[reportUnusedImport]  (registers toy-sim)
from tests.bot_fixtures import sqlite_service
from tests.exo_fixtures import load, ship_toml
from tests.toy_ruleset import TOY

GUILD, CHANNEL = 10, 20
DIRECTOR, ANA, BEA = 1, 2, 3


@pytest.fixture
def switching_often() -> Iterator[None]:
    """Threads switched every microsecond (the interpreter's default is 5 ms), so a race in a memo's table shows
    within a few thousand calls."""
    before = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    yield
    sys.setswitchinterval(before)


def _states(count: int) -> list[EncounterState]:
    base = load(ship_toml("a", "red", "0805"), ship_toml("b", "blue", "0802"))
    return [replace(base, round=base.round + i) for i in range(count)]


@dataclass(frozen=True)
class Unit:
    """An argument hashed by Python code, as a panel's draft is: the interpreter may switch threads while a
    memo's table looks it up."""

    id: str


def test_a_memo_used_from_two_threads_at_once_keeps_each_value_right(switching_often: None) -> None:
    """One thread keeps finding its two entries while the other's misses push the oldest entries out: each
    lookup, move and eviction of the table happens whole, and every call gets its own value."""
    states = _states(8)
    memo: Callable[[EncounterState, Unit], tuple[int, Unit]] = per_state(
        lambda s, unit: (s.round, unit), size=2
    )
    failures: list[BaseException] = []

    def use(mine: list[EncounterState], unit: Unit) -> None:
        try:
            for i in range(50_000):
                state = mine[i % len(mine)]
                assert memo(state, unit) == (state.round, unit)
        except BaseException as exc:  # handed to the test's thread
            failures.append(exc)

    threads = [
        threading.Thread(target=use, args=(states[:2], Unit("a"))),  # hits
        threading.Thread(target=use, args=(states[2:], Unit("b"))),  # misses, each evicting the oldest
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []


def test_a_memo_keeps_a_tables_state_while_a_thousand_other_encounters_step() -> None:
    """A player clicks 20 to 70 s after their panel was built: at a thousand encounters stepping about forty
    times a second, up to 2,800 newer states have been used meanwhile, and the panel must not be worked out
    again."""
    runs: list[int] = []

    def work(state: EncounterState, unit: str) -> str:
        runs.append(state.round)
        return unit

    memo = per_state(work)
    table, *others = _states(2_801)
    memo(table, "a")
    for state in others:
        memo(state, "a")
        memo(state, "b")
    runs.clear()
    memo(table, "a")
    assert runs == []


async def _opened(service: Any, enc: int, unit: str, user: int) -> Opened:
    opened = await open_panel(service, PanelRequest(enc, unit, Actor(user), guild_id=GUILD))
    assert isinstance(opened, Opened)
    return opened


@pytest.mark.slow
async def test_a_tables_state_and_panel_are_kept_while_a_thousand_other_encounters_are_read(
    tmp_path: Path,
) -> None:
    """Bea's panel is opened, a thousand other encounters are read, Ana's order goes in (the encounter's rows
    change, so it is read again from storage): the state read is the one the panel was built on, and the panel
    is the one built then. An ended encounter's read is not kept."""
    async with sqlite_service(tmp_path / "db.sqlite3") as service:
        toy = TOY.format(ruleset="toy-sim")
        table = (
            await service.create(GUILD, CHANNEL, DIRECTOR, ruleset="toy-sim", toml_text=toy)
        ).encounter_id
        await service.join(table, ANA, unit="a")
        await service.join(table, BEA, unit="b")
        await service.start(table, Actor(DIRECTOR))
        before = await _opened(service, table, "b", BEA)
        others = [
            (
                await service.create(GUILD, CHANNEL + 1 + i, DIRECTOR, ruleset="toy-sim", toml_text=toy)
            ).encounter_id
            for i in range(1_000)
        ]
        for other in others:
            await service.read(other)
        await service.submit(table, ANA, "a", "move 0203", phase_no=before.panel.phase_no)
        after = await _opened(service, table, "b", BEA)
        assert after.reading.state is before.reading.state
        assert after.panel.model is before.panel.model
        await service.end(others[0], Actor(DIRECTOR))
        await service.read(others[0])
        assert others[0] not in cast(Any, service)._reads


class Listed:
    """A memoized value that can be watched going away."""


def test_a_memo_holds_a_state_s_results_while_the_state_lives_and_lets_them_go_with_it() -> None:
    """The service holds each encounter's current state; a step replaces it, and the lists built on the old one
    go with it, not after thousands of other states (what a memo holds, a full garbage collection walks with
    the event loop stopped)."""
    memo: Callable[[EncounterState, str], Listed] = per_state(lambda s, unit: Listed())
    states = _states(3)
    kept = [weakref.ref(memo(state, "a")) for state in states]
    gc.collect()
    assert all(ref() is not None for ref in kept), "held while their states live"
    assert memo(states[1], "a") is kept[1](), "found again on the same state"
    del states[1]
    gc.collect()
    memo(states[0], "a")  # the next call drops what went
    assert [ref() is None for ref in kept] == [False, True, False]
    newer = _states(1)[0]  # may be given the identity the state gone had
    assert memo(newer, "a") is not kept[1]() and memo(newer, "a") is memo(newer, "a")
