"""One panel message for the units of a player that may act now: by DM when the phase opens, and from
``/orders`` (DMs closed), one message whose first row picks the unit shown, edited in place on each pick and each
Submit."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from bot.outbox import player_key
from bot.phase_gate import CONFIRM_WITHIN_MS
from bot.service.base import utc_now
from tests.e2e_helpers import (
    E2E_BACKENDS,
    Table,
    button_id,
    draft_in,
    forge,
    phase_seen,
    retargeted,
    room,
    start_bot,
    wait_phase_after,
)
from tests.fakediscord import Message, Person

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
    return await exo_ambush_two_ships(t, t.bea)


async def exo_ambush_two_ships(t: Table, holder: Person) -> int:
    """exo-ambush with ``holder`` on the red side's two ships and the other player on the rest; Bea's DMs are
    closed."""
    t.bea.close_dms()
    other = t.ana if holder is t.bea else t.bea
    options = {"ruleset": "exo", "scenario": "exo-ambush"}
    await (await t.director.run_command(t.channel, "encounter new", options)).final_response()
    meta = await t.bot.service.storage.active_encounter_in_channel(t.guild_id, t.channel.id)
    assert meta is not None
    state = (await t.bot.service.read(meta.id)).state
    for unit in state.units.values():
        person = holder if unit.id in SHIPS else other
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


def dms_from_the_bot(t: Table, person: Person) -> list[Message]:
    """Every message the bot created in ``person``'s DMs (each one notified them), never edits."""
    channel = t.fd.world.dm_channels.get(person.id)
    return [m for m in channel.history if m.author.bot] if channel is not None else []


async def test_exo_1_a_player_with_two_ships_gets_one_dm_per_phase_and_submits_both_from_it(
    tmp_path: Path,
) -> None:
    """EXO-1 (every ship gives orders each phase at once): Ana holds two ships. Each phase she gets one DM for
    both, a picker on its first row; she submits the first ship, picks the second and submits it from the same
    message (acknowledged in its text, each ship ticked); the next phase brings one DM for both again. Before: a DM
    per ship and phase, and a private acknowledgement per Submit."""
    async with room(tmp_path) as t:
        enc = await exo_ambush_two_ships(t, t.ana)
        seen = await t.bot.service.read(enc)
        assert set(SHIPS) <= set(t.bot.service.owing(seen.state))
        names = {u: seen.state.units[u].name for u in SHIPS}

        def panel_of(phase_no: int) -> Message | None:
            for m in reversed(t.ana.dms()):
                if set(picker(m)) == set(SHIPS) and (d := draft_in(m)) is not None and d[0] == phase_no:
                    return m
            return None

        dm = await t.fd.wait_for(lambda: panel_of(seen.phase_no), what="Ana's one panel DM", timeout=60)
        await t.bot.settle()
        assert len(dms_from_the_bot(t, t.ana)) == 1, [m.embeds for m in dms_from_the_bot(t, t.ana)]
        assert not any(label.endswith("✅") for label in picker(dm).values())
        first = shown_unit(dm)
        other = next(u for u in SHIPS if u != first)

        async def submit(unit: str) -> None:
            handle = await t.ana.click(dm, button_id(dm, unit, "submit"))
            await handle.acknowledged()
            await t.fd.wait_for(
                lambda: picker(dm)[unit].endswith("✅") and names[unit] in dm.content,
                what=f"{unit}'s order acknowledged in the message",
            )
            assert not handle.replies(), "no private message of its own"

        await submit(first)
        assert not picker(dm)[other].endswith("✅")
        await (await t.ana.click(dm, button_id(dm, other, "pick"))).acknowledged()
        await t.fd.wait_for(lambda: shown_unit(dm) == other, what="the picked ship's controls")
        await submit(other)
        await t.bot.settle()
        stored = await t.bot.service.storage.orders_of(enc, seen.phase_no, t.ana.id)
        assert {o.unit_id for o in stored} == set(SHIPS)
        # Bea's ships: the director gives their stand-in orders; the next phase opens
        t.fd.advance_clock(CONFIRM_WITHIN_MS + 1)
        await (await t.director.run_command(t.channel, "director resolve")).final_response(timeout=60)
        await wait_phase_after(t, enc, seen.phase_no)
        await t.bot.settle()
        now = await t.bot.service.read(enc)
        assert set(SHIPS) <= set(t.bot.service.owing(now.state)), "both ships give orders again"
        again = await t.fd.wait_for(lambda: panel_of(now.phase_no), what="the next phase's panel", timeout=60)
        # a new turn after the other side's: a new DM (it notifies her), one for both ships again
        assert not any(label.endswith("✅") for label in picker(again).values()) and not again.content
        assert len(dms_from_the_bot(t, t.ana)) == 2, "one DM for both ships per phase"


