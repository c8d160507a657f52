"""The arithmetic of an OCS combat (OCS-2..6), as pure functions of numbers and the tables.

Strengths are read as exact decimals (``9.5`` is 19/2, never a binary float), so the odds are "rounded only at
the end" (OCS-3) with no drift from adding tenths.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from fractions import Fraction

from rules.ocs.model import ATTACKER, DEFENDER
from rules.ocs.tables import ROLL_MAX, ROLL_MIN, OcsTables, Odds, Thresholds

HEDGEHOG_MAX = 4  # OCS-1: hedgehog levels 0-4
SURPRISE_HEDGEHOG = -1  # OCS-5: -1 to the surprise roll with any hedgehog, whatever its level


def exact(value: float) -> Fraction:
    """A strength as the decimal it was written as (``9.5`` → 19/2)."""
    return Fraction(repr(float(value)))


def total_strength(values: Iterable[float]) -> Fraction:
    """OCS-3: the sum of modified strengths, exactly."""
    return sum((exact(v) for v in values), Fraction(0))


def drm(attacker_ar: int, defender_ar: int) -> int:
    """OCS-2: attacker AR − defender AR (positive or negative)."""
    return attacker_ar - defender_ar


def round_half_up(x: Fraction) -> int:
    """OCS-3: to the nearest whole, .5 up."""
    return math.floor(x + Fraction(1, 2))


def ratio(attack: Fraction, defense: Fraction) -> Fraction:
    """OCS-3: the larger strength divided by the smaller (≥ 1); both must be positive."""
    if attack <= 0 or defense <= 0:
        raise ValueError("both sides need a positive strength to make a ratio (OCS-3)")
    return max(attack, defense) / min(attack, defense)


def odds(attack: Fraction, defense: Fraction) -> Odds:
    """OCS-3: the ratio rounded only now, written attacker first: 9.5 vs 3.5 → 3:1, 3 vs 7 → 1:2."""
    n = round_half_up(ratio(attack, defense))
    return Odds.of(n, 1) if attack >= defense else Odds.of(1, n)


def column(tables: OcsTables, terrain: str, combat_odds: Odds) -> int:
    """OCS-4: the 1-based CRT column for these odds in the terrain class's column set: the rightmost column
    whose printed odds do not exceed them (worse than the first column: the first) [HOUSE]."""
    heads = tables.columns[terrain]
    found = 1
    for i, head in enumerate(heads, start=1):
        if head.value <= combat_odds.value:
            found = i
    return found


def surprise_hedgehog(hedgehog: int) -> int:
    """OCS-5: −1 with any hedgehog in the defender hex, whatever its level."""
    return SURPRISE_HEDGEHOG if hedgehog > 0 else 0


def surprise_modified(roll: int, drm_value: int, hedgehog: int) -> int:
    """OCS-5: 2d6 + DRM, −1 if the defender hex has any hedgehog."""
    return roll + drm_value + surprise_hedgehog(hedgehog)


def surprise(modified: int, thresholds: Thresholds) -> str | None:
    """OCS-5: who surprises whom, if anyone."""
    if modified >= thresholds.attacker:
        return ATTACKER
    if modified <= thresholds.defender:
        return DEFENDER
    return None


def signed_shift(who: str | None, columns: int) -> int:
    """OCS-5: the shift as a signed number of columns, right (+) for the attacker, left (−) for the defender."""
    if who == ATTACKER:
        return columns
    if who == DEFENDER:
        return -columns
    return 0


def shifted(col: int, shift: int, width: int) -> int:
    """OCS-5: the column after the shift, clamped at the table's ends."""
    return min(width, max(1, col + shift))


def combat_modified(roll: int, drm_value: int, hedgehog: int) -> int:
    """OCS-6: 2d6 + DRM − the full hedgehog level (before clamping)."""
    return roll + drm_value - hedgehog


def clamp_roll(modified: int) -> int:
    """OCS-6: below 1 counts as 1, above 15 as 15."""
    return min(ROLL_MAX, max(ROLL_MIN, modified))
