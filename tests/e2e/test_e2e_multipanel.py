"""One panel message for the units of a player that may act now: ``/orders`` (DMs closed) answers with one
message whose first row picks the unit shown, edited in place on each pick and each Submit."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e_helpers import Table, button_id, forge, retargeted, room
from tests.fakediscord import Message

pytestmark = pytest.mark.slow

SHIPS = ("halcon", "cuervo")  # exo-ambush: the red side's two ships


def picker(message: Message) -> dict[str, str]:
    """The unit picker's buttons: unit → label."""
    return {
        cid.split(":unit:")[1].split(":")[0]: str(comp.get("label", ""))
        for cid, comp in message.custom_ids().items()
        if cid.endswith(":pick")
    }


def shown_unit(message: Message) -> str:
    """The unit whose controls the message shows (the picker's buttons aside)."""
    units = {
        cid.split(":unit:")[1].split(":")[0]
        for cid in message.custom_ids()
        if ":unit:" in cid and not cid.endswith(":pick")
    }
    assert len(units) == 1, units
    return units.pop()


async def exo_ambush_bea_two_ships(t: Table) -> int:
    t.bea.close_dms()
    options = {"ruleset": "exo", "scenario": "exo-ambush"}
    await (await t.director.run_command(t.channel, "encounter new", options)).final_response()
    meta = await t.bot.service.storage.active_encounter_in_channel(t.guild_id, t.channel.id)
    assert meta is not None
    state = (await t.bot.service.read(meta.id)).state
    for unit in state.units.values():
        person = t.bea if unit.id in SHIPS else t.ana
        await (await person.run_command(t.channel, "encounter join", {"unit": unit.id})).final_response()
    await (await t.director.run_command(t.channel, "encounter start")).final_response()
    await t.bot.settle()
    return meta.id


async def test_exo_1_orders_with_closed_dms_is_one_message_holding_both_ships_each_submitted_from_it(
    tmp_path: Path,
) -> None:
    """EXO-1 (every ship gives orders each phase at once): Bea, DMs closed, holds two ships. ``/orders`` answers
    with one ephemeral message, a picker for both ships on its first row; she submits the first ship, picks the
    second and submits it, all in that message (acknowledged in its text, each ship ticked in the picker); no
    other private message is made. Before: one ephemeral panel per ship and one per Submit."""
    async with room(tmp_path) as t:
        enc = await exo_ambush_bea_two_ships(t)
        seen = await t.bot.service.read(enc)
        assert set(SHIPS) <= set(t.bot.service.owing(seen.state))
        before = len(t.bea.ephemeral_messages(t.channel))
        answer = await (await t.bea.run_command(t.channel, "orders")).final_response(timeout=60)
        await t.bot.settle()
        assert answer.ephemeral
        assert len(t.bea.ephemeral_messages(t.channel)) - before == 1
        assert set(picker(answer)) == set(SHIPS), answer.custom_ids()
        first = shown_unit(answer)
        other = next(u for u in SHIPS if u != first)
        names = {u: seen.state.units[u].name for u in SHIPS}

        async def submit(unit: str) -> None:
            handle = await t.bea.click(answer, button_id(answer, unit, "submit"))
            await handle.acknowledged()
            await t.fd.wait_for(
                lambda: picker(answer)[unit].endswith("✅") and names[unit] in answer.content,
                what=f"{unit}'s order acknowledged in the message",
            )

        await submit(first)
        assert not picker(answer)[other].endswith("✅")
        handle = await t.bea.click(answer, button_id(answer, other, "pick"))
        await handle.acknowledged()
        await t.fd.wait_for(lambda: shown_unit(answer) == other, what="the picked ship's controls")
        await submit(other)
        await t.bot.settle()
        stored = await t.bot.service.storage.orders_of(enc, seen.phase_no, t.bea.id)
        assert {o.unit_id for o in stored} == set(SHIPS)
        assert len(t.bea.ephemeral_messages(t.channel)) - before == 1, "acknowledged in the message itself"


async def test_a_forged_pick_of_someone_elses_unit_is_refused_in_private(tmp_path: Path) -> None:
    """A picker's button edited to name a unit of another player goes through the same guards as any click: it
    is refused privately and the message keeps showing Bea's own ship."""
    async with room(tmp_path) as t:
        enc = await exo_ambush_bea_two_ships(t)
        seen = await t.bot.service.read(enc)
        answer = await (await t.bea.run_command(t.channel, "orders")).final_response(timeout=60)
        await t.bot.settle()
        mine = shown_unit(answer)
        theirs = next(u for u in seen.state.units if u not in SHIPS)
        pick = button_id(answer, next(u for u in SHIPS if u != mine), "pick")
        forged = forge(answer, pick, retargeted(pick, theirs))
        handle = await t.bea.click(answer, forged)
        replies = await handle.wait_for_replies(1, timeout=60)
        assert replies[0].ephemeral and "not one of your units" in replies[0].content
        assert shown_unit(answer) == mine
