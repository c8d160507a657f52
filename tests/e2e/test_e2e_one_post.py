"""A resolution costs the channel one request, with the status riding in it.

Each channel request counts against Discord's global limit (interaction answers do not), so the steps of one
resolution go out together, once its conclusion is queued (bot/outbox/queue.py), in one message carrying the
encounter's status as its text (cogs/status_post.py): not a post, an edit per further step, then an edit for the
status. The previous post still loses its status text (one edit), and nothing else is sent until someone submits.

- An exo phase resolution of several steps: one POST with all its steps and the status naming who is awaited (in
  English and in Spanish), one PATCH taking the status off the previous post, nothing more until the next Submit,
  whose status edit names who is still awaited.
- A conclusion that comes late: the steps go out once the queue's cap has passed, before it.
- A post Discord refuses for good: it is retried, and the status ends on the newest post, once.
- A restart between the commit and the post: each step posted once, the status shown once, on that post.
- Skirmish activations (one step each): each step is one request, the status in it.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import pytest

from bot.results import Resolution
from bot.service import EncounterService
from bot.storage import open_storage
from data.i18n import t as t_
from rules.registry import get_ruleset
from tests.e2e_helpers import (
    Table,
    current_panel_dm,
    duel_name,
    duel_ready_to_start,
    encounter_of,
    fill_and_submit,
    panel_for_phase,
    room,
    start_bot,
    wait_phase_after,
    wait_turn_after,
)
from tests.fakediscord import Message
from tests.fakediscord.rest import RequestRecord
from tests.skirmish_e2e_fixtures import a_destination, choose, open_corridor, press, select_of

pytestmark = pytest.mark.slow

#: the fields of a JSON edit of a message's text alone (discord.py sends ``tts`` with any content)
TEXT_ONLY = {"content", "allowed_mentions", "tts"}


@pytest.fixture(params=["en", "es"])
async def table(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Table]:
    async with room(tmp_path, lang=request.param, channel_name="duel") as t:
        yield t


@pytest.fixture
async def english(tmp_path: Path) -> AsyncIterator[Table]:
    async with room(tmp_path, channel_name="duel") as t:
        yield t


def channel_requests(t: Table, since: int) -> list[RequestRecord]:
    """The bot's requests for the channel's messages (posts, edits, deletions) since ``since``."""
    route = re.compile(rf"/channels/{t.channel.id}/messages(/\d+)?")
    return [r for r in t.fd.requests[since:] if route.fullmatch(r.path)]


def text_only(record: RequestRecord) -> bool:
    """A JSON edit of the text alone: a status edit, or the status leaving a post."""
    return record.method == "PATCH" and bool(record.fields) and set(record.fields) <= TEXT_ONLY


def status_posts(t: Table, name: str) -> list[Message]:
    """The channel's messages showing the status ('**name** · round · phase', then who is awaited)."""
    return [
        m
        for m in t.channel.messages()
        if not m.deleted and m.content.startswith(f"**{name}** · ") and m.interaction_metadata is None
    ]


def waiting_words(lang: str) -> str:
    """The status line's words before the names of those awaited, in ``lang``."""
    return t_("status.waiting", lang, names="").strip()


async def start_duel(t: Table) -> int:
    """The exo duel started, both players with DM panels, everything the start owes posted."""
    await duel_ready_to_start(t)
    await (await t.director.run_command(t.channel, "encounter start")).final_response()
    enc = (await encounter_of(t)).id
    await t.bot.settle()
    return enc


async def ana_submits(t: Table, enc: int) -> int:
    """Ana gives her orders for the open phase (Bea's still missing); its phase number."""
    status = await t.bot.service.status(enc)
    panel = await current_panel_dm(t, t.ana, "halcon", status.phase_no)
    await fill_and_submit(t.fd, t.ana, panel, "halcon", moves="D", fire=1)
    await t.bot.settle()
    return status.phase_no


async def waiting_on_bea(t: Table) -> tuple[str, int, int, Message]:
    """The duel started and Ana's orders in: the duel's name, the encounter, the phase and the post showing the
    status."""
    name = duel_name(t.lang)
    enc = await start_duel(t)
    phase_no = await ana_submits(t, enc)
    [old] = status_posts(t, name)
    return name, enc, phase_no, old


async def bea_submits(t: Table, phase_no: int) -> None:
    panel = await current_panel_dm(t, t.bea, "pirata", phase_no)
    await fill_and_submit(t.fd, t.bea, panel, "pirata", moves="I", fire=1)


