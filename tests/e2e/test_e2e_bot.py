"""The bot end to end: the real HexBot and the unmodified discord.py client against tests/fakediscord.

A director and two players play the bundled exo duel in a channel: slash commands, secret orders by DM buttons,
a player with closed DMs on ephemeral ``/orders``, board images in the channel after every phase, a director
override undone, the bot restarted mid-phase with an acknowledged order intact, and a winner announced. Then the
privacy and permission checks: nothing in the channel reveals an order before resolution, every ``/director``
command refuses a player; and the Spanish locale. (Forged custom ids: tests/e2e/test_e2e_forged_ids.py.)
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from bot.storage import EncounterEndedError
from data.i18n import t as t_
from tests.e2e_helpers import (
    Table,
    button_id,
    create_from_file,
    current_panel_dm,
    draft_in,
    duel_ready_to_start,
    encounter_of,
    everything_public,
    fill_and_submit,
    open_duel,
    orders_panel,
    play_phase,
    public_board,
    start_bot,
    step_of,
    wait_phase_after,
)
from tests.fakediscord import FakeDiscord, Message
from tests.fakediscord.limits import FLAG_LOADING
from tests.paths import ROOT

pytestmark = pytest.mark.slow


async def test_a_whole_exo_duel_in_a_channel(table: Table) -> None:
    t = table
    enc = await open_duel(t)
    # closed DMs: the channel tells Bea (mention only) to use /orders
    await t.fd.wait_for(
        lambda: any(f"<@{t.bea.id}>" in m.content and "/orders" in m.content for m in t.channel.messages()),
        what="the closed-DMs notice",
    )
    status = await t.bot.service.status(enc)
    assert {m.unit for m in status.missing} == {"halcon", "pirata"}

    # round 1: Ana by DM buttons, then nothing about her order may be visible in the channel
    public_before = await public_board(t)
    panel = await current_panel_dm(t, t.ana, "halcon", status.phase_no)
    assert step_of(panel) == "orders" and panel.embeds and panel.attachments  # private preview image
    assert any(cid.endswith(":halcon:stations") for cid in panel.custom_ids()), "station changes (EXO-6.5)"
    ack = await fill_and_submit(t.fd, t.ana, panel, "halcon", moves="D", fire=2)
    # EXO-2.4: secret simultaneous orders may change until the phase resolves: the order mode's words
    assert ack.ephemeral and ack.content == t_("orders.received", "en", unit="Halcón"), ack.content
    assert panel.embeds[0]["footer"]["text"] == t_("panel.submitted", "en")
    leaked = everything_public(t.channel)
    for secret in ("gunner1", "APt#1", "hexd:draft", "→ Pirata"):
        assert secret not in leaked, f"{secret!r} leaked into the channel before resolution"
    choices = await t.bea.autocomplete(t.channel, "unit info", "unit", "")
    assert not any(secret in json.dumps(choices) for secret in ("gunner1", "APt#1"))
    assert await public_board(t) == public_before, "the public board image changed before resolution"
    status_msg = next(m for m in t.channel.messages() if "Waiting for orders" in m.content)
    await t.fd.wait_for(
        lambda: f"<@{t.ana.id}>" not in status_msg.content, what="the status message to drop Ana"
    )
    assert "Pirata" in status_msg.content and "Halcón" not in status_msg.content

    images_before = sum(len(m.attachments) for m in t.channel.messages())
    panel_b = await orders_panel(t, t.bea)
    await fill_and_submit(t.fd, t.bea, panel_b, "pirata", moves="I", fire=2)
    await wait_phase_after(t, enc, status.phase_no)
    await t.fd.wait_for(
        lambda: sum(len(m.attachments) for m in t.channel.messages()) >= images_before + 2,
        what="board images of the resolved phases",
        timeout=60,
    )
    board = next(m for m in reversed(t.channel.messages()) if m.attachments)
    assert board.attachments[0].read()[:8] == b"\x89PNG\r\n\x1a\n"
    account = everything_public(t.channel)
    assert "EXO-3.4" in account or "EXO-4.1" in account  # rolls shown with their rule ids

    # the director overrides a position and undoes it; both are told in the channel
    _, before, _ = await t.bot.service.load(enc)
    done = await (
        await t.director.run_command(t.channel, "director move", {"unit": "halcon", "hex": "0101"})
    ).response()
    assert done is not None and "0101" in done.content
    _, moved, _ = await t.bot.service.load(enc)
    assert moved.units["halcon"].at is not None and moved.units["halcon"].at.label == "0101"
    undone = await (await t.director.run_command(t.channel, "director undo")).final_response()
    assert undone.content.startswith("🎬 Undone: ") and "0101" in undone.content, undone.content
    _, after, _ = await t.bot.service.load(enc)
    assert after.units["halcon"].at == before.units["halcon"].at

    # round 2: Ana's order is acknowledged, then the bot restarts mid-phase
    status = await t.bot.service.status(enc)
    panel = await current_panel_dm(t, t.ana, "halcon", status.phase_no)
    await fill_and_submit(t.fd, t.ana, panel, "halcon", moves="A", fire=2)
    await t.bot.close()
    t.bot = await start_bot(t.fd, t.db, t.guild_id)
    status = await t.bot.service.status(enc)
    assert [m.unit for m in status.missing] == ["pirata"], "Ana's acknowledged order was lost in the restart"
    # the DM panel from before the restart still works (DynamicItem reloads from storage)
    before_click = draft_in(panel)
    click = await t.ana.click(panel, button_id(panel, "halcon", "back"))
    await click.acknowledged()
    await t.fd.wait_for(
        lambda: draft_in(panel) != before_click, what="the old panel to answer after the restart"
    )
    await play_phase(t, enc, bea_moves="D")
    await wait_phase_after(t, enc, status.phase_no)
    locked = [e for e in await t.bot.service.storage.events(enc, types=["OrdersLocked"])]
    assert {e.payload["event"]["unit"] for e in locked[-2:]} == {"halcon", "pirata"}

    # play on until one side wins
    asked_repairs = False
    for _ in range(60):  # phases that wait for someone: crew rolls, orders, decisions, repairs (declined)
        seen = await t.bot.service.read(enc)
        if seen.state.over:
            break
        asked_repairs = asked_repairs or seen.state.phase == "5"
        await play_phase(t, enc)
        await wait_phase_after(t, enc, seen.phase_no)
    assert asked_repairs, "a damaged ship's crew was asked for its repairs in phase 5 (EXO-6.1)"
    for _ in range(3000):  # the status follows the last commit in its own transaction: poll, not timing
        if (await t.bot.service.storage.get_encounter(enc)).status == "ended":
            break
        await asyncio.sleep(0.02)
    assert (await t.bot.service.storage.get_encounter(enc)).status == "ended"
    winner = await t.fd.wait_for(lambda: next((m for m in t.channel.messages() if "🏁" in m.content), None))
    assert "Corsairs" in winner.content or "Patrol" in winner.content  # the English channel


async def test_every_director_command_refuses_a_player(table: Table) -> None:
    t = table
    await open_duel(t)
    commands: list[tuple[str, dict[str, Any]]] = [
        ("director move", {"unit": "halcon", "hex": "0101"}),
        ("director set", {"unit": "halcon", "stat": "armor", "value": "1"}),
        ("director damage", {"unit": "pirata", "amount": "3"}),
        ("director add-unit", {"id": "x", "side": "red", "hex": "0202", "like": "halcon"}),
        ("director remove-unit", {"unit": "pirata"}),
        ("director reveal", {"unit": "halcon"}),
        ("director assign", {"unit": "pirata", "user": t.ana}),
        ("director kick", {"user": t.bea}),
        ("director cohost", {"user": t.ana}),
        ("director resolve", {}),
        ("director deadline", {"minutes": 5}),
        ("director pause", {}),
        ("director resume", {}),
        ("director undo", {}),
        ("director review", {"on": True}),
        ("director reveal-at-end", {"on": True}),
        ("director override-roll", {"index": 0, "dice": "1,1,1"}),
        ("director terrain", {"hex": "0101", "terrain": "clear"}),
        ("director ruling", {"kind": "collision", "details": "halcon pirata"}),
        ("director option", {"name": "secret_declarations", "value": True}),
        ("director spectator-delay", {"rounds": 1}),
    ]
    registered = next(c for c in t.fd.commands.list(t.guild_id) if c["name"] == "director")
    assert {f"director {o['name']}" for o in registered["options"]} == {name for name, _ in commands}
    for name, options in commands:
        reply = await (await t.ana.run_command(t.channel, name, options)).response()
        assert reply is not None and reply.ephemeral, name
        assert "Only the encounter's directors" in reply.content, f"{name}: {reply.content}"
    _, state, _ = await t.bot.service.load((await encounter_of(t)).id)
    assert state.units["halcon"].at is not None and state.units["halcon"].at.label != "0101"


async def test_spanish_players_read_spanish_and_commands_are_localized(table: Table) -> None:
    t = table
    await open_duel(t)
    guild = t.fd.world.guilds[t.guild_id]
    commands = {c["name"]: c for c in t.fd.registered_commands(guild)}
    assert commands["encounter"]["name_localizations"]["es-ES"] == "encuentro"
    assert commands["orders"]["name_localizations"]["es-ES"] == "órdenes"
    help_es = await (await t.bea.run_command(t.channel, "help")).response()
    assert help_es is not None and help_es.embeds[1]["title"] == "Tu primer encuentro"
    help_en = await (await t.ana.run_command(t.channel, "help")).response()
    assert help_en is not None and help_en.embeds[1]["title"] == "Your first encounter"
    # a public roll speaks the channel's language (this table's is English), whoever's client rolls it
    roll = await (await t.bea.run_command(t.channel, "roll", {"expression": "sombra 30"})).response()
    assert roll is not None and not roll.ephemeral and "needs ≤ 30" in roll.content, roll and roll.content


async def test_autocomplete_and_unit_info_never_show_a_hidden_unit(table: Table) -> None:
    t = table
    text = (ROOT / "data" / "scenarios" / "exo-duel.toml").read_text(encoding="utf-8")
    text = text.replace('id = "roca"', 'id = "espia"\nhidden = true').replace(
        'name = "Roca"', 'name = "Espía"'
    )
    text = text.replace('kind = "asteroid"\n', "")
    checked, created = await create_from_file(t.director, t.channel, "exo", "duel.toml", text)
    assert "Halcón" in created.content and "Espía" not in created.content + checked.content
    offered = await t.ana.autocomplete(t.channel, "encounter join", "unit", "")
    assert {c["value"] for c in offered} == {"halcon", "pirata"}
    await (await t.ana.run_command(t.channel, "encounter join")).final_response()
    seen = await t.ana.autocomplete(t.channel, "unit info", "unit", "")
    assert "espia" not in {c["value"] for c in seen}
    info = await (await t.ana.run_command(t.channel, "unit info", {"unit": "espia"})).response()
    assert info is not None and info.ephemeral and "no unit called" in info.content
    director_view = await t.director.autocomplete(t.channel, "unit info", "unit", "")
    assert "espia" in {c["value"] for c in director_view}


async def test_a_broken_scenario_file_is_refused_with_its_lines(table: Table) -> None:
    t = table
    bad = b'ruleset = "exo"\nname = "x"\n[[units]]\nid = "a"\nside = "nobody"\nat = 12\n'
    reply = await (
        await t.director.run_command(
            t.channel, "encounter new", {"ruleset": "exo", "file": ("bad.toml", bad)}
        )
    ).final_response()
    assert "line 5" in reply.content or "line 6" in reply.content


async def test_the_channel_tools_status_board_arcs_log_export_import_end(table: Table) -> None:
    t = table
    enc = await open_duel(t)
    status = await (await t.ana.run_command(t.channel, "encounter status")).response()
    assert status is not None and status.ephemeral and "Waiting for orders" in status.content
    board = await (await t.ana.run_command(t.channel, "encounter board", {"view": "mine"})).final_response()
    assert board.ephemeral and board.attachments[0].read()[:4] == b"\x89PNG"
    refused = await (
        await t.ana.run_command(t.channel, "encounter board", {"view": "director"})
    ).final_response()
    assert "Only the encounter's directors" in refused.content
    arcs = await (await t.ana.run_command(t.channel, "unit arcs", {"unit": "halcon"})).final_response()
    assert arcs.ephemeral and arcs.attachments and "Halcón" in arcs.content
    info = await (await t.ana.run_command(t.channel, "unit info", {"unit": "pirata"})).response()
    assert info is not None and info.embeds and "Pirata" in info.embeds[0]["title"]
    roll = await (await t.ana.run_command(t.channel, "roll", {"expression": "2d6+5 vs 15"})).response()
    assert roll is not None and "+5 = " in roll.content and "needs ≥ 15" in roll.content
    await play_phase(t, enc)
    log = await (await t.ana.run_command(t.channel, "encounter log", {"round": 1})).final_response(timeout=60)
    assert log.ephemeral and ("EXO-" in log.content or log.attachments)
    export = await (await t.director.run_command(t.channel, "encounter export")).final_response()
    blob = export.attachments[0].read()
    assert json.loads(blob)["format"] == "hexdirector-encounter"
    ended = await (await t.director.run_command(t.channel, "encounter end")).response()
    assert ended is not None and "has ended" in ended.content
    other = t.fd.world.guilds[t.guild_id].create_text_channel("again")
    imported = await (
        await t.director.run_command(other, "encounter import", {"file": ("duel.json", blob)})
    ).final_response()
    assert "is back" in imported.content
    # a broken file is refused by the worker that reads it, privately, and nothing is created
    tampered = blob.replace(b'"sha256"', b'"sha257"', 1)
    spare = t.fd.world.guilds[t.guild_id].create_text_channel("spare")
    for bad in (b"\xff not json", tampered):
        refused = await (
            await t.director.run_command(spare, "encounter import", {"file": ("bad.json", bad)})
        ).final_response()
        assert refused.ephemeral and "cannot be imported" in refused.content, refused.content
    assert await t.bot.service.storage.active_encounter_in_channel(t.guild_id, spare.id) is None


async def test_a_spanish_server_reads_the_channel_in_spanish(tmp_path: Path) -> None:
    async with FakeDiscord() as fd:
        guild = fd.create_guild("Mesa", locale="es-ES")
        channel = guild.create_text_channel("duelo")
        dora, ana, bea = (
            fd.create_user("dora", locale="es-ES"),
            fd.create_user("ana", locale="es-419"),
            fd.create_user("bea", locale="es-ES"),
        )
        for person in (dora, ana, bea):
            guild.add_member(person.user)
        bot = await start_bot(fd, f"sqlite:///{tmp_path / 'es.sqlite3'}", guild.id)
        try:
            t = Table(fd, bot, channel, dora, ana, bea, "", guild.id)
            created = await (
                await dora.run_command(channel, "encounter new", {"ruleset": "exo", "scenario": "exo-duel"})
            ).final_response()
            assert "está abierto" in created.content
            # the first encounter's guide reaches the director alone, in her language
            await fd.wait_for(
                lambda: any(
                    m.embeds and m.embeds[0].get("title") == "Tu primer encuentro"
                    for m in dora.ephemeral_messages(channel)
                ),
                what="the first-encounter tutorial in Spanish",
            )
            assert not any(m.embeds for m in channel.messages()), "the guide is not posted to the table"
            await (await ana.run_command(channel, "encounter join")).final_response()
            await (await bea.run_command(channel, "encounter join")).final_response()
            started = await (await dora.run_command(channel, "encounter start")).final_response()
            assert "¡Empieza" in started.content
            await fd.wait_for(lambda: any("Faltan órdenes de" in m.content for m in channel.messages()))
            enc = (await encounter_of(t)).id
            panel = await current_panel_dm(t, ana, "halcon", (await bot.service.status(enc)).phase_no)
            assert panel.embeds[0]["title"].endswith(
                "Ronda 1 · Fase 1 · Tripulación y órdenes"
            ) and "Enviar" in json.dumps(panel.components, ensure_ascii=False)
            await play_phase(t, enc, ana_moves="D", bea_moves="I")
            await fd.wait_for(
                lambda: any(
                    "Ronda 1 · Fase 2 · Combate" in str(e.get("title"))
                    for m in channel.messages()
                    for e in m.embeds
                ),
                what="a Spanish account of phase 2",
                timeout=60,
            )
        finally:
            await bot.close()


async def test_a_broken_cog_is_skipped_and_the_bot_stays_up(tmp_path: Path) -> None:
    from bot.process.client import EXTENSIONS

    async with FakeDiscord() as fd:
        guild = fd.create_guild("Wargames")
        channel = guild.create_text_channel("duel")
        ana = fd.create_user("ana")
        guild.add_member(ana.user)
        bot = await start_bot(
            fd, f"sqlite:///{tmp_path / 'b.sqlite3'}", guild.id, extensions=(*EXTENSIONS, "cogs.no_such_cog")
        )
        try:
            assert bot.failed_extensions == ["cogs.no_such_cog"]
            reply = await (await ana.run_command(channel, "help")).response()
            assert reply is not None and reply.embeds
        finally:
            await bot.close()


async def test_a_damaged_ships_crew_chooses_its_repairs_by_dm_after_the_damage(table: Table) -> None:
    """EXO-6.1 (seed: repairs come "tras comprobar si la nave sobrevive"): phase 5 asks the crew of a damaged
    ship on its DM panel; the repair it picks is rolled with its rule id, and only that ship is asked."""
    t = table
    enc = await open_duel(t)
    done = await (
        await t.director.run_command(
            t.channel, "director set", {"unit": "halcon", "stat": "engines", "value": "1"}
        )
    ).response()
    assert done is not None and not done.ephemeral, done.content if done else None
    for _ in range(12):
        seen = await t.bot.service.read(enc)
        if seen.state.phase == "5":
            break
        await play_phase(t, enc)
        await wait_phase_after(t, enc, seen.phase_no)
    seen = await t.bot.service.read(enc)
    assert seen.state.phase == "5"
    status = await t.bot.service.status(enc)
    assert [m.unit for m in status.missing] == ["halcon"], "only the damaged ship is asked"
    panel = await current_panel_dm(t, t.ana, "halcon", seen.phase_no)
    assert step_of(panel) == "repairs"
    assert "engine" in json.dumps(panel.custom_ids(), ensure_ascii=False)
    ack = await fill_and_submit(t.fd, t.ana, panel, "halcon", repair=True)
    assert "received" in ack.content
    await wait_phase_after(t, enc, seen.phase_no)
    tried = [e.payload["event"] for e in await t.bot.service.storage.events(enc, types=["RepairResolved"])]
    assert [(e["unit"], e["item"]) for e in tried] == [("halcon", "engines")]
    await t.bot.settle()
    assert "EXO-6.1" in everything_public(t.channel)


async def test_a_command_whose_answer_discord_refuses_asks_to_give_it_again(table: Table) -> None:
    """Found by bench/faults.py: a /encounter start whose acknowledgement Discord refused (a 429 without Via) was
    answered "something went wrong on our side, quote this id". It is Discord's refusal, and giving the command
    again is what helps: it says so, privately, and nothing started."""
    t = table
    await (
        await t.director.run_command(t.channel, "encounter new", {"ruleset": "exo", "scenario": "exo-duel"})
    ).final_response()
    await (await t.ana.run_command(t.channel, "encounter join")).final_response()
    t.fd.fail_next("POST", r"/interactions/\d+/[^/]+/callback", status=429, via=False)
    refused = await (await t.director.run_command(t.channel, "encounter start")).final_response()
    assert refused.ephemeral and refused.content == t_("errors.discord_busy", "en"), refused.content
    assert (await encounter_of(t)).status != "running"
    again = await (await t.director.run_command(t.channel, "encounter start")).final_response()
    assert "starts" in again.content


async def test_a_directors_undo_with_nothing_to_undo_is_refused_in_private(table: Table) -> None:
    """A director's own refusal stays private too: /director undo used to answer "thinking…" in the channel first,
    so "There is nothing to undo" then filled that public message for the whole table to read."""
    t = table
    await open_duel(t)
    for _ in range(10):  # the start and the phases that ran by themselves, then nothing
        reply = await (await t.director.run_command(t.channel, "director undo")).final_response()
        if "nothing to undo" in reply.content or "nada que deshacer" in reply.content:
            break
    else:
        raise AssertionError("undo never ran out")
    assert reply.ephemeral
    await t.bot.settle()
    assert not [m for m in t.channel.messages() if "nothing to undo" in m.content or "nada que" in m.content]


async def test_two_starts_at_once_start_the_game_once_and_refuse_the_other_in_private(table: Table) -> None:
    """A double tap on /encounter start (or two co-directors): both passed the check made before answering, and
    both announced the start. The start is now claimed under the encounter's lock; the one that loses is refused
    privately, even when it had already answered "thinking…" in the channel (the placeholder is taken away)."""
    t = table
    await duel_ready_to_start(t)
    first, second = await asyncio.gather(
        t.director.run_command(t.channel, "encounter start"),
        t.director.run_command(t.channel, "encounter start"),
    )
    for handle in (first, second):
        await handle.acknowledged()

    def refused() -> list[Message] | None:
        found = [m for m in t.channel.history if "already started" in m.content and not m.deleted]
        return found or None

    def announced() -> list[Message] | None:
        return [m for m in t.channel.messages() if "starts!" in m.content] or None

    refusals = await t.fd.world.wait_for(refused, timeout=10, what="the second start's refusal")
    await t.fd.world.wait_for(announced, timeout=10, what="the start's announcement")
    await t.bot.settle()
    started = announced() or []
    assert len(started) == 1, [m.content for m in started]
    assert len(refusals) == 1 and refusals[0].ephemeral
    assert not [m for m in t.channel.messages() if m.flags & FLAG_LOADING], (
        'no "thinking…" is left in the channel'
    )


async def test_a_click_that_meets_a_store_refusal_is_answered_in_the_players_words(
    table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A race past the service's checks (the director ended the encounter as the order went in) made the store
    refuse the Submit: the click failed silently ("interaction failed"). It is answered, privately, in the
    player's words."""
    t = table
    enc = await open_duel(t)
    panel = await orders_panel(t, t.bea)

    async def ended_meanwhile(*_: Any, **__: Any) -> Any:
        raise EncounterEndedError(enc)

    monkeypatch.setattr(t.bot.service.storage, "submit_order", ended_meanwhile)
    handle = await t.bea.click(panel, button_id(panel, "pirata", "submit"))
    refusal = (await handle.wait_for_replies(1))[0]
    assert refusal.ephemeral and refusal.content == "Este encuentro ha terminado."  # Bea reads Spanish
