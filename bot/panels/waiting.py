"""The panel of a ruleset that has no orders panel of its own: it always waits (a director-run ruleset)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from bot.panels import PanelPlugin
from bot.panels.draft import Draft
from bot.panels.model import PanelModel, Preview, Text, blank_panel
from rules.state import EncounterState


class WaitingPanelPlugin(PanelPlugin):
    __slots__ = ()

    def build_panel(self, state: EncounterState, unit_id: str, *, draft: Draft, owing: bool) -> PanelModel:
        return replace(blank_panel(state, unit_id), lines=(Text.of("panel.step.wait"),))

    def apply(self, model: PanelModel, action: str, values: tuple[str, ...] | None) -> Draft:
        return model.draft

    def raw_order(self, model: PanelModel) -> Any:
        return None

    def draft_from_raw(self, state: EncounterState, unit_id: str, raw: Any) -> Draft:
        return Draft()

    def preview(self, state: EncounterState, model: PanelModel) -> Preview | None:
        return None


PANEL = WaitingPanelPlugin()
