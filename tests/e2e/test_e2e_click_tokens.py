"""A player's DMs ride on their own fresh click in that DM (bot/click_tokens.py), end to end through the real
discord.py client against the local Discord: the interaction webhook, which Discord's global limit does not count,
carries the next panel and the edit of the panel clicked; a click past its freshness, a refused webhook and a
person who never clicked in their DM go by the DM channel's route, once, and nothing is lost or sent twice.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from typing import NamedTuple

import pytest

from bot.click_tokens import FRESH_FOR
from rules.registry import get_ruleset
from tests.e2e_helpers import (
    Table,
    button_id,
    current_panel_dm,
    draft_in,
    fill_and_submit,
    open_duel,
    phase_seen,
    play_phase,
    wait_phase_after,
    wait_turn_after,
)
from tests.fakediscord import Message, Person
from tests.fakediscord.rest import RequestRecord
from tests.skirmish_e2e_fixtures import a_destination, choose, open_corridor, press, select_of

pytestmark = pytest.mark.slow

RULES = get_ruleset("skirmish")


class Played(NamedTuple):
    phase_no: int
    panel: Message
    since: list[RequestRecord]


def discord_now(t: Table) -> dt.datetime:
    """The local Discord's clock (the time its ids carry), frozen by the test."""
    return dt.datetime.fromtimestamp(t.fd.advance_clock(0) / 1000, dt.UTC)


def posted_by_channel(records: list[RequestRecord], person: Person) -> list[RequestRecord]:
    return [
        r for r in records if (r.method, r.path) == ("POST", f"/channels/{person.dm_channel.id}/messages")
    ]


def edited_by_channel(records: list[RequestRecord], person: Person) -> list[RequestRecord]:
    prefix = f"/channels/{person.dm_channel.id}/messages/"
    return [r for r in records if r.method == "PATCH" and r.path.startswith(prefix)]


def followups(records: list[RequestRecord], t: Table) -> list[RequestRecord]:
    app = t.fd.world.application_id
    return [r for r in records if r.method == "POST" and re.fullmatch(rf"/webhooks/{app}/[^/]+", r.path)]


def panels_of_phase(person: Person, unit: str, phase_no: int) -> list[Message]:
    return [
        m
        for m in person.dms()
        if not m.deleted
        and any(f":unit:{unit}:" in c for c in m.custom_ids())
        and (d := draft_in(m)) is not None
        and d[0] == phase_no
    ]


async def next_phase_panel(t: Table, enc: int, between: Callable[[], None] = lambda: None) -> Played:
    """Ana submits on her DM panel, then (``between`` done) Bea on /orders: Ana's panel of the phase after, and
    the requests since Ana's Submit was answered."""
    await phase_seen(t)
    phase_no = (await t.bot.service.read(enc)).phase_no
    panel = await current_panel_dm(t, t.ana, "halcon", phase_no)
    await fill_and_submit(t.fd, t.ana, panel, "halcon", moves="A", fire=2)
    await t.bot.settle()
    start = len(t.fd.requests)
    between()
    await play_phase(t, enc, bea_moves="A")
    await wait_phase_after(t, enc, phase_no)
    await t.bot.settle()
    after = (await t.bot.service.read(enc)).phase_no
    panel = await current_panel_dm(t, t.ana, "halcon", after)
    await t.bot.settle()
    return Played(after, panel, t.fd.requests[start:])


async def panel_works(t: Table, panel: Message) -> None:
    before = draft_in(panel)
    await (await t.ana.click(panel, button_id(panel, "halcon", "A"))).acknowledged()
    await t.fd.wait_for(lambda: draft_in(panel) != before, what="the panel to show the new draft")


