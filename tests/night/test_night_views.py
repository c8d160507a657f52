"""The night layer's director surfaces through the service (no Discord): the flare, illuminate and nvr rulings
(``/director ruling``) are undoable overrides; "reveal at the end" opens the replay to everyone once the encounter
has ended, and only then (off by default)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from bot.permissions import Actor
from bot.results import Refused
from bot.service.replay import viewer_for
from bot.storage import Encounter
from bot.transforms import overrides
from rules.hexgrid import Hex
from rules.night.state import night_of
from rules.registry import ruleset_for
from rules.ruleset import DIRECTOR, PUBLIC
from tests.bot_fixtures import sqlite_service
from tests.night_fixtures import RAID

DIRECTOR_ID = 10


async def test_a_flare_ruling_lights_the_board_and_undo_takes_it_back(tmp_path: Path) -> None:
    async with sqlite_service(tmp_path / "bot.sqlite3") as service:
        created = await service.create(1, 2, DIRECTOR_ID, ruleset="skirmish", scenario="skirmish-night")
        enc = created.encounter_id
        await service.start(enc, Actor(DIRECTOR_ID))
        _, before, _ = await service.load(enc)
        ruling = ruleset_for(before).rulings()["flare"]
        done = await service.override(
            enc, Actor(DIRECTOR_ID), "ruling-flare", "", lambda s: ruling.apply(s, ("0606",))
        )
        assert done.public and done.event.rule == "NGT-3"
        _, lit, _ = await service.load(enc)
        assert [m.kind for m in lit.markers if m.kind == "flare"] == ["flare"]
        await service.undo(enc, Actor(DIRECTOR_ID))
        _, undone, _ = await service.load(enc)
        assert not [m for m in undone.markers if m.kind == "flare"]
        nvr = ruleset_for(undone).rulings()["nvr"]
        await service.override(enc, Actor(DIRECTOR_ID), "ruling-nvr", "", lambda s: nvr.apply(s, ("5",)))
        _, wider, _ = await service.load(enc)
        assert night_of(wider).nvr == 5
        await service.undo(enc, Actor(DIRECTOR_ID))
        _, back, _ = await service.load(enc)
        assert night_of(back).nvr == night_of(before).nvr


async def test_fog_1_an_override_the_channel_never_saw_is_undone_out_of_its_sight(tmp_path: Path) -> None:
    """/director undo answers in the channel or in private before it undoes (its "thinking…" alone would say
    something happened): ``check_undo`` says whether the channel was told of the step at the head, and an undo
    begun for a step the channel saw takes back nothing once the head is one it never saw."""
    async with sqlite_service(tmp_path / "bot.sqlite3") as service:
        director = Actor(DIRECTOR_ID)
        enc = (await service.create(1, 2, DIRECTOR_ID, ruleset="skirmish", toml_text=RAID)).encounter_id
        await service.start(enc, director)
        _, before, _ = await service.load(enc)
        flare = ruleset_for(before).rulings()["flare"]
        lit = await service.override(enc, director, "ruling-flare", "", lambda s: flare.apply(s, ("0305",)))
        assert lit.public and await service.check_undo(enc, director)
        moved = await service.override(
            enc, director, "move", "ghost", lambda s: overrides.move(s, "ghost", Hex.parse("1203"), None)
        )
        assert not moved.public and not await service.check_undo(enc, director)
        with pytest.raises(Refused) as err:
            await service.undo_step(enc, director, seen=True)  # begun in public, as for the flare
        assert err.value.code == "phase.changed"
        assert (await service.load(enc))[1] == moved.state, "nothing was undone"
        done = await service.undo_step(enc, director, seen=False)
        assert not done.seen and not done.public and done.state.units["ghost"].at == before.units["ghost"].at
        assert await service.check_undo(enc, director), "the flare, which the channel saw, is next"


def _meta(status: str, **settings: Any) -> Encounter:
    now = datetime(2026, 1, 1, tzinfo=UTC)
    return Encounter(1, 1, 1, "skirmish", "n", DIRECTOR_ID, status, 3, dict(settings), 0, now, now)  # type: ignore[arg-type]


class _NoService:
    """``viewer_for`` must answer a revealed replay without asking the service anything."""

    def __getattr__(self, name: str) -> Any:
        raise AssertionError(f"the service was asked for {name}")


async def test_reveal_at_the_end_shows_the_replay_in_full_only_once_ended_and_only_when_on() -> None:
    player = Actor(99)
    service: Any = _NoService()
    assert (
        await viewer_for(service, _meta("ended", reveal_at_end=True), player, "public", replay=True)
        == DIRECTOR
    )
    assert (
        await viewer_for(service, _meta("ended", reveal_at_end=True), player, "mine", replay=True) == DIRECTOR
    )
    assert (
        await viewer_for(service, _meta("ended"), player, "public", replay=True) == PUBLIC
    )  # off by default
    assert (
        await viewer_for(service, _meta("running", reveal_at_end=True), player, "public", replay=True)
        == PUBLIC
    )
    # the board is never revealed by it
    assert await viewer_for(service, _meta("ended", reveal_at_end=True), player, "public") == PUBLIC
