"""Any panel model as Discord parts: the embed, and its controls as buttons and selects whose custom ids carry
everything a click needs, ``hexd:enc:{encounter}:phase:{phase}:unit:{unit}:{action}`` (the phase the panel was
built for: a click from a phase that is over is refused), plus the disabled button that carries the draft.
No I/O and no ruleset here."""

from __future__ import annotations

import re
from collections import OrderedDict
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import discord
from discord import ui

from bot.names import escape_markdown, shown_name
from bot.orders_reply import Pick
from bot.panels.draft import CUSTOM_ID_LIMIT, encode_draft
from bot.panels.model import Button, Control, Option, PanelModel, Select, Style
from data.i18n import phase_text, t

#: every control of every panel; ``phase`` is missing only from panels sent before it was carried (stale)
TEMPLATE = (
    r"hexd:enc:(?P<enc>\d{1,18}):(?:phase:(?P<phase>\d{1,9}):)?"
    r"unit:(?P<unit>[A-Za-z0-9_\-]{1,32}):(?P<action>[A-Za-z][A-Za-z0-9_\-]{0,19})"
)
_CONTROL_ID = re.compile(TEMPLATE)
STYLES: dict[Style, discord.ButtonStyle] = {
    "primary": discord.ButtonStyle.primary,
    "secondary": discord.ButtonStyle.secondary,
    "success": discord.ButtonStyle.success,
    "danger": discord.ButtonStyle.danger,
}
#: the action of a unit picker's button: the message shows that unit's panel instead (its guards as any click's)
PICK = "pick"
# Discord's limits
ROWS, ROW_WIDTH = 5, 5  # component rows in a message; a select fills a row, a button takes one place
BUTTON_LABEL, OPTION_LABEL, PLACEHOLDER = 80, 100, 150
TITLE, DESCRIPTION, FIELD_NAME, FIELD_VALUE, FOOTER = 256, 4096, 256, 1024, 2048


@dataclass(frozen=True, slots=True)
class ControlRef:
    """What a control's custom id says: which encounter, phase, unit and control."""

    encounter_id: int
    phase_no: int | None  # None: a panel from before custom ids carried the phase
    unit_id: str
    action: str

    @property
    def custom_id(self) -> str:
        cid = f"hexd:enc:{self.encounter_id}:phase:{self.phase_no}:unit:{self.unit_id}:{self.action}"
        if len(cid) > CUSTOM_ID_LIMIT or not _CONTROL_ID.fullmatch(cid):
            raise ValueError(
                f"{cid!r} is not a control id Discord and the panel accept (at most 100 characters)"
            )
        return cid

    @classmethod
    def parse(cls, custom_id: str | None) -> ControlRef | None:
        m = _CONTROL_ID.fullmatch(custom_id or "")
        if m is None:
            return None
        phase = m["phase"]
        return cls(int(m["enc"]), int(phase) if phase else None, m["unit"], m["action"])


def panel_embed(
    model: PanelModel,
    locale: str,
    *,
    submitted: bool,
    deadline: datetime | None = None,
    footer: str | None = None,
) -> discord.Embed:
    """The panel's embed; ``footer``: the i18n key of its footer (by default, whether its order is in)."""
    when = (
        model.when.render(locale)
        if model.when is not None
        # a panel whose maker named no step: its phase from the catalogs, not its id
        else t(
            "render.round_phase",
            locale,
            round=model.round,
            phase=phase_text(model.ruleset, model.phase, locale),
        )
    )
    # the round and the step by name, one number for the phase as players count it
    title = t("panel.title", locale, unit=shown_name(model.unit_name), when=when)
    lines = [line.render(locale, markdown=True) for line in model.lines]
    if deadline is not None:  # a Discord timestamp: every reader sees it in their own time zone
        lines.append(t("panel.deadline", locale, when=discord.utils.format_dt(deadline, "R")))
    embed = discord.Embed(
        title=title[:TITLE],
        description="\n".join(lines)[:DESCRIPTION],
        colour=discord.Colour.dark_teal(),
    )
    for stat in model.stats:
        value = (
            escape_markdown(stat.value)
            if isinstance(stat.value, str)
            else stat.value.render(locale, markdown=True)
        )
        embed.add_field(name=t(f"stat.{stat.name}", locale)[:FIELD_NAME], value=value[:FIELD_VALUE] or "-")
    for field in model.fields:
        value = "\n".join(line.render(locale, markdown=True) for line in field.lines)
        embed.add_field(
            name=field.name.render(locale, markdown=True)[:FIELD_NAME],
            value=value[:FIELD_VALUE] or "-",
            inline=False,
        )
    footer = footer or ("panel.submitted" if submitted else "panel.not_submitted")
    embed.set_footer(text=t(footer, locale)[:FOOTER])
    return embed


