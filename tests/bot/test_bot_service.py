"""The application layer (bot/service/core.py) against a temporary SQLite database, without Discord.

Uses the core's toy ruleset (``toy-sim``: secret ``move <hex>`` orders, one hex at a time) so these tests pin the
bot's flow independently of any real ruleset; tests/exo/test_bot_exo.py plays exo through the same layer.
"""

from __future__ import annotations

import asyncio
from datetime import timedelta
from typing import Any

import pytest

from bot.permissions import Actor
from bot.results import Refused
from bot.service import EncounterService
from rules.errors import IllegalOrderError, InvalidOrderError
from rules.events import DirectorOverride, UnitMoved
from rules.hexgrid import Hex
from tests import toy_ruleset  # noqa: F401  # pyright: ignore[reportUnusedImport]  (registers toy-sim)
from tests.toy_service_fixtures import ANA, BEA, CHANNEL, DIRECTOR, EVE, GUILD, TOY


async def _running(service: EncounterService) -> int:
    created = await service.create(GUILD, CHANNEL, DIRECTOR, ruleset="toy-sim", toml_text=TOY)
    await service.join(created.encounter_id, ANA)
    await service.join(created.encounter_id, BEA)
    await service.start(created.encounter_id, Actor(DIRECTOR))
    return created.encounter_id


async def test_create_from_text_lists_the_units_players_can_take(service: EncounterService) -> None:
    created = await service.create(GUILD, CHANNEL, DIRECTOR, ruleset="toy-sim", toml_text=TOY)
    assert created.name == "Toy duel"
    assert [u[0] for u in created.units] == ["a", "b"]
    with pytest.raises(Refused) as busy:
        await service.create(GUILD, CHANNEL, DIRECTOR, ruleset="toy-sim", toml_text=TOY)
    assert busy.value.code == "encounter.exists"


async def test_a_broken_scenario_is_refused_with_its_lines(service: EncounterService) -> None:
    broken = TOY.replace('at = "0505"', 'at = 5\nspeed = "x"')
    with pytest.raises(Refused) as err:
        await service.create(GUILD, CHANNEL, DIRECTOR, ruleset="toy-sim", toml_text=broken)
    assert err.value.code == "scenario.invalid"
    assert "line " in str(err.value.params["problems"])


async def test_join_without_arguments_takes_the_first_free_unit(service: EncounterService) -> None:
    created = await service.create(GUILD, CHANNEL, DIRECTOR, ruleset="toy-sim", toml_text=TOY)
    first = await service.join(created.encounter_id, ANA)
    second = await service.join(created.encounter_id, BEA)
    assert (first.units[0][0], second.units[0][0]) == ("a", "b")
    with pytest.raises(Refused) as err:
        await service.join(created.encounter_id, EVE)
    assert err.value.code == "unit.none_free"
    with pytest.raises(Refused) as taken:
        await service.join(created.encounter_id, EVE, unit="a")
    assert taken.value.code == "unit.taken"


async def test_orders_are_checked_stored_and_resolved_when_all_are_in(service: EncounterService) -> None:
    enc = await _running(service)
    with pytest.raises(Refused) as not_yours:
        await service.submit(enc, ANA, "b", "move 0506")
    assert not_yours.value.code == "unit.not_yours"
    with pytest.raises(InvalidOrderError):
        await service.submit(enc, ANA, "a", "fly away")
    with pytest.raises(IllegalOrderError):
        await service.submit(enc, ANA, "a", "move 0909")
    first = await service.submit(enc, ANA, "a", "move 0203")
    assert not first.all_in
    status = await service.status(enc)
    assert [(m.user_id, m.unit_name) for m in status.missing] == [(BEA, "Bravo")]
    amended = await service.submit(enc, ANA, "a", "move 0302")
    assert amended.amended
    assert await service.my_order(enc, ANA, "a") == "move 0302"
    last = await service.submit(enc, BEA, "b", "move 0506")
    assert last.all_in
    result = await service.resolve(enc, expected_phase_no=last.phase_no)
    assert len(result.steps) == 1
    moves = {e.unit: e.to for e in result.steps[0].events if isinstance(e, UnitMoved)}
    assert moves == {"a": Hex.parse("0302"), "b": Hex.parse("0506")}
    again = await service.resolve(enc, expected_phase_no=last.phase_no)
    assert again.already and not again.steps
    assert result.opened_phase_no == last.phase_no + 1


