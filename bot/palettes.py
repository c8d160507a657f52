"""Which colour scheme a picture is drawn in (render/options.py SCHEMES): a picture only one person sees (their DM
boards, their previews, the arcs they ask for) in the scheme they chose with ``/settings palette``; a public post
in the server's default, set by members with Manage Server. Nobody's choice changes what others see."""

from __future__ import annotations

from typing import Protocol

from bot.storage import GuildSettings
from bot.storage.base import Storage
from render.options import CONTRAST, SCHEMES, STANDARD

__all__ = ["CONTRAST", "SCHEMES", "STANDARD", "private_scheme", "public_scheme"]


class _Settings(Protocol):
    async def guild_settings(self, guild_id: int) -> GuildSettings: ...


async def private_scheme(storage: Storage, user_id: int) -> str:
    """The scheme of the pictures only ``user_id`` sees: theirs, else the standard one."""
    chosen = await storage.get_user_palette(user_id)
    return chosen if chosen in SCHEMES else STANDARD


async def public_scheme(service: _Settings, guild_id: int) -> str:
    """The scheme of the server's public posts: its default, else the standard one."""
    chosen = (await service.guild_settings(guild_id)).palette
    return chosen if chosen in SCHEMES else STANDARD
