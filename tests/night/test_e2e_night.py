"""A night skirmish round end to end (NGT-9): the real HexBot and discord.py against tests/fakediscord.

Ana holds the RFP pair (one of them hidden), Bea the Tyranos pair (one hidden). They play a round on their DM
panels. Every step each side's players get their own board by DM and the director the full one; the two sides'
boards differ; the channel's board and account never show a hidden unit; the first unit to move strays (NGT-5,
scripted dice).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from render import BoardSnapshot, RenderOptions
from render.board import viewport_for
from rules.night.events import NightStraying
from rules.registry import ruleset_for
from tests.e2e_helpers import (
    Table,
    draft_in,
    panel_for_phase,
    room,
    skirmish_moves,
    submitted,
    wait_turn_after,
)
from tests.fakediscord import Channel, Message, Person
from tests.night_fixtures import HIDDEN, RFP, decode, open_raid, select_of

pytestmark = pytest.mark.slow


@pytest.fixture
async def table(tmp_path: Path) -> AsyncIterator[Table]:
    async with room(tmp_path, channel_name="night") as t:
        yield t


def channel_text(channel: Channel) -> str:
    return json.dumps([{"c": m.content, "e": m.embeds} for m in channel.messages()], ensure_ascii=False)


def boards(person: Person) -> list[Message]:
    """The private boards DMed to ``person`` (NGT-9): an embed with a board image, no panel components."""
    return [m for m in person.dms() if m.attachments and m.embeds and not m.custom_ids()]


async def act(t: Table, person: Person, panel: Message, unit: str, value: str | None) -> None:
    """Choose a move (``value``) and submit, or end the activation (None)."""
    if value is not None:
        cid, values = select_of(panel, unit, "move")
        assert value in values
        await (await person.select(panel, cid, [value])).acknowledged()

        def shown() -> bool:
            found = draft_in(panel)
            return found is not None and value in (found[1].text("action"), found[1].text("choice"))

        await t.fd.wait_for(shown, what="the chosen move on the panel")
        action = "submit"
    else:
        action = "end"
    cid = next(c for c in panel.custom_ids() if c.endswith(f":unit:{unit}:{action}"))
    await submitted(t.fd, panel, unit, await person.click(panel, cid))


async def test_a_night_round_sends_each_side_its_own_board_and_a_unit_strays(table: Table) -> None:
    t = table
    enc = await open_raid(t)
    moved: set[str] = set()
    first_mover = ""
    for _ in range(20):
        seen = await t.bot.service.read(enc)
        state, phase_no = seen.state, seen.phase_no
        if state.round > 1 or state.over:
            break
        ruleset = ruleset_for(state)
        unit = ruleset.awaiting(state)[0]
        person = t.ana if unit in RFP else t.bea
        panel = await panel_for_phase(t.fd, person, unit, phase_no)
        moves = await skirmish_moves(t.fd, person, panel, unit) if unit not in moved else []
        if unit not in moved and moves:
            moved.add(unit)
            first_mover = first_mover or unit
            await act(t, person, panel, unit, moves[0])
        else:
            await act(t, person, panel, unit, None)
        await wait_turn_after(t, enc, phase_no)
    await t.bot.announcer.drain()  # type: ignore[union-attr]
    state = (await t.bot.service.read(enc)).state
    assert state.round == 2, "one whole night round was played"

    # NGT-5: the first unit to move strayed (lax, movement roll 6-1, direction 3 = SE)
    chain = await t.bot.service.storage.snapshot_chain(enc)
    from bot.service.replay import rule_events

    strays = [e for step in chain for e in rule_events(step.events) if isinstance(e, NightStraying)]
    assert strays and strays[0].unit == first_mover and strays[0].strayed and strays[0].direction == "SE"
    mover_side = t.ana if first_mover in RFP else t.bea
    assert any("strays SE" in json.dumps(m.embeds) for m in boards(mover_side)), (
        "the side's own account by DM"
    )

    # NGT-9: each side's players and the director got private boards, and the two sides' boards differ
    ana_boards, bea_boards, dora_boards = boards(t.ana), boards(t.bea), boards(t.director)
    assert ana_boards and bea_boards and dora_boards
    assert ana_boards[-1].attachments[0].data != bea_boards[-1].attachments[0].data
    assert "RFP" in ana_boards[-1].embeds[0]["title"] and "Tyranos" in bea_boards[-1].embeds[0]["title"]
    # a side's DMs never name the other side's hidden unit
    assert "Ghost" not in json.dumps([m.embeds for m in ana_boards])
    assert "Shade" not in json.dumps([m.embeds for m in bea_boards])

    # the channel: neither hidden unit named, and on its latest board their hexes look like empty hexes
    public = channel_text(t.channel)
    for name in HIDDEN.values():
        assert name not in public
    posted = [m for m in t.channel.messages() if m.attachments]
    assert posted
    img = decode(posted[-1].attachments[0].data)
    snap = BoardSnapshot(state, ())
    vp = viewport_for(snap, viewer="public", options=RenderOptions(locale="en"))
    for uid in HIDDEN:
        at = state.units[uid].at
        assert at is not None
        if not vp.shows(at):
            continue
        probe = vp.center(at)
        centre = img.getpixel((round(probe[0]), round(probe[1])))
        empty = next(h for h in at.neighbors() if vp.shows(h) and not state.units_at(h))
        ref = vp.center(empty)
        assert centre == img.getpixel((round(ref[0]), round(ref[1]))), (
            f"{uid}'s hex differs from an empty one"
        )


async def test_the_director_lights_a_flare_by_ruling_the_sides_get_new_boards_and_undo_takes_it_back(
    table: Table,
) -> None:
    t = table
    enc = await open_raid(t)
    await t.bot.announcer.drain()  # type: ignore[union-attr]
    opening = len(boards(t.ana)), len(boards(t.bea)), len(boards(t.director))
    assert all(opening), "each side and the director get their own opening board (NGT-9)"
    said = await (
        await t.director.run_command(t.channel, "director ruling", {"kind": "flare", "details": "0705"})
    ).final_response()
    assert "[NGT-3]" in said.content and not said.ephemeral
    await t.fd.wait_for(
        lambda: (len(boards(t.ana)) > opening[0] and len(boards(t.bea)) > opening[1]) or None,
        what="new private boards after the flare",
        timeout=60,
    )
    await t.bot.announcer.drain()  # type: ignore[union-attr]
    state = (await t.bot.service.read(enc)).state
    assert [m.kind for m in state.markers] == ["flare"]
    await (await t.director.run_command(t.channel, "director undo")).final_response()
    assert not (await t.bot.service.read(enc)).state.markers


async def test_ngt_9_the_directors_view_is_one_message_per_step_edited_as_overrides_land(
    table: Table,
) -> None:
    """NGT-9: the director's own view of a step is one DM; each override made while the step is played (two
    flares here) adds its account and the board after it to that message, edited in place, each board under its
    own embed; the next step that resolves starts a new message."""
    from bot.phase_gate import CONFIRM_WITHIN_MS

    t = table
    enc = await open_raid(t)
    await t.bot.announcer.drain()  # type: ignore[union-attr]
    views = boards(t.director)
    view, count, embeds = views[-1], len(views), len(views[-1].embeds)
    for n, at in enumerate(("0705", "0707"), start=1):
        said = await (
            await t.director.run_command(t.channel, "director ruling", {"kind": "flare", "details": at})
        ).final_response()
        assert "[NGT-3]" in said.content
        await t.fd.wait_for(lambda n=n: len(view.embeds) >= embeds + n or None, what="the flare in the view")
    assert len(boards(t.director)) == count, "the flares edited the director's view, sending no new DM"
    assert len(view.embeds) == embeds + 2, [e.get("title") for e in view.embeds]
    images = [str(e["image"]["url"]).removeprefix("attachment://") for e in view.embeds if e.get("image")]
    assert len(images) == embeds + 2 and set(images) == {a.filename for a in view.attachments}, images
    seen = await t.bot.service.read(enc)
    t.fd.advance_clock(CONFIRM_WITHIN_MS + 1)  # the step has been in front of the director a while
    await (await t.director.run_command(t.channel, "director resolve")).final_response(timeout=60)
    await wait_turn_after(t, enc, seen.phase_no)
    await t.bot.announcer.drain()  # type: ignore[union-attr]
    assert len(boards(t.director)) == count + 1, "a new step: a new view message"
    assert len(view.embeds) == embeds + 2, "the last step's message is left as it was"
