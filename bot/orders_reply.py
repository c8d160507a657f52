"""What ``/orders`` answers (the panel fallback when DMs are closed): one private message for the units that may
act now, not a panel per unit. The units still waiting are named on one short line rather than each shown as a
panel that only says it is not their turn."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bot.names import shown_name
from bot.seating import and_list
from bot.service.base import Reading, ServiceBase
from bot.service.panel_click import acts_now
from data.i18n import t

#: the answer to ``/orders`` while the encounter does not run, by its status
_NOT_RUNNING = {
    "open": "errors.encounter.not_started",
    "paused": "errors.encounter.paused",
    "ended": "errors.encounter.ended",
}


@dataclass(frozen=True, slots=True)
class OrdersReply:
    """The panels to show (units that may act now, in ``/orders``' order) and the units only named as waiting."""

    acting: tuple[str, ...]
    waiting: tuple[str, ...]


def split_units(service: ServiceBase, reading: Reading, units: Sequence[str]) -> OrdersReply:
    acting = tuple(u for u in units if acts_now(service, reading, u))
    # the director's pseudo-unit has no name to list: when it may not act, neither may anything it stands for
    waiting = tuple(u for u in units if u not in acting and u in reading.state.units)
    return OrdersReply(acting, waiting)


def waiting_line(reading: Reading, reply: OrdersReply, locale: str) -> str | None:
    """The one line naming the caller's waiting units ("Veddio y Kira esperan su turno."), or, when none of them
    may act, the whole answer; None when every unit shown has its panel."""
    if not reply.acting:
        # nobody's turn comes while the encounter does not run: say why instead of naming units as waiting
        status = "ended" if reading.state.over else reading.meta.status
        if status in _NOT_RUNNING:
            return t(_NOT_RUNNING[status], locale)
    if not reply.waiting:
        return None
    names = and_list([shown_name(reading.state.units[u].name) for u in reply.waiting], locale)
    key = "orders.waiting" if reply.acting else "orders.none_now"
    return t(key, locale, names=names, n=len(reply.waiting))
