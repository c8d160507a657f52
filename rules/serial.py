"""JSON round trip for engine data (snapshots, events, orders).

Tagged encoding keeps decoding generic: a dataclass becomes ``{"$t": "tag", ...fields}``, a ``Hex`` becomes
``{"$hex": "0507"}``, an enum ``{"$e": "tag", "v": value}``, a mapping with non-string keys
``{"$items": [[k, v], ...]}``; lists decode as tuples (state is immutable). Classes take part by registering
with :func:`serializable` (rulesets register their units, orders, events and state extensions).

Tags are namespaced by the ruleset or layer that owns the class: ``exo.Weapon``, ``mech.Weapon``; classes of the
shared engine (``rules/*.py``) keep their bare name (``Side``, ``RollMade``). The namespace is the package under
``rules/`` the class lives in, or the ``ns=`` given to :func:`serializable`. Data written before tags were
namespaced (bare ``Ship``, ``FireOrder``) still decodes: a bare tag that is no shared class is looked up in the
namespaces that existed then (:data:`LEGACY_NAMESPACES`).
"""

from __future__ import annotations

import dataclasses
import enum
import importlib
from collections.abc import Callable, Mapping
from typing import Any, TypeVar, cast, overload

from rules.hexgrid import Hex

T = TypeVar("T")

_CLASSES: dict[str, type[Any]] = {}
_TAGS: dict[type[Any], str] = {}
#: where a bare tag from before namespacing is looked for, in order (exports of older versions)
LEGACY_NAMESPACES = ("exo", "skirmish")


@overload
def serializable(cls: type[T], /) -> type[T]: ...
@overload
def serializable(*, ns: str) -> Callable[[type[T]], type[T]]: ...
def serializable(cls: type[T] | None = None, /, *, ns: str | None = None) -> Any:
    """Register a dataclass or enum so it survives ``to_json``/``from_json`` (``@serializable`` or
    ``@serializable(ns="toy")`` for a class outside ``rules/<namespace>/``)."""

    def register(klass: type[T]) -> type[T]:
        tag = tag_for(klass, ns)
        existing = _CLASSES.get(tag)
        if existing is not None and existing is not klass:
            raise TypeError(f"two serializable classes are tagged {tag!r}")
        _CLASSES[tag] = klass
        _TAGS[klass] = tag
        return klass

    return register if cls is None else register(cls)


def tag_for(cls: type[Any], ns: str | None = None) -> str:
    """``exo.Ship`` for ``rules.exo.model.Ship``; the bare name for a shared engine class."""
    if ns is None:
        parts = cls.__module__.split(".")
        ns = parts[1] if len(parts) >= 3 and parts[0] == "rules" else ""
    return f"{ns}.{cls.__name__}" if ns else cls.__name__


def tag_of(cls: type[Any]) -> str:
    """The tag ``cls`` is serialized under (``mech.DeclarationLocked``; a shared engine class: its bare name),
    also for a class never registered (its tag by where it lives)."""
    return _TAGS.get(cls) or tag_for(cls)


def registered(tag: str) -> type[Any] | None:
    return _lookup(tag)


def _lookup(tag: str) -> type[Any] | None:
    cls = _CLASSES.get(tag)
    if cls is None and "." not in tag:
        for ns in LEGACY_NAMESPACES:
            cls = _CLASSES.get(f"{ns}.{tag}")
            if cls is not None:
                break
    return cls


#: per dataclass: its tag and field names, so encoding a state (thousands of values a commit) skips
#: ``dataclasses.fields`` and the type tests (``to_json`` was the largest cost of a commit)
_PLANS: dict[type[Any], tuple[str, tuple[str, ...]]] = {}
_PLAIN: frozenset[type[Any]] = frozenset({str, int, float, bool, type(None)})
_FIELD_NAMES: dict[type[Any], frozenset[str]] = {}  # per decoded dataclass


def to_json(value: object) -> Any:
    """Encode engine data as JSON-compatible values (dict, list, str, int, float, bool, None)."""
    cls = type(value)
    if cls in _PLAIN:  # exact types: an enum deriving from int or str takes the long way below
        return value
    plan = _PLANS.get(cls)
    if plan is not None:
        out: dict[str, Any] = {"$t": plan[0]}
        for name in plan[1]:
            out[name] = to_json(getattr(value, name))
        return out
    if cls is tuple or cls is list:
        return [to_json(v) for v in cast("tuple[object, ...] | list[object]", value)]
    return _to_json_slow(value)


def _to_json_slow(value: object) -> Any:
    if value is None or isinstance(value, bool | int | float | str):
        if isinstance(value, enum.Enum):
            return _encode_enum(value)
        return value
    if isinstance(value, Hex):
        return {"$hex": value.label}
    if isinstance(value, enum.Enum):
        return _encode_enum(value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        plan = _PLANS[type(value)] = (_tag(type(value)), tuple(f.name for f in dataclasses.fields(value)))
        out: dict[str, Any] = {"$t": plan[0]}
        for name in plan[1]:
            out[name] = to_json(getattr(value, name))
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
    return {"$e": _tag(type(value)), "v": value.value}


def _tag(cls: type[Any]) -> str:
    tag = _TAGS.get(cls)
    if tag is None:
        raise TypeError(f"{cls.__name__} is not registered with @serializable")
    return tag


def from_json(data: Any) -> Any:
    """Decode what :func:`to_json` produced."""
    kind = cast(type[Any], type(data))  # pyright: ignore[reportUnknownArgumentType]
    if kind in _PLAIN:
        return data
    if kind is list:
        return tuple([from_json(v) for v in cast(list[Any], data)])
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
        names = _FIELD_NAMES.get(cls)
        if names is None:
            names = _FIELD_NAMES[cls] = frozenset(f.name for f in dataclasses.fields(cls))
        unknown = kwargs.keys() - names
        if unknown:
            raise TypeError(f"{cls.__name__} has no field(s) {sorted(unknown)}")
        return cls(**kwargs)
    return {k: from_json(v) for k, v in obj.items()}


def _decode_class(name: str) -> Any:
    cls = _lookup(name)
    if cls is None and _import_owner(name):
        cls = _lookup(name)
    if cls is None:
        raise TypeError(f"unknown serialized type {name!r} (is its ruleset imported?)")
    return cls


def _import_owner(tag: str) -> bool:
    """Import the package that owns ``tag`` (``exo.Ship`` → ``rules.exo``; a bare legacy tag: the legacy
    namespaces), so a fresh process decodes a stored state before anything else imported its ruleset (a bot
    resuming its encounters at start-up). True when something was imported."""
    namespaces = (tag.split(".", 1)[0],) if "." in tag else LEGACY_NAMESPACES
    imported = False
    for ns in namespaces:
        if not ns.isidentifier():
            continue
        try:
            importlib.import_module(f"rules.{ns}")
        except ImportError:
            continue
        imported = True
    return imported
