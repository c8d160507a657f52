"""An undo that leaves a trace: ``/encounter log`` keeps the steps the director undid where they happened, marked
as undone with when, judged for the public as every other step (FOG-1), on the core's toy ruleset."""

from __future__ import annotations

import dataclasses
from datetime import UTC

from bot.log_text import trace_lines
from bot.permissions import Actor
from bot.service import EncounterService
from bot.undo_text import undone_text
from rules.events import UnitMoved
from rules.hexgrid import Hex
from tests.toy_service_fixtures import ANA, BEA, CHANNEL, DIRECTOR, GUILD, TOY  # registers toy-sim


async def _undone_once(service: EncounterService, text: str) -> int:
    created = await service.create(GUILD, CHANNEL, DIRECTOR, ruleset="toy-sim", toml_text=text)
    enc = created.encounter_id
    await service.join(enc, ANA)
    await service.join(enc, BEA, side="blue")
    await service.start(enc, Actor(DIRECTOR))
    await service.submit(enc, ANA, "a", "move 0203")
    await service.submit(enc, BEA, "b", "move 0506")
    await service.resolve(enc)
    await service.undo(enc, Actor(DIRECTOR))
    await service.submit(enc, ANA, "a", "move 0302")
    await service.submit(enc, BEA, "b", "move 0504")
    await service.resolve(enc)
    return enc


def _moves(events: tuple[object, ...]) -> list[tuple[str, str]]:
    return [(e.unit, e.to.label if e.to else "") for e in events if isinstance(e, UnitMoved)]


async def test_the_log_keeps_an_undone_step_marked_before_the_step_that_replaced_it(
    service: EncounterService,
) -> None:
    enc = await _undone_once(service, TOY)
    trace = await service.trace(enc)
    undone = [s for s in trace if s.undone_at is not None]
    kept = [s for s in trace if s.undone_at is None]
    assert [_moves(s.events) for s in undone] == [[("a", "0203"), ("b", "0506")]]
    assert [_moves(s.events) for s in kept] == [[("a", "0302"), ("b", "0504")]]
    assert trace.index(undone[0]) < trace.index(kept[0])
    _, state, _ = await service.load(enc)
    lines = trace_lines(trace, state, "es")
    header = next(i for i, line in enumerate(lines) if "deshecho por el director" in line)
    assert lines[header + 1].startswith("~~") and "0203" in lines[header + 1]
    assert not any(line.startswith("~~") for line in lines[header + 3 :])
    # the history the replay and the channel follow is unchanged: only what counts
    assert all(
        e.to != Hex.parse("0203") for _, _, e in await service.history(enc) if isinstance(e, UnitMoved)
    )


async def test_the_log_says_who_undid_a_step_by_name_and_when(service: EncounterService) -> None:
    """The ``Undone`` event keeps the director's user id; the log names them as the people reading it know
    them (a display name, escaped: never an id), and an undo by someone it cannot name reads as the
    director's, as an undo recorded before who was kept does."""
    enc = await _undone_once(service, TOY)
    trace = await service.trace(enc)
    undone = [s for s in trace if s.undone_at is not None]
    assert undone and all(s.undone_by == DIRECTOR for s in undone)
    _, state, _ = await service.load(enc)
    assert undone[0].undone_at is not None
    at = undone[0].undone_at.astimezone(UTC).strftime("%Y-%m-%d %H:%M")
    named = trace_lines(trace, state, "es", {DIRECTOR: "Dora_la_exploradora"})
    assert f"↩️ deshecho por Dora\\_la\\_exploradora ({at} UTC)" in "\n".join(named)
    english = "\n".join(trace_lines(trace, state, "en", {DIRECTOR: "Dora"}))
    assert f"↩️ undone by Dora ({at} UTC)" in english and "<@" not in english
    assert f"deshecho por el director ({at} UTC)" in "\n".join(trace_lines(trace, state, "es"))
    old = [dataclasses.replace(s, undone_by=None) for s in trace]
    assert trace_lines(old, state, "en", {DIRECTOR: "Dora"}) == trace_lines(trace, state, "en")


async def test_fog_1_an_undone_step_names_no_unit_the_public_could_not_see(service: EncounterService) -> None:
    hidden = TOY.replace('name = "Bravo"\n', 'name = "Bravo"\nhidden = true\n')
    enc = await _undone_once(service, hidden)
    trace = await service.trace(enc)
    assert any(s.undone_at is not None for s in trace)
    assert all(e.unit != "b" for s in trace for e in s.events if isinstance(e, UnitMoved))
    _, state, _ = await service.load(enc)
    assert not any("Bravo" in line for line in trace_lines(trace, state, "en"))


async def _undo_announced(service: EncounterService, text: str, locale: str) -> str:
    created = await service.create(GUILD, CHANNEL, DIRECTOR, ruleset="toy-sim", toml_text=text)
    enc = created.encounter_id
    await service.join(enc, ANA)
    await service.join(enc, BEA, side="blue")
    await service.start(enc, Actor(DIRECTOR))
    await service.submit(enc, ANA, "a", "move 0203")
    await service.submit(enc, BEA, "b", "move 0506")
    await service.resolve(enc)
    done = await service.undo_step(enc, Actor(DIRECTOR))
    return undone_text(done, locale, detail=done.public)


async def test_the_undo_announcement_says_what_was_undone(service: EncounterService) -> None:
    said = await _undo_announced(service, TOY, "es")
    assert said.startswith("↩️ Deshecho: ") and "(director)" in said
    assert "Alfa" in said and "0203" in said and "Bravo" in said and "0506" in said


async def test_fog_1_the_undo_announcement_names_no_hidden_unit(service: EncounterService) -> None:
    said = await _undo_announced(
        service, TOY.replace('name = "Bravo"\n', 'name = "Bravo"\nhidden = true\n'), "en"
    )
    assert "Alfa" in said and "0203" in said
    assert "Bravo" not in said and "0506" not in said
