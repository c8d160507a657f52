"""Hardening, end to end through the real discord.py client and the local Discord: one resolution per phase
whatever races the director's resolve, and no unit the public cannot see named by a director's override, the
log or the status (FOG-1)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from data import SCENARIO_DIR
from tests.e2e_helpers import (
    Table,
    encounter_of,
    everything_public,
    open_duel,
    phase_seen,
    play_phase,
    wait_phase_after,
)

pytestmark = pytest.mark.slow

HIDDEN_SHIP = """
[[units]]
id = "espectro"
side = "red"
name = "Espectro"
at = "0303"
facing = "N"
hidden = true
maneuverability = 2
engines = 2
armor = 4
structure = 3
cabin = 2
cargo = 1
speed = 1
weapons = ["Lx2"]
"""


async def answer(t: Table, who: Any, command: str, options: dict[str, Any]) -> Any:
    return await (await who.run_command(t.channel, command, options)).final_response(timeout=60)


async def test_a_director_resolve_that_arrives_after_the_phase_resolved_forces_nothing(table: Table) -> None:
    """The last order and the director's resolve race: the phase resolves once, with the orders; the
    director's resolve (it saw the phase that is over) answers 'already resolved' and forces no empty phase."""
    t = table
    enc = await open_duel(t)
    seen = await encounter_of(t)
    service = t.bot.service
    original = service.resolve
    forced_calls: list[int | None] = []

    async def players_win_the_race(encounter_id: int, **kwargs: Any) -> Any:
        if kwargs.get("forced") and not kwargs.get("all_in"):
            forced_calls.append(kwargs.get("expected_phase_no"))
            # the last order arrives between the director's command and its resolve
            for user, unit in ((t.ana.id, "halcon"), (t.bea.id, "pirata")):
                await service.submit(encounter_id, user, unit, {"move": "-", "fire": []})
            await original(encounter_id, all_in=True, on_step=kwargs.get("on_step"))
        return await original(encounter_id, **kwargs)

    service.resolve = players_win_the_race  # type: ignore[method-assign]
    await phase_seen(t)
    try:
        reply = await answer(t, t.director, "director resolve", {})
    finally:
        service.resolve = original  # type: ignore[method-assign]
    await t.bot.settle()
    assert forced_calls == [seen.phase_no]
    assert "already resolved" in reply.content, reply.content
    after = await encounter_of(t)
    state = (await service.read(enc)).state
    # exactly the orders' round was resolved: the next round waits for orders, nothing was forced
    assert state.round == 2 and service.owing(state), (after.phase_no, state.round, state.phase)


async def test_overrides_of_a_hidden_unit_are_told_to_the_director_alone_and_never_logged(
    table: Table,
) -> None:
    t = table
    text = (
        (SCENARIO_DIR / "exo-duel.toml")
        .read_text(encoding="utf-8")
        .replace("[[rounds]]", HIDDEN_SHIP + "\n[[rounds]]", 1)
    )
    created = await answer(
        t, t.director, "encounter new", {"ruleset": "exo", "file": ("hidden.toml", text.encode())}
    )
    assert "Espectro" not in created.content  # the unit list offers no hidden unit
    await answer(t, t.ana, "encounter join", {})
    await answer(t, t.bea, "encounter join", {})
    await answer(t, t.director, "encounter start", {})
    before = len(t.channel.messages())

    for command, options in (
        ("director move", {"unit": "espectro", "hex": "0606"}),
        ("director damage", {"unit": "espectro", "amount": "1"}),
        ("director assign", {"unit": "espectro", "user": t.ana}),
    ):
        reply = await answer(t, t.director, command, options)
        assert reply.ephemeral, (command, reply.content)
        assert "Espectro" in reply.content or "espectro" in reply.content.lower()
    reply = await answer(t, t.director, "director remove-unit", {"unit": "espectro"})
    assert reply.ephemeral
    await t.bot.settle()

    public = everything_public(t.channel)
    assert (
        "Espectro" not in public
        and "espectro" not in public
        and "0606" not in json.dumps([m.content for m in t.channel.messages()[before:]])
    )
    # the other side's log: the removed hidden unit's history is not there either
    log = await answer(t, t.bea, "encounter log", {})
    assert "Espectro" not in log.content and "espectro" not in log.content.lower()


