"""How values are stored: JSON text for payloads, states and settings (``model.dumps``); ISO 8601 UTC text for
times (so they compare correctly as strings)."""

from __future__ import annotations

import json
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import cast

from ..model import RESERVED_EVENT_TYPES, EventSpec, JsonDict, dumps


def loads(text: str) -> JsonDict:
    return cast(JsonDict, json.loads(text))


def timestamp(moment: datetime) -> str:
    if moment.tzinfo is None:
        raise ValueError("storage times must be timezone-aware (UTC)")
    return moment.astimezone(UTC).isoformat(timespec="microseconds")


def parse_time(text: str) -> datetime:
    return datetime.fromisoformat(text)


def utc_now() -> datetime:
    return datetime.now(UTC)


def check_event_specs(events: Iterable[EventSpec]) -> list[tuple[str, str]]:
    """Caller-given events as ``(type, JSON payload)``; refuses the types storage writes itself."""
    checked: list[tuple[str, str]] = []
    for event_type, payload in events:
        if not isinstance(event_type, str) or not event_type:  # pyright: ignore[reportUnnecessaryIsInstance]
            raise ValueError(f"an event type must be a non-empty string, not {event_type!r}")
        if event_type in RESERVED_EVENT_TYPES:
            raise ValueError(f"event type {event_type!r} is written by storage itself")
        checked.append((event_type, dumps(payload)))
    return checked
