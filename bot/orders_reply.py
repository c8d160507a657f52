"""What ``/orders`` answers (the panel fallback when DMs are closed): one private message for the units that may
act now, not a panel per unit. The units still waiting are named on one short line rather than each shown as a
panel that only says it is not their turn."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bot.names import shown_name
from bot.permissions import Actor
from bot.seating import and_list
from bot.service.base import Reading, ServiceBase
from bot.service.panel_click import acts_now
from data.i18n import t

#: units one message's picker switches between at most (a row of buttons)
PICKER_MAX = 5

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


@dataclass(frozen=True, slots=True)
class Pick:
    """One button of a panel message's unit picker: the unit, its name, and whether its order is in."""

    unit_id: str
    name: str
    submitted: bool


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


async def picks_for(service: ServiceBase, reading: Reading, actor: Actor) -> tuple[Pick, ...]:
    """The units one panel message switches between for ``actor``: those of theirs that may act now, when there
    are two to :data:`PICKER_MAX` (more, or the director's procedure among them: a panel message each). The
    list is read from the encounter, never from a request, so a forged picker names no unit of someone else."""
    units = await service.panel_units(reading.meta.id, actor)
    acting = split_units(service, reading, units).acting
    if not 2 <= len(acting) <= PICKER_MAX or any(u not in reading.state.units for u in acting):
        return ()
    given = {
        o.unit_id for o in await service.storage.orders_of(reading.meta.id, reading.phase_no, actor.user_id)
    }
    return tuple(Pick(u, reading.state.units[u].name, u in given) for u in acting)
