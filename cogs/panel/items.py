"""The panel message: its embed, its controls as persistent ``DynamicItem``\\ s (one generic template for every
control of every ruleset, so a panel keeps working after a restart) and its preview image.

The item only acknowledges the click, hands it to :func:`cogs.panel.flow.click` and shows the answer: no game
rule lives here.
"""

from __future__ import annotations

import asyncio
import logging
import re
from dataclasses import dataclass
from typing import Any

import discord
from discord import ui

from bot.catchup import PanelNews
from bot.imaging import Superseded, previews_backed_up
from bot.logs import trace_id
from bot.names import shown_name
from bot.orders_reply import Pick
from bot.results import Refused
from bot.service.panel_click import LoadedPanel
from bot.storage import StorageError
from cogs.common import bot_of, lang, png_file
from cogs.panel.components import (
    FIELD_VALUE,
    TEMPLATE,
    ControlRef,
    panel_components,
    panel_embed,
    with_picker,
)
from cogs.panel.flow import click
from cogs.panel.preview import PREVIEW_NAME, preview_file
from data.i18n import t
from rules.errors import GameError

log = logging.getLogger(__name__)

#: Discord's limit on the characters of all of a message's embeds
EMBED_TOTAL = 6000
#: the file name of the catch-up's picture on a panel
CATCHUP_NAME = "catchup.png"


class PanelItem(ui.DynamicItem[ui.Item[Any]], template=TEMPLATE):
    """Any button or select of any panel; its custom id says which (:class:`ControlRef`)."""

    def __init__(self, item: ui.Item[Any]) -> None:
        super().__init__(item)
        ref = ControlRef.parse(getattr(item, "custom_id", None))
        if ref is None:
            raise ValueError(f"{item!r} is not a panel control")
        self.ref = ref

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: ui.Item[Any], match: re.Match[str], /
    ) -> PanelItem:
        return cls(item)

    async def callback(self, interaction: discord.Interaction) -> None:
        values = None
        if isinstance(self.item, ui.Select):
            values = tuple(str(v) for v in (interaction.data or {}).get("values", []))  # type: ignore[union-attr]
        bot = bot_of(interaction)
        # the panel as it is after the click, its preview drawn, is the click's acknowledgement when it is ready
        # soon enough (Discord's 3 s window, our 100 ms bar): one request instead of a deferral and then an edit.
        # When previews are queueing (a busy bot) it would not be: the click is acknowledged at once
        # and the panel edited once drawn. The flow checks ownership before anything else, and a refusal is
        # private either way.
        answer = asyncio.ensure_future(_answer(interaction, self.ref, values))
        within = 0.0 if previews_backed_up() else bot.panel_answer_within
        try:
            if within <= 0 or not (await asyncio.wait({answer}, timeout=within))[0]:
                await interaction.response.defer()
        except BaseException:
            # Discord refused the acknowledgement (or the bot is closing): nobody to show the answer to
            answer.add_done_callback(_unshown)
            raise
        try:
            shown = await answer
        # a store refusal is a race past the service's checks (the encounter ended as the order went in)
        except (GameError, Refused, StorageError) as exc:
            await bot.reply_error(interaction, exc)
            return
        await _show(interaction, shown)


def panel_view(panel: LoadedPanel, locale: str, picks: tuple[Pick, ...] = ()) -> ui.View:
    """The panel's controls; with ``picks``, under a picker that switches the message to another of the
    player's units acting now (when the panel leaves it a row)."""
    view = ui.View(timeout=None)
    components = panel_components(
        panel.model, locale, encounter_id=panel.encounter_id, phase_no=panel.phase_no
    )
    if picks:
        picked = with_picker(
            components, picks, panel.model.unit_id, encounter_id=panel.encounter_id, phase_no=panel.phase_no
        )
        components = picked if picked is not None else components
    for component in components:
        view.add_item(PanelItem(component) if ControlRef.parse(component.custom_id) else component)
    # nothing to listen for: every control is a PanelItem, dispatched by its custom id whatever the message. A
    # view still listening is kept by discord.py's view store for its message, forever (one per panel sent or
    # edited); a stopped one only lays out the components
    view.stop()
    return view


def fits_picker(panel: LoadedPanel, picks: tuple[Pick, ...], locale: str) -> bool:
    """Whether the panel leaves its message a row for the unit picker."""
    components = panel_components(
        panel.model, locale, encounter_id=panel.encounter_id, phase_no=panel.phase_no
    )
    return with_picker(components, picks, panel.model.unit_id, encounter_id=0, phase_no=0) is not None


