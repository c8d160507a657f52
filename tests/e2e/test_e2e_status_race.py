"""With other bot processes on the database, two refreshes of an encounter's status can race, and the
edit made from the older read land last. The announcer then checks the encounter's ``last_seq`` after its edit
and shows the status again from a fresh read, so the channel never keeps a status older than the game."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from bot.results import StatusView
from cogs.announcer import Announcer
from data.i18n import t
from tests.e2e_helpers import E2E_BACKENDS, Table, duel_table, open_duel

pytestmark = pytest.mark.slow


@pytest.fixture(params=E2E_BACKENDS)
async def table(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Table]:
    """Several processes share PostgreSQL in production: the race runs there too when a server is given."""
    async with duel_table(tmp_path, backend=str(request.param)) as t:
        yield t


async def test_a_change_made_while_the_status_was_edited_is_shown_by_the_shared_announcer(
    table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    t_ = table
    enc = await open_duel(t_)
    await t_.bot.settle()
    announcer = t_.bot.announcer
    assert isinstance(announcer, Announcer)
    monkeypatch.setattr(Announcer, "shared", property(lambda self: True))  # as one of several processes
    paused = t("status.paused", "en")
    assert not any(paused in m.content for m in t_.channel.messages())
    edit = announcer._refresh_status  # pyright: ignore[reportPrivateUsage]
    calls: list[StatusView | None] = []

    async def raced(encounter_id: int, status: StatusView | None, *args: Any) -> None:
        calls.append(status)
        if len(calls) == 1:  # another process pauses the encounter while this edit, from before, is in flight
            await t_.bot.service.storage.set_encounter_status(encounter_id, "paused")
        await edit(encounter_id, status, *args)

    monkeypatch.setattr(announcer, "_refresh_status", raced)
    await announcer.refresh_status(enc)
    assert len(calls) == 2, "shown again once the encounter had changed under the edit"
    assert calls[0] is not None and calls[0].status == "running"
    assert calls[1] is not None and calls[1].status == "paused"
    await t_.fd.wait_for(
        lambda: any(paused in m.content for m in t_.channel.messages() if not m.deleted),
        what="the status to say the encounter is paused",
    )
