"""The words contract end to end: every bundled scenario opened in Discord (through the real client against the
fake), two players in (one reading English, one Spanish), the encounter started; then everything each player
reads — the channel, their DMs (order panels), ``/encounter status`` and ``/unit info`` of every unit their
autocomplete offers — shows no catalog key, no unfilled template and no engine phase id."""

from __future__ import annotations

import json
from typing import Any

import pytest

from bot.service import bundled_scenarios
from data import SCENARIO_DIR
from rules.registry import discord_ruleset_ids
from rules.scenario import load_scenario
from rules.state import EncounterState
from tests.e2e_helpers import Table
from tests.fakediscord.messages import Message
from tests.words_fixtures import assert_reads_as_words

pytestmark = pytest.mark.slow


def words(message: Message | None) -> str:
    """A message's text and its embeds' words (titles, descriptions, fields, footers), not its ids."""
    if message is None:
        return ""
    out = [message.content or ""]
    for embed in message.embeds:
        out += [str(embed.get("title", "")), str(embed.get("description", ""))]
        out += [f"{f['name']}: {f['value']}" for f in embed.get("fields", [])]
        out.append(str(embed.get("footer", {}).get("text", "")))
    for row in message.components:
        out.append(json.dumps(row, ensure_ascii=False))
    return "\n".join(out)


def readable_components(text: str) -> str:
    """Labels, placeholders and option labels of the components' JSON (custom ids are ids by design)."""
    found: list[str] = []
    for line in text.splitlines():
        if not line.startswith(("[", "{")):
            found.append(line)
            continue
        try:
            data: Any = json.loads(line)
        except ValueError:
            found.append(line)
            continue
        stack = [data]
        while stack:
            item = stack.pop()
            if isinstance(item, dict):
                for key, value in item.items():  # pyright: ignore[reportUnknownVariableType]
                    if key in ("label", "placeholder", "description") and isinstance(value, str):
                        found.append(value)
                    else:
                        stack.append(value)
            elif isinstance(item, list):
                stack.extend(item)  # pyright: ignore[reportUnknownArgumentType]
    return "\n".join(found)


@pytest.mark.parametrize(
    "scenario", [s for s, _, ruleset in bundled_scenarios() if ruleset in discord_ruleset_ids()]
)
async def test_every_bundled_scenario_reads_as_words_in_discord_in_both_languages(
    table: Table, scenario: str
) -> None:
    t = table
    state: EncounterState = load_scenario(SCENARIO_DIR / f"{scenario}.toml").state
    created = await (
        await t.director.run_command(
            t.channel, "encounter new", {"ruleset": state.ruleset, "scenario": scenario}
        )
    ).final_response()
    assert created.content
    for person in (t.ana, t.bea):
        await (await person.run_command(t.channel, "encounter join")).final_response()
    await (await t.director.run_command(t.channel, "encounter start")).final_response()
    await t.bot.settle()
    for person, locale in ((t.ana, "en"), (t.bea, "es")):
        read: dict[str, str] = {}
        read["status"] = words(await (await person.run_command(t.channel, "encounter status")).response())
        for choice in await person.autocomplete(t.channel, "unit info", "unit", ""):
            unit = choice["value"]
            answer = await (await person.run_command(t.channel, "unit info", {"unit": unit})).final_response()
            read[f"/unit info {unit}"] = words(answer)
        for n, dm in enumerate(person.dms()):
            read[f"DM {n}"] = words(dm)
        for where, text in read.items():
            assert_reads_as_words(readable_components(text), state, locale, f"{scenario} {locale} {where}")
    for n, dm in enumerate(t.director.dms()):  # the director's own panel (ocs: the procedure)
        assert_reads_as_words(readable_components(words(dm)), state, "en", f"{scenario} director DM {n}")
    for n, message in enumerate(t.channel.messages()):
        if message.visible_to is None:
            # the channel speaks the server's language (the table's server is English)
            assert_reads_as_words(readable_components(words(message)), state, "en", f"{scenario} channel {n}")
