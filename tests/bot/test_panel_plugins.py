"""Panel plug-ins (bot/panels/): every registered ruleset's panel (``PANEL``, a ``PanelPlugin``) is found through
the registry and has the plug-in interface; the tests' toy panel (tests/toy_panel.py) loads through ``panel_for`` like the real ones
and is drawn by the generic Discord view, which knows no ruleset; custom ids carry the phase and stay in bounds."""

from __future__ import annotations

import inspect

import pytest
from discord import ui

from bot.panels import PanelPlugin, panel_for, press
from bot.panels.draft import Draft
from bot.panels.model import Preview
from cogs.panel.components import ControlRef, panel_components, panel_embed
from cogs.panel.items import PanelItem, panel_view
from cogs.panel.load import LoadedPanel
from rules.hexgrid import Hex
from rules.registry import get_ruleset, ruleset_ids
from rules.scenario import load_scenario
from tests import toy_panel, toy_ruleset  # noqa: F401  (registers the toy rulesets)
from tests.toy_ruleset import TOY

INTERFACE = ("build_panel", "apply", "raw_order", "draft_from_raw", "preview")


@pytest.mark.parametrize("ruleset_id", ruleset_ids())
def test_every_ruleset_has_a_panel_plugin_with_the_interface(ruleset_id: str) -> None:
    plugin = panel_for(ruleset_id)
    for name in INTERFACE:
        wanted = inspect.signature(getattr(PanelPlugin, name))
        wanted = wanted.replace(parameters=list(wanted.parameters.values())[1:])  # bound: no ``self``
        found = inspect.signature(getattr(plugin, name))
        assert [(p.name, p.kind) for p in found.parameters.values()] == [
            (p.name, p.kind) for p in wanted.parameters.values()
        ], f"{type(plugin).__name__}.{name}{found} is not {name}{wanted}"


@pytest.mark.parametrize("ruleset_id", ruleset_ids())
def test_every_panel_is_one_plugin_instance_with_the_optional_hooks(ruleset_id: str) -> None:
    """The same shape as a render overlay: ``PANEL``, an instance of the base class, whose optional hooks
    always exist (a plug-in without its own adds nothing)."""
    plugin = panel_for(ruleset_id)
    assert isinstance(plugin, PanelPlugin)
    state = load_scenario(TOY.format(ruleset="toy-sim")).state
    if type(plugin).status_lines is PanelPlugin.status_lines:
        assert plugin.status_lines(state) == ()
    if type(plugin).step_cards is PanelPlugin.step_cards:
        assert plugin.step_cards(state, ()) == ()


def test_a_panel_module_without_a_plugin_instance_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    import bot.panels

    monkeypatch.setattr(bot.panels, "plugin_module", lambda rid, part: "bot.panels.draft")
    with pytest.raises(TypeError, match=r"PANEL must be a bot\.panels\.PanelPlugin"):
        panel_for("toy-sim")


async def test_the_toy_panel_loads_through_the_registry_and_draws_through_the_generic_view() -> None:
    plugin = panel_for("toy-sim")
    assert plugin is toy_panel.PANEL
    state = load_scenario(TOY.format(ruleset="toy-sim")).state
    model = plugin.build_panel(state, "a", draft=Draft(), owing=True)
    assert model.step == "orders"

    select, submit, holder = panel_components(model, "en", encounter_id=7, phase_no=3)
    assert isinstance(select, ui.Select) and isinstance(submit, ui.Button) and isinstance(holder, ui.Button)
    assert select.custom_id == "hexd:enc:7:phase:3:unit:a:move"
    assert {o.value for o in select.options} == {f"move {h.label}" for h in Hex.parse("0202").neighbors()}
    assert submit.custom_id == "hexd:enc:7:phase:3:unit:a:submit" and submit.disabled, "nothing chosen yet"
    assert holder.custom_id == "hexd:draft:3:" and holder.disabled

    chosen = press(plugin, state, model, "move", ("move 0303",))
    select, submit, holder = panel_components(chosen, "en", encounter_id=7, phase_no=3)
    assert isinstance(select, ui.Select) and [o.value for o in select.options if o.default] == ["move 0303"]
    assert not submit.disabled and holder.custom_id == "hexd:draft:3:order=move 0303"
    assert plugin.raw_order(chosen) == "move 0303"
    ruleset = get_ruleset("toy-sim")
    ruleset.validate_order(state, "a", ruleset.parse_order(state, "a", plugin.raw_order(chosen)))
    assert plugin.preview(state, chosen) == Preview((Hex.parse("0202"), Hex.parse("0303")), 0)
    assert plugin.draft_from_raw(state, "a", "move 0303") == chosen.draft

    embed = panel_embed(chosen, "en", submitted=False)
    assert (embed.title or "").startswith("Alfa · Round 1") and embed.fields[0].value == "move 0303"
    view = panel_view(LoadedPanel(7, 3, chosen, False, state, plugin), "en")
    items = list(view.children)
    assert [type(i) for i in items] == [PanelItem, PanelItem, ui.Button], (
        "every control is the one DynamicItem"
    )
    assert isinstance(items[0], PanelItem) and items[0].ref == ControlRef(7, 3, "a", "move")

    waiting = plugin.build_panel(state, "b", draft=Draft(), owing=False)
    assert waiting.waiting and panel_components(waiting, "en", encounter_id=7, phase_no=3) == []


def test_control_ids_carry_the_phase_and_a_panel_from_before_has_none() -> None:
    ref = ControlRef(12, 40, "halcon", "D")
    assert ControlRef.parse(ref.custom_id) == ref
    legacy = ControlRef.parse("hexd:enc:12:unit:halcon:submit")
    assert legacy is not None and legacy.phase_no is None, "refused as stale: it cannot say its phase"
    assert ControlRef.parse("hexd:draft:3:") is None
    with pytest.raises(ValueError, match="100"):
        _ = ControlRef(10**17, 10**8, "u" * 32, "a" * 20).custom_id


def test_a_ruleset_without_an_orders_panel_gets_one_that_waits(monkeypatch: pytest.MonkeyPatch) -> None:
    import bot.panels

    monkeypatch.setattr(bot.panels, "plugin_module", lambda rid, part: "")  # the registry's "no panel"
    plugin = panel_for("toy-dir")
    state = load_scenario(TOY.format(ruleset="toy-dir")).state
    model = plugin.build_panel(state, "a", draft=Draft(), owing=True)
    assert model.waiting and not model.controls and plugin.preview(state, model) is None
