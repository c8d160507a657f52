"""TOML table loader with validation.

Every [HOUSE] number of RULES.md lives in a table under ``data/`` so a director can replace it with the book's.
A table is checked against a small schema when loaded; a mistake names the file, the key path and the expected
type, so a hand-edited table never fails later in the middle of a game.

Schema language (plain Python values):
- a type (``int``, ``str``, ``bool``, ``float``) — the value must have that type (``float`` accepts ints);
- a tuple of types — any of them;
- a dict ``{key: schema}`` — a table with exactly those keys; a key ending in ``?`` is optional;
  the special key ``"*"`` gives the schema of every entry of a table with free keys;
- a one-element list ``[schema]`` — a list whose items all match.

Set ``HEXD_TABLES`` to a folder to override bundled tables file by file (same relative paths).
"""

from __future__ import annotations

import os
import tomllib
from functools import cache
from pathlib import Path
from typing import Any, cast

from data import DATA_DIR

Schema = Any


class TableError(ValueError):
    """A data table is missing or does not match its schema."""

    def __init__(self, file: str, problems: list[str]) -> None:
        self.file = file
        self.problems = problems
        super().__init__(f"{file}: " + "; ".join(problems))


def table_path(name: str) -> Path:
    rel = name if name.endswith(".toml") else f"{name}.toml"
    override = os.environ.get("HEXD_TABLES")
    if override:
        candidate = Path(override) / rel
        if candidate.is_file():
            return candidate
    return DATA_DIR / rel


@cache
def _read(path: Path) -> dict[str, Any]:
    with path.open("rb") as fh:
        return tomllib.load(fh)


def load_table(name: str, schema: Schema | None = None) -> dict[str, Any]:
    """Load ``data/<name>.toml`` (cached) and check it against ``schema``."""
    path = table_path(name)
    shown = str(path.relative_to(DATA_DIR.parent)) if path.is_relative_to(DATA_DIR.parent) else str(path)
    if not path.is_file():
        raise TableError(shown, ["file not found"])
    try:
        data = _read(path)
    except tomllib.TOMLDecodeError as exc:
        raise TableError(shown, [f"not valid TOML: {exc}"]) from None
    if schema is not None:
        problems: list[str] = []
        check(data, schema, "", problems)
        if problems:
            raise TableError(shown, problems)
    return data


def check(value: Any, schema: Schema, path: str, problems: list[str]) -> None:
    """Append to ``problems`` every place where ``value`` does not match ``schema``."""
    where = path or "(top)"
    if isinstance(schema, dict):
        spec = cast(dict[str, Any], schema)
        if not isinstance(value, dict):
            problems.append(f"{where}: expected a table, got {_kind(value)}")
            return
        table = cast(dict[str, Any], value)
        if "*" in spec:
            for key, item in table.items():
                check(item, spec["*"], _join(path, key), problems)
            return
        for key, sub in spec.items():
            optional = key.endswith("?")
            name = key.rstrip("?")
            if name not in table:
                if not optional:
                    problems.append(f"{_join(path, name)}: missing (expected {_expected(sub)})")
                continue
            check(table[name], sub, _join(path, name), problems)
        known = {k.rstrip("?") for k in spec}
        for key in table:
            if key not in known:
                problems.append(f"{_join(path, key)}: unknown key")
        return
    if isinstance(schema, list):
        item_schema = cast(list[Any], schema)[0]
        if not isinstance(value, list):
            problems.append(f"{where}: expected a list, got {_kind(value)}")
            return
        for i, item in enumerate(cast(list[Any], value)):
            check(item, item_schema, f"{path}[{i}]", problems)
        return
    kinds: tuple[type, ...] = schema if isinstance(schema, tuple) else (schema,)
    if float in kinds:
        kinds = (*kinds, int)
    if (isinstance(value, bool) and bool not in kinds) or not isinstance(value, kinds):
        problems.append(f"{where}: expected {_expected(schema)}, got {_kind(value)}")


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _expected(schema: Schema) -> str:
    if isinstance(schema, dict):
        return "a table"
    if isinstance(schema, list):
        return "a list"
    kinds: tuple[type, ...] = schema if isinstance(schema, tuple) else (schema,)
    names = {int: "an integer", str: "text", bool: "true/false", float: "a number"}
    return " or ".join(names.get(k, k.__name__) for k in kinds)


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "true/false"
    return {int: "an integer", str: "text", float: "a number", list: "a list", dict: "a table"}.get(
        type(value), type(value).__name__
    )
