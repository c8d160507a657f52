"""``/director terrain`` end to end (real bot, local Discord): the director paints and clears a hex's terrain on a
bounded skirmish board as an undoable override told in the channel; the choices come from the ruleset's terrain
table (data/skirmish/terrain.toml); an unknown kind, an off-board hex or an unbounded exo board is refused."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from bot.permissions import Actor
from bot.transforms.overrides import terrain_kinds
from rules.hexgrid import Hex
from rules.state import EncounterState
from tests.e2e_helpers import BotUnderTest, start_bot
from tests.fakediscord import Channel, FakeDiscord, Message, Person
from tests.paths import ROOT

pytestmark = pytest.mark.slow

SPOT = Hex.parse("0506")  # an obstruction in the bundled corridor


@dataclass
class Room:
    fd: FakeDiscord
    bot: BotUnderTest
    channel: Channel
    director: Person
    ana: Person
    guild_id: int


@pytest.fixture
async def room(tmp_path: Path) -> AsyncIterator[Room]:
    async with FakeDiscord() as fd:
        guild = fd.create_guild("Wargames")
        channel = guild.create_text_channel("corridor")
        director, ana = fd.create_user("dora", locale="es-ES"), fd.create_user("ana")
        for person in (director, ana):
            guild.add_member(person.user)
        bot = await start_bot(fd, f"sqlite:///{tmp_path / 'terrain.sqlite3'}", guild.id)
        r = Room(fd, bot, channel, director, ana, guild.id)
        try:
            yield r
        finally:
            await r.bot.close()


async def open_encounter(r: Room, ruleset: str, scenario: str) -> int:
    await (
        await r.director.run_command(r.channel, "encounter new", {"ruleset": ruleset, "scenario": scenario})
    ).final_response(timeout=30)
    meta = await r.bot.service.storage.active_encounter_in_channel(r.guild_id, r.channel.id)
    assert meta is not None
    return meta.id


async def state_of(r: Room, enc: int) -> EncounterState:
    return (await r.bot.service.read(enc)).state


async def public_board(r: Room) -> bytes:
    shown = await (await r.ana.run_command(r.channel, "encounter board", {"view": "public"})).final_response()
    return shown.attachments[0].read()


async def answer(person: Person, channel: Channel, hex: str, terrain: str) -> Message:
    reply = await (
        await person.run_command(channel, "director terrain", {"hex": hex, "terrain": terrain})
    ).response()
    assert reply is not None
    return reply


async def undo(r: Room) -> None:
    undone = await (await r.director.run_command(r.channel, "director undo")).final_response()
    assert "deshecho" in undone.content


async def test_terrain_is_set_shown_cleared_and_undone(room: Room) -> None:
    r = room
    enc = await open_encounter(r, "skirmish", "skirmish-corridor")
    before = await state_of(r, enc)
    assert before.board.terrain_at(SPOT) == "obstruction"
    image_before = await public_board(r)

    # autocomplete: the skirmish table's kinds (named in the reader's language) and "clear"; fire is a marker
    offered = await r.director.autocomplete(r.channel, "director terrain", "terrain", "")
    assert [c["value"] for c in offered] == [*terrain_kinds("skirmish"), "clear"]
    assert {"difficult", "obstacle", "obstruction"} <= {c["value"] for c in offered}
    assert any(c["name"].startswith("terreno difícil") for c in offered)
    assert "fire" not in {c["value"] for c in offered}

    done = await answer(r.director, r.channel, "0506", "difficult")
    assert not done.ephemeral and done.content == "🎬 [Director] 0506 pasa a ser terreno difícil"
    changed = await state_of(r, enc)
    assert changed.board.terrain_at(SPOT) == "difficult"
    assert {h: k for h, k in changed.board.terrain.items() if h != SPOT} == {
        h: k for h, k in before.board.terrain.items() if h != SPOT
    }
    image_changed = await public_board(r)
    assert image_changed != image_before
    overrides = await r.bot.service.storage.events(enc, types=["DirectorOverride"])
    assert overrides[-1].payload["event"]["action"] == "terrain"

    await undo(r)
    assert (await state_of(r, enc)).board.terrain == before.board.terrain
    assert await public_board(r) == image_before

    cleared = await answer(r.director, r.channel, "0506", "clear")
    assert cleared.content == "🎬 [Director] 0506 ya no tiene terreno (obstrucción)"
    assert SPOT not in (await state_of(r, enc)).board.terrain
    assert await public_board(r) != image_before
    await undo(r)
    assert (await state_of(r, enc)).board.terrain == before.board.terrain
    assert await public_board(r) == image_before


async def test_bad_terrain_requests_are_refused_with_the_valid_kinds(room: Room) -> None:
    r = room
    enc = await open_encounter(r, "skirmish", "skirmish-corridor")
    before = await state_of(r, enc)

    unknown = await answer(r.ana, r.channel, "0506", "lava")
    assert (
        unknown.ephemeral and "Only the encounter's directors" in unknown.content
    )  # a player, refused first

    director_en = r.fd.create_user("eva")
    r.fd.world.guilds[r.guild_id].add_member(director_en.user)
    await r.bot.service.cohost(enc, Actor(r.director.id), director_en.id)  # an English co-director
    unknown = await answer(director_en, r.channel, "0506", "lava")
    assert unknown.ephemeral
    assert "lava is not a skirmish terrain. Valid: difficult, obstacle, obstruction" in unknown.content
    off_board = await answer(director_en, r.channel, "2020", "difficult")
    assert off_board.ephemeral and "2020 is off the board" in off_board.content
    same = await answer(r.director, r.channel, "0506", "obstruction")
    assert same.ephemeral and "ya tiene ese terreno" in same.content
    assert (await state_of(r, enc)).board.terrain == before.board.terrain
    assert await r.bot.service.storage.events(enc, types=["DirectorOverride"]) == []


async def test_an_unbounded_exo_board_has_no_terrain_to_paint(room: Room) -> None:
    r = room
    enc = await open_encounter(r, "exo", "exo-duel")
    assert await r.director.autocomplete(r.channel, "director terrain", "terrain", "") == [
        {"name": "quitar (sin terreno) (clear)", "value": "clear"}
    ]
    refused = await answer(r.director, r.channel, "0101", "asteroid")
    assert refused.ephemeral and "tablero con límites" in refused.content
    assert not (await state_of(r, enc)).board.terrain


async def test_a_bounded_exo_board_without_a_terrain_table_can_only_clear(room: Room) -> None:
    r = room
    duel = (ROOT / "data" / "scenarios" / "exo-duel.toml").read_text("utf-8")
    board = '[board]\nwidth = 20\nheight = 20\nterrain = { "1010" = "asteroid" }\n\n'
    text = duel.replace("[[sides]]", board + "[[sides]]", 1)
    await (
        await r.director.run_command(
            r.channel, "encounter new", {"ruleset": "exo", "file": ("bounded.toml", text.encode())}
        )
    ).final_response(timeout=30)
    meta = await r.bot.service.storage.active_encounter_in_channel(r.guild_id, r.channel.id)
    assert meta is not None
    assert (await state_of(r, meta.id)).board.terrain_at(Hex.parse("1010")) == "asteroid"

    refused = await answer(r.director, r.channel, "0303", "asteroid")
    assert refused.ephemeral and "no tiene tipos de terreno" in refused.content
    cleared = await answer(r.director, r.channel, "1010", "clear")
    assert cleared.content == "🎬 [Director] 1010 ya no tiene terreno (asteroide)"
    assert not (await state_of(r, meta.id)).board.terrain
