"""Order panels as plug-ins: one module per ruleset, ``bot/panels/<id>.py``, found through the registry.

Every panel module is pure (no Discord) and exposes ``PANEL``, an instance of a :class:`PanelPlugin` subclass.
The generic model they build is in :mod:`bot.panels.model`, the draft and its custom-id codec in
:mod:`bot.panels.draft`; the Discord layer (``cogs/panel/``) draws any panel without knowing its ruleset.
A panel module, the ruleset's record sheet (``bot/rulesets/sheets/<id>.py``) and its account words
(``bot/rulesets/text/<id>.py``) are the only places of the bot that import its engine (``rules.<id>``).
"""

from __future__ import annotations

import importlib
from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Any, Protocol

from bot.panels.draft import Draft
from bot.panels.memo import per_state
from bot.panels.model import Card, PanelModel, Preview, Text
from rules.errors import GameError
from rules.events import Event
from rules.registry import plugin_module, ruleset_for
from rules.ruleset import Order
from rules.state import EncounterState

NO_PANEL = "bot.panels.waiting"  # a ruleset without an orders panel: every panel waits


class PanelPlugin(ABC):
    """A ruleset's order panel. Subclass it, give the five required methods, override the optional hooks you
    need (each has a do-nothing default), and expose an instance as ``PANEL`` in ``bot/panels/<id>.py``: the
    same shape as a render overlay (:class:`render.rulesets.Overlay`)."""

    __slots__ = ()

    @abstractmethod
    def build_panel(self, state: EncounterState, unit_id: str, *, draft: Draft, owing: bool) -> PanelModel:
        """The panel of ``unit_id`` now: what it may choose (only what the rules accept) and ``draft``, kept to
        what is still offered. ``owing``: the unit owes an order in this phase (else the panel waits)."""

    @abstractmethod
    def apply(self, model: PanelModel, action: str, values: tuple[str, ...] | None) -> Draft:
        """The draft after the control ``action`` of ``model`` is used: a button press (``values`` is None) or a
        select's chosen ``values`` (checked against what ``model`` offers; a click may be forged)."""

    @abstractmethod
    def raw_order(self, model: PanelModel) -> Any:
        """The model's draft as the raw order the ruleset's ``parse_order`` reads."""

    @abstractmethod
    def draft_from_raw(self, state: EncounterState, unit_id: str, raw: Any) -> Draft:
        """A stored raw order back into a draft, so a reopened panel shows what the player gave."""

    @abstractmethod
    def preview(self, state: EncounterState, model: PanelModel) -> Preview | None:
        """What the private preview image highlights for the model's draft (None: no preview)."""

    def status_lines(self, state: EncounterState) -> tuple[Text, ...]:
        """Lines the channel's status message adds (ocs: the open combats and what each waits for). Public: they
        name nothing a side may not see."""
        return ()

    def step_cards(self, state: EncounterState, events: tuple[Event, ...]) -> tuple[Card, ...]:
        """Summaries posted with a step's public account (ocs: every figure of a combat, OCS-7). ``events`` are
        the step's public events, ``state`` the state after it."""
        return ()


class BuildPanel(Protocol):
    def __call__(self, state: EncounterState, unit_id: str, *, draft: Draft, owing: bool) -> PanelModel: ...


class ModulePanel(PanelPlugin):
    """A panel made of its module's functions, the shape of every bundled panel (their tests call the functions
    directly): ``PANEL = ModulePanel(build_panel, apply, raw_order, draft_from_raw, preview)``, plus the optional
    hooks it has."""

    __slots__ = ("_apply", "_build", "_cards", "_from_raw", "_preview", "_raw", "_status")

    def __init__(
        self,
        build_panel: BuildPanel,
        apply: Callable[[PanelModel, str, tuple[str, ...] | None], Draft],
        raw_order: Callable[[PanelModel], Any],
        draft_from_raw: Callable[[EncounterState, str, Any], Draft],
        preview: Callable[[EncounterState, PanelModel], Preview | None],
        *,
        status_lines: Callable[[EncounterState], tuple[Text, ...]] | None = None,
        step_cards: Callable[[EncounterState, tuple[Event, ...]], tuple[Card, ...]] | None = None,
    ) -> None:
        self._build, self._apply, self._raw = build_panel, apply, raw_order
        self._from_raw, self._preview = draft_from_raw, preview
        self._status, self._cards = status_lines, step_cards

    def build_panel(self, state: EncounterState, unit_id: str, *, draft: Draft, owing: bool) -> PanelModel:
        return self._build(state, unit_id, draft=draft, owing=owing)

    def apply(self, model: PanelModel, action: str, values: tuple[str, ...] | None) -> Draft:
        return self._apply(model, action, values)

    def raw_order(self, model: PanelModel) -> Any:
        return self._raw(model)

    def draft_from_raw(self, state: EncounterState, unit_id: str, raw: Any) -> Draft:
        return self._from_raw(state, unit_id, raw)

    def preview(self, state: EncounterState, model: PanelModel) -> Preview | None:
        return self._preview(state, model)

    def status_lines(self, state: EncounterState) -> tuple[Text, ...]:
        return () if self._status is None else self._status(state)

    def step_cards(self, state: EncounterState, events: tuple[Event, ...]) -> tuple[Card, ...]:
        return () if self._cards is None else self._cards(state, events)


def status_lines(plugin: PanelPlugin, state: EncounterState) -> tuple[Text, ...]:
    """The plug-in's own lines for the channel status."""
    return plugin.status_lines(state)


def step_cards(plugin: PanelPlugin, state: EncounterState, events: tuple[Event, ...]) -> tuple[Card, ...]:
    """The plug-in's summaries of a step's public events."""
    return plugin.step_cards(state, events)


def panel_for(ruleset_id: str) -> PanelPlugin:
    """The panel of ``ruleset_id``, as the registry names its module (imported on first use)."""
    name = plugin_module(ruleset_id, "panel") or NO_PANEL
    panel: object = vars(importlib.import_module(name)).get("PANEL")
    if not isinstance(panel, PanelPlugin):
        raise TypeError(f"{name}.PANEL must be a bot.panels.PanelPlugin, got {panel!r}")
    return panel


def _build_now(
    state: EncounterState, plugin: PanelPlugin, unit_id: str, draft: Draft, owing: bool
) -> PanelModel:
    return plugin.build_panel(state, unit_id, draft=draft, owing=owing)


#: a click builds the panel it was made on (the click before built it, or the phase's opening sent it) and the one
#: after it: kept per state as long as the plug-ins' own lists (bot/panels/memo.py)
_built = per_state(_build_now)


def build(
    plugin: PanelPlugin, state: EncounterState, unit_id: str, *, draft: Draft, owing: bool
) -> PanelModel:
    """``plugin.build_panel``, kept for the state: models are immutable and a pure function of their arguments,
    and each click builds again the panel the click before it built. CPU over the rules: the bot calls it in the
    click worker (bot/offloop.py), never on the event loop."""
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
