"""Suggestions and refusals answer only those who may ask, end to end through the real discord.py client and
the local Discord: a director's options suggest nothing to anyone else, a unit the asker cannot see is suggested
for exactly as a unit that does not exist (FOG-1)."""

from __future__ import annotations

from typing import Any

import pytest

from data import SCENARIO_DIR
from tests.e2e_helpers import (
    Table,
    create_from_file,
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
