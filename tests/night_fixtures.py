"""Builders for the night layer's tests: a night skirmish (or mech) state from a few unit lines, dice, and the
composed ruleset."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from rules.dice import Dice
from rules.hexgrid import Hex
from rules.registry import compose, get_ruleset
from rules.ruleset import Ruleset
from rules.scenario import Scenario, load_scenario
from rules.state import EncounterState, Marker
from tests.e2e_helpers import Table, create_from_file

NIGHT_SKIRMISH = compose("skirmish", ("night",))
SKIRMISH = get_ruleset("skirmish")


def H(label: str) -> Hex:
    return Hex.parse(label)


def _value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return f'"{v}"'
    if isinstance(v, list | tuple):
        return "[" + ", ".join(_value(x) for x in v) + "]"  # type: ignore[union-attr]
    return str(v)


def char(uid: str, side: str, at: str, group: str = "", facing: str = "N-NE", **keys: Any) -> str:
    """A skirmish character: 6 AP, skills 12, resistance 6, 3 wounds, unless ``keys`` say otherwise."""
    base: dict[str, Any] = {
        "id": uid,
        "name": uid.capitalize(),
        "side": side,
        "unit": group or side,
        "at": at,
        "facing": facing,
        "ap": 6,
        "ranged": 12,
        "melee": 12,
        "action": 12,
        "resistance": 6,
        "wounds": 3,
    }
    base.update(keys)
    return "[[units]]\n" + "\n".join(f"{k} = {_value(v)}" for k, v in base.items()) + "\n"


def night_scenario(
    *units: str, nvr: int = 2, wind: bool = False, width: int = 16, height: int = 12, rounds: str = ""
) -> Scenario:
    text = f"""
ruleset = "skirmish"
layers = ["night"]
name = "night test"
seed = 7
[night]
nvr = {nvr}
wind = {_value(wind)}
[board]
width = {width}
height = {height}
[[sides]]
id = "a"
name = "Blue"
[[sides]]
id = "b"
name = "Red"
{"".join(units)}
{rounds}
"""
    return load_scenario(text)


def night_state(
    *units: str, nvr: int = 2, wind: bool = False, width: int = 16, height: int = 12
) -> EncounterState:
    return night_scenario(*units, nvr=nvr, wind=wind, width=width, height=height).state


def with_markers(state: EncounterState, *markers: Marker) -> EncounterState:
    return state.replace(markers=(*state.markers, *markers))


def flare(at: str, radius: int = 1) -> Marker:
    return Marker(kind="flare", at=H(at), radius=radius)


def gunflash(owner: str, at: str) -> Marker:
    return Marker(kind="gunflash", at=H(at), owner=owner)


def with_terrain(state: EncounterState, terrain: Mapping[str, str]) -> EncounterState:
    merged = {**state.board.terrain, **{H(k): v for k, v in terrain.items()}}
    return state.replace(board=replace(state.board, terrain=merged))


def dice(*script: int) -> Dice:
    return Dice("night-test", script)


def ruleset() -> Ruleset:
    return NIGHT_SKIRMISH


def labels(hexes: Sequence[Hex]) -> list[str]:
    return [h.label for h in hexes]


# --- pictures and panels (the leak matrix and the end-to-end test) --------------------------------------------


def decode(data: bytes) -> Any:
    import io

    from PIL import Image

    img = Image.open(io.BytesIO(data))
    img.load()
    return img.convert("RGB")


def select_of(panel: Any, unit: str, group: str) -> tuple[str, list[str]]:
    """A DM panel's select for ``unit``'s ``group`` (move, attack, other…): its custom id and offered values."""
    for cid, comp in panel.custom_ids().items():
        if cid.endswith(f":unit:{unit}:{group}"):
            return cid, [o["value"] for o in comp.get("options", [])]
    return "", []


def scene() -> EncounterState:
    """Side a: Alba (in the open), Ash (hidden). Side b: Bruno (within Alba's NVR: seen), Bex (hidden, next to
    Alba), Cora (far in the dark, with a gunflash: a '?' for a), Dune (far in the dark: nothing for a). A flare
    lights the middle of the board."""
    state = night_state(
        char("alba", "a", "0305", group="ga", facing="NE-SE"),
        char("ash", "a", "0309", group="ga", hidden=True, facing="NE-SE"),
        char("bruno", "b", "0505", group="gb", facing="SW-NW"),
        char("bex", "b", "0404", group="gb", hidden=True, facing="SW-NW"),
        char("cora", "b", "1105", group="gc", facing="SW-NW"),
        char("dune", "b", "1209", group="gc", facing="SW-NW"),
        nvr=2,
        width=14,
        height=10,
    )
    return with_markers(state, gunflash("cora", "1105"), flare("0708"))


# --- a night raid for the end-to-end tests (tests/night/test_e2e_night.py, test_leak_differential.py) ------

#: Ana holds the RFP pair (one of them hidden), Bea the Tyranos pair (one hidden)
RAID = """
ruleset = "skirmish"
layers = ["night"]
name = "Night raid"
seed = 5
dice = [6, 1, 3, 2]
[night]
nvr = 2
[board]
width = 14
height = 9
[[sides]]
id = "rfp"
name = "RFP"
[[sides]]
id = "tyr"
name = "Tyranos"
[[units]]
id = "scout"
name = "Scout"
side = "rfp"
unit = "alpha"
at = "0305"
facing = "NE-SE"
ap = 4
ranged = 12
melee = 12
action = 12
resistance = 6
wounds = 3
discipline = "lax"
[[units]]
id = "shade"
name = "Shade"
side = "rfp"
unit = "alpha"
at = "0208"
facing = "NE-SE"
ap = 4
ranged = 12
melee = 12
action = 12
resistance = 6
wounds = 3
hidden = true
discipline = "lax"
[[units]]
id = "raider"
name = "Raider"
side = "tyr"
unit = "bravo"
at = "1205"
facing = "SW-NW"
ap = 4
ranged = 12
melee = 12
action = 12
resistance = 6
wounds = 3
discipline = "lax"
[[units]]
id = "ghost"
name = "Ghost"
side = "tyr"
unit = "bravo"
at = "1302"
facing = "SW-NW"
ap = 4
ranged = 12
melee = 12
action = 12
resistance = 6
wounds = 3
hidden = true
discipline = "lax"
"""
RFP = ("scout", "shade")
TYR = ("raider", "ghost")
HIDDEN = {"shade": "Shade", "ghost": "Ghost"}


async def open_raid(t: Table) -> int:
    """The raid opened and started by Dora, each side's hidden unit assigned to its player privately."""
    _, created = await create_from_file(t.director, t.channel, "skirmish", "raid.toml", RAID)
    assert "Scout" in created.content and "Shade" not in created.content and "Ghost" not in created.content
    for person, (unit, hidden) in ((t.ana, RFP), (t.bea, TYR)):
        joined = await (
            await person.run_command(t.channel, "encounter join", {"unit": unit})
        ).final_response()
        assert joined.content
        # a hidden unit is given by the director, privately (FOG-1)
        given = await (
            await t.director.run_command(t.channel, "director assign", {"unit": hidden, "user": person})
        ).final_response()
        assert given.ephemeral
    await (await t.director.run_command(t.channel, "encounter start")).final_response()
    meta = await t.bot.service.storage.active_encounter_in_channel(t.guild_id, t.channel.id)
    assert meta is not None
    return meta.id
