"""Deadlines are shown as Discord timestamps (every reader sees their own time) on the status message
and the panels; the players still missing get one reminder DM before the deadline, unless they muted them."""

from __future__ import annotations

from datetime import timedelta

import pytest

from bot.service.base import utc_now
from tests.e2e_helpers import Table, encounter_of, open_duel, orders_panel, phase_seen

pytestmark = pytest.mark.slow


def reminders_to(t: Table, person: object) -> list[str]:
    return [m.content for m in person.dms() if m.content.startswith("⏰")]  # type: ignore[attr-defined]


async def test_deadline_timestamps_and_one_reminder_dm_unless_muted(table: Table) -> None:
    t = table
    enc = await open_duel(t)
    await phase_seen(t)
    set_reply = await (
        await t.director.run_command(t.channel, "director deadline", {"minutes": 10})
    ).final_response()
    assert "<t:" in set_reply.content and ":R>" in set_reply.content
    await t.bot.settle()
    status = await t.bot.service.status(enc)
    assert status.deadline is not None
    refs = await t.bot.service.storage.message_refs(enc, "status")  # one status per encounter, for this phase
    assert [r.key.rsplit(":", 1)[-1] for r in refs] == [str(status.phase_no)]
    ref = refs[0]
    shown = next(m for m in t.channel.messages() if m.id == ref.message_id)
    assert "⏰" in shown.content and "<t:" in shown.content
    panel = await orders_panel(t, t.bea)  # Bea's ephemeral panel (her DMs are closed)
    assert "<t:" in (panel.embeds[0].get("description") or "")

    assert t.bot.scheduler is not None
    t.bot.service.clock = lambda: utc_now() + timedelta(minutes=8)  # 80 % of the way: reminder time
    assert await t.bot.scheduler.remind() == 1
    await t.fd.wait_for(lambda: reminders_to(t, t.ana) or None, what="Ana's reminder")
    (reminder,) = reminders_to(t, t.ana)
    assert "Halcón" in reminder and "<t:" in reminder and f"<#{t.channel.id}>" in reminder
    assert await t.bot.scheduler.remind() == 0, "a reminder is sent once"

    muted = await (await t.ana.run_command(t.channel, "encounter reminders", {"on": False})).final_response()
    assert muted.ephemeral
    t.bot.service.clock = utc_now
    await phase_seen(t)
    await (await t.director.run_command(t.channel, "director deadline", {"minutes": 10})).final_response()
    t.bot.service.clock = lambda: utc_now() + timedelta(minutes=8)
    assert await t.bot.scheduler.remind() == 1
    await t.bot.settle()
    assert len(reminders_to(t, t.ana)) == 1, "muted: no second reminder"
    stranger = await (
        await t.director.run_command(t.channel, "encounter reminders", {"on": False})
    ).final_response()
    assert stranger.ephemeral, "someone without a unit is refused privately"
    assert (await encounter_of(t)).settings["muted_reminders"] == [t.ana.id]
