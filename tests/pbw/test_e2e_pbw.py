"""pbw end to end: the real HexBot and the unmodified discord.py client against tests/fakediscord.

A director opens a knife-against-baton duel (the two already within 1 m, PBW-5), Ana plays Ana and Bea plays Bea,
by DM panels only (selects and buttons). One whole turn: Ana declares first (lower Initiative, PBW-1) and Bea
after, each declaration posted in the channel when locked and never before (nor in the other player's DMs); then
segment by segment each is asked to keep or change (PBW-2): segment 1 Ana's attack meets Bea's melee defence
(a skipped segment, PBW-2), segment 2 Ana changes her skipped segment into a second attack (one action), and each
segment posts its own account.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.panels.draft import Draft
from data.i18n import t as t_
from tests.e2e_helpers import Table, create_from_file, draft_in, panel_for_phase, room
from tests.fakediscord import Channel, InteractionHandle, Message, Person
from tests.pbw_fixtures import person, scenario_text

pytestmark = pytest.mark.slow

DUEL = "seed = 11\n" + scenario_text(  # a fixed seed: the dice are the same every run
    [
        person("ana", "a", "0505", initiative=3, weapons=[{"type": "knife", "held": True}]),
        person("bea", "b", "0506", initiative=6, weapons=[{"type": "baton", "held": True}]),
    ]
)
TEXT = {
    "en": {
        "locked": "locks the declaration",
        "declaring": "Acting now:",
        "defence": "spends a melee defence",
        "changed": "changes intention for segment 2",
        "segment": "Segment {n} of turn 1",
        "ended": "End of turn 1",
    },
    "es": {
        "locked": "cierra su declaración de intenciones",
        "declaring": "Ahora actúa:",
        "defence": "gasta una acción de defensa",
        "changed": "cambia de intenciones para el segmento 2",
        "segment": "Segmento {n} del turno 1",
        "ended": "Fin del turno 1",
    },
}


@pytest.fixture(params=["es", "en"])
async def table(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Table]:
    async with room(tmp_path, lang=request.param, guild_name="Rol", channel_name="taberna") as t:
        yield t


def public_text(channel: Channel) -> str:
    return json.dumps(
        [{"c": m.content, "e": m.embeds, "k": m.components} for m in channel.messages()], ensure_ascii=False
    )


def dm_text(p: Person) -> str:
    return json.dumps([{"c": m.content, "e": m.embeds} for m in p.dms()], ensure_ascii=False)


def control(panel: Message, unit: str, action: str) -> tuple[str, list[str]]:
    for cid, comp in panel.custom_ids().items():
        if cid.endswith(f":unit:{unit}:{action}"):
            return cid, [o["value"] for o in comp.get("options", [])]
    raise AssertionError(f"no {action} on {unit}'s panel: {sorted(panel.custom_ids())}")


async def pick(t: Table, p: Person, panel: Message, unit: str, action: str, value: str) -> Draft:
    cid, values = control(panel, unit, action)
    assert value in values, f"{value!r} not offered in {action}: {values}"
    before = draft_in(panel)
    handle = await p.select(panel, cid, [value])
    await handle.acknowledged()

    def changed() -> tuple[int, Draft] | None:
        found = draft_in(panel)
        return found if found is not None and found != before else None

    return (await t.fd.wait_for(changed, what="the panel's new draft"))[1]


async def press(t: Table, p: Person, panel: Message, unit: str, action: str) -> Message | None:
    """A button; a submitting one returns its acknowledgement, another one waits for the panel to change."""
    cid, _ = control(panel, unit, action)
    before = draft_in(panel)
    handle = await p.click(panel, cid)
    if action == "submit":
        return (await handle.wait_for_replies(1, timeout=60))[0]
    await handle.acknowledged()
    await t.fd.wait_for(lambda: draft_in(panel) != before, what=f"the panel after {action}")
    return None


def footer(panel: Message) -> str:
    return str(panel.embeds[0].get("footer", {}).get("text", "")) if panel.embeds else ""


async def keep(t: Table, p: Person, panel: Message, unit: str) -> InteractionHandle:
    """PBW-2: keep the declared action. The panel's own edit tells it (its footer: sent, may change until the
    segment resolves); no private message of its own. Returns the click, whose replies the caller checks once
    later steps have gone by (a follow-up would come right after the edit)."""
    cid, _ = control(panel, unit, "keep")
    assert footer(panel) == t_("panel.not_submitted", t.lang)
    handle = await p.click(panel, cid)
    await handle.acknowledged()
    submitted = t_("panel.submitted", t.lang)
    await t.fd.wait_for(lambda: footer(panel) == submitted or None, what="the panel saying the keep is in")
    return handle


async def open_duel(t: Table) -> int:
    _, created = await create_from_file(t.director, t.channel, "pbw", "duel.toml", DUEL)
    assert "Ana" in created.content
    for p, unit in ((t.ana, "ana"), (t.bea, "bea")):
        await (await p.run_command(t.channel, "encounter join", {"unit": unit})).final_response()
    await (await t.director.run_command(t.channel, "encounter start")).final_response()
    meta = await t.bot.service.storage.active_encounter_in_channel(t.guild_id, t.channel.id)
    assert meta is not None
    return meta.id


async def phase_after(t: Table, enc: int, phase_no: int) -> int:
    for _ in range(3000):  # polling the database (60 s ceiling for slow machines), not timing anything
        now = (await t.bot.service.storage.get_encounter(enc)).phase_no
        if now > phase_no:
            await t.bot.settle()
            return now
        await asyncio.sleep(0.02)
    raise AssertionError(f"step {phase_no} did not resolve")


async def test_pbw_1_2_5_one_turn_by_dm_panels(table: Table) -> None:
    t = table
    words = TEXT[t.lang]
    enc = await open_duel(t)
    seen = await t.bot.service.read(enc)
    assert seen.state.phase == "declare"
    phase = seen.phase_no

    # PBW-1: Ana (Initiative 3) declares first; the channel status says whose turn it is
    await t.fd.wait_for(
        lambda: words["declaring"] in public_text(t.channel) or None, what="the status naming the declarer"
    )
    status = next(m.content for m in t.channel.messages() if words["declaring"] in m.content)
    assert "Ana" in status and "Bea" not in status
    panel = await panel_for_phase(t.fd, t.ana, "ana", phase)
    await pick(t, t.ana, panel, "ana", "act", "c")  # segment 1: melee …
    _, targets = control(panel, "ana", "atk")
    bea_number = "1"  # Bea is the second unit of the file
    knife = f"{bea_number}.1"  # the knife is Ana's weapon 1 (the fists come after it)
    assert knife in targets and f"{bea_number}.2" in targets
    option = next(
        o for o in panel.custom_ids()[control(panel, "ana", "atk")[0]]["options"] if o["value"] == knife
    )
    assert "+" in option["label"] and "2d6" in option["label"], "the 2d6 number needed is on the option"
    drafted = await pick(t, t.ana, panel, "ana", "atk", knife)
    assert drafted.text("s1") == f"c{knife}"
    assert panel.attachments == [] or panel.attachments  # a melee draws no path: the preview may be absent

    # not yet locked: nothing of it in the channel, nor in Bea's DMs (the panel is private)
    for where in (public_text(t.channel), dm_text(t.bea)):
        assert words["locked"] not in where
        assert "PBW-2]   Ana" not in where
    ack = await press(t, t.ana, panel, "ana", "submit")
    # PBW-1: a declaration is locked when given: the order mode's words, not "you can change them"
    assert ack is not None and ack.ephemeral and ack.content == t_("orders.locked", t.lang, unit="Ana")
    phase = await phase_after(t, enc, phase)
    public = public_text(t.channel)
    assert words["locked"] in public and "[PBW-2]   Ana" in public, "posted once locked"

    # Bea (Initiative 6) declares after seeing it: skip segment 1 (a melee defence), attack in segment 2
    panel = await panel_for_phase(t.fd, t.bea, "bea", phase)
    await press(t, t.bea, panel, "bea", "seg2")
    await pick(t, t.bea, panel, "bea", "act", "c")
    await pick(t, t.bea, panel, "bea", "atk", "0.1")  # Ana (unit 0) with the baton (weapon 1)
    await press(t, t.bea, panel, "bea", "submit")
    phase = await phase_after(t, enc, phase)

    # segment 1: both asked; both keep. Ana's attack meets Bea's defence (PBW-2)
    assert (await t.bot.service.read(enc)).state.phase == "segment-1"
    kept: list[InteractionHandle] = []
    for p, unit in ((t.ana, "ana"), (t.bea, "bea")):
        panel = await panel_for_phase(t.fd, p, unit, phase)
        control(panel, unit, "change")  # the change button is there before the segment
        kept.append(await keep(t, p, panel, unit))
    phase = await phase_after(t, enc, phase)
    public = public_text(t.channel)
    assert words["segment"].format(n=1) in public and words["defence"] in public

    # segment 2: Ana changes her skipped segment into another knife attack (PBW-2, one action); Bea keeps
    assert (await t.bot.service.read(enc)).state.phase == "segment-2"
    panel = await panel_for_phase(t.fd, t.ana, "ana", phase)
    await press(t, t.ana, panel, "ana", "change")
    await pick(t, t.ana, panel, "ana", "act", "c")
    await pick(t, t.ana, panel, "ana", "atk", knife)
    # the change is private until the segment resolves
    assert words["changed"] not in public_text(t.channel) and words["changed"] not in dm_text(t.bea)
    ack = await press(t, t.ana, panel, "ana", "submit")
    # PBW-2: the changes before a segment are all taken at once, and may change until the segment resolves
    assert ack is not None and ack.ephemeral and ack.content == t_("orders.received", t.lang, unit="Ana")
    panel = await panel_for_phase(t.fd, t.bea, "bea", phase)
    kept.append(await keep(t, t.bea, panel, "bea"))
    phase = await phase_after(t, enc, phase)
    public = public_text(t.channel)
    assert words["segment"].format(n=2) in public and words["changed"] in public

    # segment 3: whoever may still change is asked; everyone keeps
    state = (await t.bot.service.read(enc)).state
    if state.phase == "segment-3":
        owing = t.bot.service.owing(state)
        for p, unit in ((t.ana, "ana"), (t.bea, "bea")):
            if unit in owing:
                panel = await panel_for_phase(t.fd, p, unit, phase)
                kept.append(await keep(t, p, panel, unit))
        phase = await phase_after(t, enc, phase)
    await t.bot.settle()
    assert kept and not [m.content for h in kept for m in h.replies()], "a keep is told by its panel alone"
    public = public_text(t.channel)
    assert words["ended"] in public
    state = (await t.bot.service.read(enc)).state
    assert state.over or (state.round == 2 and state.phase == "declare")
    # one account per segment, each with its own header (a resolution's steps share a message, an embed each)
    names = [t_(f"phase.pbw.segment-{k}", t.lang) for k in (1, 2, 3)]  # the phases by their names
    embeds = [e for m in t.channel.messages() for e in m.embeds]
    headers = [e for e in embeds if any(n in str(e.get("title")) for n in names)]
    assert len(headers) >= 3, [e.get("title") for e in embeds]
    # segments 1 and 2 had attacks: each account comes with its board (the attack drawn on it)
    assert all(e.get("image") for e in headers[:2]), "a board with each segment's account"
    statuses = [m for m in t.channel.messages() if not m.deleted and m.content.startswith("**test** ·")]
    assert len(statuses) == 1, "one status message, the newest: each declaration and segment is a step"
    for secret in ("hexd:draft",):
        assert secret not in public, f"{secret!r} from a private panel leaked into the channel"


STANDOFF = "seed = 5\n" + scenario_text(
    [
        person("ana", "a", "0505", initiative=3, weapons=[{"type": "pistol", "held": True}]),
        person("bea", "b", "0510", initiative=6, weapons=[{"type": "pistol", "held": True}]),
    ]
)


async def test_pbw_1_a_declaration_is_never_shown_before_it_is_locked(
    table: Table, caplog: pytest.LogCaptureFixture
) -> None:
    """Ana drafts a move and an aimed shot on her DM panel: until she submits, nothing of it reaches the channel,
    Bea's DMs or the logs — not the hex she walks to, not the aim; once locked it is posted (PBW-1)."""
    t = table
    words = TEXT[t.lang]
    _, created = await create_from_file(t.director, t.channel, "pbw", "standoff.toml", STANDOFF)
    assert "Ana" in created.content
    for p, unit in ((t.ana, "ana"), (t.bea, "bea")):
        await (await p.run_command(t.channel, "encounter join", {"unit": unit})).final_response()
    await (await t.director.run_command(t.channel, "encounter start")).final_response()
    meta = await t.bot.service.storage.active_encounter_in_channel(t.guild_id, t.channel.id)
    assert meta is not None
    phase = (await t.bot.service.read(meta.id)).phase_no
    panel = await panel_for_phase(t.fd, t.ana, "ana", phase)
    torso = t_("term.torso", t.lang)

    def secrets() -> list[str]:
        drafted = draft_in(panel)
        assert drafted is not None
        out = [torso, "[PBW-2]   Ana", words["locked"]]
        code = drafted[1].text("s1")
        if code.startswith("m") and len(code) > 1:
            out.append(_end_of(code))
        return out

    def leaks() -> list[str]:
        # ids are no secret, and a snowflake may hold a hex label's digits (guild 1574546994150506498: "0506")
        seen = re.sub(r"\d{15,}", "#", public_text(t.channel) + dm_text(t.bea) + caplog.text)
        return [s for s in secrets() if s in seen]

    await pick(t, t.ana, panel, "ana", "act", "m")
    await press(t, t.ana, panel, "ana", "d3")  # one step south
    assert panel.attachments, "a private preview of the path, in Ana's DM"
    assert leaks() == []
    await press(t, t.ana, panel, "ana", "seg2")
    await pick(t, t.ana, panel, "ana", "act", "f")
    await pick(t, t.ana, panel, "ana", "atk", "1.1")
    await pick(t, t.ana, panel, "ana", "aim", "3")  # the torso (PBW-5, −5)
    assert "0506" in json.dumps(panel.embeds) and torso in json.dumps(panel.embeds)  # Ana sees her own draft
    assert leaks() == []
    await t.bot.settle()
    assert leaks() == []
    await press(t, t.ana, panel, "ana", "submit")
    await phase_after(t, meta.id, phase)
    public = public_text(t.channel)
    assert words["locked"] in public and "[PBW-2]   Ana" in public and torso in public


