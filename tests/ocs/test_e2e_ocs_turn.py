"""The ocs director's panel ends the combat phase and the next turn begins, end to end through the real
discord.py client and the local Discord: offered only when every combat is fought or called off (OCS-2: an open
combat is finished first), told in the channel, and taken back by one ``/director undo``."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from rules.ocs.model import ext_of
from tests.e2e_helpers import Table, create_from_file, draft_in, encounter_of, panel_for_phase, room
from tests.fakediscord import Message
from tests.ocs_fixtures import ALLIES, AXIS, TWO_COMBATS

pytestmark = pytest.mark.slow


@pytest.fixture
async def table(tmp_path: Path) -> AsyncIterator[Table]:
    async with room(tmp_path, lang="en", channel_name="desert") as t:
        yield t


async def panel(t: Table) -> Message:
    """The director's procedure panel for the step that waits now."""
    phase_no = (await encounter_of(t)).phase_no
    return await panel_for_phase(t.fd, t.director, "director", phase_no)


def offered(on: Message, action: str) -> tuple[str, list[str]]:
    for cid, comp in on.custom_ids().items():
        if cid.endswith(f":unit:director:{action}"):
            return cid, [o["value"] for o in comp.get("options", [])]
    raise AssertionError(f"no {action} on the director's panel: {sorted(on.custom_ids())}")


async def act(t: Table, picks: list[tuple[str, list[str]]]) -> None:
    """The selects in order on the director's panel, then Submit; waits for the step to resolve."""
    phase_no = (await encounter_of(t)).phase_no
    on = await panel(t)
    for action, values in picks:
        cid, options = offered(on, action)
        assert all(v in options for v in values), (action, values, options)
        before = draft_in(on)
        await (await t.director.select(on, cid, values)).acknowledged()
        await t.fd.wait_for(lambda was=before: draft_in(on) != was, what=f"the panel to take {action}")
    submit = next(c for c in on.custom_ids() if c.endswith(":unit:director:submit"))
    await (await t.director.click(on, submit)).wait_for_replies(1, timeout=60)

    for _ in range(3000):  # polling the database (60 s ceiling for slow machines), not timing anything
        if (await encounter_of(t)).phase_no > phase_no:
            await t.bot.settle()
            return
        await asyncio.sleep(0.02)
    raise AssertionError("the director's step did not resolve")


async def test_ocs_2_the_directors_panel_ends_the_combat_phase_once_no_combat_is_open(table: Table) -> None:
    t = table
    await create_from_file(t.director, t.channel, "ocs", "two.toml", TWO_COMBATS)
    for person, units in ((t.ana, AXIS), (t.bea, ALLIES)):
        for unit in units:
            await (await person.run_command(t.channel, "encounter join", {"unit": unit})).final_response()
    await (await t.director.run_command(t.channel, "encounter start")).final_response()
    await t.bot.settle()
    enc = (await encounter_of(t)).id
    assert (await t.bot.service.read(enc)).state.round == 1
    assert "end_turn" in offered(await panel(t), "task")[1]
    # a combat open: it is finished or called off first, so the panel does not offer the end
    await act(t, [("task", ["open"]), ("at", ["0403"]), ("att", ["a1", "a2"])])
    assert ext_of((await t.bot.service.read(enc)).state).combats
    tasks = offered(await panel(t), "task")[1]
    assert "end_turn" not in tasks and "cancel" in tasks, tasks
    await act(t, [("task", ["cancel"]), ("combat", ["1"])])
    assert "end_turn" in offered(await panel(t), "task")[1]
    await act(t, [("task", ["end_turn"])])
    assert (await t.bot.service.read(enc)).state.round == 2
    channel = json.dumps([{"c": m.content, "e": m.embeds} for m in t.channel.messages()], ensure_ascii=False)
    assert "The director ends the combat phase: turn 2 begins" in channel
    # the next turn's panel is the director's again, with the whole procedure
    assert "open" in offered(await panel(t), "task")[1]
    undone = await (await t.director.run_command(t.channel, "director undo")).final_response()
    # the channel reads what was undone, not only where the game goes back to
    assert not undone.ephemeral and undone.content.startswith("↩️ Undone: "), undone.content
    assert "turn 2 begins" in undone.content and "Back to" in undone.content, undone.content
    assert (await t.bot.service.read(enc)).state.round == 1
