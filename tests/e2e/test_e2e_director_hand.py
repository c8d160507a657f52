"""What the director types meets the rules and the limits a scenario file meets, end to end through the real
discord.py client and the local Discord: a hand that would break the board is refused privately with the reason
and the rule id, and nothing changes (state, log, channel); names and ids pass a scenario file's limits."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from rules.scenario import MAX_UNIT_NAME
from rules.serial import to_json
from tests.e2e_helpers import Table, encounter_of, open_duel, room

pytestmark = pytest.mark.slow


@pytest.fixture
async def night(tmp_path: Path) -> AsyncIterator[Table]:
    """The bundled night patrol (skirmish under the night layer), started: Ana plays Veddio, Bea Tyrano."""
    async with room(tmp_path, lang="es", channel_name="depot", locales=("en-US", "es-ES", "es-ES")) as t:
        await answer(t, t.director, "encounter new", {"ruleset": "skirmish", "scenario": "skirmish-night"})
        await answer(t, t.ana, "encounter join", {"unit": "veddio"})
        await answer(t, t.bea, "encounter join", {"unit": "tyrano"})
        await answer(t, t.director, "encounter start", {})
        await t.bot.settle()
        yield t


async def answer(t: Table, who: Any, command: str, options: dict[str, Any]) -> Any:
    return await (await who.run_command(t.channel, command, options)).final_response(timeout=60)


async def everything(t: Table) -> tuple[object, ...]:
    """What a refused override must leave as it was: the state, the phase, the stored events, the log, the channel
    and every DM."""
    enc = (await encounter_of(t)).id
    reading = await t.bot.service.read(enc)
    meta = await t.bot.service.storage.get_encounter(enc)
    log = [(r, p, to_json(e)) for r, p, e in await t.bot.service.history(enc)]
    posts = [(m.id, m.content, m.embeds) for m in t.channel.messages()]
    dms = [len(p.dms()) for p in (t.director, t.ana, t.bea)]
    return to_json(reading.state), reading.phase_no, meta.last_seq, log, posts, dms


async def test_hex_1_sk_2_4_director_move_off_the_board_or_onto_an_obstruction_at_night_changes_nothing(
    night: Table,
) -> None:
    t = night
    before = await everything(t)
    off = await answer(t, t.director, "director move", {"unit": "veddio", "hex": "9999"})
    crate = await answer(t, t.director, "director move", {"unit": "veddio", "hex": "0604"})
    lana = await answer(t, t.director, "director move", {"unit": "kara", "hex": "0206"})
    await t.bot.settle()
    assert off.ephemeral and "9999" in off.content and "[HEX-1]" in off.content, off.content
    assert crate.ephemeral and "0604" in crate.content and "[SK-2.4]" in crate.content, crate.content
    assert "obstruction" in crate.content  # Dora reads English
    assert lana.ephemeral and "Lana" in lana.content and "[SK-2.4]" in lana.content, lana.content
    assert await everything(t) == before
    added = await answer(
        t, t.director, "director add-unit", {"id": "nova", "side": "rfp", "hex": "0605", "like": "veddio"}
    )
    await t.bot.settle()
    assert added.ephemeral and "[SK-2.4]" in added.content, added.content
    assert await everything(t) == before
    # a hex the rules allow is still the director's to take (in the dark, told to the director alone, NGT-9)
    moved = await answer(t, t.director, "director move", {"unit": "veddio", "hex": "0305"})
    assert "0305" in moved.content, moved.content
    state = (await t.bot.service.read((await encounter_of(t)).id)).state
    assert state.units["veddio"].at is not None and state.units["veddio"].at.label == "0305"


async def test_add_unit_names_and_ids_meet_a_scenario_files_limits(table: Table) -> None:
    """A 5,000-character name and an id a panel's custom id cannot carry are refused privately, as a scenario
    file's would be (rules/scenario.py MAX_UNIT_NAME, SAFE_ID); nothing is added and nothing is posted."""
    t = table
    await open_duel(t)
    await t.bot.settle()
    before = await everything(t)
    base = {"side": "blue", "hex": "1010", "like": "pirata"}
    long_name = await answer(t, t.director, "director add-unit", {**base, "id": "raider", "name": "R" * 5000})
    accented = await answer(t, t.director, "director add-unit", {**base, "id": "héroe"})
    long_id = await answer(t, t.director, "director add-unit", {**base, "id": "x" * 33})
    renamed = await answer(
        t, t.director, "director set", {"unit": "pirata", "stat": "name", "value": "P" * 5000}
    )
    await t.bot.settle()
    for refusal in (long_name, accented, long_id, renamed):
        assert refusal.ephemeral and len(refusal.content) < 300, refusal.content
    assert f"at most {MAX_UNIT_NAME}" in long_name.content and "5000" in long_name.content
    assert "letters, digits" in accented.content and "letters, digits" in long_id.content
    assert await everything(t) == before
    # the longest name a scenario may give is taken, and every message that repeats it fits Discord
    longest = "N" * MAX_UNIT_NAME
    added = await answer(t, t.director, "director add-unit", {**base, "id": "raider", "name": longest})
    assert not added.ephemeral and longest in added.content and len(added.content) <= 2000
    state = (await t.bot.service.read((await encounter_of(t)).id)).state
    assert state.units["raider"].name == longest