def panel_components(
    model: PanelModel, locale: str, *, encounter_id: int, phase_no: int
) -> list[ui.Button[Any] | ui.Select[Any]]:
    """The model's controls in its order (Discord lays them out: a select takes a row, buttons share one), then
    the disabled button carrying the draft. A panel that waits has none."""
    if model.waiting:
        return []
    out: list[ui.Button[Any] | ui.Select[Any]] = []
    for control in model.controls:
        ref = ControlRef(encounter_id, phase_no, model.unit_id, control.action)
        made = _component(control, ref.custom_id, locale)
        if made is not None:
            out.append(made)
    draft_id = encode_draft(model.draft, phase_no)
    out.append(ui.Button(label=(model.summary or "·")[:BUTTON_LABEL], custom_id=draft_id, disabled=True))
    return out


def _component(control: Control, custom_id: str, locale: str) -> ui.Button[Any] | ui.Select[Any] | None:
    if isinstance(control, Button):
        return ui.Button(
            label=control.label.render(locale)[:BUTTON_LABEL],
            style=STYLES[control.style],
            custom_id=custom_id,
            disabled=not control.enabled,
        )
    return _select(control, custom_id, locale)


def _select(select: Select, custom_id: str, locale: str) -> ui.Select[Any] | None:
    if not select.options:
        return None
    count = len(select.options)
    options = [
        discord.SelectOption(label=label, value=o.value, default=o.value in select.chosen)
        for o, label in zip(select.options, option_labels(select.options, locale), strict=True)
    ]
    return ui.Select(
        custom_id=custom_id,
        options=options,
        placeholder=select.placeholder.render(locale)[:PLACEHOLDER] or None,
        min_values=min(select.min_values, count),
        max_values=max(1, min(select.max_values, count)),
        disabled=not select.enabled,
    )


_LABELS: OrderedDict[tuple[int, str], tuple[tuple[Option, ...], tuple[str, ...]]] = OrderedDict()
LABELS_KEPT = 8192  # option lists: a few per unit of the thousand encounters under way


def option_labels(options: tuple[Option, ...], locale: str) -> tuple[str, ...]:
    """Each option's words in ``locale``. A select of 25 options was rendered anew for every click and panel, a
    tenth of a click's work at 100 encounters; plug-ins hand out the same options tuple while the state
    is unchanged (bot/panels/memo.py), so the labels are kept by its identity (the tuple is held with them, so an
    identity is never reused while kept)."""
    key = (id(options), locale)
    hit = _LABELS.get(key)
    if hit is not None and hit[0] is options:
        _LABELS.move_to_end(key)
        return hit[1]
    labels = tuple(o.text.render(locale)[:OPTION_LABEL] for o in options)
    _LABELS[key] = (options, labels)
    if len(_LABELS) > LABELS_KEPT:
        _LABELS.popitem(last=False)
    return labels


def with_picker(
    components: list[ui.Button[Any] | ui.Select[Any]],
    picks: tuple[Pick, ...],
    shown: str,
    *,
    encounter_id: int,
    phase_no: int,
) -> list[ui.Button[Any] | ui.Select[Any]] | None:
    """The panel's ``components`` with a button per unit of ``picks`` (the one ``shown`` marked, each unit whose
    order is in ticked): on a first row of their own, the panel's laid out a row lower than Discord would put
    them alone; when the panel takes every row, at the end of its row of buttons if they fit there. None when
    they fit nowhere (the panel then goes without the picker)."""
    buttons: list[ui.Button[Any] | ui.Select[Any]] = []
    for pick in picks:
        label = f"{shown_name(pick.name)} ✅" if pick.submitted else shown_name(pick.name)
        ref = ControlRef(encounter_id, phase_no, pick.unit_id, PICK)
        style = discord.ButtonStyle.primary if pick.unit_id == shown else discord.ButtonStyle.secondary
        buttons.append(ui.Button(label=label[:BUTTON_LABEL], style=style, custom_id=ref.custom_id))
    rows = _layout(components)
    if not rows or max(rows) + 1 < ROWS:
        for button in buttons:
            button.row = 0
        for component, row in zip(components, rows, strict=True):
            component.row = row + 1
        return buttons + components
    if max(_layout(components + buttons)) >= ROWS:
        return None
    return components + buttons


def _layout(components: list[ui.Button[Any] | ui.Select[Any]]) -> list[int]:
    """The row Discord's automatic layout gives each component: the first with room for it."""
    widths = [0] * ROWS
    rows: list[int] = []
    for component in components:
        width = ROW_WIDTH if isinstance(component, ui.Select) else 1
        row = next((r for r in range(ROWS) if widths[r] + width <= ROW_WIDTH), ROWS)
        if row < ROWS:
            widths[row] += width
        rows.append(row)
    return rows


def has_picker(message: discord.Message | None) -> bool:
    """Whether a panel message carries a unit picker (its clicks show it again, kept up to date)."""
    if message is None:
        return False
    for row in message.components:
        for child in getattr(row, "children", ()):
            ref = ControlRef.parse(getattr(child, "custom_id", None))
            if ref is not None and ref.action == PICK:
                return True
    return False
