"""Suggestions and refusals answer only those who may ask, end to end through the real discord.py client and
the local Discord: a director's options suggest nothing to anyone else, a unit the asker cannot see is suggested
for exactly as a unit that does not exist (FOG-1), and a refusal in a DM never tells whether an encounter id is in
use in some other server."""

from __future__ import annotations

from typing import Any

import pytest

from data import SCENARIO_DIR
from tests.e2e_helpers import (
    Table,
    button_id,
    create_from_file,
    current_panel_dm,
    encounter_of,
    forge,
    open_duel,
)

pytestmark = pytest.mark.slow

# the Griffin waits in hiding: the red side must not learn it exists (the director placed it hidden)
HIDDEN_GRIFFIN = (
    (SCENARIO_DIR / "mech-duel.toml")
    .read_text(encoding="utf-8")
    .replace('id = "griffin"\nside = "blue"\n', 'id = "griffin"\nside = "blue"\nhidden = true\n', 1)
    .split("[[rounds]]", 1)[0]  # the duel's scripted rounds fire at the Griffin in the open
)


async def suggested(t: Table, who: Any, command: str, focused: str, options: dict[str, Any]) -> list[str]:
    return [c["value"] for c in await who.autocomplete(t.channel, command, focused, "", options)]


async def test_director_options_suggest_nothing_to_a_player(table: Table) -> None:
    t = table
    await open_duel(t)
    for command, focused, options in (
        ("director move", "unit", {}),
        ("director add-unit", "like", {}),
        ("director damage", "unit", {}),
        ("director damage", "location", {"unit": "halcon"}),
        ("director terrain", "terrain", {"hex": "0101"}),
        ("director ruling", "kind", {}),
        ("director option", "name", {}),
    ):
        assert await suggested(t, t.ana, command, focused, options) == [], (command, focused)
    assert set(await suggested(t, t.director, "director move", "unit", {})) >= {"halcon", "pirata"}
    assert set(await suggested(t, t.director, "director ruling", "kind", {})) == {
        "collision",
        "dock",
        "board",
    }


async def test_fog_1_a_hidden_mech_is_suggested_for_as_a_unit_that_does_not_exist(table: Table) -> None:
    t = table
    await create_from_file(t.director, t.channel, "mech", "hidden.toml", HIDDEN_GRIFFIN)
    await (await t.ana.run_command(t.channel, "encounter join", {"unit": "hunter"})).final_response()
    for command, focused in (("director damage", "location"), ("unit arcs", "section")):
        hidden = await suggested(t, t.ana, command, focused, {"unit": "griffin"})
        missing = await suggested(t, t.ana, command, focused, {"unit": "nothere"})
        assert hidden == missing == [], (command, hidden, missing)
    for command, focused in (("director move", "unit"), ("unit info", "unit")):
        assert "griffin" not in await suggested(t, t.ana, command, focused, {}), command
    # the director sees the Griffin, and its locations (MECH-2.3)
    assert "ct" in await suggested(t, t.director, "director damage", "location", {"unit": "griffin"})
    assert "griffin" in await suggested(t, t.director, "director move", "unit", {})


async def test_a_dm_refusal_does_not_tell_whether_an_encounter_is_in_use_in_another_server(
    table: Table,
) -> None:
    t = table
    enc = await open_duel(t)
    phase_no = (await encounter_of(t)).phase_no
    # an encounter in a server Ana is not in, and an id no encounter has
    elsewhere = await t.bot.service.create(
        t.guild_id + 1, t.channel.id + 1, t.director.id, ruleset="exo", scenario="exo-duel"
    )
    nowhere = elsewhere.encounter_id + 1000
    answers: list[str] = []
    for other in (elsewhere.encounter_id, nowhere):
        panel = await current_panel_dm(t, t.ana, "halcon", phase_no)
        own = button_id(panel, "halcon", "submit")
        forged = forge(panel, own, own.replace(f"hexd:enc:{enc}:", f"hexd:enc:{other}:", 1))
        handle = await t.ana.click(panel, forged)
        answers.append((await handle.wait_for_replies(1, timeout=60))[0].content)
        forge(panel, forged, own)  # the panel as it was, for the next try
    assert answers[0] == answers[1] and "no longer exists" in answers[0], answers
    stored = await t.bot.service.storage.submitted_units(elsewhere.encounter_id, 1)
    assert stored == []
