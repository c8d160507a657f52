"""Each plug-in's words for its events are its own (bot/rulesets/text): the account shows every field by the
shared conventions, and a plug-in's ``TEXT`` hook adds what its templates need, found through the registry."""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import pytest

from bot.rulesets.text import EventFields, EventText, text_for
from bot.text import account
from bot.text.account import describe, roll_modifiers_text, template_params
from rules import registry
from rules.events import Event, Note, RollMade
from rules.registry import PLUGINS, Plugin, plugin_module
from rules.serial import serializable

TOY = "texttoy"


@serializable(ns=TOY)
@dataclass(frozen=True, slots=True, kw_only=True)
class Beacon(Event):
    """A toy plug-in's event: a code its hook spells out."""

    code: str
    by: str = ""


class ToyText(EventText):
    __slots__ = ()

    typed_fields: ClassVar[tuple[str, ...]] = ("by",)

    def event_params(self, fields: EventFields) -> Mapping[str, Any]:
        code = fields.raw.get("code")
        return {"code_spelled": "-".join(code)} if isinstance(code, str) else {}

    def modifier_params(self, arg: str, locale: str | None) -> Mapping[str, Any]:
        return {"name": arg.upper()}


TEXT = ToyText()


@pytest.fixture
def toy_plugin(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The toy plug-in, known to the registry for one test only (its text module is this file)."""
    plugins: dict[str, Plugin] = vars(registry)["_PLUGINS"]
    monkeypatch.setitem(plugins, TOY, Plugin(TOY, "layer", engine="", panel="", overlay="", text=__name__))
    yield


def test_a_plugins_text_hook_adds_the_params_of_its_own_events(toy_plugin: None) -> None:
    line = describe(Beacon(rule="TOY-1", code="ABC", by="*Ana*"), None, "en")
    assert "code_spelled=A-B-C" in line
    # a name a person typed is escaped in a post, plain on the command line
    assert "by=\\*Ana\\*" in line
    assert "by=*Ana*" in describe(Beacon(rule="TOY-1", code="ABC", by="*Ana*"), None, "en", markdown=False)


def test_a_plugin_without_a_text_module_adds_nothing() -> None:
    """A plug-in's text module is optional: every field still shows by the shared conventions."""
    assert text_for("skirmish") is None
    line = describe(Beacon(rule="TOY-1", code="ABC"), None, "en")
    assert "code=ABC" in line and "code_spelled" not in line


def test_a_shared_note_a_plugin_filled_reads_through_that_plugins_hook(toy_plugin: None) -> None:
    """A note keyed ``texttoy.…`` is the toy's: its hook sees it though Note is the engine's."""
    note = Note(rule="TOY-1", key=f"{TOY}.signal", args=(("code", "XY"),))
    assert template_params(note, {}, "en")["code_spelled"] == "X-Y"
    assert "code_spelled" not in template_params(
        Note(rule="TOY-1", key="signal", args=(("code", "XY"),)), {}, "en"
    )


def test_a_roll_modifier_reads_its_argument_as_the_plugins_hook_spells_it(toy_plugin: None) -> None:
    """DICE-2: each modifier with its reason; the reason's argument as the plug-in names it."""
    texts = (TEXT,)
    assert roll_modifiers_text((("assistant:ana", 2),), 12, "en", texts) == ", +2 (assistant ANA) = 12"
    assert roll_modifiers_text((("assistant:ana", 2),), 12, "en") == ", +2 (assistant ana) = 12"


def test_exo_names_its_crew_by_station_through_its_own_hook_EXO_1_5() -> None:
    """The shared account knows no crew: exo's hook names an NPC crew member by station (EXO-1.5), also in the
    shared roll exo fills (``exo.assist``)."""
    assert not hasattr(account, "crew_name") and not hasattr(account, "CREW_FIELDS")
    roll = RollMade(
        rule="EXO-1.5",
        purpose="assist",
        sides=10,
        dice=(4,),
        detail=(("purpose_key", "exo.assist"), ("crew", "gunner-2"), ("lead", "pilot"), ("station", "pilot")),
    )
    text = describe(roll, None, "es")
    assert "artillero 2" in text and "piloto" in text and "gunner" not in text


@pytest.mark.parametrize("pid", [p.id for p in PLUGINS])
def test_every_text_module_exposes_one_event_text(pid: str) -> None:
    """The same shape as an order panel, a record sheet and a render overlay: ``TEXT``, an instance of the base
    class, or no module at all."""
    name = plugin_module(pid, "text")
    try:
        module = importlib.import_module(name)
    except ModuleNotFoundError as exc:
        assert exc.name == name
        assert text_for(pid) is None
        return
    assert isinstance(vars(module).get("TEXT"), EventText)
    assert text_for(pid) is vars(module)["TEXT"]
