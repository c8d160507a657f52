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
