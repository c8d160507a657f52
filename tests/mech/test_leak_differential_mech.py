"""The differential leak matrix for mech secret declarations (MECH-1.1, FOG-1): every private director action on
a unit the red side cannot see (a hidden blue mech), against everything red's player can read, end to end
through the real client against the local Discord (the harness is tests/leak_fixtures.py).

Two worlds differ only in the hidden action, taken while visible units declare; then the director sets a stat
of a unit everyone sees. Everything Ana (red) can read must be byte for byte the same in both. (Removing the
hidden unit while it is the one declaring moves the turn on, as its own locked declaration would: red sees the
next declarer called, which is the game going on, not the action.) Every case runs on SQLite and on PostgreSQL
(``E2E_BACKENDS``), against the world without the action played once per backend.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from tests.e2e_helpers import E2E_BACKENDS, Table, create_from_file, room
from tests.leak_fixtures import director_act, surfaces
from tests.mech_fixtures import scenario_text, unit

pytestmark = pytest.mark.slow

SCENARIO = scenario_text(
    unit("hunter", "red", "0810"),
    unit("wolf", "blue", "0805", "S"),
    unit("spook", "blue", "1203", "S", hidden=True),
    options={"secret_declarations": True},
    dice=[3, 3, 2, 2, 6, 6],  # initiative (MECH-1.1): wolf declares first, then hunter, the hidden spook last
)

#: (name, director command, options): each touches only units red cannot see
ACTIONS: tuple[tuple[str, str, dict[str, Any]], ...] = (
    ("remove hidden", "director remove-unit", {"unit": "spook"}),
    ("move hidden", "director move", {"unit": "spook", "hex": "1302"}),
    ("damage hidden", "director damage", {"unit": "spook", "amount": "3", "location": "ct"}),
    ("set hidden", "director set", {"unit": "spook", "stat": "heat", "value": "2"}),
    ("add hidden", "director add-unit", {"id": "shadow", "side": "blue", "hex": "1305", "like": "spook"}),
)


async def damaged_then_undone(t: Table) -> None:
    """The director damages the hidden spook, then takes it back: a step red never saw, undone (FOG-1)."""
    await director_act("director damage", {"unit": "spook", "amount": "3", "location": "ct"})(t)
    await t.bot.settle()
    undone = await (await t.director.run_command(t.channel, "director undo")).final_response(timeout=60)
    assert undone.visible_to == t.director.id, undone.content


async def world(
    tmp_path: Path, backend: str, act: Callable[[Table], Awaitable[Any]] | None
) -> dict[str, str]:
    async with room(tmp_path, channel_name="mechs", backend=backend) as t:
        await create_from_file(t.director, t.channel, "mech", "night.toml", SCENARIO)
        for person, taken in ((t.ana, "hunter"), (t.bea, "wolf")):
            await (await person.run_command(t.channel, "encounter join", {"unit": taken})).final_response()
        given = await (
            await t.director.run_command(t.channel, "director assign", {"unit": "spook", "user": t.bea})
        ).final_response()
        assert given.ephemeral
        await (await t.director.run_command(t.channel, "encounter start")).final_response()
        await t.bot.settle()
        if act is not None:
            await act(t)
            await t.bot.settle()
        said = await (
            await t.director.run_command(
                t.channel, "director set", {"unit": "wolf", "stat": "heat", "value": "1"}
            )
        ).final_response(timeout=60)
        assert not said.ephemeral, said.content
        return await surfaces(t, t.ana, ("spook", "shadow"), ("", "s"))


#: the world without the hidden action, once per backend: every action's world is compared with it
BASELINES: dict[str, dict[str, str]] = {}


@pytest.fixture(params=E2E_BACKENDS)
async def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


async def leaks(tmp_path: Path, backend: str, act: Callable[[Table], Awaitable[Any]]) -> list[str]:
    """The surfaces red reads differently in a world where the director did ``act``."""
    if backend not in BASELINES:
        (tmp_path / "base").mkdir()
        BASELINES[backend] = await world(tmp_path / "base", backend, None)
    base = BASELINES[backend]
    (tmp_path / "acted").mkdir()
    seen = await world(tmp_path / "acted", backend, act)
    return [surface for surface in base if seen[surface] != base[surface]]


@pytest.mark.parametrize(("name", "command", "options"), ACTIONS, ids=[a[0] for a in ACTIONS])
async def test_a_private_director_action_leaves_everything_red_reads_byte_identical(
    tmp_path: Path, backend: str, name: str, command: str, options: dict[str, Any]
) -> None:
    found = await leaks(tmp_path, backend, director_act(command, options))
    assert not found, f"red could tell {name!r} happened through: " + "; ".join(found)


async def test_an_undone_private_override_leaves_everything_red_reads_byte_identical(
    tmp_path: Path, backend: str
) -> None:
    """FOG-1: the undo of a step red never saw is told to the director (and blue), never to the
    channel: no "thinking…", no line, nothing in the log or the replay."""
    found = await leaks(tmp_path, backend, damaged_then_undone)
    assert not found, "red could tell a hidden step was undone through: " + "; ".join(found)
