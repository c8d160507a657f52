"""``/encounter replay`` end to end (DESIGN §4, §5), and the storage read it stands on.

Through the local Discord and the real bot: a short exo duel with a director's override that is undone, then
``/encounter replay`` posts an animated GIF in the channel with one frame per step on the way to the current state
(the undone override is not one of them); a player's own side view comes back only to that player; a player
asking for the director's view is refused. Below, ``Storage.snapshot_chain`` directly: undone resolutions are off
the chain and each step carries exactly the events its commit wrote.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from PIL import Image

from bot.storage import open_storage
from bot.storage.base import ENCOUNTER_CREATED, PHASE_RESOLVED, UNDONE
from tests.e2e_helpers import Table, open_duel, play_phase, wait_phase_after


def frames_of(data: bytes) -> tuple[str, int, set[tuple[int, int]]]:
    img = Image.open(io.BytesIO(data))
    sizes: set[tuple[int, int]] = set()
    for i in range(img.n_frames):
        img.seek(i)
        sizes.add(img.size)
    return str(img.format), img.n_frames, sizes


@pytest.mark.slow
async def test_replay_of_a_short_duel_posts_one_frame_per_step(table: Table) -> None:
    t = table
    enc = await open_duel(t)
    for _ in range(2):
        seen = await t.bot.service.read(enc)
        await play_phase(t, enc, ana_moves="D", bea_moves="I")
        await wait_phase_after(t, enc, seen.phase_no)
    # an override that is undone must not be in the replay
    moved = await (
        await t.director.run_command(t.channel, "director move", {"unit": "halcon", "hex": "0101"})
    ).response()
    assert moved is not None and "0101" in moved.content
    await (await t.director.run_command(t.channel, "director undo")).final_response()

    storage = t.bot.service.storage
    chain = await storage.snapshot_chain(enc)
    resolved = await storage.events(enc, types=[PHASE_RESOLVED])
    undone = await storage.events(enc, types=[UNDONE])
    assert len(undone) == 1 and len(resolved) >= 3  # orders phases plus the phases that run by themselves
    assert len(chain) == len(resolved) + 1  # the starting positions, then one per resolution; no override
    assert all("0101" not in str(step.state) for step in chain)

    handle = await t.bea.run_command(t.channel, "encounter replay")
    posted = await handle.final_response(timeout=60)
    assert not posted.ephemeral and posted.attachments, "the public replay is posted in the channel"
    assert posted.attachments[0].filename == "replay.gif"
    fmt, count, sizes = frames_of(posted.attachments[0].read())
    assert fmt == "GIF" and count == len(chain) and len(sizes) == 1
    assert str(len(chain)) in posted.content  # "Repetición de …: N pasos." (Bea plays in Spanish)

    mine = await (await t.ana.run_command(t.channel, "encounter replay", {"view": "mine"})).final_response(
        timeout=60
    )
    assert mine.ephemeral and frames_of(mine.attachments[0].read())[1] == len(chain)

    directed = await (
        await t.director.run_command(t.channel, "encounter replay", {"view": "director"})
    ).final_response(timeout=60)
    assert directed.ephemeral and frames_of(directed.attachments[0].read())[1] == len(chain)

    refused = await (
        await t.ana.run_command(t.channel, "encounter replay", {"view": "director"})
    ).final_response()
    assert refused.ephemeral and not refused.attachments
    assert "Only the encounter's directors" in refused.content


@pytest.mark.slow
async def test_nothing_to_replay_before_the_first_resolution(table: Table) -> None:
    t = table
    none = await (await t.ana.run_command(t.channel, "encounter replay")).final_response()
    assert none.ephemeral and "no encounter to replay" in none.content
    await (
        await t.director.run_command(t.channel, "encounter new", {"ruleset": "exo", "scenario": "exo-duel"})
    ).final_response()
    empty = await (await t.ana.run_command(t.channel, "encounter replay")).final_response()
    assert empty.ephemeral and "nothing to replay" in empty.content


async def test_snapshot_chain_skips_undone_steps_and_groups_each_commits_events(tmp_path: Path) -> None:
    storage = await open_storage(tmp_path / "chain.sqlite3")
    try:
        enc = await storage.create_encounter(1, 2, "exo", "Chain", 3, {"n": 0})
        await storage.set_encounter_status(enc, "running")
        await storage.submit_order(enc, 1, "u1", 7, {"move": "A"})
        await storage.commit_resolution(
            enc, 1, [("UnitMoved", {"i": 1}), ("ShotResolved", {"i": 2})], {"n": 1}
        )
        await storage.record_override(enc, 2, ("DirectorOverride", {"i": 3}), {"n": 2})
        await storage.commit_resolution(enc, 2, [("UnitMoved", {"i": 4})], {"n": 3})
        await storage.undo(enc)  # back to the override's state {"n": 2}
        await storage.commit_resolution(enc, 2, [("ShotResolved", {"i": 5})], {"n": 4})

        chain = await storage.snapshot_chain(enc)
        assert [step.state["n"] for step in chain] == [0, 1, 2, 4]
        assert [[(e.type, e.payload.get("i")) for e in step.events] for step in chain] == [
            [(ENCOUNTER_CREATED, None)],
            [("UnitMoved", 1), ("ShotResolved", 2), (PHASE_RESOLVED, None)],
            [("DirectorOverride", 3)],
            [("ShotResolved", 5), (PHASE_RESOLVED, None)],
        ]

        # undo again: the override's state is current once more, as a copy of the first undo's copy
        await storage.undo(enc)
        chain = await storage.snapshot_chain(enc)
        assert [step.state["n"] for step in chain] == [0, 1, 2]
        assert [e.type for e in chain[-1].events] == ["DirectorOverride"]
        assert chain[-1].snapshot_seq != chain[-2].snapshot_seq
    finally:
        await storage.close()
