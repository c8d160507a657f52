"""What exo's account adds: crew by their reader's names, written manoeuvres spelled out."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, ClassVar

from bot.rulesets.text import EventFields, EventText
from data.i18n import has, t

#: event fields that name a crew member: an NPC crew member is named by its station ("gunner", "pilot-2") and
#: is shown by the station's name in the reader's language ("artillero", "piloto 2")
CREW_FIELDS = ("crew", "lead")
#: event fields that hold written manoeuvres ("DA", EXO-4.1): an empty one reads as "nothing" in the reader's
#: language
ORDER_FIELDS = ("written", "executed")
_NPC_NAME = re.compile(r"^([a-z_]+?)(?:-(\d+))?$")


def crew_name(name: str, locale: str | None) -> str:
    """A crew member's name for a reader: NPC crew (named after their station) get the station's local name."""
    m = _NPC_NAME.match(name)
    if m is None or not has(f"term.{m.group(1)}", "en"):
        return name
    station = t(f"term.{m.group(1)}", locale)
    return f"{station} {m.group(2)}" if m.group(2) else station


class ExoText(EventText):
    __slots__ = ()

    typed_fields: ClassVar[tuple[str, ...]] = CREW_FIELDS

    def event_params(self, fields: EventFields) -> Mapping[str, Any]:
        params: dict[str, Any] = {}
        for key in CREW_FIELDS:
            value = fields.shown.get(key)
            if isinstance(value, str) and value:
                params[key] = crew_name(value, fields.locale)
        for key in ORDER_FIELDS:
            value = fields.shown.get(key)
            if isinstance(value, str):
                params[f"{key}_shown"] = value or t("value.nothing", fields.locale)
        return params

    def modifier_params(self, arg: str, locale: str | None) -> Mapping[str, Any]:
        # an assistant's modifier (EXO-1.5) names the crew member who helped
        return {"name": crew_name(arg, locale)}


TEXT = ExoText()