def _end_of(code: str) -> str:
    """Where a drafted move from 0505 ends (the test only steps south: each step is one row down)."""
    return f"05{5 + len(code) - 1:02d}"


async def test_pbw_2_a_multi_hex_move_is_one_pick_and_one_submit(table: Table) -> None:
    """Ana moves three hexes south with one pick on the destination menu (after its direction, as more hexes are
    in reach than a menu holds) and no step on the pad; one Submit locks it and the channel shows where she goes
    (PBW-1, PBW-2). The menu speaks the reader's language."""
    t = table
    _, created = await create_from_file(t.director, t.channel, "pbw", "standoff.toml", STANDOFF)
    assert "Ana" in created.content
    for p, unit in ((t.ana, "ana"), (t.bea, "bea")):
        await (await p.run_command(t.channel, "encounter join", {"unit": unit})).final_response()
    await (await t.director.run_command(t.channel, "encounter start")).final_response()
    meta = await t.bot.service.storage.active_encounter_in_channel(t.guild_id, t.channel.id)
    assert meta is not None
    phase = (await t.bot.service.read(meta.id)).phase_no
    panel = await panel_for_phase(t.fd, t.ana, "ana", phase)
    await pick(t, t.ana, panel, "ana", "act", "m")
    south = t_("hexside.S", t.lang)
    assert south in json.dumps(panel.components, ensure_ascii=False)
    await pick(t, t.ana, panel, "ana", "dest", "way S")
    _, values = control(panel, "ana", "dest")
    assert "m333" in values  # 0506, 0507, 0508: a whole path in one value
    label = t_("panel.pbw.dest", t.lang, target="0508", cost="3")
    assert label in json.dumps(panel.components, ensure_ascii=False)
    drafted = await pick(t, t.ana, panel, "ana", "dest", "m333")
    assert drafted.text("s1") == "m333"
    assert panel.attachments, "a private preview of the path, in Ana's DM"
    await press(t, t.ana, panel, "ana", "submit")
    await phase_after(t, meta.id, phase)
    public = public_text(t.channel)
    assert TEXT[t.lang]["locked"] in public and "0508" in public
