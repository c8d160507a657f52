"""OCS end to end (RULES.md §4, ``director`` order mode): the real HexBot and the unmodified discord.py client
against tests/fakediscord, every choice made on a DM panel the way a person would (selects and buttons only).

The director opens two combats, one while the other still waits (OCS-2: several open at once; the channel status
lists them and what each waits for). The attacker's player names its Action Rating unit, then the defender's
(OCS-2); the director answers for Bea, absent, once. Combat 1 is a surprise for the attacker and combat 2 for
the defender (OCS-5, scripted dice), and each result reaches the channel as an embed with every figure (OCS-7).
Bea then chooses her losses beyond the first step and the option steps (OCS-6), her retreat hexes (OCS-6), and an
attacker's loss beyond the first; the board is posted after each.
"""

from __future__ import annotations

import asyncio
import copy
import dataclasses
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from data.i18n import t as t_
from rules.hexgrid import Hex
from rules.ocs.model import OcsUnit, ext_of
from tests.e2e_helpers import BotUnderTest, create_from_file, draft_in, panel_for_phase, start_bot, submitted
from tests.fakediscord import Channel, FakeDiscord, Message, Person
from tests.ocs_fixtures import ALLIES, AXIS, TWO_COMBATS

pytestmark = pytest.mark.slow


@dataclass
class Table:
    fd: FakeDiscord
    bot: BotUnderTest
    channel: Channel
    director: Person
    ana: Person
    bea: Person


@pytest.fixture
async def table(tmp_path: Path) -> AsyncIterator[Table]:
    async with FakeDiscord() as fd:
        guild = fd.create_guild("Wargames", locale="en-US")
        channel = guild.create_text_channel("desert")
        people = [fd.create_user(name, locale="en-US") for name in ("dora", "ana", "bea")]
        for person in people:
            guild.add_member(person.user)
        bot = await start_bot(fd, f"sqlite:///{tmp_path / 'bot.sqlite3'}", guild.id)
        try:
            yield Table(fd, bot, channel, *people)
        finally:
            await bot.close()


async def open_encounter(t: Table) -> int:
    _, created = await create_from_file(t.director, t.channel, "ocs", "two.toml", TWO_COMBATS)
    assert "Panzer A" in created.content, created.content
    for person, units in ((t.ana, AXIS), (t.bea, ALLIES)):
        for unit in units:
            await (await person.run_command(t.channel, "encounter join", {"unit": unit})).final_response()
    await (await t.director.run_command(t.channel, "encounter start")).final_response()
    guild = t.channel.guild
    assert guild is not None
    meta = await t.bot.service.storage.active_encounter_in_channel(guild.id, t.channel.id)
    assert meta is not None
    return meta.id


async def phase_of(t: Table, enc: int) -> int:
    return (await t.bot.service.storage.get_encounter(enc)).phase_no


async def wait_phase_after(t: Table, enc: int, phase_no: int) -> int:
    for _ in range(3000):  # polling the database (60 s ceiling for slow machines), not timing anything
        now = await phase_of(t, enc)
        if now > phase_no:
            await t.bot.settle()
            return await phase_of(t, enc)
        await asyncio.sleep(0.02)
    raise AssertionError(f"step {phase_no} did not resolve")


def options_of(panel: Message, unit: str, action: str) -> tuple[str, list[dict[str, Any]]]:
    for cid, comp in panel.custom_ids().items():
        if cid.endswith(f":unit:{unit}:{action}"):
            return cid, list(comp.get("options", []))
    raise AssertionError(f"no {action} select for {unit}: {sorted(panel.custom_ids())}")


async def choose(t: Table, person: Person, panel: Message, unit: str, action: str, values: list[str]) -> None:
    cid, options = options_of(panel, unit, action)
    offered = [o["value"] for o in options]
    assert all(v in offered for v in values), f"{values} not all offered in {action}: {offered}"
    before = draft_in(panel)
    handle = await person.select(panel, cid, values)
    await handle.acknowledged()
    await t.fd.wait_for(lambda: draft_in(panel) != before, what=f"the panel to take {action}={values}")


