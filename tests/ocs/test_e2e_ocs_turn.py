"""The ocs director's panel ends the combat phase and the next turn begins, end to end through the real
discord.py client and the local Discord: offered only when every combat is fought or called off (OCS-2: an open
combat is finished first), told in the channel, and taken back by one ``/director undo``."""

from __future__ import annotations

import pytest

from rules.ocs.model import ext_of
from tests.e2e_helpers import panel_for_phase
from tests.ocs.test_e2e_ocs import Table, act, open_encounter, options_of, phase_of, public_text
from tests.ocs.test_e2e_ocs import table as table  # the fixture, used by name

pytestmark = pytest.mark.slow


async def tasks(t: Table, enc: int) -> list[str]:
    panel = await panel_for_phase(t.fd, t.director, "director", await phase_of(t, enc))
    _, offered = options_of(panel, "director", "task")
    return [o["value"] for o in offered]


async def test_ocs_2_the_directors_panel_ends_the_combat_phase_once_no_combat_is_open(table: Table) -> None:
    t = table
    enc = await open_encounter(t)
    assert (await t.bot.service.read(enc)).state.round == 1
    assert "end_turn" in await tasks(t, enc)
    # a combat open: it is finished or called off first, so the panel does not offer the end
    await act(t, enc, t.director, "director", [("task", ["open"]), ("at", ["0403"]), ("att", ["a1", "a2"])])
    assert ext_of((await t.bot.service.read(enc)).state).combats
    offered = await tasks(t, enc)
    assert "end_turn" not in offered and "cancel" in offered, offered
    await act(t, enc, t.director, "director", [("task", ["cancel"]), ("combat", ["1"])])
    assert "end_turn" in await tasks(t, enc)
    _, phase_no = await act(t, enc, t.director, "director", [("task", ["end_turn"])])
    after = await t.bot.service.read(enc)
    assert after.state.round == 2 and after.phase_no == phase_no
    assert "The director ends the combat phase: turn 2 begins" in public_text(t.channel)
    # the next turn's panel is the director's again, with the whole procedure
    assert "open" in await tasks(t, enc)
    undone = await (await t.director.run_command(t.channel, "director undo")).final_response()
    assert not undone.ephemeral and "undid the last step" in undone.content, undone.content
    assert (await t.bot.service.read(enc)).state.round == 1
