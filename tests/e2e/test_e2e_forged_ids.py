"""A modified client can put any encounter, phase and unit in a panel control's custom id. The guards between a
click and a unit (bot/service/panel_click.py) are what stands between such a click and someone else's unit:
here each guard meets the forged click only it refuses, through the real client on the exo duel. The refusal is
private and in the clicker's words, and no order is stored, in the duel or in the encounter the id was forged
to. One row per guard, in the guards' order; removing a guard fails its row."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable

import pytest

from bot.permissions import Actor
from bot.storage.base import ORDER_ACCEPTED
from tests.e2e_helpers import Table, button_id, current_panel_dm, draft_in, forge, open_duel, orders_panel
from tests.fakediscord import Message, Person

pytestmark = pytest.mark.slow


def _moved(custom_id: str, encounter_id: int, phase_no: int) -> str:
    """``custom_id`` forged to name another encounter and phase."""
    return re.sub(r"^hexd:enc:\d+:phase:\d+:", f"hexd:enc:{encounter_id}:phase:{phase_no}:", custom_id)


async def _elsewhere(t: Table, seat: Person | None = None) -> tuple[int, int]:
    """An exo duel of another server (one the bot also serves), ``seat`` playing Pirata there: its id and phase."""
    service = t.bot.service
    created = await service.create(
        t.guild_id + 1, t.channel.id + 1, t.director.id, ruleset="exo", scenario="exo-duel"
    )
    enc = created.encounter_id
    if seat is not None:
        await service.join(enc, seat.id, unit="pirata")
        await service.start(enc, Actor(t.director.id))
    return enc, (await service.read(enc)).phase_no


async def _reply(person: Person, panel: Message, custom_id: str) -> Message:
    return (await (await person.click(panel, custom_id)).wait_for_replies(1))[0]


async def _ana_panel(t: Table, enc: int) -> Message:
    return await current_panel_dm(t, t.ana, "halcon", (await t.bot.service.read(enc)).phase_no)


async def _orders(t: Table, enc: int) -> int:
    return len(await t.bot.service.storage.events(enc, types=[ORDER_ACCEPTED]))


async def another_servers_encounter(t: Table, enc: int) -> tuple[Message, str]:
    """2. the server: Bea's panel in this server, forged to a duel of another server where she plays Pirata."""
    other, phase_no = await _elsewhere(t, seat=t.bea)
    panel = await orders_panel(t, t.bea)
    own = button_id(panel, "pirata", "submit")
    reply = await _reply(t.bea, panel, forge(panel, own, _moved(own, other, phase_no)))
    assert await _orders(t, other) == 0
    return reply, "Ese encuentro ya no existe, o ya no juegas en él."  # Bea reads Spanish


async def no_part_from_a_dm(t: Table, enc: int) -> tuple[Message, str]:
    """3. the part: Ana's DM panel forged to a duel she has no part in. She is told what an id no encounter has
    tells her: a forged id never says whether an encounter is in use in another server."""
    other, phase_no = await _elsewhere(t)
    panel = await _ana_panel(t, enc)
    own = button_id(panel, "halcon", "submit")
    nowhere = await _reply(t.ana, panel, forge(panel, own, _moved(own, other + 1000, phase_no)))
    forge(panel, _moved(own, other + 1000, phase_no), own)
    reply = await _reply(t.ana, panel, forge(panel, own, _moved(own, other, phase_no)))
    assert reply.content == nowhere.content
    return reply, "That encounter no longer exists, or you no longer play in it."


async def member_who_left(t: Table, enc: int) -> tuple[Message, str]:
    """3. the membership: Ana's own DM panel, after she left the server (Discord is asked again)."""
    panel = await _ana_panel(t, enc)
    t.fd.world.guilds[t.guild_id].remove_member(t.ana)
    t.bot.membership.clock = lambda: 1e12  # her last lookup is long past
    reply = await _reply(t.ana, panel, button_id(panel, "halcon", "submit"))
    return reply, "You are no longer a member of that encounter's server"


async def someone_elses_unit(t: Table, enc: int) -> tuple[Message, str]:
    """4. the holder: Bea's panel forged to name Ana's Halcón."""
    panel = await orders_panel(t, t.bea)
    own = button_id(panel, "pirata", "submit")
    reply = await _reply(t.bea, panel, forge(panel, own, own.replace(":unit:pirata:", ":unit:halcon:")))
    return reply, "Esa unidad no es tuya."


async def phase_that_is_over(t: Table, enc: int) -> tuple[Message, str]:
    """5. the phase: Ana's Submit and Clear forged to the phase before this one (a panel kept from it)."""
    phase_no = (await t.bot.service.read(enc)).phase_no
    panel = await _ana_panel(t, enc)
    shown = draft_in(panel)
    stale = "That panel belongs to a phase that is over; open /orders again."
    clear = button_id(panel, "halcon", "clear")
    cleared = await _reply(t.ana, panel, forge(panel, clear, _moved(clear, enc, phase_no - 1)))
    assert cleared.ephemeral and cleared.content == stale, cleared.content
    submit = button_id(panel, "halcon", "submit")
    reply = await _reply(t.ana, panel, forge(panel, submit, _moved(submit, enc, phase_no - 1)))
    assert draft_in(panel) == shown, "a panel of a phase that is over is not redrawn for this one"
    return reply, stale


async def unit_not_awaited(t: Table, enc: int) -> tuple[Message, str]:
    """6. the turn: Ana's Submit while the director has paused the duel (no unit owes an order; the answer says
    why the whole table waits)."""
    panel = await _ana_panel(t, enc)
    await t.bot.service.set_status(enc, Actor(t.director.id), "paused")
    return await _reply(
        t.ana, panel, button_id(panel, "halcon", "submit")
    ), "The director has paused this encounter."


async def click_limit(t: Table, enc: int) -> tuple[Message, str]:
    """1. the click limit: Ana's sixth click on her panel within one instant (bot/click_limit.py)."""
    panel = await _ana_panel(t, enc)
    t.bot.clicks.clock = lambda: 0.0
    clear = button_id(panel, "halcon", "clear")
    for _ in range(t.bot.clicks.limit):
        await (await t.ana.click(panel, clear)).acknowledged()
    return await _reply(t.ana, panel, button_id(panel, "halcon", "submit")), "Too fast: wait a second"


CASES: dict[str, Callable[[Table, int], Awaitable[tuple[Message, str]]]] = {
    "another server's encounter": another_servers_encounter,
    "no part, from a DM": no_part_from_a_dm,
    "a member who left": member_who_left,
    "someone else's unit": someone_elses_unit,
    "a phase that is over": phase_that_is_over,
    "a unit not awaited": unit_not_awaited,
    "the click limit": click_limit,
}


@pytest.mark.parametrize("case", list(CASES))
async def test_a_forged_click_is_refused_in_private_and_stores_nothing(table: Table, case: str) -> None:
    t = table
    enc = await open_duel(t)
    await t.bot.settle()
    reply, words = await CASES[case](t, enc)
    assert reply.ephemeral and words in reply.content, reply.content
    await t.bot.settle()
    assert await _orders(t, enc) == 0, "nothing stored"
