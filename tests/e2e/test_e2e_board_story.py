"""The channel's board tells whose turn it is, end to end: the real HexBot and discord.py client against
tests/fakediscord. A director opens the bundled corridor, the players join, the encounter starts and the first chit
is drawn (SK-1.1); a character of the drawn chit moves: the board posted in the channel rings it, whose activation
goes on, and nobody else."""

from __future__ import annotations

import io
import math
from pathlib import Path

import pytest
from PIL import Image

from render import BoardSnapshot
from render.board import viewport_for
from render.counters import ACTING, radius_for
from rules.registry import ruleset_for
from tests.e2e_helpers import panel_for_phase, room, wait_turn_after
from tests.skirmish_e2e_fixtures import a_destination, choose, open_corridor, press, select_of

pytestmark = pytest.mark.slow


def _ring_pixels(img: Image.Image, centre: tuple[float, float], r: float) -> int:
    """Pixels of the acting ring's colour in a band just outside a counter of radius ``r``."""
    cx, cy = centre
    found = 0
    for a in range(32):
        x = round(cx + (r + 4) * math.cos(a * math.pi / 16))
        y = round(cy + (r + 4) * math.sin(a * math.pi / 16))
        found += img.getpixel((x, y)) == ACTING
    return found


async def test_sk_1_1_the_channel_board_rings_the_character_whose_activation_runs(tmp_path: Path) -> None:
    async with room(tmp_path, lang="es", channel_name="pasillo") as t:
        enc = await open_corridor(t)
        await wait_turn_after(t, enc, 0)
        seen = await t.bot.service.read(enc)
        unit = ruleset_for(seen.state).awaiting(seen.state)[0]  # a character of the drawn chit (SK-1.1)
        person = t.ana if seen.state.units[unit].side == "rfp" else t.bea
        panel = await panel_for_phase(t.fd, person, unit, seen.phase_no)
        _, moves = select_of(panel, unit, "move")
        hex_ = await a_destination(t, person, panel, unit, moves)
        await choose(t, person, panel, unit, "move", hex_)
        await press(t, person, panel, unit, "submit")
        await wait_turn_after(t, enc, seen.phase_no)
        await t.bot.settle()
        state = (await t.bot.service.read(enc)).state
        assert ruleset_for(state).awaiting(state) == (unit,), "its activation goes on: it has AP left"
        boards = [m for m in t.channel.messages() if m.attachments]
        img = Image.open(io.BytesIO(boards[-1].attachments[0].read())).convert("RGB")
        vp = viewport_for(BoardSnapshot(state), viewer="public")
        r = radius_for(vp.size)
        for uid, u in state.units.items():
            if u.at is not None and not u.destroyed:
                ringed = _ring_pixels(img, vp.center(u.at), r)
                assert (ringed > 8) is (uid == unit), (uid, ringed)
