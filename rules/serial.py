"""JSON round trip for engine data (snapshots, events, orders).

Tagged encoding keeps decoding generic: a dataclass becomes ``{"$t": "Name", ...fields}``, a ``Hex`` becomes
``{"$hex": "0507"}``, an enum ``{"$e": "Name", "v": value}``, a mapping with non-string keys
``{"$items": [[k, v], ...]}``; lists decode as tuples (state is immutable). Classes take part by registering
with :func:`serializable` (rulesets register their units, orders, events and state extensions).
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Mapping
from typing import Any, TypeVar, cast

from rules.hexgrid import Hex

T = TypeVar("T")

_CLASSES: dict[str, type[Any]] = {}


def serializable(cls: type[T]) -> type[T]:
    """Register a dataclass or enum so it survives ``to_json``/``from_json``."""
    name = cls.__name__
    existing = _CLASSES.get(name)
    if existing is not None and existing is not cls:
        raise TypeError(f"two serializable classes are named {name!r}")
    _CLASSES[name] = cls
    return cls


def registered(name: str) -> type[Any] | None:
    return _CLASSES.get(name)


def to_json(value: object) -> Any:
    """Encode engine data as JSON-compatible values (dict, list, str, int, float, bool, None)."""
    if value is None or isinstance(value, bool | int | float | str):
        if isinstance(value, enum.Enum):
            return _encode_enum(value)
        return value
    if isinstance(value, Hex):
        return {"$hex": value.label}
    if isinstance(value, enum.Enum):
        return _encode_enum(value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        out: dict[str, Any] = {"$t": type(value).__name__}
        for f in dataclasses.fields(value):
            out[f.name] = to_json(getattr(value, f.name))
        return out
    if isinstance(value, Mapping):
        items = cast(Mapping[object, object], value)
        if all(isinstance(k, str) and not k.startswith("$") for k in items):
            return {cast(str, k): to_json(v) for k, v in items.items()}
        return {"$items": [[to_json(k), to_json(v)] for k, v in items.items()]}
    if isinstance(value, tuple | list | frozenset | set):
        seq = cast("tuple[object, ...] | list[object] | frozenset[object] | set[object]", value)
        if isinstance(seq, frozenset | set):
            return {"$set": sorted((to_json(v) for v in seq), key=repr)}
        return [to_json(v) for v in seq]
    raise TypeError(f"cannot encode {type(value).__name__} as JSON")


def _encode_enum(value: enum.Enum) -> dict[str, Any]:
    return {"$e": type(value).__name__, "v": value.value}


def from_json(data: Any) -> Any:
    """Decode what :func:`to_json` produced."""
    if data is None or isinstance(data, bool | int | float | str):
        return data
    if isinstance(data, list):
        return tuple(from_json(v) for v in cast(list[Any], data))
    if not isinstance(data, dict):
        raise TypeError(f"cannot decode {type(data).__name__}")
    obj = cast(dict[str, Any], data)
    if "$hex" in obj:
        return Hex.parse(str(obj["$hex"]))
    if "$e" in obj:
        return _decode_class(str(obj["$e"]))(obj["v"])
    if "$items" in obj:
        return {from_json(k): from_json(v) for k, v in cast(list[list[Any]], obj["$items"])}
    if "$set" in obj:
        return frozenset(from_json(v) for v in cast(list[Any], obj["$set"]))
    if "$t" in obj:
        cls = _decode_class(str(obj["$t"]))
        kwargs = {k: from_json(v) for k, v in obj.items() if k != "$t"}
        names = {f.name for f in dataclasses.fields(cls)}
        unknown = set(kwargs) - names
        if unknown:
            raise TypeError(f"{cls.__name__} has no field(s) {sorted(unknown)}")
        return cls(**kwargs)
    return {k: from_json(v) for k, v in obj.items()}


def _decode_class(name: str) -> Any:
    cls = _CLASSES.get(name)
    if cls is None:
        raise TypeError(f"unknown serialized type {name!r} (is its ruleset imported?)")
    return cls
