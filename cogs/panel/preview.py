"""The private preview image of a panel: what the plug-in says the draft would do, drawn off the event loop."""

from __future__ import annotations

from collections.abc import Hashable

import discord

from bot.alt_text import preview_alt
from bot.imaging import preview_png
from bot.offloop import off_loop
from bot.service.panel_click import LoadedPanel
from cogs.common import png_file

PREVIEW_NAME = "preview.png"


async def preview_file(
    panel: LoadedPanel, locale: str, coalesce: Hashable | None = None
) -> discord.File | None:
    """The preview for the panel's draft (None: the plug-in shows none now, or it could not be drawn).
    ``coalesce``: the panel message's key; raises :class:`bot.imaging.Superseded` when a newer click on the same
    panel asked for a preview before this one was drawn (that click shows the panel)."""
    model = panel.model
    if model.waiting:
        return None
    shown = await off_loop(panel.plugin.preview, panel.state, model)  # the plug-in may trace its path
    if shown is None:
        return None
    png = await preview_png(
        panel.state,
        model.unit_id,
        shown.path,
        shown.facing,
        shown.vector,
        viewer=model.side,
        locale=locale,
        highlight=shown.highlight,
        coalesce=coalesce,
        scheme=panel.scheme,
    )
    if png is None:
        return None
    return png_file(
        png, PREVIEW_NAME, description=preview_alt(panel.state, model.unit_id, shown.path, locale)
    )
