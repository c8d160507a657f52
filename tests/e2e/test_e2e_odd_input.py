"""Odd input, end to end through the real discord.py client and the local Discord: what a person types is read
as they meant it or refused in private with what to write instead."""

from __future__ import annotations

import json
import re

import pytest

from data import SCENARIO_DIR
from tests.e2e_helpers import (
    Table,
    create_from_file,
    encounter_of,
    everything_public,
    play_phase,
    wait_phase_after,
)

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("expression", ["-1d6", "١d6", "2d٦+1"])
async def test_dice_1_roll_refuses_negative_counts_and_non_ascii_digits_in_private(
    table: Table, expression: str
) -> None:
    t = table
    answer = await (await t.ana.run_command(t.channel, "roll", {"expression": expression})).response()
    assert answer is not None and answer.ephemeral, answer
    assert "Try 3d6+2" in answer.content, answer.content
    assert t.channel.messages() == [], "a refused roll posted in the channel"


#: names as a hostile author types them: a masked link, markdown, a right-to-left override, zero-width characters
HOSTILE = {
    'name = { es = "Duelo en el cinturón de Kessel", en = "Duel in the Kessel belt" }': (
        'name = "Duelo ||oculto|| [gana](https://evil.example/d)\\u202e"'
    ),
    'name = { es = "Corsarios", en = "Corsairs" }': 'name = "Corsarios\\u200b`code`"',
    'name = { es = "Patrulla", en = "Patrol" }': 'name = "> Patrulla ~~x~~"',
    'name = "Halcón"': 'name = "[Halcón](https://evil.example/h)\\u200d"',
    'name = "Pirata"': 'name = "*Pirata*\\u2066_x_"',
}
#: what no post may carry: the invisible controls, and each name's markdown or link working
INVISIBLE = ("\u202e", "\u200b", "\u200d", "\u2066")
WORKING = (
    r"(?<!\\)\]\(https://evil",  # a masked link's "](" not escaped
    r"(?<!\\)\|\|oculto",
    r"(?<!\\)`code",
    r"(?<!\\)~~x",
    r"(?<!\\)\*Pirata",
    r"(?<!\\)\]\(https://evil.example/e",
)


def bot_posts(t: Table) -> list[str]:
    """The text of every message the bot sent anyone (channel posts, answers, DMs): contents and embeds, which
    Discord renders as markdown (component labels are plain text and are not read here)."""
    return [
        json.dumps({"c": m.content, "e": m.embeds}, ensure_ascii=False)
        for m in t.fd.world.messages.values()
        if m.author.bot and not m.deleted
    ]


async def test_names_are_shown_as_names_in_posts_embeds_and_dms(table: Table) -> None:
    """A scenario's, a side's and a unit's names are escaped for markdown and masked links in
    every post that repeats them, and bidi overrides and zero-width characters never reach one (no ping either:
    the conftest's check)."""
    t = table
    text = (SCENARIO_DIR / "exo-duel.toml").read_text(encoding="utf-8")
    for plain, hostile in HOSTILE.items():
        assert plain in text
        text = text.replace(plain, hostile)
    await create_from_file(t.director, t.channel, "exo", "duel.toml", text)
    await (await t.ana.run_command(t.channel, "encounter join", {"unit": "halcon"})).final_response()
    taken = await (await t.bea.run_command(t.channel, "encounter join", {"unit": "halcon"})).final_response()
    assert taken.ephemeral and "\\[Halcón\\]" in taken.content, taken.content  # a refusal names it as itself
    await (await t.bea.run_command(t.channel, "encounter join")).final_response()
    t.bea.close_dms()
    await (await t.director.run_command(t.channel, "encounter start")).final_response()
    enc = (await encounter_of(t)).id
    await (await t.ana.run_command(t.channel, "encounter status")).final_response()
    await (await t.ana.run_command(t.channel, "unit info", {"unit": "pirata"})).final_response()
    first = (await t.bot.service.status(enc)).phase_no
    await play_phase(t, enc)
    await wait_phase_after(t, enc, first)
    await (await t.ana.run_command(t.channel, "encounter log", {"round": 1})).final_response(timeout=60)
    await (
        await t.director.run_command(t.channel, "director damage", {"unit": "pirata", "amount": "1"})
    ).final_response()
    added = await (
        await t.director.run_command(
            t.channel,
            "director add-unit",
            {
                "id": "eco",
                "side": "red",
                "hex": "0303",
                "like": "halcon",
                "name": "[Eco](https://evil.example/e)\u202e",
            },
        )
    ).final_response()
    assert "Eco" in added.content and "\u202e" not in added.content
    posts = bot_posts(t)
    public = everything_public(t.channel)
    assert "Halcón" in public and "Pirata" in public and "Kessel" not in public
    assert "\\\\*Pirata\\\\*" in public and "\\\\[Halcón\\\\]" in public, "a name was not shown as itself"
    for post in posts:
        assert not any(ch in post for ch in INVISIBLE), post
        decoded = json.loads(post)
        shown = json.dumps(decoded, ensure_ascii=False).replace("\\\\", "\\")
        for pattern in WORKING:
            found = re.search(pattern, shown)
            assert found is None, shown[max(0, found.start() - 300) : found.end() + 100]
