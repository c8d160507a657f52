"""What the table and the player read when someone takes their seat (``/encounter join``): one public line per
person, however many units they took, and a private word on the units only their side may see (FOG-1)."""

from __future__ import annotations

from collections.abc import Sequence

from bot.names import shown_name
from bot.results import Seated
from data.i18n import t


def and_list(names: Sequence[str], locale: str) -> str:
    """ "Veddio, Lana y Kira" / "Veddio, Lana and Kira"."""
    if len(names) <= 1:
        return "".join(names)
    return t("encounter.and_list", locale, rest=", ".join(names[:-1]), last=names[-1])


def public_line(seated: Seated, mention: str, locale: str) -> str:
    """ "@ana lleva a Veddio, Lana y Kira (RFP)"; a unit hidden from the other sides is never named: with only
    such units, "@bea se une a Tyranos"."""
    side = shown_name(seated.side_in(locale))
    if not seated.public_names:
        return t("encounter.joined_side", locale, user=mention, side=side)
    units = and_list([shown_name(n) for n in seated.public_names], locale)
    return t("encounter.joined", locale, user=mention, units=units, side=side)


def private_line(seated: Seated, locale: str) -> str | None:
    """The hidden units the player took, told to them alone (None when there are none)."""
    if not seated.hidden_names:
        return None
    return t(
        "encounter.joined_hidden",
        locale,
        units=and_list([shown_name(n) for n in seated.hidden_names], locale),
    )
