"""The toy rulesets' order panel (tests/toy_ruleset.py), through the same plug-in interface as
``bot/panels/<id>.py`` (``bot.panels.PanelPlugin``): a select of the hexes one step away on the board (TOY-1), or
the answer to a reaction question (toy-act), then Submit. The registry names it for every toy ruleset.

Draft field: ``order``, the raw order text (``move 0303``, ``answer fire``).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from bot.panels import PanelPlugin
from bot.panels.draft import Draft
from bot.panels.model import (
    Field,
    Option,
    PanelModel,
    Preview,
    Select,
    Text,
    blank_panel,
    submit_button,
)
from rules.hexgrid import Hex
from rules.state import EncounterState

ORDER = "order"
MOVE, ANSWER = "move", "answer"  # the selects


def build_panel(state: EncounterState, unit_id: str, *, draft: Draft, owing: bool) -> PanelModel:
    unit = state.units[unit_id]
    base = replace(blank_panel(state, unit_id), lines=(Text.plain("Not your turn."),))
    if not owing or unit.at is None or unit.destroyed:
        return base
    pending = state.pending
    if pending is not None and pending.unit == unit_id:
        step, action, ask = "decision", ANSWER, "React?"
        options = tuple(Option(f"answer {a}", a) for a in pending.options)
    else:
        step, action, ask = "orders", MOVE, "Where to?"
        around = (h for h in unit.at.neighbors() if state.board.contains(h))
        options = tuple(Option(f"move {h.label}", h.label) for h in around)
    order = draft.text(ORDER)
    order = order if order in {o.value for o in options} else ""
    return replace(
        base,
        step=step,
        lines=(Text.plain(ask),),
        draft=Draft(order=order),
        fields=(Field(Text.plain("Order"), (Text.plain(order or "—"),)),),
        controls=(
            Select(action, Text.plain(ask), options, chosen=(order,) if order else (), min_values=1),
            submit_button(enabled=bool(order)),
        ),
        summary=order,
    )


def apply(model: PanelModel, action: str, values: tuple[str, ...] | None) -> Draft:
    if values is None:
        return model.draft
    offered = {o.value for o in model.options(action)}
    return Draft(order=next((v for v in values if v in offered), ""))


def raw_order(model: PanelModel) -> Any:
    order = model.draft.text(ORDER)
    offered = {o.value for name in (MOVE, ANSWER) for o in model.options(name)}
    return order if order in offered else ""


def draft_from_raw(state: EncounterState, unit_id: str, raw: Any) -> Draft:
    return Draft(order=raw) if isinstance(raw, str) else Draft()


def preview(state: EncounterState, model: PanelModel) -> Preview | None:
    unit = state.units[model.unit_id]
    order = model.draft.text(ORDER)
    if model.step != "orders" or unit.at is None or not order.startswith("move "):
        return None
    return Preview((unit.at, Hex.parse(order.removeprefix("move "))), unit.facing)


class ToyPanelPlugin(PanelPlugin):
    __slots__ = ()

    def build_panel(self, state: EncounterState, unit_id: str, *, draft: Draft, owing: bool) -> PanelModel:
        return build_panel(state, unit_id, draft=draft, owing=owing)

    def apply(self, model: PanelModel, action: str, values: tuple[str, ...] | None) -> Draft:
        return apply(model, action, values)

    def raw_order(self, model: PanelModel) -> Any:
        return raw_order(model)

    def draft_from_raw(self, state: EncounterState, unit_id: str, raw: Any) -> Draft:
        return draft_from_raw(state, unit_id, raw)

    def preview(self, state: EncounterState, model: PanelModel) -> Preview | None:
        return preview(state, model)


PANEL = ToyPanelPlugin()
