"""A unit's panel for a user, from storage (built by the service, bot/service/panel_click.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.panels.draft import Draft
from bot.permissions import Actor
from bot.service import Reading
from bot.service.panel_click import ClickRefused, LoadedPanel, PanelRequest, open_panel

__all__ = ["LoadedPanel", "load_panel"]

if TYPE_CHECKING:
    from bot.process.client import HexBotCore


async def load_panel(
    bot: HexBotCore,
    encounter_id: int,
    user_id: int,
    unit_id: str,
    stored: tuple[int, Draft] | None,
    guild_id: int | None,
    *,
    reading: Reading | None = None,
    actor: Actor | None = None,
) -> LoadedPanel:
    """The panel of ``unit_id`` for ``user_id``, from storage, to open (``/orders``, a DM panel); the service's
    guards refuse a unit that is not theirs (the director's pseudo-unit of a director-run mode is a director's:
    ``actor`` carries what Discord knows of the member)."""
    request = PanelRequest(encounter_id, unit_id, actor or Actor(user_id), guild_id=guild_id, stored=stored)
    opened = await open_panel(bot.service, request, reading=reading)
    if isinstance(opened, ClickRefused):
        raise opened.error
    return opened.panel
