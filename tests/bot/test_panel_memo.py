"""The panel memos (bot/panels/memo.py) under the click worker (bot/offloop.py): a memo is used from the worker
thread and from the event loop's at once without failing or mixing up values, and it keeps a table's state
while a thousand other encounters' states go by."""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace

import pytest

from bot.panels.memo import per_state
from rules.state import EncounterState
from tests.exo_fixtures import load, ship_toml


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
