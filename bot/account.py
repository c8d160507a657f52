"""The readable account of a phase: events → one line of text each, in the reader's language.

Templates live in the locale catalogs under ``event.<EventType>``; fields that name units are shown by unit
name, hexes by their ``CCRR`` label. An event type without a template still prints (type, rule and fields), so
a new event is never silently dropped from the account.
"""

from __future__ import annotations

import enum
import json
from collections.abc import Iterable, Mapping
from typing import Any, cast

from data.i18n import has, t
from rules.events import UNIT_FIELDS, DirectorOverride, Event, Note, RollMade, ShotResolved
from rules.hexgrid import Hex
from rules.state import EncounterState


def _plain(value: Any, names: Mapping[str, str]) -> Any:
    if isinstance(value, Hex):
        return value.label
    if isinstance(value, enum.Enum):
        return value.name.lower()
    if isinstance(value, tuple) and value and all(isinstance(v, Hex) for v in value):  # type: ignore[misc]
        return "→".join(v.label for v in value)  # type: ignore[union-attr]
    if isinstance(value, tuple | list):
        return ", ".join(str(_plain(v, names)) for v in value)  # type: ignore[misc]
    return value


SIDE_FIELDS = (
    "side",
    "winner",
)  # event fields that hold a side id: shown by the side's name as ``<key>_name``


def template_params(
    event: Event, names: Mapping[str, str], locale: str | None, sides: Mapping[str, str] | None = None
) -> dict[str, Any]:
    params: dict[str, Any] = {}
    for key, value in event.params().items():
        if key == "modifiers" and isinstance(value, tuple):
            params["modifiers_text"] = modifiers_text(event, cast(tuple[Any, ...], value), locale)
        if key in ("detail", "args") and isinstance(value, tuple):
            for k, v in cast(tuple[tuple[object, object], ...], value):
                params[str(k)] = _plain(v, names)
            continue
        params[key] = _plain(value, names)
        if key == "units" and isinstance(value, tuple):  # a list of units (an order of play) by their names
            units = cast(tuple[object, ...], value)
            params[key] = ", ".join(names.get(u, u) if isinstance(u, str) else str(u) for u in units)
        if key in UNIT_FIELDS and isinstance(value, str):
            params[f"{key}_name"] = names.get(value, value)
        elif key in SIDE_FIELDS and isinstance(value, str):
            params[f"{key}_name"] = (sides or {}).get(value, value)
    if isinstance(event, ShotResolved):
        params["hit_text"] = t(
            "shot.spent" if event.spent else "shot.hit" if event.hit else "shot.miss", locale
        )
    if isinstance(event, RollMade):
        params["dice_text"] = ", ".join(str(d) for d in event.dice)
        params["total"] = event.get("total", sum(event.dice))
        quality = event.get("quality")
        if quality is not None:
            params["quality_text"] = t(f"quality.{quality}", locale)
    elif isinstance(params.get("quality"), str) and has(f"quality.{params['quality']}", "en"):
        # any event that carries a roll quality shows it in the reader's language
        params["quality_text"] = t(f"quality.{params['quality']}", locale)
    for key, value in list(params.items()):
        # keyword values (a station, a location, a reason) get a translated "<key>_text" when the catalog has one
        if isinstance(value, str):
            translated = has(f"term.{value}", "en") if value else False
            params.setdefault(f"{key}_text", t(f"term.{value}", locale) if translated else value)
    return params


def modifiers_text(event: Event, pairs: tuple[Any, ...], locale: str | None) -> str:
    """A roll's modifiers spelled out (an event field ``modifiers`` of ``(reason, value)`` pairs): the base the
    target number starts from, then each reason in the reader's words (``modifier.<reason>``) and its value, so a
    player can check the sum with a pencil: ``base 15, medium range +3, walked +2``."""
    parts: list[str] = []
    total = 0
    for pair in pairs:
        if not (isinstance(pair, tuple) and len(pair) == 2):  # type: ignore[arg-type]
            continue
        code, value = cast(tuple[object, object], pair)
        if not isinstance(value, int):
            continue
        total += value
        reason = t(f"modifier.{code}", locale) if has(f"modifier.{code}", "en") else str(code)
        parts.append(f"{reason} {value:+d}")
    number = event.params().get("target_number")
    if isinstance(number, int) and not isinstance(number, bool):
        parts.insert(0, f"{t('modifier.base', locale)} {number - total}")
    return ", ".join(parts)


def describe(event: Event, state: EncounterState | None = None, locale: str | None = None) -> str:
    names = {u.id: u.name for u in state.units.values()} if state else {}
    sides = {s.id: s.name for s in state.sides} if state else {}
    params = template_params(event, names, locale, sides)
    key = f"event.{event.type}"
    if isinstance(event, RollMade):
        key = "event.RollMade.quality" if "quality_text" in params else key
    elif isinstance(event, Note | DirectorOverride):
        specific = f"note.{event.key}" if isinstance(event, Note) else f"override.{event.action}"
        key = specific if has(specific, "en") else key
    if has(key, "en"):
        return t(key, locale, **params)
    fields = ", ".join(f"{k}={v}" for k, v in params.items() if k != "rule" and v not in ("", (), None))
    return f"[{event.rule}] {event.type}: {fields}"


def account(
    events: Iterable[Event], state: EncounterState | None = None, locale: str | None = None
) -> list[str]:
    return [describe(e, state, locale) for e in events]


def event_json(event: Event, **extra: Any) -> str:
    """One JSON line for ``sim --json``: ``{"type": ..., "rule": ..., fields...}``, hexes as labels."""
    out: dict[str, Any] = {"type": event.type, **extra}
    for key, value in event.params().items():
        out[key] = _jsonable(value)
    return json.dumps(out, ensure_ascii=False, sort_keys=False)


def _jsonable(value: Any) -> Any:
    if isinstance(value, Hex):
        return value.label
    if isinstance(value, enum.Enum):
        return value.name.lower()
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in cast(Mapping[object, object], value).items()}
    if isinstance(value, tuple | list):
        items = [_jsonable(v) for v in cast("tuple[object, ...] | list[object]", value)]
        pairs = [cast(list[Any], i) for i in items if isinstance(i, list)]
        if items and len(pairs) == len(items) and all(len(p) == 2 and isinstance(p[0], str) for p in pairs):
            return {str(p[0]): p[1] for p in pairs}
        return items
    return value
