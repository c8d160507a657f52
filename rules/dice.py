"""Dice as data (DICE-1..3): one seeded generator per phase, scripted dice first, director overrides.

Every die roll becomes a :class:`Roll` in :attr:`Dice.rolls` (the engine turns each into a ``RollMade`` event).
Random draws (:meth:`Dice.shuffle`, :meth:`Dice.choice`) use the same seeded generator but never the script
and are not die rolls.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import IntEnum
from typing import Literal, TypeVar

from rules.errors import GameError

T = TypeVar("T")

RollSource = Literal["script", "seeded", "override"]


@dataclass(frozen=True, slots=True)
class Roll:
    """One physical roll (DICE-1)."""

    index: int  # 0-based position in this Dice's sequence of rolls
    sides: int
    dice: tuple[int, ...]
    purpose: str  # "EXO-3.4 hit roll, Halcón L1 → Pirata"
    rule: str  # "EXO-3.4"
    source: RollSource

    @property
    def total(self) -> int:
        return sum(self.dice)


class Quality(IntEnum):
    """Sombra roll quality; int order is the DICE-2 order (fumble worst, critical best)."""

    FUMBLE = 0
    FAILURE = 1
    LOW_FAILURE = 2
    LOW_SUCCESS = 3
    SUCCESS = 4
    CRITICAL = 5

    @property
    def success(self) -> bool:
        return self >= Quality.LOW_SUCCESS


@dataclass(frozen=True, slots=True)
class SombraRoll:
    """A 3d10 Sombra roll (DICE-2): ``dE`` first, then the two damage dice."""

    roll: Roll
    skill: int
    modifier: int = 0

    @property
    def de(self) -> int:
        return self.roll.dice[0]

    @property
    def high(self) -> int:
        """``d+``: the higher damage die."""
        return max(self.roll.dice[1], self.roll.dice[2])

    @property
    def low(self) -> int:
        """``d-``: the lower damage die."""
        return min(self.roll.dice[1], self.roll.dice[2])

    @property
    def damage(self) -> int:
        return self.high + self.low

    @property
    def total(self) -> int:
        # Modifiers add to the total, so a positive modifier makes success harder (DICE-2).
        return self.de + self.high + self.low + self.modifier

    @property
    def success(self) -> bool:
        return self.total <= self.skill

    @property
    def quality(self) -> Quality:
        if self.de == self.high == self.low:
            return Quality.CRITICAL if self.success else Quality.FUMBLE
        if self.damage <= 4:
            return Quality.LOW_SUCCESS if self.success else Quality.LOW_FAILURE
        return Quality.SUCCESS if self.success else Quality.FAILURE

    @property
    def text(self) -> str:
        """The book's way to write a roll: ``"2, 6, 4"`` (dE, d+, d-)."""
        return f"{self.de}, {self.high}, {self.low}"


class Difficulty(IntEnum):
    """2d6 character-roll difficulties (DICE-3)."""

    ROUTINE = 10
    AVERAGE = 15
    COMPLICATED = 20
    VERY_HARD = 25
    NEARLY_IMPOSSIBLE = 30


# A skill at level 0 raises the difficulty one grade (DICE-3).
GRADE_STEP = 5


@dataclass(frozen=True, slots=True)
class Check2d6:
    """A 2d6 roll against a number (DICE-3).

    ``naturals`` is False for plain avoid rolls ("avoid on 8+"), where double 1 and double 6 are just 2 and 12.
    """

    roll: Roll
    bonus: int
    difficulty: int  # effective difficulty, after the skill-0 bump
    naturals: bool = True

    @property
    def total(self) -> int:
        return self.roll.total + self.bonus

    @property
    def fumble(self) -> bool:
        """Double 1: always a failure (DICE-3)."""
        return self.naturals and self.roll.dice == (1, 1)

    @property
    def critical(self) -> bool:
        """Double 6: always a success, and critical (DICE-3)."""
        return self.naturals and self.roll.dice == (6, 6)

    @property
    def success(self) -> bool:
        if self.fumble:
            return False
        return self.critical or self.total >= self.difficulty


@dataclass(frozen=True, slots=True)
class Opposed2d6:
    """Two 2d6 rolls, higher total wins (DICE-3); ``winner`` is None on a tie."""

    roll_a: Roll
    roll_b: Roll
    bonus_a: int
    bonus_b: int

    @property
    def total_a(self) -> int:
        return self.roll_a.total + self.bonus_a

    @property
    def total_b(self) -> int:
        return self.roll_b.total + self.bonus_b

    @property
    def winner(self) -> Literal["a", "b"] | None:
        if self.total_a == self.total_b:
            return None
        return "a" if self.total_a > self.total_b else "b"


def _is_die(value: object, sides: int) -> bool:
    """A die face: a real int (not a bool, not a float from a data file) in 1..sides."""
    return isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= sides


RollHook = Callable[[Roll], Sequence[int] | None]


