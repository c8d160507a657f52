"""A unit's panel for a user, from storage (built by the service, bot/service/panel_click.py), and the draft a panel
message carries."""

from __future__ import annotations

from typing import TYPE_CHECKING

import discord

from bot.panels.draft import Draft, decode_draft
from bot.permissions import Actor
from bot.service import Reading
from bot.service.panel_click import ClickRefused, LoadedPanel, PanelRequest, open_panel

__all__ = ["LoadedPanel", "load_panel", "stored_draft"]

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


def stored_draft(message: discord.Message | None) -> tuple[int, Draft] | None:
    """The draft a panel message carries (its disabled ``hexd:draft:`` button), with the phase it is for."""
    if message is None:
        return None
    for row in message.components:
        for child in getattr(row, "children", ()):
            cid = getattr(child, "custom_id", None)
            found = decode_draft(cid) if isinstance(cid, str) else None
            if found is not None:
                return found
    return None
