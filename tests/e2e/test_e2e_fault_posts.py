"""What bench/faults.py found when Discord refuses requests at random, each
reproduced on its own.

- A status edit that Discord refuses (a 503, a 429 without Via) is not a deleted message: the bot sent a second
  status message for the phase. It now sends a new one only when the old one is gone (404), and the refused edit
  is retried.
- Status refreshes racing each other or the phase's opening (a Submit refreshes the status in the background while
  the last Submit opens the next phase) each found no status message yet and sent one: two status messages for a
  phase. The same went for DM panels. Each encounter's status and panels are now sent one at a time.
- The winner's announcement refused by Discord was never retried: the table never heard that the game was over.
- A refused opening board raised out of ``/encounter start`` and skipped the first phase's status and DM panels:
  the game never began. It is now queued with the encounter's posts and retried.
- A refused "orders received" follow-up left the panel as it was (the order stored, the player not told): the
  panel now shows the order submitted all the same.
- When the status moved onto the next board, a refused removal of its text from the previous post was dropped
  with that post's record: two status texts in the channel for good. The record now stays and the removal is
  retried.
- A status refresh that ran after a resolution's commit but before its board went out wrote the next phase's
  status on the old post, under the same record key as the one then written on the new board: the old post's
  record was overwritten and its text stayed for good. Each message now has its own key.
- The announcer gave up after its last retry (five, the last after 10 minutes), leaving the table stuck until a
  restart: it now keeps retrying at its longest delay.
"""

from __future__ import annotations

import asyncio

import pytest

from bot.permissions import Actor
from tests.e2e_helpers import (
    Table,
    button_id,
    current_panel_dm,
    duel_ready_to_start,
    fill_and_submit,
    open_duel,
    play_phase,
    wait_phase_after,
)
from tests.fakediscord import Message

pytestmark = pytest.mark.slow


def status_messages(t: Table, name: str = "Duel in the Kessel belt") -> list[Message]:
    """The bot's status messages (not answers to commands): '**name** · round · phase', then who is missing."""
    return [
        m
        for m in t.channel.messages()
        if m.content.startswith(f"**{name}** · ") and m.interaction_metadata is None
    ]


async def test_a_refused_status_edit_sends_no_second_status_message_and_is_retried(table: Table) -> None:
    t = table
    enc = await open_duel(t)
    assert t.bot.announcer is not None
    t.bot.announcer.retry_backoff = (0.05, 0.05, 0.05)  # type: ignore[attr-defined]
    await t.bot.settle()
    status = await t.bot.service.status(enc)
    assert len(status_messages(t)) == 1
    # the status edit after Ana's Submit: a 503 (discord.py does not retry it), then Cloudflare's 429
    t.fd.fail_next("PATCH", rf"^/channels/{t.channel.id}/messages/\d+$", status=503)
    t.fd.fail_next("PATCH", rf"^/channels/{t.channel.id}/messages/\d+$", status=429, via=False)
    panel = await current_panel_dm(t, t.ana, "halcon", status.phase_no)
    ack = await fill_and_submit(t.fd, t.ana, panel, "halcon", moves="D", fire=1)
    assert "received" in ack.content
    shown = status_messages(t)
    # the refused edit is made again: the one status message drops Ana
    await t.fd.wait_for(
        lambda: f"<@{t.ana.id}>" not in shown[0].content, what="the status to drop Ana", timeout=30
    )
    await t.bot.settle()
    assert len(status_messages(t)) == 1, [m.content for m in status_messages(t)]


async def test_racing_status_refreshes_and_the_phase_opening_send_one_status_and_one_panel(
    table: Table,
) -> None:
    t = table
    enc = await open_duel(t)
    announcer = t.bot.announcer
    assert announcer is not None
    await t.bot.settle()
    status = await t.bot.service.status(enc)
    storage = t.bot.service.storage
    # the phase as it is the moment it opens: nothing sent for it yet
    for ref in await storage.message_refs(enc, "status"):
        await storage.delete_message_ref(enc, "status", ref.key)
    await storage.delete_message_ref(
        enc, "post", "last"
    )  # no post for the status to ride on: a message of its own
    await storage.delete_message_ref(enc, "panel", f"{status.phase_no}:halcon")
    before, dms_before = len(status_messages(t)), len(t.ana.dms())
    await asyncio.gather(
        announcer.open_phase(enc),
        announcer.refresh_status(enc),
        announcer.refresh_status(enc),
        announcer.open_phase(enc),
    )
    assert len(status_messages(t)) == before + 1
    assert len(t.ana.dms()) == dms_before + 1, "one DM panel for Ana's unit"