async def test_the_director_rules_a_collision_docking_and_boarding_as_undoable_events(table: Table) -> None:
    """EXO-4.5's rulings (EXO-4.6 to 4.8) are the director's: /director ruling records what happened as events,
    shown in the channel; words that do not fit get the ruling's own help, privately."""
    t = table
    await open_duel(t)
    moved = await answer(t, t.director, "director move", {"unit": "pirata", "hex": "0512"})
    assert not moved.ephemeral
    bad = await answer(t, t.director, "director ruling", {"kind": "collision", "details": "halcon=lots"})
    assert bad.ephemeral and "halcon pirata halcon=3" in bad.content
    done = await answer(
        t, t.director, "director ruling", {"kind": "collision", "details": "halcon pirata halcon=1"}
    )
    assert not done.ephemeral and "collision" in done.content.lower() and "0512" in done.content
    docked = await answer(t, t.director, "director ruling", {"kind": "dock", "details": "pirata halcon"})
    assert "docks with" in docked.content
    undone = await answer(t, t.director, "director undo", {})
    assert undone.content
    choices = await t.director.autocomplete(t.channel, "director ruling", "kind", "")
    assert {c["value"] for c in choices} == {"collision", "dock", "board"}


async def test_a_heavy_command_defers_at_once_holds_only_its_server_and_never_the_bot(
    table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The replay acknowledges before reading and drawing every snapshot; while it is drawn,
    a second heavy command in the same server is refused privately, and another user's /roll is answered."""
    t = table
    enc = await open_duel(t)
    await play_phase(t, enc, ana_moves="A", bea_moves="D")
    status = await t.bot.service.status(enc)
    await wait_phase_after(t, enc, status.phase_no - 1)
    drawing, release = asyncio.Event(), asyncio.Event()
    module = t.bot.extensions["cogs.encounter"]  # the module the bot loaded (an extension is imported anew)
    real = module.replay_file

    async def held_replay(*args: Any, **kwargs: Any) -> Any:
        drawing.set()
        await release.wait()  # the replay is still being drawn while the others ask
        return await real(*args, **kwargs)

    monkeypatch.setattr(module, "replay_file", held_replay)
    first = await t.director.run_command(t.channel, "encounter replay", {})
    await first.acknowledged()  # deferred before the heavy part
    await asyncio.wait_for(drawing.wait(), timeout=30)
    second = await (await t.ana.run_command(t.channel, "encounter replay", {})).final_response()
    assert second.visible_to == t.ana.id and "try again" in second.content
    rolled = await (await t.bea.run_command(t.channel, "roll", {"expression": "2d6"})).final_response()
    assert "2d6" in rolled.content and not release.is_set()
    release.set()
    replayed = await first.final_response(timeout=60)
    assert replayed.attachments and replayed.visible_to is None


async def test_an_export_and_an_import_are_built_off_the_bot_and_another_user_is_answered_meanwhile(
    table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The export is acknowledged first, then built by the long-job worker from the rows as
    stored (plain values, never decoded states); while it is built, another user's /roll is answered. The file
    it gives back imports again."""
    import pickle

    import bot.service.records as records
    from bot.storage.base import ExportRows

    t = table
    enc = await open_duel(t)
    await play_phase(t, enc, ana_moves="A", bea_moves="D")
    building, release = asyncio.Event(), asyncio.Event()
    real = records.run_long_job
    handed: list[object] = []

    async def held_job(fn: Any, *args: Any) -> Any:
        handed.extend(args)
        building.set()
        await release.wait()
        return await real(fn, *args)

    monkeypatch.setattr(records, "run_long_job", held_job)
    first = await t.director.run_command(t.channel, "encounter export", {})
    await first.acknowledged()
    await asyncio.wait_for(building.wait(), timeout=30)
    rows = next(a for a in handed if isinstance(a, ExportRows))
    assert all(isinstance(s["state"], str) for s in rows.snapshots)  # as stored: the worker decodes them
    assert pickle.loads(pickle.dumps(rows)) == rows  # what a worker process is handed
    rolled = await (await t.bea.run_command(t.channel, "roll", {"expression": "2d6"})).final_response()
    assert "2d6" in rolled.content and not release.is_set()
    release.set()
    exported = await first.final_response(timeout=60)
    assert exported.visible_to == t.director.id and exported.attachments
    upload = exported.attachments[0]
    document = json.loads(upload.read())
    assert document["encounter"]["id"] == enc and len(document["snapshots"]) == len(rows.snapshots)

    # the import: the uploaded bytes go to the worker, which hands back rows ready to store
    handed.clear()
    building.clear()
    release.clear()
    other = t.fd.world.guilds[t.guild_id].create_text_channel("copy")
    importing = await t.director.run_command(
        other, "encounter import", {"file": (upload.filename, upload.read())}
    )
    await importing.acknowledged()
    await asyncio.wait_for(building.wait(), timeout=30)
    assert handed == [upload.read()]  # the file as uploaded: never decoded in the bot's process
    rolled = await (await t.bea.run_command(t.channel, "roll", {"expression": "1d6"})).final_response()
    assert "1d6" in rolled.content and not release.is_set()
    release.set()
    imported = await importing.final_response(timeout=60)
    assert imported.visible_to == t.director.id and "Duel" in imported.content
