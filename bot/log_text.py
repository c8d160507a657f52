"""``/encounter log`` as a reader follows it: each step's events under one header naming the step in the
reader's words (``Ronda 1 · Fase 2 · Declaraciones``, the ruleset's ``phase_label``), never the engine's phase
ids."""

from __future__ import annotations

from collections.abc import Iterable

from bot.text.account import describe
from data.i18n import t
from render.phase import phase_title
from rules.events import Event
from rules.state import EncounterState

START = "start"  # the step that places the units, before round 1


def log_lines(history: Iterable[tuple[int, str, Event]], state: EncounterState, locale: str) -> list[str]:
    """One header per step, then that step's events as the account tells them."""
    lines: list[str] = []
    step: tuple[int, str] | None = None
    for round_no, phase, event in history:
        if (round_no, phase) != step:
            step = (round_no, phase)
            when = (
                t("render.start", locale) if phase == START else phase_title(state, round_no, phase, locale)
            )
            lines.append(f"**{when}**")
        lines.append(describe(event, state, locale))
    return lines
