"""What ``/director undo`` tells the table it undid, in the reader's words (DESIGN §4: every override is shown
and undoable, so its undoing is shown too)."""

from __future__ import annotations

from bot.results import UndoDone
from bot.text.account import describe, template_params, unit_name
from data.i18n import has, t
from render.phase import phase_title
from rules.events import DirectorOverride, Event
from rules.state import EncounterState


def undone_text(done: UndoDone, locale: str | None, *, detail: bool) -> str:
    """ "Undone: 3 damage to Lola (director)." for an override (named only when ``detail``: the reader may see
    every unit it touched); "The director undid the last step: back to …" for a resolution."""
    event, state = done.override, done.before or done.state
    when = phase_title(done.state, done.state.round, done.state.phase, locale)
    if done.override is None and done.undone_events and done.undone_state is not None:
        return t(
            "director.undone_step",
            locale,
            what=_what(done.undone_events, done.undone_state, locale),
            when=when,
        )
    if not detail or not isinstance(event, DirectorOverride):
        return t("director.undone", locale, when=when)
    names = {u.id: unit_name(u, locale) for u in (*done.state.units.values(), *state.units.values())}
    params = template_params(event, names, locale, {s.id: s.name_in(locale) for s in state.sides})
    key = f"undone.{event.action}"
    what = t(key, locale, **params) if has(key, "en") else describe(event, state, locale)
    return t("director.undone_override", locale, what=what.replace(" ()", ""))


#: the undone events an announcement names before "N more": a phone's screen, not the whole account
NAMED = 3


def _what(events: tuple[Event, ...], state: EncounterState, locale: str | None) -> str:
    """ "Veddio moved to 0604; Lola fired at Bruno": the public account of what was undone, cut short."""
    lines = [describe(e, state, locale).rstrip(".") for e in events[:NAMED]]
    if len(events) > NAMED:
        lines.append(t("director.undone_more", locale, n=len(events) - NAMED))
    return "; ".join(lines)
