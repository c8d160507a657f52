"""Spectators who spoil nothing (NGT-9, FOG-1), end to end through the real client against the local Discord.

The night raid (tests/night_fixtures.py): Ana plays RFP, Bea Tyranos, Dora directs. Carol asks for RFP's view and
Ana approves; Dan asks for RFP's and Ana refuses; Eve asks for Tyranos's and Bea never answers; Fay watches the
director's view one round late. Then they play. Carol reads exactly what Ana's side reads after the approval, and
nothing once she stops watching; Dan and Eve read nothing at all (not even a step's arrival); Fay reads round 1
once round 2 has ended, and nothing newer; none of them is ever named in the channel (the status included). The
answer buttons outlive a restart, and a forged one is refused. Differential: a hidden move of a unit RFP cannot see
leaves everything RFP's spectator reads byte for byte the same (SQLite and PostgreSQL).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest

from bot.service.replay import rule_events
from bot.text.account import describe
from rules.registry import ruleset_for
from rules.serial import from_json
from rules.state import EncounterState
from tests.e2e_helpers import (
    E2E_BACKENDS,
    Table,
    draft_in,
    everything_public,
    panel_for_phase,
    room,
    start_bot,
    submitted,
    wait_turn_after,
)
from tests.fakediscord import Message, Person
from tests.leak_fixtures import blank, director_act, readable, surfaces
from tests.night_fixtures import RFP, open_raid, select_of

pytestmark = pytest.mark.slow


def boards(person: Person) -> list[Message]:
    """The boards DMed to ``person``: an embed with an image, no buttons."""
    return [m for m in person.dms() if m.attachments and m.embeds and not m.custom_ids()]


def member(t: Table, name: str) -> Person:
    person = t.fd.create_user(name)
    t.fd.world.guilds[t.guild_id].add_member(person.user)
    return person


async def watch(t: Table, person: Person, choice: str) -> Message:
    """``/encounter watch`` and ``choice`` picked in its private answer (edited in place)."""
    answer = await (await person.run_command(t.channel, "encounter watch")).response()
    assert answer is not None and answer.ephemeral, "a spectator's choice is private"
    (cid,) = [c for c in answer.custom_ids() if c.startswith("hexd:watchpick:")]
    await (await person.select(answer, cid, [choice])).acknowledged()
    await t.fd.wait_for(lambda: not answer.custom_ids(), what="the choice acknowledged")
    return answer


async def request_dm(t: Table, approver: Person, spectator: Person) -> Message:
    return await approver.wait_for_dm(
        lambda m: any(c.startswith("hexd:watch:") and f":{spectator.id}:" in c for c in m.custom_ids()),
        timeout=30,
    )


async def answer(approver: Person, message: Message, yes: bool) -> Message:
    cid = next(c for c in message.custom_ids() if c.endswith(":yes" if yes else ":no"))
    handle = await approver.click(message, cid)
    await handle.acknowledged()
    return message


async def act(t: Table, person: Person, panel: Message, unit: str, value: str | None) -> None:
    """Choose a move (``value``) and submit, or end the activation (None)."""
    if value is not None:
        cid, values = select_of(panel, unit, "move")
        assert value in values
        await (await person.select(panel, cid, [value])).acknowledged()

        def shown() -> bool:
            found = draft_in(panel)
            return found is not None and value in (found[1].text("action"), found[1].text("choice"))

        await t.fd.wait_for(shown, what="the chosen move on the panel")
    action = "submit" if value is not None else "end"
    cid = next(c for c in panel.custom_ids() if c.endswith(f":unit:{unit}:{action}"))
    await submitted(t.fd, panel, unit, await person.click(panel, cid))


async def play_until(t: Table, enc: int, done: int, moved: set[str]) -> None:
    """Play (each unit moves once, to its first offered hex, then ends its activations) until round ``done`` is
    over."""
    for _ in range(40):
        seen = await t.bot.service.read(enc)
        if seen.state.round > done or seen.state.over:
            break
        unit = ruleset_for(seen.state).awaiting(seen.state)[0]
        person = t.ana if unit in RFP else t.bea
        panel = await panel_for_phase(t.fd, person, unit, seen.phase_no)
        value = None
        if unit not in moved:
            cid, values = select_of(panel, unit, "move")
            value = next((v for v in values if not v.startswith("way ")), None) if cid else None
            moved.add(unit)
        await act(t, person, panel, unit, value)
        await wait_turn_after(t, enc, seen.phase_no)
    await t.bot.settle()
    assert (await t.bot.service.read(enc)).state.round > done


@pytest.fixture
async def table(tmp_path: Path) -> AsyncIterator[Table]:
    async with room(tmp_path, channel_name="night") as t:
        yield t


async def test_ngt_9_a_side_spectator_reads_what_that_side_reads_and_a_refused_or_pending_one_nothing(
    table: Table,
) -> None:
    t = table
    carol, dan, eve = member(t, "carol"), member(t, "dan"), member(t, "eve")
    enc = await open_raid(t)
    await t.bot.settle()

    offered = await (await carol.run_command(t.channel, "encounter watch")).response()
    assert offered is not None and offered.ephemeral
    values = [str(o["value"]) for c in offered.custom_ids().values() for o in c.get("options", [])]
    assert values == ["side:rfp", "side:tyr"], "no delayed view while the director's delay is 0"
    # a seated player is no spectator: refused, privately
    seated = await (await t.ana.run_command(t.channel, "encounter watch")).response()
    assert seated is not None and seated.ephemeral and "seat" in seated.content

    await watch(t, carol, "side:rfp")
    await watch(t, dan, "side:rfp")
    await watch(t, eve, "side:tyr")
    to_carol, to_dan = await request_dm(t, t.ana, carol), await request_dm(t, t.ana, dan)
    to_eve = await request_dm(t, t.bea, eve)
    assert "carol" in to_carol.content or str(carol.id) in to_carol.content

    # a forged answer: Bea (Tyranos) sends Ana's Approve for Carol through her own request message
    ana_yes = next(c for c in to_carol.custom_ids() if c.endswith(":yes"))
    bea_yes = next(c for c in to_eve.custom_ids() if c.endswith(":yes"))
    forged = to_eve.components[0]["components"][0]
    assert forged["custom_id"] == bea_yes
    forged["custom_id"] = ana_yes
    refused = await (await t.bea.click(to_eve, ana_yes)).response()
    assert refused is not None and refused.ephemeral and "Only the players" in refused.content
    forged["custom_id"] = bea_yes
    assert not carol.dms(), "a forged approval approved nothing"

    # the buttons outlive the bot: answered after a restart
    await t.bot.close()
    t.bot = await start_bot(t.fd, t.db, t.guild_id)
    ana_before = len(boards(t.ana))
    await answer(t.ana, to_carol, yes=True)
    await answer(t.ana, to_dan, yes=False)
    await carol.wait_for_dm(lambda m: "RFP" in m.content, timeout=30)
    await dan.wait_for_dm(lambda m: "refused" in m.content, timeout=30)
    assert [m.content for m in dan.dms()] and len(dan.dms()) == 1

    moved: set[str] = set()
    await play_until(t, enc, 1, moved)
    ana_after = [readable(m) for m in boards(t.ana)[ana_before:]]
    carol_got = [readable(m) for m in boards(carol)]
    assert ana_after, "RFP's players were sent their side's boards this round"
    # NGT-9: byte for byte what RFP's players were sent since the approval, and nothing else
    assert carol_got == ana_after
    assert all(not m.custom_ids() for m in carol.dms()), "a spectator never gets a panel"
    assert "Ghost" not in json.dumps([m.embeds for m in carol.dms()])
    # refused and pending spectators: not one DM after their answer (a DM's mere arrival would tell of a step)
    assert len(dan.dms()) == 1 and eve.dms() == []
    # never named in the channel: not in "waiting for", not as a player
    public = everything_public(t.channel)
    for spectator in (carol, dan, eve):
        i = public.find(str(spectator.id))
        assert i < 0, public[max(0, i - 300) : i + 100]
    status = await (await eve.run_command(t.channel, "encounter status")).final_response()
    assert str(eve.id) not in status.content and str(carol.id) not in status.content

    # unwatch: nothing more, while RFP's players keep getting theirs
    stopped = await (await carol.run_command(t.channel, "encounter unwatch")).response()
    assert stopped is not None and stopped.ephemeral
    kept = len(carol.dms())
    ana_now = len(boards(t.ana))
    await play_until(t, enc, 2, moved)
    assert len(boards(t.ana)) > ana_now and len(carol.dms()) == kept
    again = await (await carol.run_command(t.channel, "encounter unwatch")).response()
    assert again is not None and again.ephemeral and "not watching" in again.content


def round_account(chain_states: list[tuple[EncounterState, list[str]]], round_no: int) -> list[str]:
    return [line for state, lines in chain_states if state.round == round_no for line in lines]


async def test_ngt_9_a_delayed_spectator_reads_round_r_minus_n_once_and_nothing_newer(table: Table) -> None:
    t = table
    fay = member(t, "fay")
    enc = await open_raid(t)
    await t.bot.settle()
    late = await (await fay.run_command(t.channel, "encounter watch")).response()
    assert late is not None
    values = [str(o["value"]) for c in late.custom_ids().values() for o in c.get("options", [])]
    assert "delayed" not in values, "0 forbids the delayed view"

    # the director allows it one round late (private answer); a player may not
    denied = await (
        await t.ana.run_command(t.channel, "director spectator-delay", {"rounds": 1})
    ).final_response()
    assert denied.ephemeral
    said = await (
        await t.director.run_command(t.channel, "director spectator-delay", {"rounds": 1})
    ).final_response()
    assert said.ephemeral and "1 round late" in said.content
    chosen = await watch(t, fay, "delayed")
    assert "1 round late" in chosen.content

    moved: set[str] = set()
    await play_until(t, enc, 1, moved)
    assert fay.dms() == [], "when round 1 ends there is no round 0 to show"
    await play_until(t, enc, 2, moved)
    assert len(fay.dms()) == 1
    (view,) = fay.dms()
    embed = view.embeds[0]
    assert "round 1" in embed["title"] and "director" in embed["title"]
    alt = view.attachments[-1].description or ""
    assert alt.startswith("Director view. Round 1 ·"), (
        "the picture is named as round 1's, for a screen reader too"
    )
    # its account is round 1's, every line of it, and not one line of round 2's
    chain = await t.bot.service.storage.snapshot_chain(enc)
    steps: list[tuple[EncounterState, list[str]]] = []
    for before, after in pairwise(chain):
        start = from_json(before.state)
        assert isinstance(start, EncounterState)
        end = from_json(after.state)
        assert isinstance(end, EncounterState)
        steps.append((start, [describe(e, end, "en") for e in rule_events(after.events)]))
    first, second = round_account(steps, 1), round_account(steps, 2)
    shown = (embed.get("description") or "").splitlines()
    assert shown and set(shown) <= set(first)
    assert not [line for line in shown if line in second and line not in first]
    # exactly once: a step of round 3 sends nothing more
    seen = await t.bot.service.read(enc)
    unit = ruleset_for(seen.state).awaiting(seen.state)[0]
    person = t.ana if unit in RFP else t.bea
    await act(t, person, await panel_for_phase(t.fd, person, unit, seen.phase_no), unit, None)
    await wait_turn_after(t, enc, seen.phase_no)
    await t.bot.settle()
    assert len(fay.dms()) == 1
    public = everything_public(t.channel)
    assert str(fay.id) not in public and "fay" not in public


async def spectator_world(
    tmp_path: Path, backend: str, act: Callable[[Table], Any] | None
) -> tuple[dict[str, str], str]:
    """What Carol, RFP's approved spectator, can read of the night raid where the director did ``act`` (None:
    nothing) to a Tyranos unit RFP cannot see, then lit a flare everyone sees; and Eve's DMs (pending for
    Tyranos, who sees the unit)."""
    async with room(tmp_path, channel_name="night", backend=backend) as t:
        carol, eve = member(t, "carol"), member(t, "eve")
        await open_raid(t)
        await t.bot.settle()
        await watch(t, carol, "side:rfp")
        await answer(t.ana, await request_dm(t, t.ana, carol), yes=True)
        await carol.wait_for_dm(lambda m: "RFP" in m.content, timeout=30)
        await watch(t, eve, "side:tyr")
        await request_dm(t, t.bea, eve)
        if act is not None:
            await act(t)
            await t.bot.settle()
        said = await (
            await t.director.run_command(t.channel, "director ruling", {"kind": "flare", "details": "0305"})
        ).final_response(timeout=60)
        assert not said.ephemeral, said.content
        return await surfaces(t, carol, ("ghost", "raider"), ("", "g")), blank(
            [readable(m) for m in eve.dms()]
        )


@pytest.fixture(params=E2E_BACKENDS)
async def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


async def test_ngt_9_a_side_spectator_learns_nothing_of_what_that_side_cannot_see(
    tmp_path: Path, backend: str
) -> None:
    """The leak matrix, differential, for a spectator: two worlds differ only in the director moving Ghost (hidden
    from RFP) by hand; everything RFP's spectator reads is byte for byte the same in both, and the flare both
    worlds light reaches her (she reads what RFP reads). Eve, still pending for Tyranos (who sees Ghost), reads
    nothing in either world: not even a DM arriving when the step resolves."""
    (tmp_path / "base").mkdir()
    (tmp_path / "acted").mkdir()
    base, eve_base = await spectator_world(tmp_path / "base", backend, None)
    moved = director_act("director move", {"unit": "ghost", "hex": "1203"})
    seen, eve_seen = await spectator_world(tmp_path / "acted", backend, moved)
    leaks = [surface for surface in base if seen[surface] != base[surface]]
    assert not leaks, "RFP's spectator could tell Ghost moved through: " + "; ".join(leaks)
    assert '"board.png"' in base["DMs"], "the flare's board reached RFP's spectator"
    assert eve_base == eve_seen == "[]"
