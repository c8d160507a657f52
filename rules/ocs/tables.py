"""The [HOUSE] tables of the ocs ruleset (``data/ocs/crt.toml``): terrain columns, surprise thresholds, the CRT.

Code never holds a column, a threshold or a result: a group types its own game's tables into the file (same
layout) and the rules follow them. The file is checked once when first used; a mistake names the key.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from itertools import pairwise
from typing import Any

from data.loader import TableError, load_table
from rules.ocs.model import KINDS, CrtResult

TABLE = "ocs/crt"
ROLL_MIN, ROLL_MAX = 1, 15  # OCS-6: the modified combat roll is clamped to 1..15

_SCHEMA: dict[str, Any] = {
    "columns": {"*": [str]},
    "terrain": {"default": str},
    "surprise": {kind: {"attacker": int, "defender": int} for kind in KINDS},
    "results": {"*": [str]},
}
_ODDS = re.compile(r"^\s*(\d+)\s*:\s*(\d+)\s*$")
_TOKENS = re.compile(r"AL\d+|DL\d+|o\d+|e|-")


@dataclass(frozen=True, slots=True, order=True)
class Odds:
    """Odds written attacker first (OCS-3): ``3:1`` or ``1:2``; ordered by attacker ÷ defender."""

    value: Fraction
    attacker: int
    defender: int

    @classmethod
    def of(cls, attacker: int, defender: int) -> Odds:
        return cls(Fraction(attacker, defender), attacker, defender)

    @classmethod
    def parse(cls, text: str) -> Odds:
        m = _ODDS.match(text)
        if not m or int(m.group(1)) < 1 or int(m.group(2)) < 1:
            raise ValueError(f"odds look like '3:1' or '1:2', got {text!r}")
        return cls.of(int(m.group(1)), int(m.group(2)))

    @property
    def text(self) -> str:
        return f"{self.attacker}:{self.defender}"


@dataclass(frozen=True, slots=True)
class Thresholds:
    """OCS-5: attacker surprise at ``modified >= attacker``, defender surprise at ``modified <= defender``."""

    attacker: int
    defender: int


@dataclass(frozen=True, slots=True)
class OcsTables:
    columns: dict[str, tuple[Odds, ...]]  # OCS-4: the odds over each column, by terrain class
    default_terrain: str
    surprise: dict[str, Thresholds]  # OCS-5, by attack type
    results: dict[int, tuple[CrtResult, ...]]  # OCS-6: modified roll → one result per column

    @property
    def width(self) -> int:
        """How many columns the CRT has."""
        return len(next(iter(self.results.values())))

    @property
    def terrain_classes(self) -> tuple[str, ...]:
        return tuple(self.columns)

    def result(self, roll: int, column: int) -> CrtResult:
        """The CRT cell for a clamped roll (1..15) and a 1-based column."""
        return self.results[roll][column - 1]


def parse_result(text: str) -> CrtResult:
    """One CRT cell in the file's notation: ``AL1 DL2o2 e``, ``DL1o1``, ``-``; ``ValueError`` otherwise."""
    compact = "".join(text.split())
    tokens: list[str] = _TOKENS.findall(compact)
    if not compact or "".join(tokens) != compact:
        raise ValueError(f"{text!r} is not made of AL<n>, DL<n>, o<n>, e and - (no effect)")
    kinds = [t.rstrip("0123456789") for t in tokens]
    if len(set(kinds)) != len(kinds) or ("-" in kinds and len(kinds) > 1):
        raise ValueError(f"{text!r}: each result once, and '-' alone")
    numbers = {k: int(t[len(k) :]) for k, t in zip(kinds, tokens, strict=True) if k in ("AL", "DL", "o")}
    return CrtResult(
        text=" ".join(text.split()),
        attacker_loss=numbers.get("AL", 0),
        defender_loss=numbers.get("DL", 0),
        option=numbers.get("o", 0),
        exploit="e" in kinds,
    )


@cache
def tables() -> OcsTables:
    """Load and check ``data/ocs/crt.toml`` (raises ``TableError`` naming the file and key)."""
    raw = load_table(TABLE, _SCHEMA)
    problems: list[str] = []
    results: dict[int, tuple[CrtResult, ...]] = {}
    width = 0
    for roll in range(ROLL_MIN, ROLL_MAX + 1):
        row = raw["results"].get(str(roll))
        if row is None:
            problems.append(f"results.{roll}: missing (one row per modified roll {ROLL_MIN}..{ROLL_MAX})")
            continue
        width = width or len(row)
        if len(row) != width or not row:
            problems.append(f"results.{roll}: {len(row)} cells, the first row has {width}")
        cells: list[CrtResult] = []
        for i, cell in enumerate(row):
            try:
                cells.append(parse_result(cell))
            except ValueError as exc:
                problems.append(f"results.{roll}[{i}]: {exc}")
        results[roll] = tuple(cells)
    extra = sorted(set(raw["results"]) - {str(r) for r in range(ROLL_MIN, ROLL_MAX + 1)})
    problems.extend(f"results.{key}: unknown row (rows are {ROLL_MIN}..{ROLL_MAX})" for key in extra)
    columns: dict[str, tuple[Odds, ...]] = {}
    for terrain, heads in raw["columns"].items():
        try:
            odds = tuple(Odds.parse(h) for h in heads)
        except ValueError as exc:
            problems.append(f"columns.{terrain}: {exc}")
            continue
        if len(odds) != width:
            problems.append(f"columns.{terrain}: {len(odds)} columns, the results have {width}")
        if any(a >= b for a, b in pairwise(odds)):
            problems.append(f"columns.{terrain}: the odds must grow from left to right")
        columns[terrain] = odds
    default = raw["terrain"]["default"]
    if default not in raw["columns"]:
        problems.append(f"terrain.default: {default!r} is not one of the [columns] classes")
    surprise = {k: Thresholds(v["attacker"], v["defender"]) for k, v in raw["surprise"].items()}
    for kind, th in surprise.items():
        if th.defender >= th.attacker:
            problems.append(f"surprise.{kind}: the defender threshold must be below the attacker's")
    if problems:
        raise TableError("data/ocs/crt.toml", problems)
    return OcsTables(columns=columns, default_terrain=default, surprise=surprise, results=results)
