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
# Discord's limits
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
LABELS_KEPT = 1024  # option lists: a few per unit of the encounters under way


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
