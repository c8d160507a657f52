"""Odd input, end to end through the real discord.py client and the local Discord: what a person types is read
as they meant it or refused in private with what to write instead."""

from __future__ import annotations

import pytest

from tests.e2e_helpers import Table

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("expression", ["-1d6", "١d6", "2d٦+1"])
async def test_dice_1_roll_refuses_negative_counts_and_non_ascii_digits_in_private(
    table: Table, expression: str
) -> None:
    t = table
    answer = await (await t.ana.run_command(t.channel, "roll", {"expression": expression})).response()
    assert answer is not None and answer.ephemeral, answer
    assert "Try 3d6+2" in answer.content, answer.content
    assert t.channel.messages() == [], "a refused roll posted in the channel"
