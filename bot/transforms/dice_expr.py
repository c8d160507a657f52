"""``/roll`` expressions: plain dice (``3d6+2``, ``d10``, ``4d6k3``), the Sombra roll (``sombra 17 +3``,
DICE-2) and the 2d6 check (``2d6+5 vs 15``, DICE-3).

Parsing is separate from rolling: :func:`parse_roll` turns text into a small expression object (or raises
``InvalidOrderError`` with code ``roll.syntax``), and ``roll_expression`` rolls it with the dice it is given, so a
test can pass scripted dice and the bot a fresh seeded ``Dice``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from rules.dice import Dice, Roll
from rules.errors import InvalidOrderError

MAX_DICE = 100
MAX_SIDES = 1000
MAX_TERMS = 10
#: longer lists of dice are summarized per term, so the total (shown first) and the rest fit one message
DICE_TEXT_MAX = 1200

# re.ASCII: only 0-9 are digits (``\d`` would read Arabic-Indic or full-width digits, which int() then accepts)
_TERM = re.compile(r"([+-]?)\s*(?:(\d*)d(\d+)(?:k([hl]?)(\d+))?|(\d+))", re.IGNORECASE | re.ASCII)
_SOMBRA = re.compile(r"^\s*sombra\s+(\d{1,3})\s*(?:([+-])\s*(\d{1,3}))?\s*$", re.IGNORECASE | re.ASCII)
_CHECK = re.compile(r"^\s*2d6\s*(?:([+-])\s*(\d{1,3}))?\s*vs\.?\s*(\d{1,3})\s*$", re.IGNORECASE | re.ASCII)


@dataclass(frozen=True, slots=True)
class DiceTerm:
    sign: int
    count: int
    sides: int
    keep: int | None = None  # keep the highest (or lowest) ``keep`` dice
    keep_low: bool = False


@dataclass(frozen=True, slots=True)
class SumExpr:
    terms: tuple[DiceTerm, ...]
    constant: int
    text: str


@dataclass(frozen=True, slots=True)
class SombraExpr:
    skill: int
    modifier: int


@dataclass(frozen=True, slots=True)
class CheckExpr:
    modifier: int
    difficulty: int


Expr = SumExpr | SombraExpr | CheckExpr


@dataclass(frozen=True, slots=True)
class RollOutcome:
    """What to show: a translation key plus its parameters (the cog localizes it)."""

    key: str
    params: dict[str, Any]


def _syntax(text: str) -> InvalidOrderError:
    return InvalidOrderError(
        f"Cannot read the dice expression {text!r}. Try 3d6+2, sombra 17 or 2d6+5 vs 15.",
        code="roll.syntax",
        params={"expression": text[:50]},
    )


def parse_roll(text: str) -> Expr:
    raw = text.strip()
    if not raw or len(raw) > 100:
        raise _syntax(raw)
    m = _SOMBRA.match(raw)
    if m:
        mod = int(m.group(3) or 0) * (-1 if m.group(2) == "-" else 1)
        return SombraExpr(skill=int(m.group(1)), modifier=mod)
    m = _CHECK.match(raw)
    if m:
        mod = int(m.group(2) or 0) * (-1 if m.group(1) == "-" else 1)
        return CheckExpr(modifier=mod, difficulty=int(m.group(3)))
    return _parse_sum(raw)


def _parse_sum(raw: str) -> SumExpr:
    compact = raw.replace(" ", "")
    pos = 0
    terms: list[DiceTerm] = []
    constant = 0
    while pos < len(compact):
        m = _TERM.match(compact, pos)
        if not m or m.end() == pos or (pos > 0 and not m.group(1)):
            raise _syntax(raw)
        sign = -1 if m.group(1) == "-" else 1
        if m.group(6) is not None:
            constant += sign * int(m.group(6))
        elif pos == 0 and sign < 0:
            # DICE-1: a negative count of dice (``-1d6``) is no roll; ``2d6-1d4`` subtracts one from another
            raise _syntax(raw)
        else:
            count = int(m.group(2) or 1)
            sides = int(m.group(3))
            keep = int(m.group(5)) if m.group(5) else None
            if (
                not 1 <= count <= MAX_DICE
                or not 2 <= sides <= MAX_SIDES
                or (keep is not None and not 1 <= keep <= count)
            ):
                raise _syntax(raw)
            terms.append(DiceTerm(sign, count, sides, keep, (m.group(4) or "h").lower() == "l"))
        pos = m.end()
    if not terms or len(terms) > MAX_TERMS:
        raise _syntax(raw)
    return SumExpr(tuple(terms), constant, compact)


def _arithmetic(roll: Roll, modifier: int, total: int) -> dict[str, Any]:
    """``dice_text`` ``3d10 2+6+4 = 12`` and ``mods_text`` ``, +2 = 14`` (or ""): checkable with a pencil."""
    faces = "+".join(str(d) for d in roll.dice)
    return {
        "dice_text": f"{len(roll.dice)}d{roll.sides} {faces} = {sum(roll.dice)}",
        "mods_text": f", {modifier:+d} = {total}" if modifier else "",
    }


def roll_expression(expr: Expr, dice: Dice) -> RollOutcome:
    if isinstance(expr, SombraExpr):
        r = dice.sombra(expr.skill, expr.modifier, rule="DICE-2", purpose="/roll sombra")
        return RollOutcome(
            "roll.sombra",
            {
                "de": r.de,
                "high": r.high,
                "low": r.low,
                "modifier": f"{expr.modifier:+d}",
                "total": r.total,
                "skill": expr.skill,
                "quality": r.quality.name.lower(),
                **_arithmetic(r.roll, expr.modifier, r.total),
            },
        )
    if isinstance(expr, CheckExpr):
        roll = dice.roll(2, 6, rule="DICE-3", purpose="/roll 2d6 check")
        a, b = roll.dice
        total = a + b + expr.modifier
        # DICE-3: double 1 always fails, double 6 is a critical success.
        if a == b == 1:
            verdict = "fumble"
        elif a == b == 6:
            verdict = "critical"
        else:
            verdict = "success" if total >= expr.difficulty else "failure"
        return RollOutcome(
            "roll.check",
            {
                **_arithmetic(roll, expr.modifier, total),
                "modifier": f"{expr.modifier:+d}",
                "total": total,
                "difficulty": expr.difficulty,
                "quality": verdict,
            },
        )
    parts: list[str] = []
    summaries: list[str] = []
    total = expr.constant
    for term in expr.terms:
        roll = dice.roll(term.count, term.sides, rule="DICE-1", purpose="/roll")
        values = list(roll.dice)
        kept = values
        if term.keep is not None:
            kept = sorted(values, reverse=not term.keep_low)[: term.keep]
        total += term.sign * sum(kept)
        sign = "-" if term.sign < 0 else ""
        parts.append(f"{sign}[{', '.join(str(v) for v in values)}]")
        summaries.append(f"{sign}[{term.count}d{term.sides}: Σ{sum(kept)}]")
    dice_text = " ".join(parts)
    if len(dice_text) > DICE_TEXT_MAX:  # a thousand dice do not fit a message: each term's sum instead
        dice_text = " ".join(summaries)
    return RollOutcome("roll.sum", {"expression": expr.text, "dice_text": dice_text, "total": total})
