"""A side named in both languages (scenario ``[[sides]] name = { es = …, en = … }``) reads in each reader's
language, end to end against tests/fakediscord: the Spanish director's post names the Corsarios, the English
player's private ``/unit info`` the Corsairs."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e_helpers import room

pytestmark = pytest.mark.slow


async def test_a_bilingual_side_name_reads_in_each_readers_language(tmp_path: Path) -> None:
    async with room(tmp_path, lang="es", locales=("es-ES", "en-US", "es-ES")) as t:
        made = await (
            await t.director.run_command(
                t.channel, "encounter new", {"ruleset": "exo", "scenario": "exo-duel"}
            )
        ).final_response()
        assert "(Corsarios)" in made.content and "Corsairs" not in made.content, made.content
        english = await (await t.ana.run_command(t.channel, "unit info", {"unit": "halcon"})).final_response()
        assert english.ephemeral and english.embeds[0]["title"] == "Halcón (Corsairs)", english.embeds
        spanish = await (
            await t.director.run_command(t.channel, "unit info", {"unit": "halcon"})
        ).final_response()
        assert spanish.embeds[0]["title"] == "Halcón (Corsarios)", spanish.embeds