async def panel_message(
    panel: LoadedPanel,
    locale: str,
    coalesce: int | None = None,
    picks: tuple[Pick, ...] = (),
    news: PanelNews | None = None,
    *,
    preview: bool = True,
) -> dict[str, Any]:
    """Keyword arguments for send/edit: embed, view and ``files`` (the private preview image, when there is one).
    ``coalesce``: the id of the panel message being edited (see :func:`preview_file`); ``picks``: the units
    the message switches between (:func:`panel_view`); ``news``: the catch-up the panel opens with
    (``bot.catchup.panel_news``): its first field, and its picture beside the preview (in its place when the
    panel has none); ``preview``: False leaves the preview out (it comes with the player's first click)."""
    embed = panel_embed(panel.model, locale, submitted=panel.submitted, deadline=panel.deadline)
    files: list[discord.File] = []
    if news is not None:
        with_news(embed, news.text, locale)
        if news.picture is not None:
            files.append(png_file(news.picture, CATCHUP_NAME, description=news.alt))
    drawn = (
        await preview_file(panel, locale, None if coalesce is None else ("panel", coalesce))
        if preview
        else None
    )
    if drawn is not None:
        embed.set_image(url=f"attachment://{PREVIEW_NAME}")
        files.insert(0, drawn)
    elif files:
        embed.set_image(url=f"attachment://{CATCHUP_NAME}")
    return {"embed": embed, "view": panel_view(panel, locale, picks), "files": files}


def with_news(embed: discord.Embed, text: str, locale: str) -> None:
    """The catch-up as the embed's first field, unless the embed would then pass Discord's limit on all of a
    message's embeds: the panel's own contents come first, and the catch-up gives way."""
    embed.insert_field_at(0, name=t("catchup.panel", locale), value=text[:FIELD_VALUE], inline=False)
    if len(embed) > EMBED_TOTAL:
        embed.remove_field(0)


def _unshown(answer: asyncio.Future[Shown | None]) -> None:
    """A click whose acknowledgement Discord refused still did what it did (an order stored is kept: the player,
    told nothing, gives it again, which amends it); what it would have shown is dropped, and only logged."""
    if answer.cancelled():
        return
    error = answer.exception()
    if isinstance(error, GameError | Refused):
        log.info("refusal of an unacknowledged click dropped: %s", type(error).__name__)
    elif error is not None:
        log.warning("unacknowledged click failed trace=%s", trace_id(), exc_info=error)


@dataclass(frozen=True, slots=True)
class Shown:
    """What a click shows: the panel message's new embed, view and preview, and after a Submit the private
    text telling the player their order is stored."""

    edit: dict[str, Any]
    acknowledged: str = ""


async def _answer(
    interaction: discord.Interaction, ref: ControlRef, values: tuple[str, ...] | None
) -> Shown | None:
    """The click's effect and the panel after it (None: a newer click on the panel came before its preview was
    drawn; that one shows it)."""
    clicked = await click(interaction, ref, values)
    locale = lang(interaction)
    panel = clicked.panel
    message = interaction.message
    if clicked.acknowledged:
        # the draft did not change: keep the preview image already on the panel, update the text and buttons
        embed = panel_embed(
            panel.model, locale, submitted=True, deadline=panel.deadline, footer=clicked.footer or None
        )
        if message is not None and message.attachments:
            embed.set_image(url=f"attachment://{message.attachments[0].filename}")
        text = (
            "" if clicked.quiet else t(clicked.acknowledged, locale, unit=shown_name(panel.model.unit_name))
        )
        edit: dict[str, Any] = {"embed": embed, "view": panel_view(panel, locale, clicked.picks)}
        if clicked.picks:  # a message for several units says it in its own text: no private message more
            edit["content"] = text or None
            return Shown(edit)
        return Shown(edit, text)
    try:
        edit = await panel_message(panel, locale, None if message is None else message.id, clicked.picks)
    except Superseded:
        return None
    edit["attachments"] = edit.pop("files")
    return Shown(edit)


async def _show(interaction: discord.Interaction, shown: Shown | None) -> None:
    """The panel the click came from, as the click's answer when it is not acknowledged yet, else edited through
    the interaction's webhook (works for DMs and ephemerals); then the Submit's private acknowledgement."""
    if not interaction.response.is_done():
        if shown is None:
            await interaction.response.defer()  # superseded: the newer click shows the panel
        else:
            await interaction.response.edit_message(**shown.edit)
    elif shown is None:
        return
    elif interaction.message is None:
        await interaction.edit_original_response(**shown.edit)
    else:
        await interaction.followup.edit_message(interaction.message.id, **shown.edit)
    if shown is not None and shown.acknowledged:
        try:
            await interaction.followup.send(shown.acknowledged, ephemeral=True)
        except discord.HTTPException:  # the order is stored: the panel says so all the same
            log.warning("order acknowledgement refused user=%s", interaction.user.id)