async def test_a_stale_panel_cannot_submit(service: EncounterService) -> None:
    enc = await _running(service)
    ack = await service.submit(enc, ANA, "a", "move 0203")
    await service.resolve(enc, forced=True)
    with pytest.raises(Refused) as err:
        await service.submit(enc, ANA, "a", "move 0204", phase_no=ack.phase_no)
    assert err.value.code == "phase.stale"


async def test_director_commands_refuse_everyone_else(service: EncounterService) -> None:
    enc = await _running(service)
    player = Actor(ANA)
    for call in (
        service.start(enc, player),
        service.end(enc, player),
        service.undo(enc, player),
        service.kick(enc, player, BEA),
        service.cohost(enc, player, ANA),
        service.set_status(enc, player, "paused"),
        service.director_deadline(enc, player, 5),
        service.override_roll(enc, player, 0, (1, 1)),
        service.export(enc, player),
    ):
        with pytest.raises(Refused) as err:
            await call
        assert err.value.code == "director.only"
    assert await service.is_director(await service.storage.get_encounter(enc), Actor(EVE, manage_guild=True))


async def test_override_is_an_event_and_undo_restores_the_state(service: EncounterService) -> None:
    from bot.transforms import overrides

    enc = await _running(service)
    to = Hex.parse("0808")
    done = await service.override(enc, Actor(DIRECTOR), "move", "a", lambda s: overrides.move(s, "a", to))
    assert isinstance(done.event, DirectorOverride) and done.state.units["a"].at == to
    _, state, _ = await service.load(enc)
    assert state.units["a"].at == to
    _, restored = await service.undo(enc, Actor(DIRECTOR))
    assert restored.units["a"].at == Hex.parse("0202")


async def test_director_changes_wait_for_a_resolution_running_in_this_process(
    service: EncounterService, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A director's override given while the bot resolves (phases that run by themselves included) used to read
    the phase before the resolution committed and be refused as stale, with the orders panel's text (CI flake
    of test_e2e_replay). It now waits for the encounter's lock and applies to the state the resolution left."""
    from bot.transforms import overrides

    enc = await _running(service)
    loads: list[int] = []
    real_load = service.load

    async def counted(encounter_id: int):  # type: ignore[no-untyped-def]
        loads.append(encounter_id)
        return await real_load(encounter_id)

    monkeypatch.setattr(service, "load", counted)
    to = Hex.parse("0808")
    async with service._lock(enc):  # pyright: ignore[reportPrivateUsage]  (a resolution holds it)
        task = asyncio.create_task(
            service.override(enc, Actor(DIRECTOR), "move", "a", lambda s: overrides.move(s, "a", to))
        )
        await asyncio.sleep(0)  # the task runs to its first suspension
        assert not loads and not task.done(), "the override must not read the encounter mid-resolution"
    done = await task
    assert loads == [enc] and done.state.units["a"].at == to
    # a deadline too: set on the phase a resolution is closing, it would replace the next phase's
    async with service._lock(enc):  # pyright: ignore[reportPrivateUsage]
        task = asyncio.create_task(service.director_deadline(enc, Actor(DIRECTOR), 30))
        await asyncio.sleep(0)
        assert loads == [enc] and not task.done()
    assert await task is not None and loads == [enc, enc]
    # and a roll's override: a resolution reads the table once, so one written meanwhile would be told "set" and
    # never used
    await service.storage.update_settings(enc, review_rolls=True)
    async with service._lock(enc):  # pyright: ignore[reportPrivateUsage]
        roll = asyncio.create_task(service.override_roll(enc, Actor(DIRECTOR), 0, (6, 6)))
        await asyncio.sleep(0)
        assert loads == [enc, enc] and not roll.done()
    assert await roll >= 1 and loads == [enc, enc, enc]