async def test_an_exo_resolution_is_one_post_with_its_steps_and_the_status_and_one_edit_off_the_old_post(
    table: Table,
) -> None:
    t = table
    name, enc, phase_no, old = await waiting_on_bea(t)
    assert f"<@{t.bea.id}>" in old.content and f"<@{t.ana.id}>" not in old.content
    mark = len(t.fd.requests)
    await bea_submits(t, phase_no)
    await wait_phase_after(t, enc, phase_no)
    await t.bot.settle()
    sent = channel_requests(t, mark)
    assert [r.method for r in sent] == ["POST", "PATCH"], [(r.method, r.path, r.fields) for r in sent]
    assert text_only(sent[1]) and sent[1].path.endswith(f"/{old.id}"), "the status leaves the previous post"
    assert not old.content, "one status text in the channel"
    [new] = status_posts(t, name)
    assert new.id > old.id and sum(1 for e in new.embeds if e.get("image")) >= 1
    assert len(new.embeds) >= 2, "the resolution's steps, an embed each, in the one post"
    # the status the post carries names who is awaited, in the channel's language
    assert waiting_words(t.lang) in new.content
    assert f"<@{t.ana.id}>" in new.content and f"<@{t.bea.id}>" in new.content
    # the phase's opening found its status already shown: nothing more goes to the channel until a Submit
    now = await t.bot.service.status(enc)
    assert now.phase_no > phase_no and {m.user_id for m in now.missing} == {t.ana.id, t.bea.id}
    assert len(channel_requests(t, mark)) == 2
    mark = len(t.fd.requests)
    await ana_submits(t, enc)
    [edit] = channel_requests(t, mark)
    assert text_only(edit) and edit.path.endswith(f"/{new.id}")
    assert f"<@{t.bea.id}>" in new.content and f"<@{t.ana.id}>" not in new.content


async def test_steps_whose_conclusion_is_late_go_out_once_the_cap_has_passed(english: Table) -> None:
    t = english
    name = duel_name(t.lang)
    enc = await start_duel(t)
    announcer = t.bot.announcer
    assert announcer is not None
    phase_no = await ana_submits(t, enc)
    # the resolution's conclusion is held, and so is the queue's cap on waiting for it
    resolved, conclusion = asyncio.Event(), asyncio.Event()
    cap_waiting, cap_passed = asyncio.Event(), asyncio.Event()
    after_resolution: Callable[[Resolution], Awaitable[None]] = announcer.after_resolution

    async def late(result: Resolution) -> None:
        resolved.set()  # every step is committed and queued
        await conclusion.wait()
        await after_resolution(result)

    async def cap() -> None:
        cap_waiting.set()
        await cap_passed.wait()

    announcer.after_resolution = late  # type: ignore[method-assign]
    announcer.outbox.queue.cap = cap
    mark = len(t.fd.requests)
    await bea_submits(t, phase_no)
    await t.fd.wait_for(
        lambda: (cap_waiting.is_set() and resolved.is_set()) or None,
        what="the steps to wait for their conclusion",
    )
    assert not [r for r in channel_requests(t, mark) if r.method == "POST"], "held until the cap passes"
    cap_passed.set()
    await t.fd.wait_for(
        lambda: [r for r in channel_requests(t, mark) if r.method == "POST"] or None,
        what="the steps posted before their conclusion",
        timeout=30,
    )
    assert not conclusion.is_set()
    conclusion.set()
    await wait_phase_after(t, enc, phase_no)
    await t.bot.settle()
    sent = channel_requests(t, mark)
    assert [r.method for r in sent] == ["POST", "PATCH"], [(r.method, r.path, r.fields) for r in sent]
    [new] = status_posts(t, name)
    assert len(new.embeds) >= 2 and f"<@{t.ana.id}>" in new.content and f"<@{t.bea.id}>" in new.content


