"""The private order panel as data, the same for every ruleset: a header, lines of text, stats and fields, and
the controls (buttons, selects) a player may use now. Pure (no Discord): a panel plug-in (``bot/panels/<id>.py``)
builds it, and the Discord layer (``cogs/panel/``) draws any of them the same way.

Text is never formatted here: a :class:`Text` is an i18n key with parameters (or a literal), turned into words
in the reader's language when the panel is drawn.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from bot.names import escape_markdown
from bot.panels.draft import Draft
from data.i18n import t
from render.phase import resolved_label
from rules.hexgrid import Hex
from rules.state import EncounterState

WAIT = "wait"  # the step of a panel that takes no orders now: no controls, clicks are refused
SUBMIT = "submit"  # the action id of the Submit button
MAX_OPTIONS = 25  # Discord: options in one select menu

Style = Literal["primary", "secondary", "success", "danger"]


@dataclass(frozen=True, slots=True)
class Text:
    """Words for the reader: ``key`` looked up in the locale catalogs, or ``literal`` as it is; ``params`` fill
    in either (a parameter may itself be a :class:`Text`, translated first)."""

    key: str = ""
    params: tuple[tuple[str, str | Text], ...] = ()
    literal: str = ""

    @classmethod
    def of(cls, key: str, **params: str | Text) -> Text:
        return cls(key, tuple(params.items()))

    @classmethod
    def plain(cls, literal: str, **params: str | Text) -> Text:
        """A literal (names, codes); with ``params`` it is a ``str.format`` template."""
        return cls("", tuple(params.items()), literal)

    def render(self, locale: str, *, markdown: bool = False) -> str:
        """The words in ``locale``. ``markdown`` (an embed's text): each parameter given as text, a name or a code
        the rules wrote, is escaped so it reads as itself (bot/names.py); the catalogs' own words are not."""
        values = {
            name: v.render(locale, markdown=markdown)
            if isinstance(v, Text)
            else escape_markdown(v)
            if markdown
            else v
            for name, v in self.params
        }
        if self.key:
            return t(self.key, locale, **values)
        return self.literal.format(**values) if values else self.literal


@dataclass(frozen=True, slots=True)
class Option:
    """One choice of a select. ``label`` is readable as it is (a unit name, a weapon code); with ``key`` it is
    shown in that i18n frame as ``{target}``, next to ``params`` (which may override ``target``)."""

    value: str
    label: str
    key: str = ""
    params: tuple[tuple[str, str | Text], ...] = ()
    #: the words shown, made once: panels read them for every option on every click
    text: Text = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        words = (
            Text.plain(self.label) if not self.key else Text(self.key, (("target", self.label), *self.params))
        )
        object.__setattr__(self, "text", words)

    def param(self, name: str) -> str:
        """A plain parameter's value ("" when absent or not plain)."""
        value = dict(self.params).get(name, "")
        return value if isinstance(value, str) else ""


@dataclass(frozen=True, slots=True)
class Button:
    action: str
    label: Text
    style: Style = "secondary"
    enabled: bool = True
    submits: bool = False  # the press sends the order (after applying itself to the draft)
    #: a Submit acknowledged by the panel's own edit alone, with no private message of its own: an answer that
    #: changes nothing (keeping a declared intention) is told by the panel it came from
    quiet: bool = False


@dataclass(frozen=True, slots=True)
class Select:
    action: str
    placeholder: Text
    options: tuple[Option, ...]
    chosen: tuple[str, ...] = ()
    min_values: int = 0
    max_values: int = 1
    enabled: bool = True


Control = Button | Select


def submit_button(*, enabled: bool = True) -> Button:
    return Button(SUBMIT, Text.of("panel.submit"), "success", enabled=enabled, submits=True)


@dataclass(frozen=True, slots=True)
class Stat:
    """A short figure shown inline; its name is the i18n key ``stat.{name}``."""

    name: str
    value: str | Text


@dataclass(frozen=True, slots=True)
class Field:
    """A titled block under the stats (what the draft holds so far): one line per :class:`Text`."""

    name: Text
    lines: tuple[Text, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class PanelModel:
    unit_id: str
    unit_name: str
    side: str
    round: int
    phase: str
    ruleset: str = ""  # whose catalog names the phase (``phase.<ruleset>.<phase>``)
    draft: Draft = field(default_factory=Draft)
    step: str = WAIT
    lines: tuple[Text, ...] = ()
    stats: tuple[Stat, ...] = ()
    fields: tuple[Field, ...] = ()
    controls: tuple[Control, ...] = ()
    summary: str = ""  # the draft in a few characters, on the panel's draft button
    when: Text | None = None  # "Ronda 4 · Fase 3 · Combate" (None: only the round and the phase id are known)
    #: the raw order the draft amounts to, when the plug-in works it out while building the panel (its
    #: ``raw_order`` may hand it back: a draft may need the board to be read, and ``raw_order`` gets no state)
    order: Any = field(default=None, compare=False)

    @property
    def waiting(self) -> bool:
        return self.step == WAIT

    def control(self, action: str) -> Control | None:
        return next((c for c in self.controls if c.action == action), None)

    def options(self, action: str) -> tuple[Option, ...]:
        """The options of the select ``action`` (none when it is not offered)."""
        found = self.control(action)
        return found.options if isinstance(found, Select) else ()

    def stat(self, name: str) -> str | Text | None:
        return next((s.value for s in self.stats if s.name == name), None)


def phase_text(state: EncounterState, round_no: int, phase: str) -> Text:
    """``Ronda 4 · Fase 3 · Combate`` in the reader's language: one phase number, with the phase's name
    (the same words as ``render.phase.phase_title``)."""
    label = resolved_label(state, phase)
    if label.key:
        name = Text.of(label.key, **dict(label.params))
        if label.number is not None:
            return Text.of(
                "render.round_phase_named", round=str(round_no), number=str(label.number), name=name
            )
        return Text.of("render.round_named", round=str(round_no), name=name)
    if not phase:
        return Text.of("render.round_only", round=str(round_no))
    return Text.of("render.round_phase", round=str(round_no), phase=phase)


def blank_panel(state: EncounterState, unit_id: str) -> PanelModel:
    """The header of ``unit_id``'s panel, waiting with an empty draft; a plug-in fills in the rest."""
    unit = state.units[unit_id]
    return PanelModel(
        unit_id=unit_id,
        unit_name=unit.name,
        side=unit.side,
        round=state.round,
        phase=state.phase,
        when=phase_text(state, state.round, state.phase),
        ruleset=state.ruleset,
    )


@dataclass(frozen=True, slots=True)
class Card:
    """A public summary a plug-in adds to a step's channel post (ocs: one combat with every figure, OCS-7): a
    title and named figures, each an i18n :class:`Text`, shown in the channel's language."""

    title: Text
    fields: tuple[tuple[Text, Text], ...] = ()
    description: Text | None = None


@dataclass(frozen=True, slots=True)
class Preview:
    """What the private preview image highlights: the projected path, the facing at its end, when the
    ruleset has one, the vector the unit will carry, and hexes to light up (the arcs of the weapons chosen)."""

    path: tuple[Hex, ...]
    facing: int
    vector: Hex | None = None
    highlight: tuple[Hex, ...] = ()
