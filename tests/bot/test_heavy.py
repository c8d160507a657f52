"""Heavy commands (replay, export, import) are limited per member; refusals are immediate, refused work costs
nothing, and a director's export or replay of their own encounter is never refused because of someone else."""

from __future__ import annotations

import pytest

from bot.heavy import HeavyLimiter, Window
from bot.results import Refused, refuse

DIRECTOR, MEMBER, OTHER = 1, 2, 3


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_one_heavy_job_at_a_time_per_member_and_other_servers_are_not_held() -> None:
    limiter = HeavyLimiter(clock=Clock())
    with limiter.slot(1, MEMBER):
        with pytest.raises(Refused) as refused, limiter.slot(1, MEMBER):
            pass
        assert refused.value.code == "heavy.busy_mine"
        with pytest.raises(Refused) as busy, limiter.slot(1, OTHER):
            pass  # a plain member waits for the server's job to end
        assert busy.value.code == "heavy.busy"
        with limiter.slot(2, OTHER):  # another server is never held up by this one
            pass
    with limiter.slot(1, MEMBER):  # released when the job ends, even by an error
        pass


def test_a_directors_own_export_is_never_held_up_by_someone_elses_job() -> None:
    limiter = HeavyLimiter(clock=Clock())
    with limiter.slot(1, MEMBER), limiter.slot(1, DIRECTOR, own=True):
        pass


def test_a_job_that_fails_frees_the_slot() -> None:
    limiter = HeavyLimiter(clock=Clock())
    with pytest.raises(RuntimeError), limiter.slot(1, MEMBER):
        raise RuntimeError("render failed")
    with limiter.slot(1, MEMBER):
        pass


def test_a_few_per_minute_per_member_then_a_wait_that_says_how_long() -> None:
    clock = Clock()
    limiter = HeavyLimiter(per_minute=3, clock=clock)
    for _ in range(3):
        with limiter.slot(7, MEMBER):
            clock.now += 1
    with pytest.raises(Refused) as refused, limiter.slot(7, MEMBER):
        pass
    assert refused.value.code == "heavy.too_many" and refused.value.params["seconds"] == 57
    with limiter.slot(7, DIRECTOR, own=True):  # the member's quota is theirs alone
        pass
    clock.now += 57
    with limiter.slot(7, MEMBER):
        pass


def test_junk_imports_spaced_out_never_lock_the_director_out_and_refused_work_costs_nothing() -> None:
    """A plain member spacing out refused imports all minute long: each one is refused work (it costs the
    member nothing), and the director's export is answered every time."""
    clock = Clock()
    limiter = HeavyLimiter(per_minute=6, clock=clock)
    for _ in range(30):
        with pytest.raises(Refused) as junk, limiter.slot(7, MEMBER):
            raise refuse("import.invalid", "That file cannot be imported: x", reason="x")
        assert junk.value.code == "import.invalid"
        clock.now += 9
        with limiter.slot(7, DIRECTOR, own=True):
            pass
        clock.now += 1
    assert limiter.window.wait((7, MEMBER)) == 0


def test_a_window_counts_per_key_and_says_when() -> None:
    clock = Clock()
    window = Window(10, 10.0, clock)
    for _ in range(10):
        assert window.wait("ana") == 0
        window.take("ana")
        clock.now += 0.125
    assert window.wait("ana") == 9 and window.wait("bea") == 0  # the first roll leaves the window in 8.75 s
    clock.now += 8.75
    assert window.wait("ana") == 0
