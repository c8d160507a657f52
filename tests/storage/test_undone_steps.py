"""``Storage.undone_steps`` on every backend: the steps an undo took back, each with its events and the state it
started from, in the order they were undone (``/encounter log`` keeps them, marked as undone)."""

from __future__ import annotations

import json

from bot.storage import Storage
from tests.storage_fixtures import ALICE, START, new_encounter


async def test_undone_steps_are_kept_with_their_events_and_the_state_before(storage: Storage) -> None:
    encounter_id = await new_encounter(storage)
    assert await storage.undone_steps(encounter_id) == []
    await storage.submit_order(encounter_id, 1, "halcon", ALICE, {"move": "A"})
    await storage.commit_resolution(encounter_id, 1, [("UnitMoved", {"event": {"n": 1}})], {"phase": 2})
    await storage.record_override(encounter_id, 2, ("UnitDamaged", {"event": {"n": 2}}), {"phase": 2, "o": 1})
    await storage.undo(encounter_id)  # the override
    await storage.undo(encounter_id)  # the resolution: its undo copy of phase 1 stands for the start
    await storage.commit_resolution(encounter_id, 1, [("UnitMoved", {"event": {"n": 3}})], {"phase": 2})

    first, second = await storage.undone_steps(encounter_id)
    assert [e.type for e in first.step.events] == ["UnitDamaged"]
    assert (first.step.state, first.step.phase_no) == ({"phase": 2, "o": 1}, 2)
    assert (second.step.events[0].type, second.step.events[0].payload) == ("UnitMoved", {"event": {"n": 1}})
    assert second.step.events[-1].type == "PhaseResolved"
    assert json.loads(first.before_json) == {"phase": 2}  # the override started from the resolution's state
    assert (second.step.state, json.loads(second.before_json)) == ({"phase": 2}, START)
    assert first.undo.type == second.undo.type == "Undone" and first.undo.seq < second.undo.seq


async def test_an_undo_keeps_who_undid_it_and_one_recorded_without_reads_as_before(storage: Storage) -> None:
    """``/encounter log`` names who undid a step: the ``Undone`` event keeps their user id; an undo recorded
    without one (as every undo once was) carries no ``by`` and still lists its step."""
    encounter_id = await new_encounter(storage)
    await storage.commit_resolution(encounter_id, 1, [("UnitMoved", {"event": {"n": 1}})], {"phase": 2})
    await storage.undo(encounter_id, by=ALICE)
    await storage.commit_resolution(encounter_id, 1, [("UnitMoved", {"event": {"n": 2}})], {"phase": 2})
    await storage.undo(encounter_id)
    first, second = await storage.undone_steps(encounter_id)
    assert first.undo.payload["by"] == ALICE
    assert "by" not in second.undo.payload
    assert second.undo.payload["undone_snapshot_seq"] > first.undo.payload["undone_snapshot_seq"]
