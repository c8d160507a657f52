"""Skirmish end to end: the real HexBot and the unmodified discord.py client against tests/fakediscord.

A director opens the bundled corridor, Ana takes the four RFP characters and Bea the four Tyranos, and they play
activations on their DM panels the way people would (selects and buttons only): moves, shots whose rolls reach
the channel's account, a character going into overwatch and answering the question by DM when an enemy spends AP
in its sight (SK-4.1). The status message names whose turn it is. A forged custom id cannot act for the other
side's character. Once in English and once in Spanish.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from data.i18n import t as t_
from rules.registry import get_ruleset
from rules.skirmish.model import Character
from tests.e2e_helpers import Table, forge, panel_for_phase, retargeted, room, wait_turn_after
from tests.fakediscord import Channel, Message, Person
from tests.skirmish_e2e_fixtures import a_destination, choose, open_corridor, press, select_of

pytestmark = pytest.mark.slow

RULES = get_ruleset("skirmish")
TEXT = {
    "en": {
        "ap": "AP left",
        "acting": "Acting now:",
        "refused": "not one of your units",
        "question": "Fire or hold?",
    },
    "es": {
        "ap": "PA restantes",
        "acting": "Ahora actúa:",
        "refused": "no es tuya",
        "question": "¿Disparas o aguantas?",
    },
}


@pytest.fixture(params=["en", "es"])
async def table(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Table]:
    async with room(tmp_path, lang=request.param, channel_name="corridor") as t:
        yield t


def everything_public(channel: Channel) -> str:
    return json.dumps(
        [{"c": m.content, "e": m.embeds, "k": m.components} for m in channel.messages()], ensure_ascii=False
    )


async def panel_dm(t: Table, person: Person, unit: str, phase_no: int) -> Message:
    return await panel_for_phase(t.fd, person, unit, phase_no)


async def test_skirmish_activations_by_dm_panels(table: Table) -> None:
    t = table
    words = TEXT[t.lang]
    enc = await open_corridor(t)
    answered = forged_checked = False

    def posted(*rules: str) -> bool:
        text = everything_public(t.channel)
        return all(f"[{r}]" in text for r in rules)

    moved: set[tuple[int, str]] = set()  # (round, character) that already moved this round
    shot: set[tuple[int, str]] = set()
    for _ in range(60):
        seen = await t.bot.service.read(enc)
        state, phase_no = seen.state, seen.phase_no
        assert not state.over
        awaited = RULES.awaiting(state)
        assert awaited, f"nobody to act in phase {state.phase}"
        unit = awaited[0]
        side = state.units[unit].side
        person, foe = (t.ana, t.bea) if side == "rfp" else (t.bea, t.ana)
        panel = await panel_dm(t, person, unit, phase_no)
        # the next panel comes after the previous step's account (one queue per encounter)
        # SK-4.1 the overwatch shot, SK-3.3 the ranged attack's roll, SK-2.2 the move: all in the channel account
        if answered and forged_checked and posted("SK-4.1", "SK-3.3", "SK-2.2"):
            break
        if state.pending is not None:
            # SK-4.1: the watcher's holder is asked by DM, fire or hold
            assert state.pending.unit == unit and select_of(panel, unit, "decide")[1] == ["fire", "hold"]
            assert words["question"] in panel.embeds[0]["description"]
            await choose(t, person, panel, unit, "decide", "fire")
            await press(t, person, panel, unit, "submit")
            answered = True
        else:
            embed = panel.embeds[0]
            assert any(f["name"] == words["ap"] for f in embed["fields"]), embed
            if not forged_checked:
                forged_checked = await forged_click(t, enc, foe, unit, phase_no)
            await play_one(t, person, panel, unit, state.units[unit], moved, shot)
        await wait_turn_after(t, enc, phase_no)
    assert answered and forged_checked and posted("SK-4.1", "SK-3.3", "SK-2.2"), (answered, forged_checked)

    public = everything_public(t.channel)
    assert "[SK-3.3]" in public, "a shot's roll, with its rule id, in the channel account"
    assert "[SK-2.2]" in public or "[SK-1.2]" in public
    assert words["acting"] in public, "the status message names whose turn it is"
    await t.bot.settle()
    statuses = [m for m in t.channel.messages() if not m.deleted and words["acting"] in m.content]
    assert len(statuses) == 1, "one status message, the newest: each action's step replaces the last one"
    assert any(m.attachments for m in t.channel.messages()), "board images in the channel"
    for secret in ("hexd:draft", "move 0", "shoot "):
        assert secret not in public, f"{secret!r} from a private panel leaked into the channel"


async def play_one(
    t: Table,
    person: Person,
    panel: Message,
    unit: str,
    ch: object,
    moved: set[tuple[int, str]],
    shot: set[tuple[int, str]],
) -> None:
    """A simple player: Tyranos go into overwatch (ask) while none watches; RFP move once, then shoot once, then
    end the activation."""
    assert isinstance(ch, Character)
    state = (await t.bot.service.read(panel_enc(panel))).state
    key = (state.round, unit)
    watching = any(c.overwatch for c in state.units_of(Character) if c.side == ch.side and c.acting)
    _, others = select_of(panel, unit, "other")
    _, moves = select_of(panel, unit, "move")
    _, attacks = select_of(panel, unit, "attack")
    shots = [a for a in attacks if a.startswith("shoot ")]
    if ch.side == "tyr" and not watching and "overwatch ask" in others:
        await choose(t, person, panel, unit, "other", "overwatch ask")
    elif ch.side == "rfp" and key not in moved and moves:
        await choose(t, person, panel, unit, "move", await a_destination(t, person, panel, unit, moves))
        moved.add(key)
        assert panel.attachments, "a private preview of the intended move"
    elif ch.side == "rfp" and key not in shot and shots:
        await choose(t, person, panel, unit, "attack", shots[0])
        shot.add(key)
    else:
        ack = await press(t, person, panel, unit, "end")
        assert ack.ephemeral or ack is panel  # a message for several characters says it in its own text
        return
    ack = await press(t, person, panel, unit, "submit")
    # SK-1.1: an activation's action resolves when given: the order mode's words, not "you can change them"
    assert ack.ephemeral or ack is panel
    assert ack.content == t_("orders.resolved", t.lang, unit=ch.name), ack.content


def panel_enc(panel: Message) -> int:
    cid = next(c for c in panel.custom_ids() if c.startswith("hexd:enc:"))
    return int(cid.split(":")[2])


async def forged_click(t: Table, enc: int, foe: Person, unit: str, phase_no: int) -> bool:
    """The other side's player edits a custom id of one of their own (older) panels to act for ``unit``:
    refused, nothing stored. False while that player has had no panel yet."""

    def own_end(m: Message) -> str | None:
        return next(
            (c for c in m.custom_ids() if c.startswith(f"hexd:enc:{enc}:") and c.endswith(":end")), None
        )

    theirs = next((m for m in reversed(foe.dms()) if own_end(m)), None)
    if theirs is None:
        return False
    original = own_end(theirs)
    assert original is not None
    forged = forge(theirs, original, retargeted(original, unit))
    handle = await foe.click(theirs, forged)
    refusal = (await handle.wait_for_replies(1))[0]
    assert refusal.ephemeral and TEXT[t.lang]["refused"] in refusal.content
    assert await t.bot.service.storage.submitted_units(enc, phase_no) == []
    assert (await t.bot.service.storage.get_encounter(enc)).phase_no == phase_no
    return True
