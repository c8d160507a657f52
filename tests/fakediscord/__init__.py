"""An in-process fake Discord (REST v10 + gateway on 127.0.0.1) for end-to-end tests of discord.py bots."""

from __future__ import annotations

from .commands import InvocationError
from .errors import DiscordAPIError
from .people import InteractionHandle, NoResponse, Person
from .server import FakeDiscord
from .state import Attachment, Channel, Guild, Member, Message, Role, User

__all__ = [
    "Attachment",
    "Channel",
    "DiscordAPIError",
    "FakeDiscord",
    "Guild",
    "InteractionHandle",
    "InvocationError",
    "Member",
    "Message",
    "NoResponse",
    "Person",
    "Role",
    "User",
]
