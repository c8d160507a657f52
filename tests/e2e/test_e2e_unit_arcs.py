"""``/unit arcs`` end to end: the real HexBot and discord.py client against tests/fakediscord.

A player asks for their ship's arcs: a private picture per EXO-1.4 section, each in its own colour; with a weapon
(offered by autocomplete from the ship's weapons, or typed as the scenario writes it) only the sections it covers,
in its range bands. A
director asks for a skirmish character's vertex arc (SK-3.2) and its ranged attack, in Spanish. A weapon the
unit lacks is refused privately.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from PIL import Image

from render.board import arc_colour
from render.colours import ARC_MIX, ARC_MIX_ALL, PAPER, SPACE, mix
from tests.e2e_helpers import duel_table, open_duel, room

pytestmark = pytest.mark.slow


def pixels(png: bytes) -> dict[object, int]:
    img = Image.open(io.BytesIO(png)).convert("RGB")
    return {colour: n for n, colour in img.getcolors(maxcolors=img.width * img.height) or []}


async def test_a_player_sees_the_sections_and_a_weapons_bands_of_their_ship_EXO_1_4(tmp_path: Path) -> None:
    async with duel_table(tmp_path) as t:
        await open_duel(t)
        offered = await t.ana.autocomplete(t.channel, "unit arcs", "weapon", "", {"unit": "halcon"})
        assert [c["value"] for c in offered] == ["1", "2", "3"]
        assert [c["name"] for c in offered] == ["APt#1", "L#2", "L#3"]

        whole = await (await t.ana.run_command(t.channel, "unit arcs", {"unit": "halcon"})).final_response()
        assert whole.ephemeral and "Halcón" in whole.content
        # SFD, SFI, SPD, SPI: a picture each, framed on it, so no hex is striped in the colours of two sections
        assert len(whole.attachments) == 4
        for i, picture in enumerate(whole.attachments):
            seen = pixels(picture.read())
            shares = [seen.get(mix(SPACE.hex_fill, arc_colour(j), ARC_MIX_ALL), 0) for j in range(4)]
            assert shares[i] > 2000 and sum(shares) == shares[i], (i, shares)

        bow = await (
            await t.ana.run_command(t.channel, "unit arcs", {"unit": "halcon", "weapon": "2"})
        ).final_response()
        assert bow.ephemeral and "L#2" in bow.content
        assert (
            len(bow.attachments) == 2
        )  # the two bow sections, a picture each; the rear ones are not the weapon's
        for i, picture in enumerate(bow.attachments):
            seen = pixels(picture.read())
            for band in range(3):  # short, medium, long: a shade each
                assert seen.get(mix(SPACE.hex_fill, arc_colour(i), ARC_MIX[band]), 0) > 300, (band, i)
            for j in {0, 1, 2, 3} - {i}:
                assert not any(seen.get(mix(SPACE.hex_fill, arc_colour(j), s), 0) for s in ARC_MIX), (i, j)

        refused = await (
            await t.ana.run_command(t.channel, "unit arcs", {"unit": "halcon", "weapon": "9"})
        ).final_response()
        assert refused.ephemeral and "no weapon 9" in refused.content and not refused.attachments


async def test_weapon_takes_the_scenarios_own_code_EXO_1_3(tmp_path: Path) -> None:
    """``Lx2`` as exo-duel writes Halcón's lasers names its first laser, L#2: the same picture as the menu's value;
    a code the ship has not is refused privately."""
    async with duel_table(tmp_path) as t:
        await open_duel(t)
        by_menu = await (
            await t.ana.run_command(t.channel, "unit arcs", {"unit": "halcon", "weapon": "2"})
        ).final_response()
        for typed in ("Lx2", "l"):
            by_code = await (
                await t.ana.run_command(t.channel, "unit arcs", {"unit": "halcon", "weapon": typed})
            ).final_response()
            assert by_code.ephemeral and "L#2" in by_code.content, (typed, by_code.content)
            assert by_code.attachments[0].read() == by_menu.attachments[0].read(), typed
        refused = await (
            await t.ana.run_command(t.channel, "unit arcs", {"unit": "halcon", "weapon": "Pl(D)"})
        ).final_response()
        assert refused.ephemeral and "Pl(D)" in refused.content and not refused.attachments


async def test_a_characters_vertex_arc_and_ranged_reach_in_spanish_SK_3_2(tmp_path: Path) -> None:
    async with room(tmp_path, lang="es", channel_name="pasillo") as t:
        created = await (
            await t.director.run_command(
                t.channel, "encounter new", {"ruleset": "skirmish", "scenario": "skirmish-corridor"}
            )
        ).final_response()
        assert created.content
        offered = await t.director.autocomplete(t.channel, "unit arcs", "weapon", "", {"unit": "veddio"})
        assert {c["value"]: c["name"] for c in offered} == {"ranged": "disparo", "melee": "cuerpo a cuerpo"}
        shot = await (
            await t.director.run_command(t.channel, "unit arcs", {"unit": "veddio", "weapon": "ranged"})
        ).final_response()
        assert shot.ephemeral and "Veddio" in shot.content and "disparo" in shot.content, shot.content
        seen = pixels(shot.attachments[0].read())
        # in sight and blocked, in the near band (2-6) and the long one (7-12, SK-3.5: the corridor plays it)
        for i in range(2):
            for band in range(2):
                assert seen.get(mix(PAPER.hex_fill, arc_colour(i), ARC_MIX[band]), 0) > 300, (i, band)
