"""The leak matrix, differential (NGT-9, FOG-1): every private director action on a unit one side cannot see,
against every surface that side can read, end to end through the real client against the local Discord.

Two worlds differ only in the hidden action: the same night raid (tests/night_fixtures.py), the same
players, the same scripted dice; in one the director also removes, moves, damages, sets, adds in the dark or
reveals (to the other side) a Tyranos unit the RFP side cannot see. Then the director lights a flare everyone
sees. Everything Ana (RFP) can read must be byte for byte the same in both worlds: her DMs (boards, accounts,
panels), the channel (posts, images, the status), and what she gets when she asks (status, boards, log, replay,
``/unit info|arcs``, autocomplete, her panel, refusals). Discord's own ids differ between the worlds and are
blanked. The same for the Tyranos side, whose player sees the unit: the action must reach Bea there.

Every case runs on SQLite and on PostgreSQL (``E2E_BACKENDS``), as the race tests do; the world without the action
is played once per backend and every case is compared with it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.e2e_helpers import E2E_BACKENDS, Table, room
from tests.leak_fixtures import director_act, surfaces
from tests.night_fixtures import open_raid

pytestmark = pytest.mark.slow

#: (name, director command, options): each touches only units RFP cannot see (Ghost is hidden, Raider and the
#: new Lurker stand in the dark, NGT-2)
ACTIONS: tuple[tuple[str, str, dict[str, Any]], ...] = (
    ("remove hidden", "director remove-unit", {"unit": "ghost"}),
    ("remove in the dark", "director remove-unit", {"unit": "raider"}),
    ("move hidden", "director move", {"unit": "ghost", "hex": "1203"}),
    ("move in the dark", "director move", {"unit": "raider", "hex": "1106"}),
    ("damage hidden", "director damage", {"unit": "ghost", "amount": "1"}),
    ("damage in the dark", "director damage", {"unit": "raider", "amount": "1"}),
    ("set hidden", "director set", {"unit": "ghost", "stat": "ap", "value": "2"}),
    (
        "add in the dark",
        "director add-unit",
        {"id": "lurker", "side": "tyr", "hex": "1208", "like": "raider"},
    ),
    ("reveal to the other side", "director reveal", {"unit": "ghost"}),
)


async def damaged_then_undone(t: Table) -> None:
    """The director damages Raider in the dark, then takes it back with ``/director undo``: a step nobody in public
    saw, undone (FOG-1); the director alone is answered, and the channel not even with a "thinking…"."""
    await director_act("director damage", {"unit": "raider", "amount": "1"})(t)
    await t.bot.settle()
    undone = await (await t.director.run_command(t.channel, "director undo")).final_response(timeout=60)
    assert undone.visible_to == t.director.id and "Raider" in undone.content, undone.content


async def world(
    tmp_path: Path, backend: str, act: Callable[[Table], Any] | None
) -> tuple[dict[str, str], int]:
    """What Ana (RFP) can read of a night raid where the director did ``act`` (None: nothing) and then lit a
    flare by ruling, and how many DMs Bea (Tyranos, who sees every unit the director touched) got."""
    async with room(tmp_path, channel_name="night", backend=backend) as t:
        await open_raid(t)
        await t.bot.settle()
        if act is not None:
            await act(t)
            await t.bot.settle()
        said = await (
            await t.director.run_command(t.channel, "director ruling", {"kind": "flare", "details": "0305"})
        ).final_response(timeout=60)
        assert not said.ephemeral, said.content
        return await surfaces(t, t.ana, ("ghost", "raider", "lurker"), ("", "g", "r", "l")), len(t.bea.dms())


#: the world without the hidden action, once per backend: every action's world is compared with it
BASELINES: dict[str, tuple[dict[str, str], int]] = {}


@pytest.fixture(params=E2E_BACKENDS)
async def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


async def baseline(tmp_path: Path, backend: str) -> tuple[dict[str, str], int]:
    if backend not in BASELINES:
        (tmp_path / "base").mkdir()
        BASELINES[backend] = await world(tmp_path / "base", backend, None)
    return BASELINES[backend]


@pytest.mark.parametrize(("name", "command", "options"), ACTIONS, ids=[a[0] for a in ACTIONS])
async def test_a_private_director_action_leaves_everything_the_blind_side_reads_byte_identical(
    tmp_path: Path, backend: str, name: str, command: str, options: dict[str, Any]
) -> None:
    base, bea_base = await baseline(tmp_path, backend)
    (tmp_path / "acted").mkdir()
    seen, bea_dms = await world(tmp_path / "acted", backend, director_act(command, options))
    leaks = [surface for surface in base if seen[surface] != base[surface]]
    assert not leaks, f"RFP could tell {name!r} happened through: " + "; ".join(leaks)
    assert bea_dms == bea_base + 1, f"{name}: the side that sees the unit gets its new board, once"


async def test_an_undone_private_override_leaves_everything_the_blind_side_reads_byte_identical(
    tmp_path: Path, backend: str
) -> None:
    """FOG-1: the undo of a step nobody in public saw is told to the director and the side that saw the step
    (Bea: her board back as it was), and the channel, the log and the replay keep no trace of either."""
    base, bea_base = await baseline(tmp_path, backend)
    (tmp_path / "acted").mkdir()
    seen, bea_dms = await world(tmp_path / "acted", backend, damaged_then_undone)
    leaks = [surface for surface in base if seen[surface] != base[surface]]
    assert not leaks, "RFP could tell a hidden step was undone through: " + "; ".join(leaks)
    assert bea_dms == bea_base + 2, "Bea gets her board after the damage and again after its undoing"