async def test_after_a_dm_submit_the_next_panel_comes_by_the_click_webhook(table: Table) -> None:
    t = table
    enc = await open_duel(t)
    first = (await t.bot.service.read(enc)).phase_no
    await current_panel_dm(t, t.ana, "halcon", first)
    # Ana never clicked in her DM: her first panel went by the channel's route
    assert posted_by_channel(t.fd.requests, t.ana)
    phase_no, panel, since = await next_phase_panel(t, enc)
    assert posted_by_channel(since, t.ana) == [], "no DM by the channel's route, under the global limit"
    assert len(panels_of_phase(t.ana, "halcon", phase_no)) == 1
    assert panel.webhook_id == t.fd.world.application_id
    await panel_works(t, panel)
    assert t.bot.click_tokens.sent >= 1 and t.bot.click_tokens.refused == 0
    assert not [r for r in t.fd.requests if r.status == 401]


async def test_a_click_past_its_freshness_leaves_the_dm_to_the_channel_route_and_makes_no_401(
    table: Table,
) -> None:
    t = table
    enc = await open_duel(t)
    # the bot's clock runs the freshness margin ahead of Discord's: every click is just too old to be used,
    # though Discord would still take its token
    t.bot.click_tokens.clock = lambda: discord_now(t) + FRESH_FOR
    phase_no, panel, since = await next_phase_panel(t, enc)
    assert len(posted_by_channel(since, t.ana)) == 1 and panel.webhook_id is None
    assert len(panels_of_phase(t.ana, "halcon", phase_no)) == 1
    assert not [r for r in t.fd.requests if r.status == 401], "no expired token is tried"
    await panel_works(t, panel)


async def test_a_refused_click_webhook_sends_the_panel_by_the_channel_route_once(table: Table) -> None:
    t = table
    enc = await open_duel(t)
    app = t.fd.world.application_id
    refused: list[str] = []

    def refuse_anas_click() -> None:  # as Discord answers a token it no longer knows
        click = t.bot.click_tokens.click_of(t.ana.id)
        assert click is not None
        refused.append(click.token)
        t.fd.fail_next("POST", rf"^/webhooks/{app}/{re.escape(click.token)}$", status=404)

    phase_no, panel, since = await next_phase_panel(t, enc, refuse_anas_click)
    assert [r.status for r in followups(since, t) if r.status != 200] == [404]
    assert len(posted_by_channel(since, t.ana)) == 1, "the channel's route, once"
    assert len(panels_of_phase(t.ana, "halcon", phase_no)) == 1, "nothing lost, nothing doubled"
    after = t.bot.click_tokens.click_of(t.ana.id)
    assert after is None or after.token not in refused, "the refused click is not tried again"
    await panel_works(t, panel)


async def test_sk_2_2_the_panel_clicked_is_edited_into_its_next_step_through_the_click(table: Table) -> None:
    """SK-2.2: a move's Submit on a DM panel; the mover's panel after the step is an edit of that very message,
    through the click's original response (the click was answered by updating the message it was made on)."""
    t = table
    enc = await open_corridor(t)
    app = t.fd.world.application_id
    for _ in range(10):
        seen = await t.bot.service.read(enc)
        unit = RULES.awaiting(seen.state)[0]
        person = t.ana if seen.state.units[unit].side == "rfp" else t.bea
        panel = await current_panel_dm(t, person, unit, seen.phase_no)
        _, moves = select_of(panel, unit, "move")
        if seen.state.pending is not None or not moves:
            await press(t, person, panel, unit, "end")
            await wait_turn_after(t, enc, seen.phase_no)
            continue
        await choose(t, person, panel, unit, "move", await a_destination(t, person, panel, unit, moves))
        start = len(t.fd.requests)
        await press(t, person, panel, unit, "submit")
        await wait_turn_after(t, enc, seen.phase_no)
        await t.bot.settle()
        since = t.fd.requests[start:]
        originals = [
            r
            for r in since
            if r.method == "PATCH" and re.fullmatch(rf"/webhooks/{app}/[^/]+/messages/@original", r.path)
        ]
        assert originals and all(r.status == 200 for r in originals), since
        assert edited_by_channel(since, person) == [] and posted_by_channel(since, person) == []
        return
    raise AssertionError("no move was offered")
