"""Issue 15 item 3: heavy commands (replay, export, import) are limited per server; refusals are immediate."""

from __future__ import annotations

import pytest

from bot.heavy import HeavyLimiter
from bot.results import Refused


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_one_heavy_job_at_a_time_per_server_and_other_servers_are_not_held() -> None:
    limiter = HeavyLimiter(clock=Clock())
    with limiter.slot(1):
        with pytest.raises(Refused) as refused, limiter.slot(1):
            pass
        assert refused.value.code == "heavy.busy"
        with limiter.slot(2):  # another server is never held up by this one
            pass
    with limiter.slot(1):  # released when the job ends, even by an error
        pass


def test_a_job_that_fails_frees_the_slot() -> None:
    limiter = HeavyLimiter(clock=Clock())
    with pytest.raises(RuntimeError), limiter.slot(1):
        raise RuntimeError("render failed")
    with limiter.slot(1):
        pass


def test_a_few_per_minute_then_a_wait_that_says_how_long() -> None:
    clock = Clock()
    limiter = HeavyLimiter(per_minute=3, clock=clock)
    for _ in range(3):
        with limiter.slot(7):
            clock.now += 1
    with pytest.raises(Refused) as refused, limiter.slot(7):
        pass
    assert refused.value.code == "heavy.too_many" and refused.value.params["seconds"] == 58
    clock.now += 58
    with limiter.slot(7):
        pass
