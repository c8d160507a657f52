"""The guards between a panel request and a unit: one place that decides whether a person may open or click the
panel of a unit, and hands back the panel or a refusal. Custom ids are forgeable (any encounter, phase and unit
id can be typed into one), so nothing a request carries is trusted until these guards passed.

The guards run in this order, each only where it applies, and the first that refuses answers:

1. the click limit (a click): a burst of clicks is refused before anything is read (bot/click_limit.py);
2. the server (a request from inside a server): the encounter must be that server's, else it "does not exist";
3. the part and the membership (a click from a DM, which carries no server): someone with no part in the
   encounter is answered as for one that does not exist, so a forged id never tells whether it is in use in
   another server; someone who left the server plays no more there (bot/membership.py, DESIGN §4);
4. the holder: the unit's player, or a director for a unit nobody plays and for the director's pseudo-unit of a
   director-run mode (:meth:`ServiceBase.may_use_panel`);
5. the phase (a panel built for a phase): a panel of a phase that is over does nothing;
6. the turn (a click on a control): a panel that waits takes no orders.

:func:`open_panel` runs them for a panel; an order given without a panel (:meth:`EncounterService.submit`) passes
the same :func:`let_in` and :func:`not_awaited`, as a click from the encounter's own server.

A director's command on "the current phase" goes through the phase gate instead (bot/phase_gate.py): it names no
phase of its own, a panel does (in its custom id).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from bot.click_limit import ClickLimiter
from bot.membership import Membership
from bot.offloop import off_loop
from bot.palettes import STANDARD, private_scheme
from bot.panels import PanelPlugin, build, panel_for, press
from bot.panels.draft import Draft
from bot.panels.model import PanelModel
from bot.permissions import Actor
from bot.results import Refused, refuse
from bot.service.base import Reading, ServiceBase, not_running
from rules.registry import ruleset_for
from rules.ruleset import DIRECTOR
from rules.state import EncounterState

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class LoadedPanel:
    """A panel as shown to its player: the model, the phase it was built for, and what it was built from."""

    encounter_id: int
    phase_no: int
    model: PanelModel
    submitted: bool
    state: EncounterState
    plugin: PanelPlugin
    deadline: datetime | None = None  # when the phase resolves by itself (shown on a panel that owes orders)
    scheme: str = STANDARD  # the player's colour scheme for the preview (bot/palettes.py)

    async def pressed(self, action: str, values: tuple[str, ...] | None) -> LoadedPanel:
        """The panel after the control ``action`` is used, built in the click worker (bot/offloop.py)."""
        model = await off_loop(press, self.plugin, self.state, self.model, action, values)
        return replace(self, model=model)


@dataclass(frozen=True, slots=True)
class PanelRequest:
    """Someone asks for the panel of ``unit_id``: to open it, or (``click``) to use one of its controls.

    ``guild_id``: the server the request came from (None: a DM, or the bot itself sending a player their panel).
    ``phase_no``: the phase the panel was built for (a click carries it in its custom id; None: the current one).
    ``stored``: the draft the panel message carries, with its phase."""

    encounter_id: int
    unit_id: str
    actor: Actor
    guild_id: int | None = None
    phase_no: int | None = None
    stored: tuple[int, Draft] | None = None
    click: bool = False


@dataclass(frozen=True, slots=True)
class Opened:
    """The guards passed: the panel, and the read it was checked and built on (a Submit stores on the same read,
    so nothing is checked twice)."""

    panel: LoadedPanel
    reading: Reading
    user_id: int


@dataclass(frozen=True, slots=True)
class ClickRefused:
    """A guard refused. ``member_gone``: the person is no longer a member of the encounter's server; their units
    go to the director, and the table is told (the caller's part: it speaks to Discord)."""

    error: Refused
    reading: Reading | None = None
    member_gone: bool = False


def gone() -> Refused:
    return refuse("encounter.gone", "That encounter no longer exists, or you no longer play in it.")


def not_yours() -> Refused:
    return refuse("unit.not_yours", "That is not one of your units.")


def stale() -> Refused:
    return refuse("phase.stale", "That panel belongs to a phase that is over; open /orders again.")


def acts_now(service: ServiceBase, reading: Reading, unit_id: str) -> bool:
    """Whether ``unit_id``'s panel has controls now: the encounter runs and the unit owes an answer, is one the
    ruleset lets act unprompted (ocs free moves), or is the director's pseudo-unit of a director-run mode (it may
    give an order of the procedure at any time)."""
    state = reading.state
    if reading.meta.status != "running" or state.over:
        return False
    return (
        unit_id == DIRECTOR or unit_id in service.owing(state) or ruleset_for(state).may_act(state, unit_id)
    )


async def open_panel(
    service: ServiceBase,
    request: PanelRequest,
    *,
    clicks: ClickLimiter | None = None,
    membership: Membership | None = None,
    reading: Reading | None = None,
) -> Opened | ClickRefused:
    """The panel ``request`` asks for, or the first guard that refuses it (in the order the module names).
    ``clicks`` and ``membership``: the process's click limit and membership lookups (a click needs them);
    ``reading``: a read of the encounter already made for this request."""
    user = request.actor.user_id
    if (
        request.click
        and clicks is not None
        and not clicks.allow((user, request.encounter_id, request.unit_id))
    ):
        return ClickRefused(refuse("click.too_fast", "Too fast: wait a second and click again."))
    if reading is None or reading.meta.id != request.encounter_id:
        reading = await service.read(request.encounter_id)
    refused = await let_in(service, reading, request, membership=membership)
    if refused is not None:
        return refused
    panel = await _load(service, reading, user, request.unit_id, request.stored)
    if request.click and (waits := not_awaited(service, reading, request.unit_id, panel.model)) is not None:
        return ClickRefused(waits, reading)
    return Opened(panel, reading, user)


async def let_in(
    service: ServiceBase, reading: Reading, request: PanelRequest, *, membership: Membership | None = None
) -> ClickRefused | None:
    """The server, the part and membership, the holder and the phase (guards 2 to 5) on ``reading``, which must
    be of the request's encounter: the first refusal, or None when the request may touch the unit."""
    user = request.actor.user_id
    meta = reading.meta
    if request.guild_id is not None and meta.guild_id != request.guild_id:
        return ClickRefused(gone(), reading)
    if request.click and request.guild_id is None:  # a DM carries no server
        if not (meta.created_by == user or any(p.user_id == user for p in reading.parts)):
            return ClickRefused(gone(), reading)
        if membership is not None and not await membership.is_member(meta.guild_id, user):
            refused = refuse("member.gone", "You are no longer a member of that encounter's server.")
            return ClickRefused(refused, reading, member_gone=True)
    if not await service.may_use_panel(reading, request.unit_id, request.actor):
        log.info("panel refused user=%s encounter=%s", user, request.encounter_id)
        return ClickRefused(not_yours(), reading)
    if request.phase_no is not None and request.phase_no != reading.phase_no:
        log.info("stale panel user=%s encounter=%s phase=%s", user, request.encounter_id, request.phase_no)
        return ClickRefused(stale(), reading)
    return None


def not_awaited(
    service: ServiceBase, reading: Reading, unit_id: str, model: PanelModel | None = None
) -> Refused | None:
    """The turn (guard 6): a refusal unless ``unit_id`` may give an order now. On a panel (``model``) its
    plug-in has the last word, since it was built knowing whether the unit acts now and may still have nothing
    to offer (a mech off the board); an order given without a panel is checked against :func:`acts_now`."""
    if model is not None:
        waiting, name = model.waiting, model.unit_name
    else:
        unit = reading.state.units.get(unit_id)
        waiting, name = not acts_now(service, reading, unit_id), unit.name if unit is not None else unit_id
    if not waiting:
        return None
    if (
        reading.state.over or reading.meta.status != "running"
    ):  # the whole table waits: say why, not "not you"
        return not_running("ended" if reading.state.over else reading.meta.status)
    return refuse("unit.not_awaiting", "This unit takes no orders now.", unit=name)


async def _load(
    service: ServiceBase, reading: Reading, user_id: int, unit_id: str, stored: tuple[int, Draft] | None
) -> LoadedPanel:
    """The panel of ``unit_id``, built with the draft the message carries (same phase) or the order the player
    already gave (a reopened panel)."""
    encounter_id, state, phase_no = reading.meta.id, reading.state, reading.phase_no
    plugin = panel_for(state.ruleset)
    owing = await off_loop(acts_now, service, reading, unit_id)  # a ruleset may search the board to say
    draft: Draft | None = None
    raw: Any = None
    if stored is not None and stored[0] == phase_no:
        draft = stored[1]
    elif owing:
        for pending in await service.storage.orders_of(encounter_id, phase_no, user_id):
            if pending.unit_id == unit_id:
                raw = pending.order.get("raw")
    submitted = draft is None and raw is not None
    model = await off_loop(_model, plugin, state, unit_id, draft, raw, owing)
    deadline = await service.deadline_of(encounter_id, phase_no) if owing else None
    scheme = await private_scheme(service.storage, user_id)
    return LoadedPanel(encounter_id, phase_no, model, submitted, state, plugin, deadline, scheme)


def _model(
    plugin: PanelPlugin, state: EncounterState, unit_id: str, draft: Draft | None, raw: Any, owing: bool
) -> PanelModel:
    """The panel built on ``draft``, or (None) on the draft of the stored ``raw`` order: the click worker's part
    of opening a panel (both run the rules over the state)."""
    if draft is None:
        draft = plugin.draft_from_raw(state, unit_id, raw)
    return build(plugin, state, unit_id, draft=draft, owing=owing)
