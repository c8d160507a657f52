"""What mech's account adds: a declaration's shots by weapon and target (MECH-1.2), a destroyed location as
one phrase in the reader's language (MECH-2.3)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

from bot.rulesets.text import EventFields, EventText
from bot.text.account import value_text
from data.i18n import has, t
from rules.mech.events import LocationDestroyed


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
        if isinstance(fields.event, LocationDestroyed):
            params.update(_destroyed(fields.event, fields.locale))
        if "shots" not in fields.shown and (fire := _fire_named(fields)) is not None:
            # a declaration logged before its shots were named reads as it did ("#1→Raven", "#1→raven")
            params["shots_text"] = fire
        return params


def _destroyed(event: LocationDestroyed, locale: str | None) -> dict[str, str]:
    """MECH-2.3: "head destroyed" as one phrase per location, so that Spanish makes the participle agree with
    the location ("cabeza destruida", "torso izquierdo destruido"); a side torso's arm goes with it."""
    key = f"mech.location_destroyed.{event.location}"
    if has(key, "en"):
        destroyed = t(key, locale)
    else:
        where = value_text("location", event.location, locale, "mech") or event.location
        destroyed = t("mech.location_destroyed.other", locale, location=where)
    carried = ""
    if event.with_location:
        arm = value_text("with_location", event.with_location, locale, "mech") or event.with_location
        carried = t("mech.location_destroyed.carried", locale, arm=arm)
    return {"destroyed_text": destroyed, "carried_text": carried}


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
