"""``/unit info`` end to end: the record sheet in the reader's language, the mech's armour doll attached to the
private answer, and a unit the reader cannot see answered exactly as one that does not exist (FOG-1)."""

from __future__ import annotations

import io
from typing import Any

import pytest
from PIL import Image

from data import SCENARIO_DIR
from tests.e2e_helpers import Table, create_from_file

pytestmark = pytest.mark.slow

# the Griffin waits in hiding: the red side must not learn it exists (the director placed it hidden)
HIDDEN_GRIFFIN = (
    (SCENARIO_DIR / "mech-duel.toml")
    .read_text(encoding="utf-8")
    .replace('id = "griffin"\nside = "blue"\n', 'id = "griffin"\nside = "blue"\nhidden = true\n', 1)
    .split("[[rounds]]", 1)[0]
)


def fields(message: Any) -> dict[str, str]:
    return {f["name"]: f["value"] for f in message.embeds[0]["fields"]}


async def test_unit_info_is_a_mech_record_sheet_with_its_armour_doll_in_each_readers_language_MECH_2_3(
    table: Table,
) -> None:
    t = table
    await create_from_file(t.director, t.channel, "mech", "hidden.toml", HIDDEN_GRIFFIN)
    await (await t.ana.run_command(t.channel, "encounter join", {"unit": "hunter"})).final_response()
    await (await t.bea.run_command(t.channel, "encounter join", {"unit": "wolverine"})).final_response()

    info = await (await t.ana.run_command(t.channel, "unit info", {"unit": "hunter"})).final_response()
    assert info.ephemeral and "Hunchback" in info.embeds[0]["title"]
    shown = fields(info)
    assert "Gunnery 9 · Piloting 8" in shown["Pilot"] and shown["Heat"] == "0 · 13 sinks"
    assert "AC/20 (right torso): damage 20" in shown["Weapons"]
    assert "left arm: 13/13 · 8/8" in shown["Armour · structure (left/full)"]
    assert not any(k.startswith(("stat.", "term.", "field[")) for k in shown)
    doll = Image.open(io.BytesIO(info.attachments[0].read()))
    assert info.attachments[0].filename == "armour.png" and 400 <= doll.width <= 550

    # Bea reads Spanish: the same sheet in her words
    visto = await (await t.bea.run_command(t.channel, "unit info", {"unit": "hunter"})).final_response()
    assert "CA/20 (torso derecho): daño 20" in fields(visto)["Armas"]
    assert fields(visto)["Calor"] == "0 · 13 disipadores"

    # the hidden Griffin: word for word the answer for a unit that does not exist
    hidden = await (await t.ana.run_command(t.channel, "unit info", {"unit": "griffin"})).response()
    missing = await (await t.ana.run_command(t.channel, "unit info", {"unit": "nothere"})).response()
    assert hidden is not None and missing is not None and hidden.ephemeral and not hidden.attachments
    assert hidden.content.replace("griffin", "X") == missing.content.replace("nothere", "X")
    assert not hidden.embeds and not missing.embeds
    # the director sees it, sheet and all
    director = await (
        await t.director.run_command(t.channel, "unit info", {"unit": "griffin"})
    ).final_response()
    assert "Griffin" in director.embeds[0]["title"] and director.attachments
