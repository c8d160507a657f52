"""A DM click carries no server: someone no longer a member of the encounter's server (they left, or were
removed) is refused privately on their DM panel and their units go to the director, as when a player leaves
(DESIGN §4: DMs are checked against membership). Membership is asked of Discord (the local Discord's member
lookup), not taken from the bot's cache."""

from __future__ import annotations

import pytest

from bot.storage.base import ORDER_ACCEPTED
from tests.e2e_helpers import Table, button_id, current_panel_dm, open_duel

pytestmark = pytest.mark.slow


async def test_a_player_removed_from_the_server_cannot_submit_by_dm_and_their_unit_goes_to_the_director(
    table: Table,
) -> None:
    t = table
    enc = await open_duel(t)
    await t.bot.settle()
    phase_no = (await t.bot.service.read(enc)).phase_no
    panel = await current_panel_dm(t, t.ana, "halcon", phase_no)
    draft = await t.ana.click(panel, button_id(panel, "halcon", "A"))
    await draft.acknowledged()  # a member: her clicks work
    t.fd.world.guilds[t.guild_id].remove_member(t.ana)
    t.bot.membership.clock = lambda: 1e12  # her last lookup is long past: Discord is asked again
    refused = (await (await t.ana.click(panel, button_id(panel, "halcon", "submit"))).wait_for_replies(1))[0]
    assert refused.ephemeral and "no longer a member" in refused.content, refused.content
    assert not await t.bot.service.storage.events(enc, types=[ORDER_ACCEPTED]), "nothing stored"
    parts = await t.bot.service.storage.participants(enc)
    assert not [p for p in parts if p.user_id == t.ana.id and p.role == "player"], (
        "Halcón is the director's now"
    )
    notice = await t.channel.wait_for_message(lambda m: f"<@{t.ana.id}>" in m.content and "left" in m.content)
    assert "director" in notice.content
    again = (await (await t.ana.click(panel, button_id(panel, "halcon", "D"))).wait_for_replies(1))[0]
    # her units are the director's now: she has no part left, and a DM says no more than for any encounter
    # she never played (a forged id learns nothing of another server)
    assert again.ephemeral and "you no longer play in it" in again.content, again.content
    # Bea, still a member, plays on (her panel answers in the channel, ephemeral)
    assert any(
        p.user_id == t.bea.id and p.role == "player" for p in await t.bot.service.storage.participants(enc)
    )
