"""The leak matrix, differential (NGT-9, FOG-1): every private director action on a unit one side cannot see,
against every surface that side can read, end to end through the real client against the local Discord.

Two worlds differ only in the hidden action: the same night raid (tests/night_fixtures.py), the same
players, the same scripted dice; in one the director also removes, moves, damages, sets, adds in the dark or
reveals (to the other side) a Tyranos unit the RFP side cannot see. Then the director lights a flare everyone
sees. Everything Ana (RFP) can read must be byte for byte the same in both worlds: her DMs (boards, accounts,
panels), the channel (posts, images, the status), and what she gets when she asks (status, boards, log, replay,
``/unit info|arcs``, autocomplete, her panel, refusals). Discord's own ids differ between the worlds and are
blanked. The same for the Tyranos side, whose player sees the unit: the action must reach Bea there.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.e2e_helpers import Table, room
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


async def world(tmp_path: Path, name: str, act: Callable[[Table], Any] | None) -> tuple[dict[str, str], int]:
    """What Ana (RFP) can read of a night raid where the director did ``act`` (None: nothing) and then lit a
    flare by ruling, and how many DMs Bea (Tyranos, who sees every unit the director touched) got."""
    (tmp_path / name).mkdir()
    async with room(tmp_path / name, channel_name="night") as t:
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


async def test_every_private_director_action_leaves_everything_the_blind_side_reads_byte_identical(
    tmp_path: Path,
) -> None:
    baseline, bea_baseline = await world(tmp_path, "base", None)
    leaks: list[str] = []
    for i, (name, command, options) in enumerate(ACTIONS):
        seen, bea_dms = await world(tmp_path, f"w{i}", director_act(command, options))
        leaks.extend(f"{name} → {surface}" for surface in baseline if seen[surface] != baseline[surface])
        assert bea_dms == bea_baseline + 1, f"{name}: the side that sees the unit gets its new board, once"
    assert not leaks, "RFP could tell a hidden action happened through: " + "; ".join(leaks)
