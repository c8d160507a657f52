"""Shared pieces of the render tests: small exo and skirmish states, decoding a PNG and probing its colours."""

from __future__ import annotations

import io
from dataclasses import dataclass

from PIL import Image

from render import BoardSnapshot
from render.board import viewport_for
from render.counters import radius_for
from rules import exo
from rules.hexgrid import Hex
from rules.skirmish.model import Character
from rules.state import Board, EncounterState, Side

UPLOAD_LIMIT = 10 * 1024 * 1024


@dataclass(frozen=True, slots=True, kw_only=True)
class Ship(exo.Ship):
    """An exo ship with the fixture's stats as defaults (the exo overlay draws its vector and stat bars)."""

    maneuverability: int = 4
    armor: int = 8
    max_armor: int = 8
    structure: int = 6
    max_structure: int = 6
    engines: int = 3
    max_engines: int = 3
    manta: int = 3


def H(label: str) -> Hex:
    return Hex.parse(label)


def exo_state(**changes: object) -> EncounterState:
    units = [
        Ship(id="halcon", side="red", name="Halcón", label="HAL", at=H("0505"), facing=1, vector=H("0703")),
        Ship(id="pirata", side="blue", name="Pirata", label="PIR", at=H("1006"), facing=4, vector=H("0907")),
        Ship(
            id="sombra",
            side="blue",
            name="Sombra",
            label="SOM",
            at=H("1209"),
            facing=5,
            vector=H("1108"),
            hidden=True,
        ),
    ]
    state = EncounterState(
        ruleset="exo",
        name="Duel",
        board=Board(terrain={H("0707"): "asteroid"}),
        sides=(Side("red", "Corsairs"), Side("blue", "Patrol")),
        units={u.id: u for u in units},
        round=2,
        phase="3",
    )
    return state.replace(**changes)


def decode(data: bytes) -> Image.Image:
    img = Image.open(io.BytesIO(data))
    img.load()
    return img.convert("RGB")


def share_of(img: Image.Image, centre: tuple[float, float], half: int, colour: tuple[int, int, int]) -> float:
    """Fraction of pixels in a (2·half+1)² box around ``centre`` that are exactly ``colour``."""
    cx, cy = round(centre[0]), round(centre[1])
    hits = total = 0
    for x in range(cx - half, cx + half + 1):
        for y in range(cy - half, cy + half + 1):
            total += 1
            hits += img.getpixel((x, y)) == colour
    return hits / total


def probe_box(snapshot: BoardSnapshot, viewer: str, h: Hex) -> tuple[tuple[float, float], int]:
    vp = viewport_for(snapshot, viewer=viewer)
    return vp.center(h), round(radius_for(vp.size) * 0.7)


def skirmish_state(**changes: object) -> EncounterState:
    units = [
        Character(id="kara", side="red", name="Kara", at=H("0305"), facing=1, max_wounds=3),
        Character(id="brak", side="blue", name="Brak", at=H("0708"), facing=4, max_wounds=3),
    ]
    state = EncounterState(
        ruleset="skirmish",
        name="Corridor",
        board=Board(width=12, height=10, terrain={H("0506"): "obstacle"}),
        sides=(Side("red", "RFP"), Side("blue", "Tyranos")),
        units={u.id: u for u in units},
    )
    return state.replace(**changes)
