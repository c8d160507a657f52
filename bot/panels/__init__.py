"""Order panels as plug-ins: one module per ruleset, ``bot/panels/<id>.py``, found through the registry.

Every panel module is pure (no Discord) and exposes the same five functions, written down as :class:`PanelPlugin`.
The generic model they build is in :mod:`bot.panels.model`, the draft and its custom-id codec in
:mod:`bot.panels.draft`; the Discord layer (``cogs/panel/``) draws any panel without knowing its ruleset.
A panel module and the ruleset's record sheet (``bot/rulesets/sheets/<id>.py``) are the only places of the bot that import
its engine (``rules.<id>``).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any, Protocol, cast

from bot.panels.draft import Draft
from bot.panels.memo import per_state
from bot.panels.model import Card, PanelModel, Preview, Text
from rules.errors import GameError
from rules.events import Event
from rules.registry import plugin_module, ruleset_for
from rules.ruleset import Order
from rules.state import EncounterState

NO_PANEL = "bot.panels.waiting"  # a ruleset without an orders panel: every panel waits
#: panels kept built: a click builds the panel it was made on and the one after it, and the first is the one
#: the click before built (or the phase's opening sent): with a hundred tables clicking in turn, a few hundred
BUILDS_KEPT = 512


class PanelPlugin(Protocol):
    """What a ruleset's panel module provides (module-level functions with these signatures)."""

    def build_panel(self, state: EncounterState, unit_id: str, *, draft: Draft, owing: bool) -> PanelModel:
        """The panel of ``unit_id`` now: what it may choose (only what the rules accept) and ``draft``, kept to
        what is still offered. ``owing``: the unit owes an order in this phase (else the panel waits)."""
        ...

    def apply(self, model: PanelModel, action: str, values: tuple[str, ...] | None) -> Draft:
        """The draft after the control ``action`` of ``model`` is used: a button press (``values`` is None) or a
        select's chosen ``values`` (checked against what ``model`` offers; a click may be forged)."""
        ...

    def raw_order(self, model: PanelModel) -> Any:
        """The model's draft as the raw order the ruleset's ``parse_order`` reads."""
        ...

    def draft_from_raw(self, state: EncounterState, unit_id: str, raw: Any) -> Draft:
        """A stored raw order back into a draft, so a reopened panel shows what the player gave."""
        ...

    def preview(self, state: EncounterState, model: PanelModel) -> Preview | None:
        """What the private preview image highlights for the model's draft (None: no preview)."""
        ...


# Optional plug-in functions (a module without them adds nothing):
#   ``status_lines(state) -> tuple[Text, ...]``: lines the channel's status message adds (ocs: the open combats
#   and what each waits for); public, so they name nothing a side may not see.
#   ``step_cards(state, events) -> tuple[Card, ...]``: summaries posted with a step's public account (ocs: every
#   figure of a combat, OCS-7); ``events`` are the step's public events, ``state`` the state after it.


def status_lines(plugin: PanelPlugin, state: EncounterState) -> tuple[Text, ...]:
    """The plug-in's own lines for the channel status (none when it has no ``status_lines``)."""
    found: object = getattr(plugin, "status_lines", None)
    if not callable(found):
        return ()
    return cast(Callable[[EncounterState], tuple[Text, ...]], found)(state)


def step_cards(plugin: PanelPlugin, state: EncounterState, events: tuple[Event, ...]) -> tuple[Card, ...]:
    """The plug-in's summaries of a step's public events (none when it has no ``step_cards``)."""
    found: object = getattr(plugin, "step_cards", None)
    if not callable(found):
        return ()
    return cast(Callable[[EncounterState, tuple[Event, ...]], tuple[Card, ...]], found)(state, events)


def panel_for(ruleset_id: str) -> PanelPlugin:
    """The panel module of ``ruleset_id``, as the registry names it (imported on first use)."""
    name = plugin_module(ruleset_id, "panel") or NO_PANEL
    return cast(PanelPlugin, importlib.import_module(name))


def _build_now(
    state: EncounterState, plugin: PanelPlugin, unit_id: str, draft: Draft, owing: bool
) -> PanelModel:
    return plugin.build_panel(state, unit_id, draft=draft, owing=owing)


_built = per_state(_build_now, size=BUILDS_KEPT)


def build(
    plugin: PanelPlugin, state: EncounterState, unit_id: str, *, draft: Draft, owing: bool
) -> PanelModel:
    """``plugin.build_panel``, kept for the state: models are immutable and a pure function of their arguments,
    and each click builds again the panel the click before it built."""
    return _built(state, plugin, unit_id, draft, owing)


def press(
    plugin: PanelPlugin,
    state: EncounterState,
    model: PanelModel,
    action: str,
    values: tuple[str, ...] | None = None,
) -> PanelModel:
    """The panel after the control ``action`` is used: the plug-in's new draft, on the panel built again (what
    the draft holds changes what is offered: a full movement disables its buttons). Only a panel that takes
    orders is pressed."""
    draft = plugin.apply(model, action, values)
    return build(plugin, state, model.unit_id, draft=draft, owing=True)


def accepted(state: EncounterState, unit_id: str, raw: Any) -> Order | None:
    """``raw`` as the order the rules take from ``unit_id`` now (the check Submit runs), or None if they refuse
    it: how a plug-in asks whether to offer something."""
    ruleset = ruleset_for(state)
    try:
        order = ruleset.parse_order(state, unit_id, raw)
        ruleset.validate_order(state, unit_id, order)
    except GameError:
        return None
    return order