async def test_a_refused_winner_announcement_is_retried(table: Table) -> None:
    t = table
    enc = await open_duel(t)
    assert t.bot.announcer is not None
    t.bot.announcer.retry_backoff = (0.05, 0.05, 0.05)  # type: ignore[attr-defined]
    # the director takes the corsairs' prey off the board: the next resolution ends the game
    removed = await (
        await t.director.run_command(t.channel, "director remove-unit", {"unit": "pirata"})
    ).final_response()
    assert removed is not None
    await t.bot.settle()
    for _ in range(20):
        seen = await t.bot.service.read(enc)
        if seen.state.over:
            break
        # every post of the channel is refused once (Cloudflare's 429): boards and the winner alike
        for _ in range(3):
            t.fd.fail_next("POST", rf"^/channels/{t.channel.id}/messages$", status=429, via=False)
        await play_phase(t, enc)
        await wait_phase_after(t, enc, seen.phase_no)
    assert (await t.bot.service.read(enc)).state.over
    winner = await t.fd.wait_for(
        lambda: next((m for m in t.channel.messages() if m.content.startswith("🏁")), None),
        what="the winner's announcement",
        timeout=30,
    )
    assert "Corsairs" in winner.content  # the English channel reads the side in English
    await t.bot.settle()
    assert sum(1 for m in t.channel.messages() if m.content.startswith("🏁")) == 1
    await t.bot.service.end(enc, Actor(t.director.id))


async def test_a_refused_opening_board_is_retried_and_the_first_phase_still_opens(table: Table) -> None:
    t = table
    assert t.bot.announcer is not None
    t.bot.announcer.retry_backoff = (0.05, 0.05, 0.05)  # type: ignore[attr-defined]
    # exo-patrol's start resolves no step: the opening board is its first post
    scenario = {"ruleset": "exo", "scenario": "exo-patrol"}
    await (await t.director.run_command(t.channel, "encounter new", scenario)).final_response()
    await (await t.ana.run_command(t.channel, "encounter join")).final_response()
    # the opening board, the start's first post in the channel, is refused for good (Cloudflare's 429)
    t.fd.fail_next("POST", rf"^/channels/{t.channel.id}/messages$", status=429, via=False)
    started = await (await t.director.run_command(t.channel, "encounter start")).final_response()
    assert "starts" in started.content
    meta = await t.bot.service.storage.active_encounter_in_channel(t.guild_id, t.channel.id)
    assert meta is not None
    # the first phase opened all the same: its status message and a DM panel
    await t.fd.wait_for(
        lambda: status_messages(t, "Patrol in the belt") or None, what="the status", timeout=30
    )
    await t.fd.wait_for(
        lambda: any(":unit:" in cid for m in t.ana.dms() for cid in m.custom_ids()) or None,
        what="a DM panel",
        timeout=30,
    )
    opening = await t.fd.wait_for(
        lambda: [m for m in t.channel.messages() if m.embeds and "as the encounter starts" in str(m.embeds)],
        what="the opening board",
        timeout=30,
    )
    await t.bot.settle()
    assert len(opening) == 1


async def test_a_refused_received_still_shows_the_order_stored_on_the_panel(table: Table) -> None:
    t = table
    enc = await open_duel(t)
    await t.bot.settle()
    status = await t.bot.service.status(enc)
    panel = await current_panel_dm(t, t.ana, "halcon", status.phase_no)
    # the "orders received" follow-up is refused for good (Cloudflare's 429 on the interaction's webhook)
    t.fd.fail_next("POST", r"^/webhooks/\d+/[^/]+$", status=429, via=False)
    handle = await t.ana.click(panel, button_id(panel, "halcon", "submit"))
    await handle.acknowledged()
    await t.fd.wait_for(
        lambda: "Submitted" in str(panel.embeds[0].get("footer")) or None,
        what="the panel to show the order stored",
        timeout=30,
    )
    assert [m.unit for m in (await t.bot.service.status(enc)).missing] == ["pirata"]


