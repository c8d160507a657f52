"""A skirmish move of four hexes in one Submit, end to end: the real HexBot and the unmodified discord.py client
against tests/fakediscord, in English and in Spanish.

Veddio (Ana's) stands in 0205 hidden from Kara (Bea's) by the obstacle in 0305; Kara goes into overwatch (always
fire). On his DM panel Ana picks a direction, the hex 0604 four hexes away with its AP, then the end facing, and
submits once. The engine takes the path step by step: the first step is out of Kara's sight, the second is paid
in it and draws her shot (SK-4.1), which stops the path in the second hex with the AP of the two steps not taken.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from rules.hexgrid import Hex, HexSide, side_toward
from rules.registry import get_ruleset
from rules.skirmish.model import Character
from tests.e2e_helpers import (
    Table,
    create_from_file,
    draft_in,
    everything_public,
    panel_for_phase,
    room,
    wait_turn_after,
)
from tests.fakediscord import Message, Person

pytestmark = pytest.mark.slow

RULES = get_ruleset("skirmish")
CARD = "ap = 6\nranged = 15\nmelee = 12\naction = 12\nresistance = 5\nwounds = 3"
SCENARIO = f"""ruleset = "skirmish"
name = "Four hexes"
dice = [9, 9, 9]

[board]
width = 16
height = 10
terrain = {{ "0305" = "obstacle" }}

[[sides]]
id = "rfp"

[[sides]]
id = "tyr"

[[units]]
id = "veddio"
side = "rfp"
unit = "alpha"
at = "0205"
facing = "NE-SE"
{CARD}

[[units]]
id = "kara"
side = "tyr"
unit = "bravo"
at = "0805"
facing = "SW-NW"
{CARD.replace("ranged = 15", "ranged = 20")}
"""
STOPPED = {
    "en": "stops at 0405 under fire; 4 AP left",
    "es": "se detiene en 0405 bajo el fuego; le quedan 4 PA",
}


@pytest.fixture(params=["en", "es"])
async def table(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Table]:
    async with room(tmp_path, lang=request.param, channel_name="four-hexes") as t:
        yield t


def select_of(panel: Message, unit: str, group: str) -> tuple[str, list[str]]:
    for cid, comp in panel.custom_ids().items():
        if cid.endswith(f":unit:{unit}:{group}"):
            return cid, [o["value"] for o in comp.get("options", [])]
    return "", []


async def pick(
    t: Table, person: Person, panel: Message, unit: str, group: str, value: str, field: str
) -> None:
    cid, values = select_of(panel, unit, group)
    assert value in values, f"{value!r} not offered in {group}: {values}"
    await (await person.select(panel, cid, [value])).acknowledged()

    def shown() -> bool:
        found = draft_in(panel)
        return found is not None and found[1].text(field) == value.removeprefix("way ")

    await t.fd.wait_for(shown, what=f"the panel to show the chosen {field}")


async def submit(person: Person, panel: Message, unit: str) -> Message:
    cid = next(c for c in panel.custom_ids() if c.endswith(f":unit:{unit}:submit"))
    return (await (await person.click(panel, cid)).wait_for_replies(1, timeout=60))[0]


async def test_sk_4_1_a_four_hex_move_is_one_submit_and_overwatch_at_the_second_hex_stops_it(
    table: Table,
) -> None:
    t = table
    await create_from_file(t.director, t.channel, "skirmish", "four.toml", SCENARIO)
    for person, unit in ((t.ana, "veddio"), (t.bea, "kara")):
        await (await person.run_command(t.channel, "encounter join", {"unit": unit})).final_response()
    await (await t.director.run_command(t.channel, "encounter start")).final_response()
    meta = await t.bot.service.storage.active_encounter_in_channel(t.guild_id, t.channel.id)
    assert meta is not None
    enc = meta.id
    submits = 0
    for _ in range(12):  # the chits come out at random: whoever is drawn acts, until Veddio has moved
        seen = await t.bot.service.read(enc)
        state, phase_no = seen.state, seen.phase_no
        (unit,) = RULES.awaiting(state)[:1]
        kara = state.unit_as("kara", Character)
        if unit == "kara":
            panel = await panel_for_phase(t.fd, t.bea, unit, phase_no)
            await pick(t, t.bea, panel, unit, "other", "overwatch always", "action")
            assert (await submit(t.bea, panel, unit)).ephemeral
        elif kara.overwatch is None:
            panel = await panel_for_phase(t.fd, t.ana, unit, phase_no)
            cid = next(c for c in panel.custom_ids() if c.endswith(f":unit:{unit}:end"))
            await (await t.ana.click(panel, cid)).wait_for_replies(1, timeout=60)
        else:
            panel = await panel_for_phase(t.fd, t.ana, unit, phase_no)
            # more hexes in reach than a menu holds: a direction first, then its hexes with their AP
            way = HexSide(side_toward(Hex.parse("0205"), Hex.parse("0604"))).name
            _, moves = select_of(panel, unit, "move")
            assert all(v.startswith("way ") for v in moves) and len(moves) <= 25
            await pick(t, t.ana, panel, unit, "move", f"way {way}", "way")
            _, moves = select_of(panel, unit, "move")
            assert len(moves) <= 25
            four = next(v for v in moves if v.startswith("move ") and v.split()[-3] == "0604")
            await pick(t, t.ana, panel, unit, "move", four, "action")
            # the end facing comes after the hex, each with its path's AP
            _, ends = select_of(panel, unit, "facing")
            assert len(ends) == 6
            path = next(v for v in ends if v.endswith("facing NE-SE"))
            assert path == "move 0306 0405 0505 0604 facing NE-SE"
            await pick(t, t.ana, panel, unit, "facing", path, "action")
            assert panel.attachments, "a private preview of the path"
            assert (await submit(t.ana, panel, unit)).ephemeral
            submits += 1
            await wait_turn_after(t, enc, phase_no)
            break
        await wait_turn_after(t, enc, phase_no)
    assert submits == 1, "Veddio moved, in one Submit"
    state = (await t.bot.service.read(enc)).state
    veddio = state.unit_as("veddio", Character)
    assert veddio.at == Hex.parse("0405"), "stopped at the second hex, where the shot was drawn"
    assert veddio.ap_left == 4, "the two steps not taken keep their AP"
    assert RULES.awaiting(state) == ("veddio",), "his activation goes on"
    await t.bot.settle()
    public = everything_public(t.channel)
    assert "[SK-4.1]" in public and STOPPED[t.lang] in public
    for secret in ("hexd:draft", "move 0306"):
        assert secret not in public, f"{secret!r} from a private panel leaked into the channel"