async def submit(t: Table, person: Person, panel: Message, unit: str) -> Message:
    cid = next(c for c in panel.custom_ids() if c.endswith(f":unit:{unit}:submit"))
    name = str(panel.embeds[0]["title"]).split(" · ")[0]  # the panel's title: "{unit} · {when}"
    ack = await submitted(t.fd, panel, unit, await person.click(panel, cid))
    # the director's procedure (and a side's answer) is carried out when given: the order mode's words (in the
    # message's own text when it is one for several units)
    assert ack.ephemeral or ack is panel
    assert ack.content == t_("orders.carried_out", "en", unit=name), ack.content
    return ack


async def act(
    t: Table, enc: int, person: Person, unit: str, picks: list[tuple[str, list[str]]]
) -> tuple[Message, int]:
    """On ``unit``'s panel for the current step: the selects in order, then Submit; returns the panel and the
    step that follows."""
    phase_no = await phase_of(t, enc)
    panel = await panel_for_phase(t.fd, person, unit, phase_no)
    for action, values in picks:
        await choose(t, person, panel, unit, action, values)
    # the panel as it was submitted: the director's panel is edited into the next step's when it acts again
    laid_out = dataclasses.replace(panel, components=copy.deepcopy(panel.components))
    await submit(t, person, panel, unit)
    return laid_out, await wait_phase_after(t, enc, phase_no)


def public_text(channel: Channel) -> str:
    return json.dumps(
        [{"c": m.content, "e": m.embeds} for m in channel.messages() if not m.deleted], ensure_ascii=False
    )


def card(channel: Channel, combat: int) -> dict[str, str]:
    """The OCS-7 embed of ``combat`` as {field name: value}."""
    for m in channel.messages():
        for embed in m.embeds:
            if str(embed.get("title", "")).startswith(f"Combat {combat} on "):
                return {f["name"]: f["value"] for f in embed.get("fields", [])}
    raise AssertionError(f"no result embed for combat {combat}")


