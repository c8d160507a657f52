"""What a reader must never see in the bot's words, shared by the record sheet, panel, account and end-to-end
tests: a catalog key, an unfilled template or an engine phase id."""

from __future__ import annotations

import re

from bot.rulesets.sheets import Sheet, sheet_fields
from data.i18n import t
from render.phase import resolved_label
from rules.registry import ruleset_for
from rules.state import EncounterState

LOCALES = ("es", "en")
#: what a catalog key or an unfilled template looks like when it reaches a reader
KEY_PATTERN = re.compile(
    r"\b(stat|term|sheet|panel|field|phase|value|arc|policy|hexside)\.[a-z_]|field\[|\{[a-z_]+\}"
)


def text_of(sheet: Sheet, locale: str) -> str:
    return "\n".join(f"{name}: {value}" for name, value, _ in sheet_fields(sheet, locale))


def phase_ids(state: EncounterState, locale: str) -> set[str]:
    """The ruleset's phase ids that would show as ids in ``locale``: not numbers (exo numbers its phases), and
    not the very word the catalog names the phase with in that language (mech's English "initiative")."""
    out: set[str] = set()
    for phase in ruleset_for(state).phases:
        label = resolved_label(state, phase.id)
        name = t(label.key, locale, **dict(label.params)).lower() if label.key else ""
        if not phase.id.isdigit() and name != phase.id.lower():
            out.add(phase.id)
    return out


def assert_reads_as_words(text: str, state: EncounterState, locale: str, where: str) -> None:
    """No catalog key, no unfilled template, no engine phase id ("R1·declare", "· combat ·", or an English id
    anywhere in Spanish text)."""
    found = KEY_PATTERN.search(text)
    assert found is None, f"{where}: {found.group(0)!r} in\n{text}"
    for pid in phase_ids(state, locale):
        shown = re.search(rf"·\s*{re.escape(pid)}\b|\bR\d+·{re.escape(pid)}", text)
        assert shown is None, f"{where}: {pid}\n{text}"
        if locale == "es":
            assert not re.search(rf"\b{re.escape(pid)}\b", text, re.IGNORECASE), f"{where}: {pid}\n{text}"
