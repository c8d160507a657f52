"""Errors a player or director can act on.

Parsing is separate from legality (python-chess style): ``InvalidOrderError`` is bad syntax,
``IllegalOrderError`` is a well-formed order the rules forbid. Both are ``GameError`` and so ``ValueError``.
Each carries a stable ``code`` and ``params`` so the bot can show it in the player's language; ``str(err)`` is
the English text.
"""

from __future__ import annotations

from collections.abc import Mapping


class GameError(ValueError):
    """A problem caused by input, with a message that says what to do."""

    code: str
    rule: str | None
    params: Mapping[str, object]

    def __init__(
        self,
        message: str,
        *,
        code: str = "",
        rule: str | None = None,
        params: Mapping[str, object] | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.code = code or type(self).__name__
        self.rule = rule
        self.params = dict(params or {})

    def __str__(self) -> str:
        return (
            f"{self.message} ({self.rule})" if self.rule and self.rule not in self.message else self.message
        )


class InvalidOrderError(GameError):
    """The order cannot be read (syntax, unknown names)."""


class IllegalOrderError(GameError):
    """The order is well formed but the rules forbid it now."""


class ScenarioError(GameError):
    """A scenario file has problems; ``problems`` lists every one of them."""

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = problems
        lines = "\n".join(p.text() for p in problems)
        super().__init__(f"{len(problems)} problem(s) in the scenario:\n{lines}", code="scenario.invalid")


class Problem:
    """One problem in a scenario file: where (TOML key path, line if known) and what."""

    __slots__ = ("line", "message", "path")

    def __init__(self, path: str, message: str, line: int | None = None) -> None:
        self.path = path
        self.message = message
        self.line = line

    def text(self) -> str:
        where = f"line {self.line}: " if self.line else ""
        return f"{where}{self.path or '(file)'}: {self.message}"

    def __repr__(self) -> str:
        return f"Problem({self.text()!r})"
