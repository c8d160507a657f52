"""Which channel message first showed the current phase (``note_announcement``/``announcement``): the director's
commands compare their interaction id with it (bot/phase_gate.py). Recorded once per phase, forgotten at every
phase change (a resolution, an undo), never for a phase that is no longer current; same on both backends."""

from __future__ import annotations

from bot.storage import PhaseShown, Storage

GUILD, CHANNEL, DIRECTOR = 10, 20, 30


async def test_the_first_showing_of_the_current_phase_is_kept_until_the_phase_changes(
    storage: Storage,
) -> None:
    enc = await storage.create_encounter(GUILD, CHANNEL, "exo", "Shown", DIRECTOR, {"phase": 1})
    await storage.set_encounter_status(enc, "running")
    assert await storage.announcement(enc) == PhaseShown(1, 0), "not shown yet"
    seq = await storage.last_seq(enc)
    assert await storage.note_announcement(enc, 1, 5000)
    assert not await storage.note_announcement(enc, 1, 9000), "the first showing counts"
    assert await storage.announcement(enc) == PhaseShown(1, 5000)
    assert await storage.last_seq(enc) == seq, "bookkeeping: no event, cached reads stay valid"

    outcome = await storage.commit_resolution(enc, 1, [], {"phase": 2})
    assert outcome.__class__.__name__ == "Resolved"
    assert await storage.announcement(enc) == PhaseShown(2, 0), "a new phase is not shown yet"
    assert not await storage.note_announcement(enc, 1, 9100), "a post about the phase that is over"
    assert await storage.note_announcement(enc, 2, 9200)
    assert await storage.announcement(enc) == PhaseShown(2, 9200)

    assert await storage.undo(enc) == 1
    assert await storage.announcement(enc) == PhaseShown(1, 0), "back to phase 1: shown again from scratch"
