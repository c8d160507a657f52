"""``/encounter catchup`` end to end through the real discord.py client against the local Discord: a player who
gave an order and then was away while the director resolved two rounds and then damaged their ship reads, privately and in their own language,
what moved and what was hit since, with a board ghosting where units were and its alt text (FOG-1)."""

from __future__ import annotations

from typing import Any

import discord
import pytest

from bot.phase_gate import CONFIRM_WITHIN_MS
from cogs.panel.items import with_news
from tests.e2e_helpers import (
    Table,
    current_panel_dm,
    open_duel,
    orders_panel,
    play_phase,
    wait_phase_after,
)
from tests.fakediscord import Message, Person

pytestmark = pytest.mark.slow


async def ask(t: Table, person: Person, command: str) -> Message:
    reply = await (await person.run_command(t.channel, command)).final_response(timeout=120)
    await t.bot.settle()
    return reply


def public(t: Table) -> list[int]:
    """The channel's messages everyone reads (an ephemeral answer is in the channel's history, for one reader)."""
    return [m.id for m in t.channel.history if m.visible_to is None]


def text_of(message: Message) -> str:
    embeds: list[dict[str, Any]] = message.embeds
    return "\n".join(f"{e.get('title', '')}\n{e.get('description', '')}" for e in embeds)


def catch_up_field(message: Message) -> str:
    """The catch-up a panel opens with ("": none): its first field, under its heading in either language."""
    for embed in message.embeds:
        for field in embed.get("fields", []):
            if field.get("name") in ("While you were away", "Mientras no estabas"):
                return str(field.get("value", ""))
    return ""


async def resolve_until_round(t: Table, enc: int, round_no: int) -> None:
    """The director resolves every phase (the players' stand-in orders) until round ``round_no`` begins."""
    while (seen := await t.bot.service.read(enc)).state.round < round_no and not seen.state.over:
        t.fd.advance_clock(CONFIRM_WITHIN_MS + 1)  # the phase has been in front of the director a while
        await ask(t, t.director, "director resolve")
        await wait_phase_after(t, enc, seen.phase_no)


async def away_for_two_rounds(t: Table) -> int:
    """Both players give their orders for the first phase, then are away: the director resolves every phase
    (the players' stand-in orders) until two more rounds have begun, then damages Halcón (Ana's) by hand."""
    enc = await open_duel(t)
    first = await t.bot.service.read(enc)
    await play_phase(t, enc, ana_moves="DA", bea_moves="DA")
    await wait_phase_after(t, enc, first.phase_no)
    await t.bot.settle()
    await resolve_until_round(t, enc, first.state.round + 2)
    damaged = await (
        await t.director.run_command(t.channel, "director damage", {"unit": "halcon", "amount": "2"})
    ).final_response(timeout=60)
    assert "refused" not in damaged.content.lower(), damaged.content
    await t.bot.settle()
    return enc


async def test_a_player_away_for_two_rounds_gets_a_private_catch_up_in_their_language_fog1(
    table: Table,
) -> None:
    t = table
    await away_for_two_rounds(t)
    channel_before = public(t)
    bea_before = [m.id for m in t.bea.dms()] + [m.id for m in t.bea.ephemeral_messages()]
    mine = await ask(t, t.ana, "encounter catchup")
    assert mine.ephemeral and mine.visible_to == t.ana.id
    text = text_of(mine)
    assert "While you were away" in text and "Since your last order" in text, text
    assert "Halcón moved" in text and "Pirata moved" in text, text
    assert "Director: Halcón takes 2 damage" in text, text
    assert "⏰" not in text or "<t:" in text
    (picture,) = mine.attachments
    assert picture.filename.endswith(".png") and picture.description
    assert picture.description.startswith("Catch-up board"), picture.description
    # nobody else receives anything: not the channel, not the other player
    assert public(t) == channel_before
    assert [m.id for m in t.bea.dms()] + [m.id for m in t.bea.ephemeral_messages()] == bea_before
    hers = await ask(t, t.bea, "encounter catchup")  # Bea reads Spanish
    assert hers.ephemeral and hers.visible_to == t.bea.id
    theirs = text_of(hers)
    assert "Mientras no estabas" in theirs and "Desde tu última orden" in theirs, theirs
    assert "Pirata se movió" in theirs and "Director: " in theirs, theirs
    assert (hers.attachments[0].description or "").startswith("Tablero de resumen")