async def test_a_post_refused_more_times_than_the_backoff_has_delays_is_still_made(table: Table) -> None:
    t = table
    enc = await open_duel(t)
    assert t.bot.announcer is not None
    t.bot.announcer.retry_backoff = (0.05, 0.05)  # type: ignore[attr-defined]
    await t.bot.settle()
    status = await t.bot.service.status(enc)
    # the status edit after Ana's Submit, then each retry, up to two past the last delay: refused
    for _ in range(4):
        t.fd.fail_next("PATCH", rf"^/channels/{t.channel.id}/messages/\d+$", status=503)
    panel = await current_panel_dm(t, t.ana, "halcon", status.phase_no)
    await fill_and_submit(t.fd, t.ana, panel, "halcon", moves="D", fire=1)
    shown = status_messages(t)
    await t.fd.wait_for(
        lambda: f"<@{t.ana.id}>" not in shown[0].content, what="the status to drop Ana", timeout=30
    )


async def test_a_refused_removal_of_the_old_status_text_is_retried(table: Table) -> None:
    t = table
    enc = await open_duel(t)
    assert t.bot.announcer is not None
    t.bot.announcer.retry_backoff = (0.05, 0.05, 0.05)  # type: ignore[attr-defined]
    await t.bot.settle()
    status = await t.bot.service.status(enc)
    panel = await current_panel_dm(t, t.ana, "halcon", status.phase_no)
    await fill_and_submit(t.fd, t.ana, panel, "halcon", moves="D", fire=1)
    await t.bot.settle()
    [old] = status_messages(t)
    # when the status moves onto the next board, taking it off this message is refused (a 503)
    t.fd.fail_next("PATCH", rf"^/channels/{t.channel.id}/messages/{old.id}$", status=503)
    await play_phase(t, enc, bea_moves="I")
    await wait_phase_after(t, enc, status.phase_no)
    await t.fd.wait_for(
        lambda: not old.content.startswith("**") or None, what="the old status text to go", timeout=30
    )
    await t.bot.settle()
    assert len(status_messages(t)) == 1


async def test_a_status_written_for_the_next_phase_before_its_board_went_out_leaves_no_text_behind(
    table: Table,
) -> None:
    t = table
    enc = await open_duel(t)
    announcer = t.bot.announcer
    assert announcer is not None
    await t.bot.settle()
    status = await t.bot.service.status(enc)
    [before] = status_messages(t)
    # the phase resolves; a status refresh (a Submit's, or a retry's) runs before the board is posted: it writes
    # the next phase's status on the old post, then the status moves onto the new board for that same phase
    result = await t.bot.service.resolve(enc, expected_phase_no=status.phase_no, forced=True)
    assert result.steps
    await announcer.refresh_status(enc)
    await t.bot.announce(result)
    await t.bot.settle()
    shown = status_messages(t)
    assert len(shown) == 1 and shown[0] is not before, [m.content[:60] for m in shown]


async def test_a_refused_start_reply_still_starts_the_game_and_tells_nobody_it_failed(table: Table) -> None:
    """Discord refuses the reply to /encounter start for good (Cloudflare's 429 on the interaction's webhook): the
    game has started, so the table gets its opening board and panels, and the director no 'Something went wrong'."""
    t = table
    await duel_ready_to_start(t)
    t.fd.fail_next("POST", r"^/webhooks/\d+/[^/]+$", status=429, via=False)
    handle = await t.director.run_command(t.channel, "encounter start")
    await handle.acknowledged()
    await t.fd.wait_for(lambda: any(r.status == 429 for r in t.fd.requests) or None, what="the refused reply")
    await t.bot.settle()
    enc = await t.bot.service.storage.active_encounter_in_channel(t.guild_id, t.channel.id)
    assert enc is not None and enc.status == "running"
    await t.fd.wait_for(lambda: any(m.embeds for m in t.channel.messages()) or None, what="the first post")
    status = await t.bot.service.status(enc.id)
    await current_panel_dm(t, t.ana, "halcon", status.phase_no)
    said = [m.content for m in t.director.ephemeral_messages(t.channel)] + [
        m.content for m in t.channel.messages()
    ]
    assert not any("went wrong" in text for text in said), said
    assert all(m.content or m.embeds for m in t.channel.messages()), "no empty 'thinking…' left behind"
