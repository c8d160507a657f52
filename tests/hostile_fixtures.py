"""Hostile scenario files for property tests: a bundled scenario of every registered ruleset and layer, changed
in one to three places the way a careless or malicious author would (off-board hexes, negative and huge numbers,
wrong types, empty lists, unicode, duplicate ids), written back as TOML with its tables where a person puts them,
so the problems the loader finds still have lines."""

from __future__ import annotations

import json
import math
import tomllib
from typing import Any

from hypothesis import strategies as st

from data import SCENARIO_DIR
from rules.registry import layer_ids, plugin, public_ruleset_ids


def combinations() -> list[tuple[str, tuple[str, ...]]]:
    """Every registered ruleset alone and under every layer that applies to it (from the registry)."""
    found: list[tuple[str, tuple[str, ...]]] = []
    for rid in public_ruleset_ids():
        found.append((rid, ()))
        found.extend((rid, (lid,)) for lid in layer_ids() if rid in plugin(lid).applies_to)
    return found


def base_scenario(rid: str, layers: tuple[str, ...]) -> dict[str, Any]:
    """A bundled scenario of ``rid`` played under ``layers``: one that names them if there is one, else the
    first of the ruleset with the layers added (a layer's keys are all optional)."""
    plain: dict[str, Any] | None = None
    for path in sorted(SCENARIO_DIR.glob("*.toml")):
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
        if raw.get("ruleset") != rid:
            continue
        if tuple(raw.get("layers", ())) == layers:
            return raw
        if plain is None and not raw.get("layers"):
            plain = raw
    assert plain is not None, f"no bundled scenario plays {rid}"
    return {**plain, "layers": list(layers)}


HEX_WORDS = [
    "-101",
    "0000",
    "9999",
    "0a0a",
    "",
    "0101",
    "99,99",
    "-1,-1",
    "1e9",
    "\u202e0505",
    "٠٥٠٥",
    "05 05",
]
SCALARS = st.one_of(
    st.sampled_from(
        ["0304", "0505", "0606", "0702", "1004", "N", "S", 1, 2, 3, 6, "alpha", "charlie", "fire"]
    ),
    st.sampled_from(HEX_WORDS),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.sampled_from([-1, 0, 1, 2, 99, 100, 2**63, -(2**63), 10**6]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.booleans(),
    st.text(max_size=6),
    st.sampled_from(["N", "SE", "NE-SE", "walk", "move 0304", "shoot lana", "[x](https://example.com)"]),
)
VALUES = st.one_of(
    SCALARS,
    st.lists(SCALARS, max_size=3),
    st.dictionaries(st.text(max_size=4), SCALARS, max_size=2),
)


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out: list[tuple[Any, ...]] = []
    if isinstance(value, dict):
        for k, v in value.items():
            out.append((*prefix, k))
            out.extend(_paths(v, (*prefix, k)))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out.append((*prefix, i))
            out.extend(_paths(v, (*prefix, i)))
    return out


def _parent(doc: Any, path: tuple[Any, ...]) -> Any:
    for step in path[:-1]:
        doc = doc[step]
    return doc


def _words(doc: Any) -> list[str]:
    """Every text in the file (ids, hexes, keywords): another key's value is a plausible wrong one."""
    if isinstance(doc, str):
        return [doc]
    values = doc.values() if isinstance(doc, dict) else doc if isinstance(doc, list) else []
    return sorted({w for v in values for w in _words(v)})


def _near(value: Any, words: list[str]) -> st.SearchStrategy[Any]:
    if isinstance(value, bool):
        return st.booleans()
    if isinstance(value, int):
        return st.integers(min_value=-3, max_value=150)
    if isinstance(value, str) and len(value) == 4 and value.isdigit():
        return st.from_regex(r"\A[0-9]{4}\Z")  # on the board or not
    if isinstance(value, str):
        return st.sampled_from(words or [value])
    if isinstance(value, list):
        return st.lists(st.sampled_from(words or ["x"]), max_size=3)
    return VALUES


@st.composite
def hostile(draw: st.DrawFn, raw: dict[str, Any]) -> dict[str, Any]:
    """``raw`` changed in one to three places."""
    doc: dict[str, Any] = json.loads(json.dumps(raw))
    for _ in range(draw(st.integers(1, 3))):
        paths = _paths(doc)
        if not paths:
            break
        path = draw(st.sampled_from(paths))
        parent = _parent(doc, path)
        key = path[-1]
        op = draw(
            st.sampled_from(["nudge", "nudge", "replace", "replace", "delete", "duplicate", "empty", "add"])
        )
        target = parent[key]
        if op == "nudge":  # a value of the kind the key takes, but wrong: the file still loads, sim plays it
            parent[key] = draw(_near(target, _words(doc)))
        elif op == "replace":
            parent[key] = draw(VALUES)
        elif op == "delete":
            del parent[key]
        elif op == "duplicate" and isinstance(parent, list):
            parent.append(json.loads(json.dumps(target)))  # the same id twice
        elif op == "empty" and isinstance(target, list | dict):
            target.clear()
        elif op == "add" and isinstance(target, dict):
            target[draw(st.text(max_size=6))] = draw(VALUES)
        else:
            parent[key] = draw(VALUES)
    return doc


# --- a small TOML writer (the standard library reads TOML but does not write it) ------------------------------


def _key(key: str) -> str:
    return json.dumps(key, ensure_ascii=False)


def _string(text: str) -> str:
    out: list[str] = []
    for ch in text:
        code = ord(ch)
        if ch in '"\\':
            out.append("\\" + ch)
        elif code < 0x20 or code == 0x7F or 0xD800 <= code <= 0xDFFF:
            out.append(f"\\u{code:04x}" if code < 0xD800 else "?")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, list):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{_key(k)} = {_value(v)}" for k, v in value.items()) + " }"
    raise TypeError(value)


def to_toml(doc: dict[str, Any]) -> str:
    """Scalars first, then ``[table]`` sections, then ``[[array]]`` tables: the layout a person writes."""
    lines: list[str] = []
    tables: list[tuple[str, dict[str, Any]]] = []
    arrays: list[tuple[str, list[dict[str, Any]]]] = []
    for key, value in doc.items():
        if isinstance(value, dict) and value:
            tables.append((key, value))
        elif isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
            arrays.append((key, value))
        else:
            lines.append(f"{_key(key)} = {_value(value)}")
    for key, table in tables:
        lines.append(f"\n[{_key(key)}]")
        lines.extend(f"{_key(k)} = {_value(v)}" for k, v in table.items())
    for key, entries in arrays:
        for entry in entries:
            lines.append(f"\n[[{_key(key)}]]")
            lines.extend(f"{_key(k)} = {_value(v)}" for k, v in entry.items())
    return "\n".join(lines) + "\n"