async def test_someone_with_no_unit_is_refused_privately_and_told_how_to_join(table: Table) -> None:
    t = table
    await open_duel(t)
    await t.bot.settle()
    stranger = t.fd.create_user("eve", locale="en-US")
    t.fd.world.guilds[t.guild_id].add_member(stranger.user)
    channel_before = public(t)
    refused = await ask(t, stranger, "encounter catchup")
    assert refused.ephemeral and refused.visible_to == stranger.id
    assert "/encounter join" in refused.content, refused.content
    assert public(t) == channel_before


async def test_the_next_panel_opens_with_the_catch_up_only_after_a_whole_round_away_and_only_once(
    table: Table,
) -> None:
    """A player who acted last round followed it in the channel: their panel adds nothing (exo: every round's
    panel would repeat the account just posted). One who sat a whole round out gets it on the panel that
    reaches them, by DM (Ana) or on /orders (Bea, DMs closed, in Spanish), once."""
    t = table
    enc = await open_duel(t)
    first = await t.bot.service.read(enc)
    await play_phase(t, enc, ana_moves="DA", bea_moves="DA")
    await wait_phase_after(t, enc, first.phase_no)
    await resolve_until_round(t, enc, first.state.round + 1)
    await t.bot.settle()
    seen = await t.bot.service.read(enc)
    assert catch_up_field(await current_panel_dm(t, t.ana, "halcon", seen.phase_no)) == ""
    await resolve_until_round(t, enc, first.state.round + 2)
    await t.bot.settle()
    seen = await t.bot.service.read(enc)
    panel = await current_panel_dm(t, t.ana, "halcon", seen.phase_no)
    news = catch_up_field(panel)
    assert news.startswith("Since your last order") and "Pirata moved" in news, news
    pictures = {a.filename: a.description or "" for a in panel.attachments}
    assert pictures.get("catchup.png", "").startswith("Catch-up board"), pictures
    hers = catch_up_field(await orders_panel(t, t.bea))
    assert hers.startswith("Desde tu última orden") and "Halcón se movió" in hers, hers
    assert catch_up_field(await orders_panel(t, t.bea)) == "", "shown once: the next panel does not repeat it"


def test_a_panels_catch_up_is_its_first_field_and_gives_way_to_the_panel_within_discords_limits() -> None:
    """Discord refuses a message whose embeds hold more than 6,000 characters: the catch-up is dropped before
    the panel's own lines are."""
    roomy = discord.Embed(title="Halcón", description="orders")
    with_news(roomy, "Since your last order:\n• Pirata moved 0904 → 0906", "en")
    assert roomy.fields[0].name == "While you were away" and "Pirata" in (roomy.fields[0].value or "")
    full = discord.Embed(title="Halcón", description="x" * 4096)
    for n in range(2):
        full.add_field(name=f"field {n}", value="y" * 900)
    with_news(full, "• " + "z" * 1000, "es")
    assert len(full) <= 6000 and all(f.name != "Mientras no estabas" for f in full.fields)
    assert full.description == "x" * 4096


async def test_a_step_the_director_undid_is_counted_for_the_side_that_saw_it(table: Table) -> None:
    """The director damages Halcón and takes it back: Ana, who saw the step, reads that a step was undone, and
    no longer that her ship took damage (the undone step is off the chain)."""
    t = table
    enc = await open_duel(t)
    first = await t.bot.service.read(enc)
    await play_phase(t, enc, ana_moves="DA", bea_moves="DA")
    await wait_phase_after(t, enc, first.phase_no)
    damaged = await (
        await t.director.run_command(t.channel, "director damage", {"unit": "halcon", "amount": "2"})
    ).final_response(timeout=60)
    assert "refused" not in damaged.content.lower(), damaged.content
    await t.bot.settle()
    t.fd.advance_clock(CONFIRM_WITHIN_MS + 1)
    await ask(t, t.director, "director undo")
    text = text_of(await ask(t, t.ana, "encounter catchup"))
    assert "Steps the director undid: 1" in text, text
    assert "takes 2 damage" not in text, text
