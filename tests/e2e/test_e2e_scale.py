"""Panels sent and edited leave nothing behind in the client's view store (a long-running bot with
thousands of panel messages kept one View per message, forever), and their controls keep working."""

from __future__ import annotations

from typing import Any, cast

from tests.e2e_helpers import Table, button_id, current_panel_dm, draft_in, open_duel


async def test_panel_views_are_not_kept_per_message_and_clicks_still_work(table: Table) -> None:
    enc = await open_duel(table)
    status = await table.bot.service.status(enc)
    panel = await current_panel_dm(table, table.ana, "halcon", status.phase_no)
    for letter in "DI":  # two edits of the same panel through clicks
        before = draft_in(panel)
        handle = await table.ana.click(panel, button_id(panel, "halcon", letter))
        await handle.acknowledged()
        await table.fd.wait_for(lambda b=before: draft_in(panel) != b, timeout=30)
    found = draft_in(panel)
    assert found is not None and found[1].text("move") == "DI"
    store = cast(Any, table.bot)._connection._view_store
    assert store._synced_message_views == {} and store._views == {}