async def test_two_combats_one_surprise_each_by_dm_panels(table: Table) -> None:
    """OCS-2..OCS-7 through Discord: director's panel, AR choices, the director answering for an absent player,
    losses and retreats by the owner, the result embeds with every figure, two combats open at once."""
    t = table
    enc = await open_encounter(t)
    seen = await t.bot.service.read(enc)
    assert not ext_of(seen.state).combats

    # the director opens combat 1 on 0403: the select offers only the units that may attack it
    panel, _ = await act(
        t, enc, t.director, "director", [("task", ["open"]), ("at", ["0403"]), ("att", ["a1", "a2"])]
    )
    _, attackers = options_of(panel, "director", "att")
    assert sorted(o["value"] for o in attackers) == ["a1", "a2"]
    # combat 1 waits for the attacker's AR unit; the director opens combat 2 meanwhile (OCS-2)
    await act(t, enc, t.director, "director", [("task", ["open"]), ("at", ["0606"]), ("att", ["b1", "b2"])])
    state = (await t.bot.service.read(enc)).state
    assert [c.at.label for c in ext_of(state).combats] == ["0403", "0606"]
    status = public_text(t.channel)
    assert "Open combats: 2" in status and "waits for the attacker's Action Rating unit" in status
    asked = await (await t.bea.run_command(t.channel, "encounter status")).final_response()
    assert "Combat 1 on 0403" in asked.content and "Combat 2 on 0606" in asked.content

    # Bea is away: the director names her attacker's AR unit in combat 2 (the player's own panel is stale then)
    panel, _ = await act(t, enc, t.director, "director", [("task", ["q2"]), ("ar", ["b2"])])
    _, offered = options_of(panel, "director", "ar")
    assert sorted(o["value"] for o in offered) == ["b1", "b2"]
    # OCS-2: the attacker first (Ana, combat 1), then the defender (Bea)
    await act(t, enc, t.ana, "a1", [("ar", ["a1"])])
    await act(t, enc, t.bea, "d1", [("ar", ["d1"])])  # combat 1 is ready: it rolls at once

    one = card(t.channel, 1)
    assert "Panzer A 4 (normal)" in one["Action Rating"] and "Guards D 2 (normal)" in one["Action Rating"]
    assert one["Modifier (DRM)"] == "+2"
    assert one["Raw ratio"] == "7 ÷ 3 = 2.33 (the larger strength over the smaller)"
    assert one["Rounded odds"] == "2:1"
    assert one["Column"].startswith("3 (2:1)")
    assert (
        "11 +2 DRM +0 hedgehog = 13" in one["Surprise"]
        and "attacker 10+, defender 4 or less" in one["Surprise"]
    )
    assert "the attacker surprises the defender" in one["Surprise"]
    assert one["Column shift"] == "1d6 = 2 → +2"
    assert one["Final column"] == "5 (4:1)"
    assert one["Combat roll"] == "12 +2 DRM −0 hedgehog = 14 → clamped 14"
    assert one["Result"] == "**DL2o2**"

    # Ana names the defender's AR unit in combat 2: it rolls, a defender surprise clamped at column 1 (OCS-5)
    await act(t, enc, t.ana, "x1", [("ar", ["x1"])])
    two = card(t.channel, 2)
    assert two["Modifier (DRM)"] == "-1"
    assert (
        two["Raw ratio"] == "7 ÷ 4 = 1.75 (the larger strength over the smaller)"
        and two["Rounded odds"] == "2:1"
    )
    assert (
        "3 -1 DRM +0 hedgehog = 2" in two["Surprise"]
        and "the defender surprises the attacker" in two["Surprise"]
    )
    assert two["Column shift"] == "1d6 = 3 → -3"
    assert two["Final column"] == "1 (1:2)"
    assert two["Combat roll"] == "3 -1 DRM −0 hedgehog = 2 → clamped 2"
    assert two["Result"] == "**AL2**"

    # OCS-6 combat 1: Guards D lost the first step (its AR unit); Bea gives Militia E's step and retreats 2 hexes
    state = (await t.bot.service.read(enc)).state
    assert state.unit_as("d1", OcsUnit).steps == 1
    panel, _ = await act(t, enc, t.bea, "d1", [("loss", ["d2"])])
    _, losses = options_of(panel, "d1", "loss")
    assert [o["value"] for o in losses][:2] == ["d1", "d2"]
    state = (await t.bot.service.read(enc)).state
    assert state.unit_as("d2", OcsUnit).steps == 1
    phase_no = await phase_of(t, enc)
    panel = await panel_for_phase(t.fd, t.bea, "d1", phase_no)
    _, hexes_d1 = options_of(panel, "d1", "rt0")
    _, hexes_d2 = options_of(panel, "d1", "rt1")
    # each select holds the legal hexes only (two hexes from 0403, none held by the enemy), the first chosen
    assert all(Hex.parse(o["value"]).distance(Hex.parse("0403")) == 2 for o in hexes_d1 + hexes_d2)
    assert not {o["value"] for o in hexes_d1} & {"0303", "0304", "0606"}
    to_d1, to_d2 = hexes_d1[-1]["value"], hexes_d2[1]["value"]
    await choose(t, t.bea, panel, "d1", "rt0", [to_d1])
    await choose(t, t.bea, panel, "d1", "rt1", [to_d2])
    await submit(t, t.bea, panel, "d1")
    await wait_phase_after(t, enc, phase_no)
    state = (await t.bot.service.read(enc)).state
    assert state.units["d1"].at is not None and state.units["d1"].at.label == to_d1
    assert state.units["d2"].at is not None and state.units["d2"].at.label == to_d2

    # OCS-6 combat 2: Armour C (the AR unit) lost the first step; Bea chooses Armour B for the second
    assert state.unit_as("b2", OcsUnit).steps == 1
    await act(t, enc, t.bea, "b1", [("loss", ["b1"])])
    state = (await t.bot.service.read(enc)).state
    assert state.unit_as("b1", OcsUnit).steps == 1
    assert not ext_of(state).combats

    public = public_text(t.channel)
    for rule in ("[OCS-2]", "[OCS-3]", "[OCS-4]", "[OCS-5]", "[OCS-6]"):
        assert rule in public, f"{rule} missing from the channel's account"
    assert "No combat is open" in public
    await t.bot.settle()
    statuses = [m for m in t.channel.messages() if not m.deleted and "No combat is open" in m.content]
    assert len(statuses) == 1, "one status message, the newest: each step's replaces the last one"
    # a board after each step that changed it, a combat's boards in that combat's one message (OCS-2..OCS-7)
    boards = [a for m in t.channel.messages() for a in m.attachments if a.filename.endswith(".png")]
    assert len(boards) >= 4, [a.filename for a in boards]
    for secret in ("hexd:draft",):
        assert secret not in public