async def test_a_refused_step_post_is_retried_and_the_status_ends_on_the_newest_post_once(
    english: Table,
) -> None:
    t = english
    name = duel_name(t.lang)
    enc = await start_duel(t)
    announcer = t.bot.announcer
    assert announcer is not None
    announcer.retry_backoff = (0.05, 0.05, 0.05)
    phase_no = await ana_submits(t, enc)
    [old] = status_posts(t, name)
    # the resolution's post is refused (Cloudflare's 429: discord.py does not retry it)
    t.fd.fail_next("POST", rf"^/channels/{t.channel.id}/messages$", status=429, via=False)
    await bea_submits(t, phase_no)
    await wait_phase_after(t, enc, phase_no)
    boards = await t.fd.wait_for(
        lambda: [m for m in t.channel.messages() if m.id > old.id and m.embeds] or None,
        what="the refused post made again",
        timeout=30,
    )
    await t.bot.settle()
    assert len(boards) == 1, "the steps posted once"
    [shown] = status_posts(t, name)
    assert shown is boards[0], "the status rides on the newest post"
    assert not old.content
    assert f"<@{t.ana.id}>" in shown.content and f"<@{t.bea.id}>" in shown.content


async def test_a_restart_between_the_commit_and_the_post_shows_each_step_and_the_status_once(
    english: Table,
) -> None:
    t = english
    name, enc, phase_no, old = await waiting_on_bea(t)
    await t.bot.close()
    # the bot died after committing the resolution and before posting anything about it
    storage = await open_storage(t.db)
    try:
        resolved = await EncounterService(storage).resolve(enc, expected_phase_no=phase_no, forced=True)
    finally:
        await storage.close()
    shown = [s for s in resolved.steps if s.public_events]
    assert len(shown) >= 2
    for again in (False, True):  # a second start repeats nothing
        if again:
            await t.bot.close()
        t.bot = await start_bot(t.fd, t.db, t.guild_id)
        await t.fd.wait_for(
            lambda: (t.bot.announcer is not None and t.bot.announcer.resumed.is_set()) or None,
            what="the running encounters to be resumed",
            timeout=30,
        )
        await t.bot.settle()
        posts = [m for m in t.channel.messages() if m.id > old.id and m.embeds]
        assert len(posts) == 1 and len(posts[0].embeds) >= len(shown), "each step once, in one post"
        assert [m.id for m in status_posts(t, name)] == [posts[0].id], "the status once, on that post"
        assert not old.content


@pytest.fixture
async def corridor(tmp_path: Path) -> AsyncIterator[Table]:
    async with room(tmp_path, channel_name="corridor") as t:
        yield t


async def test_each_skirmish_action_is_one_request_with_the_status_sk_1_1(corridor: Table) -> None:
    """SK-1.1: an activation's action resolves as it is given, one step each: each step is one channel request
    (an edit of the activation's post, or a new post whose status leaves the one before), the status in it."""
    t = corridor
    rules = get_ruleset("skirmish")
    enc = await open_corridor(t)
    await t.bot.settle()
    acting = t_("status.acting", t.lang, names="").strip()
    moved: set[tuple[int, str]] = set()
    edits = 0
    for _ in range(6):
        seen = await t.bot.service.read(enc)
        unit = rules.awaiting(seen.state)[0]
        person = t.ana if seen.state.units[unit].side == "rfp" else t.bea
        panel = await panel_for_phase(t.fd, person, unit, seen.phase_no)
        mark = len(t.fd.requests)
        _, moves = select_of(panel, unit, "move")
        if seen.state.pending is None and moves and (seen.state.round, unit) not in moved:
            await choose(t, person, panel, unit, "move", await a_destination(t, person, panel, unit, moves))
            moved.add((seen.state.round, unit))
            await press(t, person, panel, unit, "submit")
        elif seen.state.pending is not None:
            await choose(t, person, panel, unit, "decide", "hold")
            await press(t, person, panel, unit, "submit")
        else:
            await press(t, person, panel, unit, "end")
        await wait_turn_after(t, enc, seen.phase_no)
        await t.bot.settle()
        sent = channel_requests(t, mark)
        steps = [r for r in sent if not text_only(r)]
        assert len(steps) == 1, [(r.method, r.path, r.fields) for r in sent]
        if steps[0].method == "PATCH":
            edits += 1
            post = next(m for m in t.channel.messages() if steps[0].path.endswith(f"/{m.id}"))
            assert sent == steps, "an edit of the activation's post carries the status: nothing else"
        else:  # a new post: the status leaves the one before, and nothing else
            assert len(sent) == 2 and text_only(sent[1])
            post = max((m for m in t.channel.messages() if m.embeds), key=lambda m: m.id)
        assert acting in post.content and post.content.startswith("**"), post.content
        assert len([m for m in t.channel.messages() if not m.deleted and acting in m.content]) == 1
    assert edits, "an action added to its activation's post"
