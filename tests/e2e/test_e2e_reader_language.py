"""What the table reads, in whose words, end to end against tests/fakediscord: the first-encounter guide reaches
the director alone, once per server; a public ``/roll`` speaks the channel's language (DICE-1..3), whatever the
client of the player who rolled it."""

from __future__ import annotations

import asyncio
from pathlib import Path

import discord
import pytest

from tests.e2e_helpers import room

pytestmark = pytest.mark.slow


async def test_the_first_encounter_guide_goes_to_the_director_alone_once_per_server(tmp_path: Path) -> None:
    async with room(tmp_path, lang="es", locales=("es-ES", "en-US", "es-ES")) as t:
        made = await (
            await t.director.run_command(
                t.channel, "encounter new", {"ruleset": "exo", "scenario": "exo-duel"}
            )
        ).final_response()
        assert not made.ephemeral and "Duelo en el cinturón de Kessel" in made.content  # its Spanish name
        guide = await t.fd.wait_for(
            lambda: next((m for m in t.director.ephemeral_messages(t.channel) if m.embeds), None),
            what="the guide in the director's private answer",
        )
        assert guide.embeds[0]["title"] == "Tu primer encuentro"
        assert not any(m.embeds for m in t.channel.messages()), "the table never sees the guide"
        assert t.ana.ephemeral_messages(t.channel) == []
        # another encounter on the same server: no guide (the command is awaited to its end, not timed)
        other = t.fd.world.guilds[t.guild_id].create_text_channel("otra")
        done: asyncio.Future[discord.Interaction] = asyncio.get_running_loop().create_future()

        async def finished(interaction: discord.Interaction, _command: object) -> None:
            if interaction.channel_id == other.id and not done.done():
                done.set_result(interaction)

        t.bot.add_listener(finished, "on_app_command_completion")
        await (
            await t.director.run_command(other, "encounter new", {"ruleset": "exo", "scenario": "exo-duel"})
        ).final_response()
        await asyncio.wait_for(done, 30)
        assert not any(m.embeds for m in t.director.ephemeral_messages(other) + other.messages())


async def test_a_public_roll_speaks_the_channels_language_not_the_rollers(tmp_path: Path) -> None:
    async with room(tmp_path, lang="es", locales=("es-ES", "en-US", "es-ES")) as t:
        # Ana's client is English; the server is Spanish: the table reads the roll in Spanish
        rolled = await (await t.ana.run_command(t.channel, "roll", {"expression": "2d6+5 vs 15"})).response()
        assert rolled is not None and not rolled.ephemeral
        assert "necesita ≥ 15" in rolled.content, rolled.content
        # in an encounter's channel, the encounter's language (fixed by its Spanish director)
        await (
            await t.director.run_command(
                t.channel, "encounter new", {"ruleset": "exo", "scenario": "exo-duel"}
            )
        ).final_response()
        sombra = await (await t.ana.run_command(t.channel, "roll", {"expression": "sombra 12"})).response()
        assert sombra is not None and not sombra.ephemeral and "necesita ≤ 12" in sombra.content
        # a refusal stays private and in the roller's own words
        refused = await (await t.ana.run_command(t.channel, "roll", {"expression": "banana"})).response()
        assert refused is not None and refused.ephemeral and "banana" in refused.content
        assert "No entiendo" not in refused.content, refused.content
