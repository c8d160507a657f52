"""Who the channel status names as the one to act: every wait names a person.

The status always says who must act, with a mention: the unit's player, or the director for a unit nobody plays.
A unit the channel may not see (hidden, FOG-1; out of sight at night, NGT-9) is never named: only who acts for it
("Waiting for @bea", "Waiting for the director"), so a wait never stalls on a name nobody can read.
"""

from __future__ import annotations

from bot.names import shown_name
from bot.results import Missing
from data.i18n import t


def who(entry: Missing, locale: str) -> str:
    """The person who acts for ``entry``'s unit: their mention, or the director."""
    if entry.director or entry.user_id is None:
        return t("status.the_director", locale)
    return f"<@{entry.user_id}>"


def named(entries: tuple[Missing, ...], locale: str) -> str:
    """ "Veddio (@ana), Kara (the director)" for the units the channel may see; those it may not see add only
    who acts for them, once each."""
    parts: list[str] = []
    unnamed: list[str] = []
    for entry in entries:
        person = who(entry, locale)
        if entry.unit_name:
            parts.append(t("status.unit_by", locale, unit=shown_name(entry.unit_name), who=person))
        elif person not in unnamed:
            unnamed.append(person)
    return ", ".join([*parts, *(p for p in unnamed if not any(p in n for n in parts))])


def waiting_text(entries: tuple[Missing, ...], locale: str, *, acting: bool) -> str:
    """The status line for a step that waits on ``entries``: who acts now (one-at-a-time modes) or who still
    owes orders; only hidden units: "Waiting for @bea" / "Waiting for the director"."""
    # a unit the channel may not see that the director plays shows only when nobody else is awaited: the
    # table must know the game waits on the director, but not learn, while a player is named, that a hidden
    # unit the director holds acts too (FOG-1, NGT-9)
    shown = tuple(e for e in entries if e.unit_name or not (e.director or e.user_id is None))
    entries = shown or entries
    if not entries:
        return ""
    if all(not e.unit_name for e in entries):
        people = named(entries, locale)
        if all(e.director or e.user_id is None for e in entries):
            return t("status.waiting_for_director", locale)
        return t("status.waiting_for", locale, who=people)
    return t("status.acting" if acting else "status.waiting", locale, names=named(entries, locale))
