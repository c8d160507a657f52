"""A director's command acts only on a phase the director could have seen (bot/phase_gate.py): Discord's ids are
time-ordered snowflakes, so a `/director resolve` whose interaction id is smaller than the id of the message that
showed the current phase (or that comes while it is shown nowhere yet) was given for the phase before, and forces
nothing; one given within 3 s of the showing is asked to be confirmed, with a button naming that phase.

The races run at fixed offsets on the local Discord's clock (the test sets the time each id is stamped with, so
nothing waits on the wall clock): two resolves of the director (a double press, or a co-director) in every
ruleset, and exo's last Submit against the director's resolve; on SQLite, and on PostgreSQL where CI gives one.
Whatever the offset, exactly one phase that waited for orders is resolved."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from itertools import pairwise
from pathlib import Path

import pytest

from bot.phase_gate import CONFIRM_WITHIN_MS
from bot.storage.base import PHASE_RESOLVED
from rules.order_modes import policy_for
from rules.registry import ruleset_for
from rules.serial import from_json
from rules.state import EncounterState
from tests.e2e_helpers import (
    E2E_BACKENDS,
    Table,
    button_id,
    current_panel_dm,
    encounter_of,
    open_duel,
    orders_panel,
    phase_seen,
    room,
    step_of,
    wait_phase_after,
)
from tests.fakediscord import InteractionHandle, Message

pytestmark = pytest.mark.slow

#: every ruleset whose director's resolve stands in for someone; ocs's procedure resolves each order as it is
#: given, so its director's resolve has nothing to force and is refused (tests/e2e/test_e2e_director_tools.py)
SCENARIOS = {
    "exo": "exo-duel",
    "skirmish": "skirmish-corridor",
    "mech": "mech-duel",
    "pbw": "pbw-brawl",
}
#: how far after the first press (or the last Submit) the second command is given, in Discord's milliseconds
OFFSETS_MS = (-50, -20, 0, 20, 50, 100, 500)
#: when the bot's posts of the new phase come out, after the first command (its work, as Discord's clock reads it)
POSTED_AFTER_MS = 30


@pytest.fixture(params=E2E_BACKENDS)
async def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
async def table(tmp_path: Path, backend: str) -> AsyncIterator[Table]:
    async with room(tmp_path, channel_name="race", backend=backend) as t:
        yield t


async def order_phases_resolved(t: Table, enc: int, since_phase: int) -> int:
    """How many resolutions from phase ``since_phase`` on closed a phase that waited for orders (units awaited, or
    the director's in a director-run mode):
    the steps that run by themselves after one (a chit draw, an exo phase nobody acts in) are not counted."""
    chain = await t.bot.service.storage.snapshot_chain(enc)
    count = 0
    for before, after in pairwise(chain):
        committed = next((e for e in after.events if e.seq == after.snapshot_seq), None)
        if committed is None or committed.type != PHASE_RESOLVED or before.phase_no < since_phase:
            continue
        state = from_json(before.state)
        assert isinstance(state, EncounterState)
        # a director-run mode (ocs) opens every step for the director's orders
        count += bool(t.bot.service.owing(state)) or policy_for(ruleset_for(state)).director_orders
    return count


async def answers(*handles: InteractionHandle) -> list[Message]:
    return [await h.final_response(timeout=60) for h in handles]


def applied(replies: list[Message]) -> list[Message]:
    return [m for m in replies if m.content.startswith("Resolved ")]


async def race(
    t: Table, enc: int, first: Callable[[], Awaitable[InteractionHandle]], offset_ms: int
) -> tuple[InteractionHandle, InteractionHandle]:
    """``first`` (the last Submit, or a first resolve) given at the clock's time now and the director's resolve
    ``offset_ms`` after it (before it, when negative). The earlier of the two reaches the bot first and resolves
    the phase; the later one arrives once that is committed, as it would after those milliseconds (the bot
    resolves a phase in fewer); the bot's posts of the new phase come out :data:`POSTED_AFTER_MS` after the
    earlier one. Returns (first, the director's resolve)."""
    start = t.fd.advance_clock(max(0, -offset_ms))  # the earlier of the two still after the phase was seen
    phase_no = (await t.bot.service.read(enc)).phase_no

    async def resolve() -> InteractionHandle:
        return await t.director.run_command(t.channel, "director resolve")

    earlier, later = (first, resolve) if offset_ms >= 0 else (resolve, first)
    t.fd.set_clock(start + min(offset_ms, 0))
    given_first = await earlier()
    t.fd.set_clock(start + min(offset_ms, 0) + POSTED_AFTER_MS)
    await wait_phase_after(t, enc, phase_no)  # committed (its posts may still be on their way)
    posted_at = t.fd.advance_clock(0)
    t.fd.set_clock(start + max(offset_ms, 0))
    given_later = await later()
    t.fd.set_clock(posted_at)
    await t.bot.settle()
    return (given_first, given_later) if offset_ms >= 0 else (given_later, given_first)


@pytest.mark.parametrize("ruleset", sorted(SCENARIOS))
async def test_two_resolves_at_fixed_offsets_resolve_one_phase_each_time(table: Table, ruleset: str) -> None:
    t = table
    created = await t.director.run_command(
        t.channel, "encounter new", {"ruleset": ruleset, "scenario": SCENARIOS[ruleset]}
    )
    await created.final_response(timeout=30)
    started = await t.director.run_command(t.channel, "encounter start")
    await started.final_response(timeout=30)
    enc = (await encounter_of(t)).id
    for offset in OFFSETS_MS:
        await phase_seen(t)
        before = await t.bot.service.read(enc)
        if before.state.over:
            break
        first, second = await race(
            t, enc, lambda: t.director.run_command(t.channel, "director resolve"), offset
        )
        replies = await answers(first, second)
        done = applied(replies)
        assert len(done) == 1, (ruleset, offset, [m.content for m in replies])
        steps = int(
            done[0].content.split()[1]
        )  # "Resolved 2 steps.": the forced phase and what ran by itself
        after = await t.bot.service.read(enc)
        assert after.phase_no - before.phase_no == steps, (ruleset, offset, "a second resolution")
        assert all(m.ephemeral for m in replies), "every answer to the director is private"


async def test_a_resolve_within_3_s_of_the_phase_is_confirmed_with_a_button_naming_that_phase(
    table: Table,
) -> None:
    t = table
    enc = await open_duel(t)
    await phase_seen(t)
    shown = await t.bot.service.storage.announcement(enc)
    t.fd.set_clock((shown.message_id >> 22) + 1420070400000 + CONFIRM_WITHIN_MS - 1)
    asked = await (await t.director.run_command(t.channel, "director resolve")).final_response()
    assert asked.ephemeral and "Apply that to it?" in asked.content, asked.content
    assert (await encounter_of(t)).phase_no == shown.phase_no, "nothing resolved before the confirmation"
    (custom_id,) = asked.custom_ids()
    assert custom_id == f"hexd:dphase:{enc}:{shown.phase_no}:resolve"
    done = await (await t.director.click(asked, custom_id)).final_response(timeout=60)
    assert done.content.startswith("Resolved "), done.content
    await t.bot.settle()
    assert (await encounter_of(t)).phase_no > shown.phase_no
    again = await (await t.director.click(asked, custom_id)).final_response(timeout=60)
    assert again.ephemeral and "That phase is over" in again.content, "the button names its phase only"


async def test_a_resolve_given_before_the_phase_was_shown_names_the_phase_and_forces_nothing(
    table: Table,
) -> None:
    t = table
    enc = await open_duel(t)
    await phase_seen(t)
    shown = await t.bot.service.storage.announcement(enc)
    t.fd.set_clock((shown.message_id >> 22) + 1420070400000 - 1)  # pressed as the phase came out
    refused = await (await t.director.run_command(t.channel, "director resolve")).final_response()
    assert refused.ephemeral and refused.content.startswith("That phase was already resolved"), (
        refused.content
    )
    assert "Round 1" in refused.content
    assert (await encounter_of(t)).phase_no == shown.phase_no


async def test_the_directors_private_status_resolves_the_phase_it_shows(table: Table) -> None:
    t = table
    enc = await open_duel(t)
    await phase_seen(t)
    phase_no = (await encounter_of(t)).phase_no
    status = await (await t.director.run_command(t.channel, "encounter status")).final_response()
    assert status.ephemeral
    custom_id = f"hexd:dphase:{enc}:{phase_no}:resolve"
    assert custom_id in status.custom_ids()
    players = await (await t.ana.run_command(t.channel, "encounter status")).final_response()
    assert not players.custom_ids(), "a player's status has no director's button"
    done = await (await t.director.click(status, custom_id)).final_response(timeout=60)
    assert done.content.startswith("Resolved ")
    await t.bot.settle()
    assert (await encounter_of(t)).phase_no > phase_no


async def test_the_last_submit_and_the_directors_resolve_at_fixed_offsets_resolve_one_phase(
    table: Table,
) -> None:
    """As measured: exo, the last Submit and `/director resolve` 20-100 ms apart resolved two phases."""
    t = table
    enc = await open_duel(t)
    for offset in OFFSETS_MS:
        await phase_seen(t)
        before = await t.bot.service.read(enc)
        if before.state.over:
            break
        status = await t.bot.service.status(enc)
        # Bea (DMs closed) gives her order first; Ana's Submit on her DM panel is the last order
        for missing in status.missing:
            if missing.user_id == t.bea.id:
                panel = await orders_panel(t, t.bea)
                submitted = await t.bea.click(panel, button_id(panel, "pirata", "submit"))
                await submitted.wait_for_replies(1, timeout=60)
        panel = await current_panel_dm(t, t.ana, "halcon", before.phase_no)
        assert step_of(panel) in ("orders", "repairs", "crew", "decision"), step_of(panel)
        await phase_seen(t)
        _, resolve = await race(
            t, enc, lambda p=panel: t.ana.click(p, button_id(p, "halcon", "submit")), offset
        )
        (director,) = await answers(resolve)
        assert director.ephemeral, director.content
        # the Submit (the last order) resolved the phase, or the director's resolve did (with the order, if it
        # was in, or without it, refused as late): one phase that waited for orders either way
        assert await order_phases_resolved(t, enc, before.phase_no) == 1, (offset, director.content)


async def test_every_command_on_the_current_phase_follows_the_phase_the_director_saw(table: Table) -> None:
    """deadline, pause, review and override-roll as resolve: given before the phase was shown, refused and
    nothing changes; given within 3 s of it, confirmed first (the button carries the phase and the command's
    arguments); given later, applied at once."""
    t = table
    enc = await open_duel(t)
    await phase_seen(t)
    shown = await t.bot.service.storage.announcement(enc)
    shown_ms = (shown.message_id >> 22) + 1420070400000
    commands: list[tuple[str, dict[str, object]]] = [
        ("director deadline", {"minutes": 10}),
        ("director review", {"on": True}),
        ("director override-roll", {"index": 2, "dice": "6,6"}),
        ("director pause", {}),
    ]
    for name, options in commands:
        t.fd.set_clock(shown_ms - 1)
        refused = await (await t.director.run_command(t.channel, name, options)).final_response()
        assert refused.ephemeral and refused.content.startswith("That phase was already resolved"), name
    meta = await encounter_of(t)
    assert meta.status == "running" and not meta.settings.get("review_rolls"), "nothing changed"
    assert await t.bot.service.deadline_of(enc, shown.phase_no) is None
    for name, options in commands:
        t.fd.set_clock(shown_ms + 1000)
        asked = await (await t.director.run_command(t.channel, name, options)).final_response()
        assert asked.ephemeral and "Apply that to it?" in asked.content, (name, asked.content)
        (custom_id,) = asked.custom_ids()
        assert custom_id.startswith(f"hexd:dphase:{enc}:{shown.phase_no}:")
        done = await (await t.director.click(asked, custom_id)).final_response(timeout=60)
        assert not done.content.startswith("That phase"), (name, done.content)
    meta = await encounter_of(t)
    assert meta.status == "paused" and meta.settings.get("review_rolls")
    assert meta.settings["roll_overrides"] == {str(shown.phase_no): {"2": [6, 6]}}
    assert await t.bot.service.deadline_of(enc, shown.phase_no) is not None
