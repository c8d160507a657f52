"""What ``/director undo`` tells the table it undid, in the reader's words (DESIGN §4: every override is shown
and undoable, so its undoing is shown too)."""

from __future__ import annotations

from bot.results import UndoDone
from bot.text.account import describe, template_params, unit_name
from data.i18n import has, t
from render.phase import phase_title
from rules.events import DirectorOverride


def undone_text(done: UndoDone, locale: str | None, *, detail: bool) -> str:
    """ "Undone: 3 damage to Lola (director)." for an override (named only when ``detail``: the reader may see
    every unit it touched); "The director undid the last step: back to …" for a resolution."""
    event, state = done.override, done.before or done.state
    if not detail or not isinstance(event, DirectorOverride):
        return t(
            "director.undone",
            locale,
            when=phase_title(done.state, done.state.round, done.state.phase, locale),
        )
    names = {u.id: unit_name(u, locale) for u in (*done.state.units.values(), *state.units.values())}
    params = template_params(event, names, locale, {s.id: s.name for s in state.sides})
    key = f"undone.{event.action}"
    what = t(key, locale, **params) if has(key, "en") else describe(event, state, locale)
    return t("director.undone_override", locale, what=what.replace(" ()", ""))
