"""A click's CPU work is done in the click worker (bot/offloop.py), never on the event loop, end to end through
the local Discord: the DM panels sent when a phase opens, a panel opened by ``/orders``, a button and a select
pressed, the preview's inputs and the Submit's check. The spies are the exo panel plug-in and the exo ruleset's
parser and validator (EXO-2.4 secret orders), recording the thread each call ran on."""

from __future__ import annotations

import threading
from typing import Any

import pytest

import bot.panels.exo as exo_panel
from bot import offloop
from bot.offloop import THREAD_NAME
from bot.panels import PanelPlugin
from bot.panels.draft import Draft
from bot.panels.model import PanelModel, Preview
from rules.registry import get_ruleset
from rules.ruleset import Order
from rules.state import EncounterState
from tests.e2e_helpers import Table, current_panel_dm, fill_and_submit, open_duel, orders_panel

pytestmark = pytest.mark.slow

Calls = list[tuple[str, str]]  # (what ran, the name of the thread it ran on)


class SpyPanel(PanelPlugin):
    """The exo panel, noting the thread of each call that works over the rules."""

    __slots__ = ("calls", "kinds", "real")

    def __init__(self, real: PanelPlugin, calls: Calls) -> None:
        self.real, self.calls = real, calls
        self.kinds: list[tuple[str, bool]] = []  # (what ran, whether as background work)

    def _ran(self, what: str) -> None:
        self.calls.append((what, threading.current_thread().name))
        self.kinds.append((what, offloop._background.get()))  # pyright: ignore[reportPrivateUsage]

    def build_panel(self, state: EncounterState, unit_id: str, *, draft: Draft, owing: bool) -> PanelModel:
        self._ran("build_panel")
        return self.real.build_panel(state, unit_id, draft=draft, owing=owing)

    def apply(self, model: PanelModel, action: str, values: tuple[str, ...] | None) -> Draft:
        self._ran("apply")
        return self.real.apply(model, action, values)

    def raw_order(self, model: PanelModel) -> Any:
        return self.real.raw_order(model)

    def draft_from_raw(self, state: EncounterState, unit_id: str, raw: Any) -> Draft:
        self._ran("draft_from_raw")
        return self.real.draft_from_raw(state, unit_id, raw)

    def preview(self, state: EncounterState, model: PanelModel) -> Preview | None:
        self._ran("preview")
        return self.real.preview(state, model)


async def test_exo_panels_and_the_submit_check_run_in_the_click_worker(
    table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    t = table
    calls: Calls = []
    spy = SpyPanel(exo_panel.PANEL, calls)
    monkeypatch.setattr(exo_panel, "PANEL", spy)
    exo = type(get_ruleset("exo"))
    parse, validate = exo.parse_order, exo.validate_order

    def parse_spy(self: Any, state: EncounterState, unit_id: str, raw: Any) -> Order:
        calls.append(("parse_order", threading.current_thread().name))
        return parse(self, state, unit_id, raw)

    def validate_spy(self: Any, state: EncounterState, actor: str, order: Order) -> None:
        calls.append(("validate_order", threading.current_thread().name))
        validate(self, state, actor, order)

    monkeypatch.setattr(exo, "parse_order", parse_spy)
    monkeypatch.setattr(exo, "validate_order", validate_spy)

    enc = await open_duel(t)
    phase_no = (await t.bot.service.read(enc)).phase_no
    panel = await current_panel_dm(t, t.ana, "halcon", phase_no)  # sent by DM when the phase opened
    # the phase opening's panels are built behind any click's work: nobody is looking at them yet
    assert spy.kinds and all(background for _, background in spy.kinds), spy.kinds
    spy.kinds.clear()
    ack = await fill_and_submit(t.fd, t.ana, panel, "halcon", moves="D", fire=2)  # a button, a select, Submit
    pressed = [background for what, background in spy.kinds if what == "apply"]
    assert pressed and not any(pressed), spy.kinds  # a click's own work goes first
    assert ack.ephemeral and "received" in ack.content, ack.content
    await orders_panel(t, t.bea)  # opened by /orders (Bea's DMs are closed)

    ran = {what for what, _ in calls}
    assert {"build_panel", "apply", "preview", "parse_order", "validate_order"} <= ran, ran
    on_other = sorted({(what, thread) for what, thread in calls if not thread.startswith(THREAD_NAME)})
    assert on_other == [], f"ran outside the click worker: {on_other}"
