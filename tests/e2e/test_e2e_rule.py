"""``/rule`` through Discord: it answers privately in the reader's language, its autocomplete offers
ids with titles, and each posted account names the rules it cites."""

from __future__ import annotations

import pytest

from tests.e2e_helpers import Table, open_duel, play_phase, wait_phase_after

pytestmark = pytest.mark.slow


async def test_rule_lookup_autocomplete_and_the_accounts_footer(table: Table) -> None:
    t = table
    english = await (await t.ana.run_command(t.channel, "rule", {"id": "EXO-3.4"})).final_response()
    spanish = await (await t.bea.run_command(t.channel, "rule", {"id": "exo-3.4"})).final_response()
    assert english.ephemeral and spanish.ephemeral
    assert english.embeds[0]["title"].startswith("EXO-3.4 — ")
    assert spanish.embeds[0]["title"].startswith("EXO-3.4 — ")
    assert english.embeds[0]["description"] != spanish.embeds[0]["description"]
    unknown = await (await t.ana.run_command(t.channel, "rule", {"id": "EXO-99"})).final_response()
    assert unknown.ephemeral and "EXO-99" in unknown.content
    choices = await t.bea.autocomplete(t.channel, "rule", "id", "sk-1")
    assert choices and all(c["value"].startswith("SK-1") and " — " in c["name"] for c in choices)

    enc = await open_duel(t)
    status = await t.bot.service.status(enc)
    await play_phase(t, enc, ana_moves="A", bea_moves="D")
    await wait_phase_after(t, enc, status.phase_no)
    await t.bot.settle()
    footers = [m.embeds[0].get("footer", {}).get("text", "") for m in t.channel.messages() if m.embeds]
    assert any("EXO-" in f and "/rule" in f for f in footers), footers


async def test_the_director_posts_the_public_board_and_everyone_else_sees_it_privately(table: Table) -> None:
    """``/encounter board`` is private; its ``post`` option (director only, public view only)
    puts the public board in the channel."""
    t = table
    await open_duel(t)
    mine = await (await t.ana.run_command(t.channel, "encounter board", {})).final_response()
    assert mine.ephemeral and mine.attachments
    refused = await (await t.ana.run_command(t.channel, "encounter board", {"post": True})).final_response()
    assert refused.ephemeral and not refused.attachments
    private = await (
        await t.director.run_command(t.channel, "encounter board", {"view": "director", "post": True})
    ).final_response()
    assert private.ephemeral and not private.attachments, "a director's view is never posted"
    posted = await (
        await t.director.run_command(t.channel, "encounter board", {"post": True})
    ).final_response()
    assert not posted.ephemeral and posted.attachments and posted.visible_to is None