async def test_a_player_missing_two_ships_gets_one_reminder_naming_both(tmp_path: Path) -> None:
    """The deadline is near and both of Ana's ships still owe orders: one reminder DM names both, not one per
    ship."""
    async with room(tmp_path) as t:
        enc = await exo_ambush_two_ships(t, t.ana)
        await phase_seen(t)
        await (await t.director.run_command(t.channel, "director deadline", {"minutes": 10})).final_response()
        await t.bot.settle()
        assert t.bot.scheduler is not None
        t.bot.service.clock = lambda: utc_now() + timedelta(minutes=8)  # 80 % of the way: reminder time
        assert await t.bot.scheduler.remind() == 1
        await t.bot.settle()
        reminders = [m.content for m in t.ana.dms() if m.content.startswith("⏰")]
        names = [(await t.bot.service.read(enc)).state.units[u].name for u in SHIPS]
        assert len(reminders) == 1 and all(n in reminders[0] for n in names), reminders


@pytest.mark.parametrize("backend", E2E_BACKENDS)
async def test_a_restart_after_a_crash_sends_a_players_one_message_once(tmp_path: Path, backend: str) -> None:
    """The bot dies while sending Ana's one message for her two ships: after the message was recorded under her
    key but before under her ships', the restarted bot sends nothing (neither the message nor a panel per ship);
    after she was claimed but before anything went out (nothing recorded), it sends exactly one message, and a
    second restart nothing more."""
    async with room(tmp_path, backend=backend) as t:
        enc = await exo_ambush_two_ships(t, t.ana)
        await t.bot.settle()
        phase = (await t.bot.service.read(enc)).phase_no
        assert len(dms_from_the_bot(t, t.ana)) == 1

        async def forget(key: str) -> None:  # what the dead process never recorded
            assert await t.bot.service.storage.delete_message_ref(enc, "panel", key)

        async def restart() -> int:
            await t.bot.close()
            t.bot = await start_bot(t.fd, t.db, t.guild_id)
            await t.bot.settle()
            return len(dms_from_the_bot(t, t.ana))

        for ship in SHIPS:
            await forget(f"{phase}:{ship}")
        assert await restart() == 1, "recorded under her key: never sent again, whole or per ship"
        await forget(player_key(phase, t.ana.id))
        assert await restart() == 2, "claimed, never sent: sent once"
        newest = t.ana.dms()[-1]
        assert set(picker(newest)) == set(SHIPS) and (d := draft_in(newest)) is not None and d[0] == phase
        assert await restart() == 2


async def test_a_player_with_several_units_and_closed_dms_is_named_once_in_the_channel(
    tmp_path: Path,
) -> None:
    """SK-1.1: Bea, DMs closed, plays the four Tyranos and the chit drawn first brings several of them: the channel
    tells her once that her DMs are closed (the status names who is missing from then on), not once per
    character, and still once after more steps. Before: a notice per character."""
    async with room(tmp_path) as t:
        t.bea.close_dms()
        options = {"ruleset": "skirmish", "scenario": "skirmish-corridor"}
        await (await t.director.run_command(t.channel, "encounter new", options)).final_response()
        for person, side in ((t.ana, "rfp"), (t.bea, "tyr")):
            await (await person.run_command(t.channel, "encounter join", {"side": side})).final_response()
        await (await t.director.run_command(t.channel, "encounter start")).final_response()
        await t.bot.settle()
        meta = await t.bot.service.storage.active_encounter_in_channel(t.guild_id, t.channel.id)
        assert meta is not None
        seen = await t.bot.service.read(meta.id)
        hers = set(await t.bot.service.my_units(meta.id, t.bea.id))
        assert len(hers & set(t.bot.service.owing(seen.state))) >= 2, (
            "several of Bea's characters are awaited"
        )

        def notices() -> list[Message]:
            return [
                m
                for m in t.channel.history
                if m.author.bot and "could not send you a DM" in m.content and f"<@{t.bea.id}>" in m.content
            ]

        assert len(notices()) == 1, [m.content for m in notices()]
        for _ in range(3):  # more steps, some of them Bea's
            seen = await t.bot.service.read(meta.id)
            t.fd.advance_clock(CONFIRM_WITHIN_MS + 1)
            await (await t.director.run_command(t.channel, "director resolve")).final_response(timeout=60)
            await wait_phase_after(t, meta.id, seen.phase_no)
            await t.bot.settle()
        assert len(notices()) == 1, [m.content for m in notices()]
