"""``/encounter new`` with a broken scenario file answers the director alone (ephemeral,
nothing in the channel) and in the director's own language, whatever the server's: a Spanish director on an
English server reads the problems in Spanish, an English one on a Spanish server in English. Every line keeps its
line number, key path and did-you-mean suggestion, and a long list is cut to one message with a "… and N more"
line instead of mid-sentence."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e_helpers import Table, room
from tests.paths import ROOT

pytestmark = pytest.mark.slow

DUEL = (ROOT / "data" / "scenarios" / "exo-duel.toml").read_text(encoding="utf-8")
#: three mistakes: an unknown side, a crew member beyond the cabin, a scripted shot at a misspelt target
BROKEN = (
    DUEL.replace('side = "blue"', 'side = "azul"', 1)
    .replace('{ name = "Kal", station = "gunner"', '{ name = "Kal", station = "gunnr"', 1)
    .encode()
)
ROUNDS_BROKEN = DUEL.replace('target = "pirata" }', 'target = "pirat" }', 1).encode()


async def refusal(t: Table, content: bytes, name: str = "roto.toml") -> str:
    """What the director reads after ``/encounter new`` with ``content``; the channel must get nothing."""
    await t.bot.settle()
    before = len(t.channel.messages())
    handle = await t.director.run_command(
        t.channel, "encounter new", {"ruleset": "exo", "file": (name, content)}
    )
    reply = await handle.final_response(timeout=30)
    await t.bot.settle()
    assert reply.ephemeral, f"a scenario refusal is private to the director: {reply.content[:200]!r}"
    public = [m for m in t.channel.messages()[before:] if m.visible_to is None]
    assert public == [], [m.content[:80] for m in public]
    assert len(reply.content) <= 2000
    return reply.content


async def test_a_spanish_director_reads_the_problems_in_spanish_on_an_english_server(tmp_path: Path) -> None:
    async with room(tmp_path, lang="en", locales=("es-ES", "en-US", "en-US")) as t:
        text = await refusal(t, BROKEN)
        assert "El escenario tiene problemas" in text or "problemas" in text, text
        assert "units[1].side: bando desconocido 'azul' (bandos: blue, red)" in text, text
        assert "units[0].crew[1].station: puesto desconocido 'gunnr'" in text, text
        assert "línea " in text and "line " not in text, text
        assert "unknown" not in text, text
        rounds = await refusal(t, ROUNDS_BROKEN)
        assert "'pirat' no es otra unidad (¿quisiste decir 'pirata'?)" in rounds, rounds


async def test_an_english_director_reads_the_problems_in_english_on_a_spanish_server(tmp_path: Path) -> None:
    async with room(tmp_path, lang="es", locales=("en-US", "es-ES", "es-ES")) as t:
        text = await refusal(t, BROKEN)
        assert "units[1].side: unknown side 'azul' (sides: blue, red)" in text, text
        assert "units[0].crew[1].station: unknown station 'gunnr'" in text, text
        assert "line " in text and "línea" not in text and "desconocid" not in text, text


async def test_a_long_list_of_problems_fits_one_message_and_says_how_many_more(tmp_path: Path) -> None:
    many = DUEL + "".join(
        f'\n[[units]]\nid = "x{i}"\nside = "nadie{i}"\nat = "{i:02d}99"\nfacing = "ARRIBA"\n'
        for i in range(1, 40)
    )
    async with room(tmp_path, lang="es") as t:
        text = await refusal(t, many.encode())
        lines = text.splitlines()
        assert lines[-1].startswith("… y ") and "más (hexdirector validate" in lines[-1], lines[-1]
        assert all(line.startswith("línea ") for line in lines[1:-1]), lines[:3]


async def test_a_busy_channel_or_a_scenario_for_another_ruleset_is_refused_in_private(tmp_path: Path) -> None:
    """Private refusals for ``/encounter new`` itself: the refusals that need no scenario reading come before the
    command answers in public, so they stay with the director too."""
    async with room(tmp_path, lang="es", locales=("en-US", "es-ES", "es-ES")) as t:
        for options in (
            {"ruleset": "skirmish", "scenario": "exo-duel"},
            {"ruleset": "exo", "scenario": "exo-nowhere"},
        ):
            before = len(t.channel.messages())
            reply = await (await t.director.run_command(t.channel, "encounter new", options)).final_response()
            assert reply.ephemeral, reply.content
            assert [m.content for m in t.channel.messages()[before:] if m.visible_to is None] == [], options
        handle = await t.director.run_command(
            t.channel, "encounter new", {"ruleset": "exo", "scenario": "exo-duel"}
        )
        created = await handle.final_response()
        assert not created.ephemeral and "Kessel" in created.content
        await handle.wait_for_followups(1)  # the first encounter's tutorial
        await t.bot.settle()
        before = len(t.channel.messages())
        for options in (
            {"ruleset": "exo", "scenario": "exo-duel"},
            {"ruleset": "exo", "file": ("duel.toml", DUEL.encode())},
        ):
            busy = await (await t.director.run_command(t.channel, "encounter new", options)).final_response()
            assert busy.ephemeral and "already has an encounter" in busy.content, busy.content
        await t.bot.settle()
        assert [m.content for m in t.channel.messages()[before:] if m.visible_to is None] == []
