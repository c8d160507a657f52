"""What a side's players are sent by DM after a step (NGT-9): the board as their side sees it and the account
their side may read — or nothing at all.

A message's mere arrival says something happened, so a side is written to only when something it can see
changed: an event it may read, or its own board looking different. After a director's override that touched
only units a side cannot see (removed, moved, damaged, set, added in the dark, revealed to the other side), that
side hears nothing; when it does hear, the account names only units it saw before and after (``rules.seen``).
"""

from __future__ import annotations

from bot.imaging import board_png
from bot.names import shown_name
from bot.palettes import STANDARD
from bot.results import StepReport, UndoDone
from bot.service.records import events_for
from data.i18n import t
from render.phase import phase_title
from rules.by_hand import RULE
from rules.events import DirectorOverride, Event
from rules.ruleset import DIRECTOR
from rules.seen import seen_events
from rules.state import EncounterState


def private_title(state: EncounterState, viewer: str, step: tuple[int, str], name: str, locale: str) -> str:
    """The title of ``viewer``'s private message about ``step``: the encounter, the step by its name, and whose
    view it is ("as Corsairs see it"; the director's, "as the director sees it")."""
    when = phase_title(state, step[0], step[1], locale)
    if viewer == DIRECTOR:
        return t("private.step_director", locale, name=name, when=when)
    return t(
        "private.step", locale, name=name, when=when, viewer=shown_name(state.side(viewer).name_in(locale))
    )


async def news_for(
    viewer: str,
    report: StepReport,
    before: EncounterState | None,
    locale: str,
    title: str,
    scheme: str = STANDARD,
) -> tuple[tuple[Event, ...], bytes | None] | None:
    """``viewer``'s message about the step ``report`` (None: nothing to send): the events they may read and their
    board (None: it could not be drawn). ``before``: the state the step started from, when known (a director's
    override); without it the step is a resolution, shown to every side whose account is not empty or whose
    board moved. ``scheme``: the reader's colour scheme (bot/palettes.py)."""
    after, events, board_changed = report.state, report.events, report.board_changed
    step = (report.round, report.phase)
    if before is None:
        shown = events_for(after, events, viewer)
        if not shown and not board_changed:
            return None
        png = await board_png(
            after, shown, viewer=viewer, locale=locale, title=title, step=step, scheme=scheme
        )
        return (shown, png)
    shown = seen_events(before, after, events, viewer)
    if not shown and viewer != DIRECTOR:
        # nothing to read: only a board that looks different to this side is news to it
        now = await board_png(after, (), viewer=viewer, locale=locale, title=title, step=step, scheme=scheme)
        then = await board_png(
            before, (), viewer=viewer, locale=locale, title=title, step=step, scheme=scheme
        )
        if now is None or now == then:
            return None
        return ((), now)
    png = await board_png(after, shown, viewer=viewer, locale=locale, title=title, step=step, scheme=scheme)
    return (shown, png)


def undone_unseen(encounter_id: int, done: UndoDone) -> tuple[StepReport, EncounterState] | None:
    """The step the sides are told of when the director undoes an override the channel was never told of, and the
    state it goes back from (None: the channel saw the step, and hears of its undoing in the channel). Only a side
    that can read the line naming the unit, or whose board changes, is written to (:func:`news_for`, FOG-1)."""
    override, before = done.override, done.before
    if done.seen or not isinstance(override, DirectorOverride) or before is None:
        return None
    line = DirectorOverride(rule=RULE, action="undo", unit=override.unit)
    state = done.state
    return StepReport(encounter_id, done.phase_no, state.round, state.phase, (line,), state, ()), before
