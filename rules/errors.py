"""Errors a player or director can act on.

Parsing is separate from legality (python-chess style): ``InvalidOrderError`` is bad syntax,
``IllegalOrderError`` is a well-formed order the rules forbid. Both are ``GameError`` and so ``ValueError``.
Each carries a stable ``code`` and ``params`` so the bot can show it in the player's language; ``str(err)`` is
the English text.

A scenario file's problems are data, never sentences: ``Problem(path, key, params)`` and ``Phrase(key, params)``
name catalog keys (``problem.*``); ``data/i18n.py`` ``problem_text`` writes them in the reader's language.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping


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
    """A scenario file has problems; ``problems`` lists every one of them.

    ``str(err)`` names each problem by its path and catalog key (rules/ writes no sentences); the words are the
    catalogs' (``data/i18n.py`` ``problem_text``), in the reader's language."""

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = problems
        lines = "\n".join(p.text() for p in problems)
        super().__init__(f"{len(problems)} problem(s) in the scenario:\n{lines}", code="scenario.invalid")


class Phrase:
    """Words not yet written: a catalog ``key`` and its ``params`` (which may be phrases themselves), turned into
    text in the reader's language outside rules/ (``data/i18n.py`` ``phrase_text``).

    ``rule`` is cited after the text unless the text names it; ``fallback`` is the English text of a
    ``GameError`` whose code has no catalog entry (shown rather than a bare key)."""

    __slots__ = ("fallback", "key", "params", "rule")

    def __init__(
        self,
        key: str,
        params: Mapping[str, object] | None = None,
        *,
        rule: str | None = None,
        fallback: str = "",
    ) -> None:
        self.key = key
        self.params: dict[str, object] = dict(params or {})
        self.rule = rule
        self.fallback = fallback

    @classmethod
    def of(cls, key: str, /, **params: object) -> Phrase:
        return cls(key, params)

    @classmethod
    def of_error(cls, error: GameError) -> Phrase:
        """A ``GameError`` as the bot shows it: ``errors.<code>`` with its params and rule."""
        return cls(f"errors.{error.code}", error.params, rule=error.rule, fallback=error.message)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Phrase) and (self.key, self.params, self.rule) == (
            other.key,
            other.params,
            other.rule,
        )

    def __hash__(self) -> int:
        return hash(self.key)

    def __repr__(self) -> str:
        return f"Phrase({self.key!r}, {self.params!r})"


def did_you_mean(wrong: str, known: Iterable[str]) -> Phrase | str:
    """`` (did you mean 'x'?)`` for the closest of ``known``, or "" when none is close."""
    import difflib

    close = difflib.get_close_matches(wrong, sorted(known), n=1, cutoff=0.6)
    return Phrase.of("problem.did_you_mean", name=close[0]) if close else ""


def shown(value: object) -> str:
    """A value as the file wrote it, quoted when it is text (``'SX'``), for a problem's params."""
    return repr(value) if isinstance(value, str) else str(value)


def describe(value: object) -> Phrase:
    """What a file gave where something else was expected: "text 'x'", "the number 5", "a list"…"""
    if isinstance(value, bool):
        return Phrase.of("problem.got.bool", value=str(value).lower())
    if isinstance(value, str):
        return Phrase.of("problem.got.str", value=repr(value))
    if isinstance(value, int | float):
        return Phrase.of("problem.got.number", value=value)
    if isinstance(value, list):
        return Phrase.of("problem.got.list")
    if isinstance(value, dict):
        return Phrase.of("problem.got.dict")
    return Phrase.of("problem.got.other", value=type(value).__name__)


class Problem:
    """One problem in a scenario file: where (TOML key path, line if known) and what, as a catalog ``key`` with
    ``params`` (``Phrase`` values are translated first). ``data/i18n.py`` ``problem_text`` writes it in a
    language; ``key`` and ``params`` are stable for tools."""

    __slots__ = ("key", "line", "params", "path", "rule")

    def __init__(
        self,
        path: str,
        key: str,
        params: Mapping[str, object] | None = None,
        line: int | None = None,
        *,
        rule: str | None = None,
    ) -> None:
        self.path = path
        self.key = key
        self.params: dict[str, object] = dict(params or {})
        self.line = line
        self.rule = rule

    @classmethod
    def of_error(cls, path: str, error: GameError, line: int | None = None) -> Problem:
        """An order a ``[[rounds]]`` entry scripts, refused by the engine: the engine's own error text."""
        return cls(path, "problem.engine", {"reason": Phrase.of_error(error)}, line)

    def text(self) -> str:
        """Where and which catalog key (no words: see ``data/i18n.py`` ``problem_text``)."""
        where = f"line {self.line}: " if self.line else ""
        return f"{where}{self.path or '(file)'}: [{self.key}]"

    def __repr__(self) -> str:
        return f"Problem({self.path!r}, {self.key!r}, {self.params!r}, line={self.line})"
