"""The director's tools in every ruleset, end to end through the real discord.py client and the local Discord:
``/director damage`` takes a pbw location (PBW-4) and ocs steps (OCS-1), its location suggestions read in the
director's words, one ``/director undo`` takes back exactly that override and says what it undid, and an override
that changes nothing is refused before it is recorded (so the next undo never reverts a real step)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC
from pathlib import Path
from typing import Any

import pytest

from bot.phase_gate import CONFIRM_WITHIN_MS
from rules.ocs.model import OcsUnit
from rules.pbw.model import Character
from rules.serial import to_json
from tests.e2e_helpers import Table, encounter_of, room

pytestmark = pytest.mark.slow


async def answer(t: Table, who: Any, command: str, options: dict[str, Any]) -> Any:
    return await (await who.run_command(t.channel, command, options)).final_response(timeout=60)


async def started(t: Table, scenario: str, ruleset: str, seats: tuple[tuple[Any, str], ...]) -> int:
    await answer(t, t.director, "encounter new", {"ruleset": ruleset, "scenario": scenario})
    for person, unit in seats:
        await answer(t, person, "encounter join", {"unit": unit})
    await answer(t, t.director, "encounter start", {})
    await t.bot.settle()
    return (await encounter_of(t)).id


@pytest.fixture
async def tavern(tmp_path: Path) -> AsyncIterator[Table]:
    """The bundled tavern brawl (pbw) in a Spanish channel, Dora directing in Spanish: Ana plays Lola."""
    async with room(tmp_path, lang="es", channel_name="taberna") as t:
        yield t


@pytest.fixture
async def desert(tmp_path: Path) -> AsyncIterator[Table]:
    """The bundled Gazala (ocs) in an English channel."""
    async with room(tmp_path, lang="en", channel_name="desert") as t:
        yield t


async def test_pbw_4_director_damage_on_a_torso_is_undone_by_one_undo(tavern: Table) -> None:
    t = tavern
    enc = await started(t, "pbw-brawl", "pbw", ((t.ana, "lola"), (t.bea, "rafa")))
    before = await t.bot.service.read(enc)
    lola = before.state.unit_as("lola", Character)
    # the locations in the director's words alone, the engine's key the value sent
    offered = await t.director.autocomplete(t.channel, "director damage", "location", "", {"unit": "lola"})
    names = {c["name"]: c["value"] for c in offered}
    assert names["Torso"] == "torso" and names["Cabeza"] == "head" and names["Brazo izquierdo"] == "la", names
    assert not any("(" in name for name in names), names
    done = await answer(
        t, t.director, "director damage", {"unit": "lola", "amount": "3", "location": "torso"}
    )
    assert not done.ephemeral and "Lola" in done.content and "3" in done.content, done.content
    hit = (await t.bot.service.read(enc)).state.unit_as("lola", Character)
    assert (hit.hp, hit.resistance["torso"]) == (lola.hp - 3, lola.resistance["torso"] - 3)
    undone = await answer(t, t.director, "director undo", {})
    assert undone.content == "🎬 Se ha deshecho: daño 3 a Lola en el torso (director).", undone.content
    after = await t.bot.service.read(enc)
    assert to_json(after.state) == to_json(before.state) and after.phase_no == before.phase_no
    # a number is all damage takes: the refusal says so in the director's words, not the option's engine name
    bad = await answer(
        t, t.director, "director damage", {"unit": "lola", "amount": "mucho", "location": "torso"}
    )
    assert bad.ephemeral and "damage" not in bad.content and "daño" in bad.content.lower(), bad.content
    typo = await answer(t, t.director, "director set", {"unit": "lola", "stat": "hp", "value": "mucho"})
    assert typo.ephemeral and typo.content == "Ese valor no sirve para Puntos de Vida.", typo.content


async def test_ocs_1_director_damage_takes_steps_and_is_undone_by_one_undo(desert: Table) -> None:
    t = desert
    enc = await started(t, "ocs-gazala", "ocs", ((t.ana, "pz21"), (t.bea, "rtr7")))
    before = await t.bot.service.read(enc)
    assert before.state.unit_as("pz21", OcsUnit).steps == 2
    done = await answer(t, t.director, "director damage", {"unit": "pz21", "amount": "1"})
    assert not done.ephemeral and "loses 1 step" in done.content, done.content
    assert (await t.bot.service.read(enc)).state.unit_as("pz21", OcsUnit).steps == 1
    too_many = await answer(t, t.director, "director damage", {"unit": "pz21", "amount": "5"})
    assert too_many.ephemeral and "1 step left" in too_many.content, too_many.content
    undone = await answer(t, t.director, "director undo", {})
    assert undone.content == "🎬 Undone: 1 step lost by 2/1 Pz (director).", undone.content
    after = await t.bot.service.read(enc)
    assert to_json(after.state) == to_json(before.state) and after.phase_no == before.phase_no


async def test_an_override_that_changes_nothing_is_not_recorded_and_undo_takes_back_the_last_real_one(
    desert: Table,
) -> None:
    t = desert
    enc = await started(t, "ocs-gazala", "ocs", ((t.ana, "pz21"), (t.bea, "rtr7")))
    moved = await answer(t, t.director, "director move", {"unit": "pz21", "hex": "0404"})
    assert not moved.ephemeral, moved.content
    placed = await t.bot.service.read(enc)
    same = await answer(t, t.director, "director move", {"unit": "pz21", "hex": "0404"})
    assert same.ephemeral and "changes nothing" in same.content, same.content
    assert (await t.bot.service.read(enc)).meta.last_seq == placed.meta.last_seq
    undone = await answer(t, t.director, "director undo", {})
    assert undone.content.startswith("🎬 Undone: ") and "0404" in undone.content, undone.content
    assert (await t.bot.service.read(enc)).state.units["pz21"].at != placed.state.units["pz21"].at


async def test_the_log_keeps_an_undone_step_saying_who_undid_it_and_when(desert: Table) -> None:
    """``/director undo`` tells the channel what it undid; afterwards ``/encounter log`` keeps the undone step,
    struck through under a header naming the director by name (never an id) and the time of the undo."""
    t = desert
    enc = await started(t, "ocs-gazala", "ocs", ((t.ana, "pz21"), (t.bea, "rtr7")))
    moved = await answer(t, t.director, "director move", {"unit": "pz21", "hex": "0404"})
    assert not moved.ephemeral, moved.content
    undone = await answer(t, t.director, "director undo", {})
    assert undone.content.startswith("🎬 Undone: ") and "0404" in undone.content, undone.content
    (undo,) = await t.bot.service.storage.events(enc, types=("Undone",))
    assert undo.payload["by"] == t.director.id
    at = undo.created_at.astimezone(UTC).strftime("%Y-%m-%d %H:%M")

    log = await answer(t, t.ana, "encounter log", {})
    assert log.ephemeral
    text = log.content if not log.attachments else log.attachments[0].read().decode()
    header = next(line for line in text.splitlines() if "↩️" in line)
    shown = (
        t.director.user.global_name or t.director.name
    )  # what Discord shows of her, as discord.py reads it
    assert f"undone by {shown} ({at} UTC)" in header, header
    assert str(t.director.id) not in text
    struck = text.splitlines()[text.splitlines().index(header) + 1]
    assert struck.startswith("~~") and "0404" in struck, text


@pytest.mark.parametrize(
    ("lang", "words"),
    [
        ("en", "Nothing to resolve: no combat is ready to roll and no order is waiting."),
        ("es", "No hay nada que resolver: ningún combate está listo para tirar y no hay órdenes pendientes."),
    ],
)
async def test_ocs_2_a_resolve_with_nothing_due_is_refused_privately_and_changes_nothing(
    tmp_path: Path, lang: str, words: str
) -> None:
    """OCS-2: the director's procedure resolves each order as it is given, so a ``/director resolve`` while no
    combat is ready to roll has nothing to force. It is refused, to the director alone, in their language, with
    what to do instead; the channel sees no empty step and the dice seal stays as it was."""
    async with room(tmp_path, lang=lang, channel_name="gazala") as t:
        enc = await started(t, "ocs-gazala", "ocs", ((t.ana, "pz21"), (t.bea, "rtr7")))
        before = await t.bot.service.read(enc)
        public = [(m.id, m.content, m.edited_timestamp) for m in t.channel.messages()]
        t.fd.advance_clock(CONFIRM_WITHIN_MS + 1)  # the step was shown long enough ago: no confirmation asked
        refused = await answer(t, t.director, "director resolve", {})
        assert refused.ephemeral and refused.content.startswith(words), refused.content
        assert "/orders" in refused.content or "/órdenes" in refused.content, "it says where to act instead"
        await t.bot.settle()
        after = await t.bot.service.read(enc)
        assert after.phase_no == before.phase_no and to_json(after.state) == to_json(before.state)
        assert [(m.id, m.content, m.edited_timestamp) for m in t.channel.messages()] == public, (
            "nothing posted"
        )
