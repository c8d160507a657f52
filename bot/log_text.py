"""``/encounter log`` as a reader follows it: each step's events under one header naming the step in the
reader's words (``Ronda 1 · Fase 2 · Declaraciones``, the ruleset's ``phase_label``), never the engine's phase
ids."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from bot.dice_seal import reveal_line
from bot.names import shown_name
from bot.text.account import describe
from data.i18n import t
from render.phase import phase_title
from rules.events import Event
from rules.state import EncounterState

if TYPE_CHECKING:
    from bot.service.records import TraceStep

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


def trace_lines(
    trace: Iterable[TraceStep], state: EncounterState, locale: str, people: Mapping[int, str] | None = None
) -> list[str]:
    """:func:`log_lines` by step, a step the director undid kept where it happened: its header says so, who
    and when, its lines struck through, so the log shows the dice and moves that no longer count. ``people``:
    display names by user id (who undid a step is named by it, never by id; unknown: "the director")."""
    lines: list[str] = []
    step: tuple[int, str, datetime | None, int | None] | None = None
    for entry in trace:
        undone = entry.undone_at is not None
        # each undo heads its own steps: two undone one after the other may be by different people
        if (entry.round, entry.phase, entry.undone_at, entry.undone_by) != step:
            step = (entry.round, entry.phase, entry.undone_at, entry.undone_by)
            when = (
                t("render.start", locale)
                if entry.phase == START
                else phase_title(state, entry.round, entry.phase, locale)
            )
            if entry.undone_at is not None:
                lines.append(_undone_header(entry, when, locale, people or {}))
            else:
                lines.append(f"**{when}**")
        for event in entry.events:
            text = describe(event, state, locale)
            lines.append(f"~~{text}~~" if undone else text)
        if entry.seal is not None:
            lines.append(
                f"~~{reveal_line(entry.seal, locale)}~~" if undone else reveal_line(entry.seal, locale)
            )
    return lines


def _undone_header(entry: TraceStep, when: str, locale: str, people: Mapping[int, str]) -> str:
    """ "**Round 1 · Phase 2** · ↩️ undone by Dora (2026-11-27 05:10 UTC)"."""
    assert entry.undone_at is not None
    at = entry.undone_at.astimezone(UTC).strftime("%Y-%m-%d %H:%M")
    name = people.get(entry.undone_by) if entry.undone_by is not None else None
    if name:
        return t("encounter.log_undone_step_by", locale, when=when, at=at, who=shown_name(name))
    return t("encounter.log_undone_step", locale, when=when, at=at)