class Dice:
    """The dice of one phase (DICE-1).

    Scripted dice are consumed first, one value per die; then ``random.Random(seed)`` takes over. The script
    never advances the generator, so seeded rolls after the script are the generator's first values.
    ``overrides[index]`` (and then ``hook``) may replace roll ``index`` after its dice were drawn, so later
    rolls are unchanged.
    """

    def __init__(
        self,
        seed: int | str,
        script: Sequence[int] = (),
        *,
        overrides: Mapping[int, Sequence[int]] | None = None,
        hook: RollHook | None = None,
    ) -> None:
        self.seed = seed
        self._rng = random.Random(seed)
        self._script = tuple(script)
        self._next_scripted = 0
        self._overrides = dict(overrides or {})
        self._hook = hook
        self.rolls: list[Roll] = []

    @property
    def script_left(self) -> tuple[int, ...]:
        """Scripted dice not consumed yet."""
        return self._script[self._next_scripted :]

    def roll(self, count: int, sides: int, *, rule: str, purpose: str) -> Roll:
        """Roll ``count`` dice of ``sides`` faces, record it and return it (after any override)."""
        if count < 1 or sides < 2:
            raise ValueError(f"cannot roll {count}d{sides} for {rule} {purpose!r}")
        index = len(self.rolls)
        drawn: list[int] = []
        scripted = 0
        for _ in range(count):
            if self._next_scripted < len(self._script):
                value = self._script[self._next_scripted]
                if not _is_die(value, sides):
                    # the scenario's fault, not the engine's: its dice list has a face this roll's die lacks
                    raise GameError(
                        f"scripted die #{self._next_scripted + 1} is {value!r}, outside 1..{sides} of this roll "
                        f"({count}d{sides}, {purpose}): fix the scenario's dice list",
                        code="dice.script_face",
                        rule=rule,
                        params={"n": self._next_scripted + 1, "value": value, "sides": sides},
                    )
                self._next_scripted += 1
                scripted += 1
                drawn.append(value)
            else:
                drawn.append(self._rng.randint(1, sides))
        # A roll that took any scripted die counts as scripted: the scenario chose (part of) it.
        source: RollSource = "script" if scripted else "seeded"
        result = Roll(index, sides, tuple(drawn), purpose, rule, source)
        if index in self._overrides:
            result = self._replace(result, self._overrides[index], "override")
        if self._hook is not None:
            replacement = self._hook(result)
            if replacement is not None:
                result = self._replace(result, replacement, "hook")
        self.rolls.append(result)
        return result

    @staticmethod
    def _replace(original: Roll, dice: Sequence[int], by: str) -> Roll:
        values = tuple(dice)
        where = f"{by} for roll {original.index} ({original.rule} {original.purpose!r})"
        if len(values) != len(original.dice):
            raise ValueError(f"{where} has {len(values)} dice, the roll has {len(original.dice)}")
        for value in values:
            if not _is_die(value, original.sides):
                raise ValueError(f"{where}: die {value!r} is outside 1..{original.sides}")
        return Roll(original.index, original.sides, values, original.purpose, original.rule, "override")

    def d6(self, *, rule: str, purpose: str) -> Roll:
        return self.roll(1, 6, rule=rule, purpose=purpose)

    def d10(self, *, rule: str, purpose: str) -> Roll:
        return self.roll(1, 10, rule=rule, purpose=purpose)

    def two_d6(self, *, rule: str, purpose: str) -> Roll:
        return self.roll(2, 6, rule=rule, purpose=purpose)

    def sombra(self, skill: int, modifier: int = 0, *, rule: str, purpose: str) -> SombraRoll:
        """3d10 Sombra roll (DICE-2): dE is the first die, then the two damage dice."""
        return SombraRoll(self.roll(3, 10, rule=rule, purpose=purpose), skill, modifier)

    def check_2d6(
        self, bonus: int, difficulty: int, *, skill_level: int | None = None, rule: str, purpose: str
    ) -> Check2d6:
        """2d6 + bonus >= difficulty; skill level 0 raises the difficulty one grade (DICE-3)."""
        effective = difficulty + GRADE_STEP if skill_level == 0 else difficulty
        return Check2d6(self.two_d6(rule=rule, purpose=purpose), bonus, effective)

    def avoid(self, target: int, *, rule: str, purpose: str) -> Check2d6:
        """ "Avoid on N+": plain 2d6 >= N, no automatic results (DICE-3)."""
        return Check2d6(self.two_d6(rule=rule, purpose=purpose), 0, target, naturals=False)

    def opposed_2d6(self, bonus_a: int, bonus_b: int, *, rule: str, purpose: str) -> Opposed2d6:
        """Side a rolls first, then side b; higher total wins (DICE-3)."""
        roll_a = self.two_d6(rule=rule, purpose=f"{purpose} (a)")
        roll_b = self.two_d6(rule=rule, purpose=f"{purpose} (b)")
        return Opposed2d6(roll_a, roll_b, bonus_a, bonus_b)

    def shuffle(self, items: Sequence[T]) -> list[T]:
        """A shuffled copy, from the seeded generator (never the script, never a recorded roll)."""
        out = list(items)
        self._rng.shuffle(out)
        return out

    def choice(self, items: Sequence[T]) -> T:
        """One item picked by the seeded generator (never the script, never a recorded roll)."""
        if not items:
            raise ValueError("cannot choose from an empty sequence")
        return self._rng.choice(items)


def phase_seed(seed: int | str, round_no: int, phase: str) -> str:
    """A deterministic, unambiguous seed string for one phase of one round (DICE-1)."""
    return json.dumps([seed, round_no, phase], ensure_ascii=False, separators=(",", ":"))
