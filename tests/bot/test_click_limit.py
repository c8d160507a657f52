"""More than five clicks a second by one person on one panel are refused ("Too fast") and do nothing
(bot/click_limit.py); other people and other panels are not held back. The clock is moved by hand."""

from __future__ import annotations

import pytest

from bot.click_limit import ClickLimiter
from bot.results import Refused


def test_a_sixth_click_within_a_second_is_refused_and_the_next_second_is_free() -> None:
    now = [100.0]
    limiter = ClickLimiter(clock=lambda: now[0])
    ana = (1, 7, "halcon")
    assert all(limiter.allow(ana) for _ in range(5))
    with pytest.raises(Refused) as refused:
        limiter.check(ana)
    assert refused.value.code == "click.too_fast"
    assert limiter.allow((2, 7, "pirata")), "another person's panel"
    assert limiter.allow((1, 7, "escolta")), "another panel of the same person"
    now[0] += 0.999
    assert not limiter.allow(ana), "still within the second of the first five"
    now[0] += 0.002
    assert limiter.allow(ana), "a refused click is not counted: the window moved on"
