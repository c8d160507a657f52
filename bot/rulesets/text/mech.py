"""What mech's account adds: a declaration's shots by weapon and target (MECH-1.2)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

from bot.rulesets.text import EventFields, EventText
from bot.text.account import value_text


def _is_shot(value: object) -> bool:
    if not (isinstance(value, tuple) and len(value) == 3):  # type: ignore[arg-type]
        return False
    n, kind, uid = cast(tuple[object, object, object], value)
    return isinstance(n, int) and isinstance(kind, str) and isinstance(uid, str)


class MechText(EventText):
    __slots__ = ()

    def event_params(self, fields: EventFields) -> Mapping[str, Any]:
        params: dict[str, Any] = {}
        for key, value in fields.raw.items():
            if isinstance(value, tuple) and value and all(_is_shot(v) for v in value):  # type: ignore[misc]
                # (number, weapon type, target) triples read as "weapon → target" by name (a declaration's shots)
                shots = cast(tuple[tuple[int, str, str], ...], value)
                params[f"{key}_text"] = ", ".join(
                    f"{value_text(key, kind, fields.locale, 'mech') or f'#{n}'} → {fields.names.get(uid, uid)}"
                    for n, kind, uid in shots
                )
        if "shots" not in fields.shown and (fire := _fire_named(fields)) is not None:
            # a declaration logged before its shots were named reads as it did ("#1→Raven", "#1→raven")
            params["shots_text"] = fire
        return params


def _fire_named(fields: EventFields) -> str | None:
    """A declaration's fire as its line read before shots were named: with the targets' names, else as the
    declaration wrote it (their ids)."""
    for key in ("fire_named", "fire_text"):
        value = fields.shown.get(key)
        if isinstance(value, str):
            return value
    fire = fields.shown.get("fire")
    return value_text("fire", fire, fields.locale, "mech") or fire if isinstance(fire, str) else None


TEXT = MechText()
