"""Sections and firing arcs (EXO-1.4) from bearings (HEX-3)."""

from __future__ import annotations

from rules.exo.weapons import PORT, STARBOARD, Mount, Weapon
from rules.hexgrid import Hex, bearing_from_side

SFD, SFI, SPD, SPI = "SFD", "SFI", "SPD", "SPI"
SECTIONS = (SFD, SFI, SPD, SPI)
ALL_SECTIONS = frozenset(SECTIONS)
BOW = frozenset({SFD, SFI})
STERN = frozenset({SPD, SPI})
STARBOARD_SECTIONS = frozenset({SFD, SPD})
PORT_SECTIONS = frozenset({SFI, SPI})


def sections_of_bearing(b: float) -> frozenset[str]:
    """EXO-1.4 exactly: front |b| ≤ 90, rear |b| ≥ 90, right 0 ≤ b ≤ 180, left b ≤ 0 or b = 180.

    Bearings come rounded from ``bearing_from_side`` so the boundaries (0, ±90, 180) compare with ==.
    """
    front = abs(b) <= 90.0
    rear = abs(b) >= 90.0
    right = 0.0 <= b <= 180.0
    left = b <= 0.0 or b == 180.0
    out: set[str] = set()
    if front and right:
        out.add(SFD)
    if front and left:
        out.add(SFI)
    if rear and right:
        out.add(SPD)
    if rear and left:
        out.add(SPI)
    return frozenset(out)


def sections(origin: Hex, facing: int, target: Hex) -> frozenset[str]:
    """The sections of a ship at ``origin`` facing hexside ``facing`` that ``target`` lies in.

    A target in the ship's own hex lies in every section (the rules are silent; nothing can be nearer).
    """
    if origin == target:
        return ALL_SECTIONS
    return sections_of_bearing(bearing_from_side(origin, facing, target))


def coverage(weapon: Weapon, *, manned: bool) -> frozenset[str]:
    """EXO-1.4 sections a weapon covers: bow F, starboard D, port I, stern P, manned turret all (unmanned as bow)."""
    match weapon.mount:
        case Mount.BOW:
            return BOW
        case Mount.STERN:
            return STERN
        case Mount.TURRET:
            return ALL_SECTIONS if manned else BOW
        case Mount.BROADSIDE:
            if weapon.side == STARBOARD:
                return STARBOARD_SECTIONS
            if weapon.side == PORT:
                return PORT_SECTIONS
            return frozenset()


def bears(weapon: Weapon, origin: Hex, facing: int, target: Hex, *, manned: bool) -> bool:
    return bool(coverage(weapon, manned=manned) & sections(origin, facing, target))