async def test_an_override_on_a_phase_another_process_moved_on_is_built_again(
    service: EncounterService, monkeypatch: pytest.MonkeyPatch
) -> None:
    from bot.storage import StalePhaseError
    from bot.transforms import overrides

    enc = await _running(service)
    real = service.storage.record_override
    refusals = [1]

    async def moved_on_once(*args: Any, **kwargs: Any) -> Any:
        if refusals:
            refusals.pop()
            raise StalePhaseError(1, 1, 2)
        return await real(*args, **kwargs)

    monkeypatch.setattr(service.storage, "record_override", moved_on_once)
    built: list[Hex | None] = []

    def move(s: Any) -> Any:
        built.append(s.units["a"].at)
        return overrides.move(s, "a", Hex.parse("0808"))

    done = await service.override(enc, Actor(DIRECTOR), "move", "a", move)
    assert len(built) == 2 and done.state.units["a"].at == Hex.parse("0808")

    async def always_moved_on(*args: Any, **kwargs: Any) -> Any:
        raise StalePhaseError(1, 1, 2)

    monkeypatch.setattr(service.storage, "record_override", always_moved_on)
    elsewhere = Hex.parse("0809")  # a move to where the unit stands changes nothing: refused before recording
    with pytest.raises(Refused) as err:
        await service.override(enc, Actor(DIRECTOR), "move", "a", lambda s: overrides.move(s, "a", elsewhere))
    # the director's own words, not the orders panel's "open /orders again"
    assert err.value.code == "phase.changed"


async def test_cohost_becomes_a_director(service: EncounterService) -> None:
    enc = await _running(service)
    await service.cohost(enc, Actor(DIRECTOR), EVE)
    await service.set_status(enc, Actor(EVE), "paused")
    with pytest.raises(Refused) as err:
        await service.submit(enc, ANA, "a", "move 0203")
    assert err.value.code == "encounter.paused"
    await service.set_status(enc, Actor(EVE), "running")


async def test_deadline_is_stored_for_the_open_phase(service: EncounterService) -> None:
    enc = await _running(service)
    when = await service.director_deadline(enc, Actor(DIRECTOR), 10)
    assert when is not None
    due = await service.storage.due_deadlines(service.clock() + timedelta(minutes=11))
    assert [d.encounter_id for d in due] == [enc]
    assert not await service.storage.due_deadlines(service.clock() + timedelta(minutes=5))


async def test_history_gives_the_public_events(service: EncounterService) -> None:
    enc = await _running(service)
    await service.submit(enc, ANA, "a", "move 0203")
    await service.submit(enc, BEA, "b", "move 0506")
    await service.resolve(enc)
    lines = await service.history(enc)
    assert {type(e).__name__ for _, _, e in lines} == {"UnitMoved"}


async def test_export_then_import_into_another_channel(service: EncounterService) -> None:
    enc = await _running(service)
    data = await service.export(enc, Actor(DIRECTOR))
    new_id = await service.import_(data, GUILD, CHANNEL + 1, DIRECTOR)
    assert new_id != enc
    _, state, _ = await service.load(new_id)
    assert set(state.units) == {"a", "b"}


async def test_an_encounter_over_but_still_running_after_a_crash_is_ended_by_the_next_resolve(
    service: EncounterService,
) -> None:
    """The last phase's commit and the "ended" status are two transactions: a crash between them must not leave
    the channel holding a live encounter that can never finish."""
    from rules.events import Note
    from rules.serial import to_json

    enc = await _running(service)
    seen = await service.read(enc)
    over = seen.state.replace(over=True, winner="red")
    await service.storage.commit_resolution(
        enc, seen.phase_no, [("Note", {"event": to_json(Note(rule="TEST", key="x"))})], to_json(over)
    )
    assert (await service.storage.get_encounter(enc)).status == "running"  # the crash happened here
    result = await service.resolve(enc, forced=True)
    assert result.over and result.winner == "red"
    assert (await service.storage.get_encounter(enc)).status == "ended"


async def test_undo_takes_back_one_override_at_a_time_even_before_the_start(
    service: EncounterService,
) -> None:
    from bot.transforms import overrides

    created = await service.create(GUILD, CHANNEL, DIRECTOR, ruleset="toy-sim", toml_text=TOY)
    enc = created.encounter_id
    for to in ("0303", "0404"):
        await service.override(
            enc, Actor(DIRECTOR), "move", "a", lambda s, to=to: overrides.move(s, "a", Hex.parse(to))
        )
    _, once = await service.undo(enc, Actor(DIRECTOR))
    assert once.units["a"].at == Hex.parse("0303"), "only the last override is undone"
    _, twice = await service.undo(enc, Actor(DIRECTOR))
    assert twice.units["a"].at == Hex.parse("0202")


