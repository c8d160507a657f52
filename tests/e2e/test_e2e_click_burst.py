"""A burst of clicks is not a burst of rows or of work: 100 simultaneous Submits on one panel store one order row
(the same order again writes nothing), and past five clicks a second by one person on one panel each click is
answered privately "Too fast" and does nothing (bot/click_limit.py). The limiter's clock is the test's."""

from __future__ import annotations

import pytest

from bot.storage.base import ORDER_ACCEPTED
from tests.e2e_helpers import Table, button_id, current_panel_dm, open_duel

pytestmark = pytest.mark.slow


async def test_a_hundred_simultaneous_submits_store_one_row(table: Table) -> None:
    t = table
    enc = await open_duel(t)
    await t.bot.settle()
    phase_no = (await t.bot.service.read(enc)).phase_no
    panel = await current_panel_dm(t, t.ana, "halcon", phase_no)
    before = len(await t.bot.service.storage.events(enc, types=[ORDER_ACCEPTED]))
    t.bot.clicks.clock = lambda: 0.0  # all 100 within one instant
    submit = button_id(panel, "halcon", "submit")
    clicks = [await t.ana.click(panel, submit) for _ in range(100)]
    replies = [(await click.wait_for_replies(1, timeout=60))[0] for click in clicks]
    await t.bot.settle()
    assert len(await t.bot.service.storage.events(enc, types=[ORDER_ACCEPTED])) == before + 1
    too_fast = [m for m in replies if m.content.startswith("Too fast")]
    received = [m for m in replies if m.content.startswith("Orders for **Halcón** received")]
    assert len(too_fast) == 95 and len(received) == 5, [m.content for m in replies]
    assert all(m.ephemeral for m in too_fast)
    assert await t.bot.service.storage.submitted_units(enc, phase_no) == ["halcon"]
    assert (await t.bot.service.read(enc)).phase_no == phase_no, "Bea's order is still missing"
