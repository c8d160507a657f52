"""Nobody waits on nobody, end to end through the local Discord: a side is seated in one command (hidden units
included, never named in public), a unit nobody plays is the director's to play (its panel by DM, the status
naming the director, the director's one-click choices at the start), and the start shows the field before the
first order in every ruleset."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path

import pytest

from bot.service.base import utc_now
from bot.service.seating import SEAT_PLAYER, SEAT_STAND_IN
from rules.registry import get_ruleset, ruleset_for
from rules.ruleset import OrderMode
from tests.e2e_helpers import (
    Table,
    act_on_panel,
    duel_table,
    encounter_of,
    open_a_combat,
    open_duel,
    panel_for_phase,
    room,
    wait_phase_after,
    wait_turn_after,
)
from tests.fakediscord import Message, Person

pytestmark = pytest.mark.slow


@pytest.fixture
async def table(tmp_path: Path) -> AsyncIterator[Table]:
    async with room(tmp_path, lang="es", channel_name="mesa") as t:
        yield t


def public_text(t: Table) -> str:
    return json.dumps(
        [{"c": m.content, "e": m.embeds, "k": m.components} for m in t.channel.messages() if not m.deleted],
        ensure_ascii=False,
    )


async def new_encounter(t: Table, scenario: str) -> int:
    ruleset = scenario.split("-")[0]
    await (
        await t.director.run_command(t.channel, "encounter new", {"ruleset": ruleset, "scenario": scenario})
    ).final_response()
    return (await encounter_of(t)).id


async def start(t: Table) -> Message:
    return await (await t.director.run_command(t.channel, "encounter start")).final_response(timeout=30)


def seat_menus(person: Person) -> list[Message]:
    return [m for m in person.dms() if any(cid.startswith("hexd:seat:") for cid in m.custom_ids())]


# --- item 1: a side in one command; hidden units joined by their own side only ------------------------------
async def test_join_side_takes_all_four_corridor_units_and_a_repeated_join_posts_nothing(
    table: Table,
) -> None:
    t = table
    enc = await new_encounter(t, "skirmish-corridor")
    joined = await (await t.ana.run_command(t.channel, "encounter join", {"side": "rfp"})).final_response()
    assert not joined.ephemeral
    assert joined.content == f"<@{t.ana.id}> lleva a Veddio, Lana, Kira y Dax (RFP)."
    assert sorted(await t.bot.service.my_units(enc, t.ana.id)) == ["dax", "kira", "lana", "veddio"]
    posted = len(t.channel.messages())
    for options in ({"side": "rfp"}, {}, {"unit": "lana"}):
        again = await (await t.ana.run_command(t.channel, "encounter join", options)).final_response()
        assert again.ephemeral and again.content.startswith("Ya llevas"), again.content
    await t.bot.settle()
    assert len(t.channel.messages()) == posted, "a join that takes nothing new posts nothing"


async def test_night_side_joins_its_hidden_unit_and_gets_karas_panel_when_her_chit_comes_up(
    table: Table,
) -> None:
    """FOG-1, NGT-9: Kara is hidden from RFP, not from her own side."""
    t = table
    enc = await new_encounter(t, "skirmish-night")
    await (await t.ana.run_command(t.channel, "encounter join", {"side": "rfp"})).final_response()
    taken = await (await t.bea.run_command(t.channel, "encounter join", {"unit": "tyrano"})).final_response()
    assert taken.content.startswith(f"<@{t.bea.id}> ") and "Tyranos" in taken.content  # night: maybe unnamed
    offered_ana = await t.ana.autocomplete(t.channel, "encounter join", "unit", "")
    offered_bea = await t.bea.autocomplete(t.channel, "encounter join", "unit", "")
    assert "kara" not in [c["value"] for c in offered_ana], "typing reveals nothing to the other side"
    assert "kara" in [c["value"] for c in offered_bea], "a side sees its own units"
    refused = await (await t.ana.run_command(t.channel, "encounter join", {"unit": "kara"})).final_response()
    assert refused.ephemeral and "kara" in refused.content
    handle = await t.bea.run_command(t.channel, "encounter join", {"unit": "kara"})
    public = await handle.final_response()
    assert public.content == f"<@{t.bea.id}> se une a Tyranos.", "the public line never names a hidden unit"
    (private,) = await handle.wait_for_followups(1)
    assert private.ephemeral and "Kara" in private.content
    await start(t)
    for _ in range(
        30
    ):  # the others' activations end by the director's hand (SK-1.1 stand-in) until Kara acts
        seen = await t.bot.service.read(enc)
        if "kara" in ruleset_for(seen.state).awaiting(seen.state):
            break
        await t.bot.resolve_and_announce(enc, expected_phase_no=seen.phase_no, forced=True)
        await wait_turn_after(t, enc, seen.phase_no)
    else:
        raise AssertionError("Kara's chit never came up")
    panel = await panel_for_phase(t.fd, t.bea, "kara", seen.phase_no)
    assert panel.custom_ids()
    await t.bot.settle()
    assert "Kara" not in public_text(t), "the channel never names Kara, not even in the status"
    assert any(
        f"<@{t.bea.id}>" in m.content
        for m in t.channel.messages()
        if not m.deleted and ("Esperando a" in m.content or "Ahora actúa" in m.content)
    ), "the status says who must act"


# --- items 2 and 3: the director plays what nobody plays, and the status says so -------------------------------
async def test_an_unowned_active_unit_brings_the_director_its_panel_and_the_status_names_the_director(
    table: Table,
) -> None:
    t = table
    enc = await new_encounter(t, "skirmish-corridor")
    await (await t.ana.run_command(t.channel, "encounter join", {"side": "rfp"})).final_response()
    await start(t)
    seen = await t.bot.service.read(enc)
    acting = ruleset_for(seen.state).awaiting(seen.state)
    assert acting and all(seen.state.units[u].side == "tyr" for u in acting), (
        "the seed's first chit is Tyranos'"
    )
    unit = acting[0]
    # the panel comes to the director by DM as it would to a player (within 2 s of the start's answer)
    panel = await t.fd.wait_for(
        lambda: next(
            (m for m in reversed(t.director.dms()) if any(f":unit:{unit}:" in c for c in m.custom_ids())),
            None,
        ),
        timeout=2,
        what="the director's panel",
    )
    await t.bot.settle()
    status = next(m for m in reversed(t.channel.messages()) if "Ahora actúa" in m.content)
    name = seen.state.units[unit].name
    assert f"{name} (el director)" in status.content, status.content
    assert "Faltan órdenes." not in public_text(t)
    # the start told the director, privately, which units nobody plays, with one-click choices
    menus = seat_menus(t.director)
    assert menus and "hexd:seat:" not in public_text(t)
    offered = [
        cid.rsplit(":", 1)[-1] for m in menus for cid in m.custom_ids() if cid.startswith("hexd:seat:")
    ]
    assert sorted(offered) == ["brak", "kara", "tyrano", "zug"]
    # the director acts on the panel received: the game goes on
    await act_on_panel(t, t.director, panel, unit)
    await wait_turn_after(t, enc, seen.phase_no)
    assert unit not in ruleset_for((await t.bot.service.read(enc)).state).awaiting(
        (await t.bot.service.read(enc)).state
    )


async def test_a_latecomer_takes_over_what_the_director_was_playing_with_the_open_panel(table: Table) -> None:
    t = table
    enc = await new_encounter(t, "skirmish-corridor")
    await (await t.ana.run_command(t.channel, "encounter join", {"side": "rfp"})).final_response()
    await start(t)
    await t.bot.settle()
    seen = await t.bot.service.read(enc)
    unit = ruleset_for(seen.state).awaiting(seen.state)[0]
    await panel_for_phase(t.fd, t.director, unit, seen.phase_no)  # the director stands in
    joined = await (await t.bea.run_command(t.channel, "encounter join", {"side": "tyr"})).final_response()
    assert joined.content.startswith(f"<@{t.bea.id}> lleva a ")
    panel = await panel_for_phase(t.fd, t.bea, unit, seen.phase_no)  # the same step, now Bea's
    await t.bot.settle()
    status = next(m for m in reversed(t.channel.messages()) if "Ahora actúa" in m.content)
    assert f"(<@{t.bea.id}>)" in status.content and "el director" not in status.content, status.content
    await act_on_panel(t, t.bea, panel, unit)
    await wait_turn_after(t, enc, seen.phase_no)


async def test_a_player_who_leaves_mid_step_hands_the_open_panel_to_the_director(table: Table) -> None:
    t = table
    enc = await new_encounter(t, "skirmish-corridor")
    await (await t.ana.run_command(t.channel, "encounter join", {"side": "rfp"})).final_response()
    await (await t.bea.run_command(t.channel, "encounter join", {"side": "tyr"})).final_response()
    await start(t)
    seen = await t.bot.service.read(enc)
    unit = ruleset_for(seen.state).awaiting(seen.state)[0]
    await panel_for_phase(t.fd, t.bea, unit, seen.phase_no)
    await (await t.bea.run_command(t.channel, "encounter leave")).final_response()
    panel = await panel_for_phase(t.fd, t.director, unit, seen.phase_no)
    await t.bot.settle()
    status = next(m for m in reversed(t.channel.messages()) if "Ahora actúa" in m.content)
    assert "(el director)" in status.content and f"<@{t.bea.id}>" not in status.content, status.content
    await act_on_panel(t, t.director, panel, unit)
    await wait_turn_after(t, enc, seen.phase_no)


async def test_the_directors_one_click_choices_seat_a_member_and_leave_a_unit_to_its_stand_in_order(
    table: Table,
) -> None:
    """SK-1.1: a unit left to its stand-in order ends its activation by itself whenever its chit comes up."""
    t = table
    enc = await new_encounter(t, "skirmish-corridor")
    await (await t.ana.run_command(t.channel, "encounter join", {"side": "rfp"})).final_response()
    await (await t.bea.run_command(t.channel, "encounter join", {"unit": "tyrano"})).final_response()
    await start(t)
    await t.bot.settle()
    (menu,) = seat_menus(t.director)
    seat = {cid.rsplit(":", 1)[-1]: cid for cid in menu.custom_ids() if cid.startswith("hexd:seat:")}
    assert sorted(seat) == ["brak", "kara", "zug"]
    chosen = await t.director.select(menu, seat["brak"], [f"{SEAT_PLAYER}{t.bea.id}"])
    await chosen.acknowledged()
    for unit in ("kara", "zug"):
        await (await t.director.select(menu, seat[unit], [SEAT_STAND_IN])).acknowledged()
    await t.bot.settle()
    assert sorted(await t.bot.service.my_units(enc, t.bea.id)) == ["brak", "tyrano"]
    seen = await t.bot.service.read(enc)
    assert not {"kara", "zug"} & set(ruleset_for(seen.state).awaiting(seen.state)), (
        "the stand-in units' activation went on by itself"
    )
    assert not seat_menus(t.ana) and not seat_menus(t.bea), "the menu is the director's alone"


# --- item 4: a game never waits forever ----------------------------------------------------------------------
async def test_a_phase_without_deadline_reminds_its_director_once_after_the_idle_interval(
    tmp_path: Path,
) -> None:
    """No deadline, nobody acting for the server's interval (12 h unless /settings says otherwise): the director
    gets one private reminder with a button, the players still missing their reminder DM; nothing resolves by
    itself, and the button resolves with default orders."""
    async with duel_table(tmp_path) as t:
        enc = await open_duel(t)  # Bea's DMs are closed
        await t.bot.settle()
        assert t.bot.scheduler is not None
        phase_no = (await t.bot.service.read(enc)).phase_no
        t.bot.service.clock = lambda: utc_now() + timedelta(hours=11)
        assert await t.bot.scheduler.remind_idle() == 0, "not yet: the default interval is 12 h"
        t.bot.service.clock = lambda: utc_now() + timedelta(hours=13)
        assert await t.bot.scheduler.remind_idle() == 1
        await t.bot.settle()
        (reminder,) = [m for m in t.director.dms() if m.content.startswith("⏰")]
        button = next(cid for cid in reminder.custom_ids() if cid.startswith("hexd:idle:"))
        assert "Resolve with default orders" in json.dumps(reminder.components)
        assert [m.content for m in t.ana.dms() if m.content.startswith("⏰") and "Halcón" in m.content]
        assert await t.bot.scheduler.remind_idle() == 0, "one reminder per phase"
        assert (await t.bot.service.read(enc)).phase_no == phase_no, "nothing resolves by itself"
        assert not [m for m in t.channel.messages() if m.content.startswith("⏰")], (
            "the channel hears nothing"
        )
        pressed = await t.director.click(reminder, button)
        answer = await pressed.final_response(timeout=60)
        assert "resolved with default orders" in answer.content
        await wait_phase_after(t, enc, phase_no)
        t.bot.service.clock = utc_now


async def test_the_idle_interval_is_a_server_setting(tmp_path: Path) -> None:
    async with duel_table(tmp_path) as t:
        enc = await open_duel(t)
        await t.bot.settle()
        assert t.bot.scheduler is not None
        await t.bot.service.change_guild_settings(t.guild_id, idle_reminder_hours=2)
        t.bot.service.clock = lambda: utc_now() + timedelta(hours=3)
        assert await t.bot.scheduler.remind_idle() == 1
        assert (await t.bot.service.read(enc)).state.round == 1
        t.bot.service.clock = utc_now


# --- item 6: the field before the first order ---------------------------------------------------------------
async def test_the_exo_start_posts_the_opening_board_before_any_order(table: Table) -> None:
    t = table
    enc = await new_encounter(t, "exo-duel")
    for person in (t.ana, t.bea):
        await (await person.run_command(t.channel, "encounter join")).final_response()
    await start(t)
    await t.bot.settle()
    opening = [m for m in t.channel.messages() if m.attachments and "al empezar" in json.dumps(m.embeds)]
    assert len(opening) == 1 and opening[0].attachments[0].read()[:4] == b"\x89PNG"
    seen = await t.bot.service.read(enc)
    assert not await t.bot.service.storage.submitted_units(enc, seen.phase_no), "no order given yet"
    first_step = [m for m in t.channel.messages() if m.attachments and m.id != opening[0].id]
    assert all(m.id > opening[0].id for m in first_step), "the opening board comes first"


# --- the contract: every ruleset and layer, one unit nobody plays -----------------------------------------------
CONTRACT = (
    "exo-ambush",
    "mech-duel",
    "mech-night",
    "ocs-gazala",
    "pbw-brawl",
    "skirmish-corridor",
    "skirmish-night",
)


@pytest.mark.parametrize("scenario", CONTRACT)
async def test_every_ruleset_goes_on_once_the_director_acts_on_the_panel_it_received(
    table: Table, scenario: str
) -> None:
    t = table
    enc = await new_encounter(t, scenario)
    unplayed = [u.id for u in await t.bot.service.unplayed(enc)]
    reading = await t.bot.service.read(enc)
    for unit in unplayed[1:]:  # Ana plays everything but one unit
        await t.bot.service.storage.add_participant(
            enc, t.ana.id, "player", reading.state.units[unit].side, unit
        )
    alone = unplayed[0]
    await start(t)
    if ruleset_for(reading.state).order_mode is OrderMode.DIRECTOR:
        # a director-run procedure (ocs) asks a side only once a combat is open: the director opens one first
        await open_a_combat(t, enc)
    for _ in range(40):
        seen = await t.bot.service.read(enc)
        status = await t.bot.service.status(enc)
        mine = [m for m in status.missing if m.director]
        if mine:
            assert [m.unit for m in mine] == [alone] and mine[0].user_id == t.director.id
            break
        for missing in status.missing:  # Ana's turns: she acts on her own panels
            panel = await panel_for_phase(t.fd, t.ana, missing.unit, seen.phase_no)
            await act_on_panel(t, t.ana, panel, missing.unit)
        await wait_turn_after(t, enc, seen.phase_no)
    else:
        raise AssertionError(f"{alone} was never awaited")
    panel = await panel_for_phase(t.fd, t.director, alone, seen.phase_no)
    for missing in status.missing:
        if not missing.director:
            await act_on_panel(
                t, t.ana, await panel_for_phase(t.fd, t.ana, missing.unit, seen.phase_no), missing.unit
            )
    await act_on_panel(t, t.director, panel, alone)
    await wait_turn_after(t, enc, seen.phase_no)
    after = await t.bot.service.read(enc)
    assert after.phase_no > seen.phase_no and get_ruleset(after.state.ruleset).id