async def test_the_channel_status_never_names_a_hidden_unit(service: EncounterService) -> None:
    hidden_toy = TOY.replace('name = "Bravo"', 'name = "Bravo"\nhidden = true')
    created = await service.create(GUILD, CHANNEL, DIRECTOR, ruleset="toy-sim", toml_text=hidden_toy)
    enc = created.encounter_id
    await service.join(enc, ANA)
    await service.assign(enc, Actor(DIRECTOR), "b", BEA)
    await service.start(enc, Actor(DIRECTOR))
    status = await service.status(enc)
    assert {(m.user_id, m.unit_name) for m in status.missing} == {(ANA, "Alfa"), (BEA, "")}
    assert "Bravo" not in repr(status)


async def test_pausing_twice_or_resuming_a_running_encounter_says_so(service: EncounterService) -> None:
    enc = await _running(service)
    director = Actor(DIRECTOR)
    with pytest.raises(Refused) as err:
        await service.set_status(enc, director, "running")
    assert err.value.code == "encounter.not_paused"
    await service.set_status(enc, director, "paused")
    with pytest.raises(Refused) as err:
        await service.set_status(enc, director, "paused")
    # not "the encounter has not started yet", which it has
    assert err.value.code == "encounter.not_running"


async def test_undo_is_checked_before_answering_and_an_ended_encounter_says_so(
    service: EncounterService,
) -> None:
    """/director undo asks these before its public "thinking…": nothing to undo, and an ended encounter (whose
    store refusal used to reach the director as "The encounter store refused that: encounter 1 has ended; …", in
    English whatever their language)."""
    enc = await _running(service)
    director = Actor(DIRECTOR)
    while True:  # back to the start
        try:
            await service.check_undo(enc, director)
        except Refused as refused:
            assert refused.code == "undo.nothing"
            break
        await service.undo(enc, director)
    await service.resolve(enc, forced=True)
    await service.check_undo(enc, director)
    await service.storage.set_encounter_status(enc, "ended")
    for call in (service.check_undo(enc, director), service.undo(enc, director)):
        with pytest.raises(Refused) as err:
            await call
        assert err.value.code == "encounter.ended"


async def test_a_resolution_the_director_ended_meanwhile_commits_and_shows_nothing(
    service: EncounterService, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``/encounter end`` while a step resolves in the background: the end wins, the resolution commits nothing
    and reports nothing, and fails nobody (it used to surface as an error in the background)."""
    enc = await _running(service)
    commit = service.storage.commit_resolution

    async def ended_first(*args: Any, **kwargs: Any) -> Any:
        await service.storage.set_encounter_status(enc, "ended")
        return await commit(*args, **kwargs)

    monkeypatch.setattr(service.storage, "commit_resolution", ended_first)
    before = (await service.read(enc)).phase_no
    result = await service.resolve(enc, forced=True)
    assert result.steps == () and not result.over
    assert (await service.read(enc)).phase_no == before


async def test_a_step_s_rules_work_runs_in_the_click_worker_not_on_the_event_loop(
    service: EncounterService, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The resolution, its encoding and its report are CPU work: on the loop they would hold every other table's
    clicks for as long as they run. A small board's go to the click worker (bot/offloop.py)."""
    import threading

    from bot.offloop import THREAD_NAME
    from bot.service import core

    ran_in: dict[str, str] = {}
    resolve_phase, report = core.resolve_phase, core.EncounterService._report  # pyright: ignore[reportPrivateUsage]

    def resolving(*args: Any, **kwargs: Any) -> Any:
        ran_in["resolution"] = threading.current_thread().name
        return resolve_phase(*args, **kwargs)

    def reporting(*args: Any) -> Any:
        ran_in["report"] = threading.current_thread().name
        return report(*args)

    monkeypatch.setattr(core, "resolve_phase", resolving)
    monkeypatch.setattr(core.EncounterService, "_report", staticmethod(reporting))
    enc = await _running(service)
    await service.submit(enc, ANA, "a", "move 0203")
    result = await service.resolve(enc, forced=True)
    assert len(result.steps) == 1 and result.steps[0].events
    assert ran_in == {"resolution": THREAD_NAME, "report": THREAD_NAME}
