"""Helpers every cog shares: who is acting, in which language, the encounter of this channel, argument
transformers, and replies that respect Discord's limits. Not an extension (no ``setup``)."""

from __future__ import annotations

import io
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands

from bot.permissions import Actor
from bot.results import refuse
from bot.storage import Encounter
from data.i18n import language_of, t
from rules.errors import GameError
from rules.hexgrid import Hex
from rules.state import EncounterState

if TYPE_CHECKING:
    from bot.process.client import HexBotCore

EMBED_DESCRIPTION_LIMIT = 4096
CONTENT_LIMIT = 2000
ACCOUNT_INLINE_LIMIT = 3500  # longer accounts go out as a text file (DESIGN §4 limits)


def bot_of(interaction: discord.Interaction) -> HexBotCore:
    return interaction.client  # type: ignore[return-value]


def lang(interaction: discord.Interaction) -> str:
    return language_of(interaction.locale.value)


def actor_of(interaction: discord.Interaction) -> Actor:
    user = interaction.user
    roles: list[discord.Role] = list(getattr(user, "roles", []))
    perms = interaction.permissions
    return Actor(
        user_id=user.id,
        role_ids=frozenset(r.id for r in roles),
        role_names=frozenset(r.name for r in roles),
        manage_guild=bool(interaction.guild is not None and (perms.manage_guild or perms.administrator)),
        locale=lang(interaction),
    )


async def encounter_here(interaction: discord.Interaction) -> Encounter:
    """The encounter of the channel (or thread) the command was given in. In a channel whose encounter runs in a
    thread of its own, the refusal names that thread."""
    if interaction.guild_id is None or interaction.channel_id is None:
        raise refuse("encounter.guild_only", "Use this in the encounter's channel.")
    service = bot_of(interaction).service
    try:
        return await service.in_channel(interaction.guild_id, interaction.channel_id)
    except GameError as exc:
        if exc.code != "encounter.none":
            raise
        threads = await threads_of(interaction, interaction.guild_id, interaction.channel_id)
        if not threads:
            raise
        raise refuse(
            "encounter.in_thread",
            "This channel's encounter runs in its own thread {thread}: use the commands there.",
            thread=", ".join(f"<#{i}>" for i in threads),
        ) from None


async def threads_of(interaction: discord.Interaction, guild_id: int, channel_id: int) -> list[int]:
    """The threads of the interaction's channel that run an encounter (``/encounter new thread:True``); the
    channel's threads come from discord.py's cache, so a channel without threads costs no query."""
    channel = interaction.channel
    if not isinstance(channel, discord.TextChannel) or channel.id != channel_id:
        return []
    storage = bot_of(interaction).service.storage
    return [
        thread.id
        for thread in channel.threads
        if await storage.active_encounter_in_channel(guild_id, thread.id) is not None
    ]


async def remember_locale(interaction: discord.Interaction, encounter_id: int) -> None:
    """DMs sent later (panels, questions) use the language the player last used with the bot."""
    bot = bot_of(interaction)
    meta = await bot.service.storage.get_encounter(encounter_id)
    key = f"locale_{interaction.user.id}"
    if meta.settings.get(key) != lang(interaction):
        await bot.service.storage.update_settings(encounter_id, **{key: lang(interaction)})


class HexTransformer(app_commands.Transformer):
    """``"0507"`` or ``"5,7"`` → ``Hex`` (HEX-1); anything else fails with a message the user can act on."""

    async def transform(self, interaction: discord.Interaction, value: str) -> Hex:
        try:
            return Hex.parse(value.strip())
        except ValueError:
            raise refuse(
                "hex.bad", f"{value!r} is not a hex: write it as 0507 or 5,7.", value=value[:20]
            ) from None


def text_file(text: str, name: str) -> discord.File:
    return discord.File(io.BytesIO(text.encode("utf-8")), filename=name)


def png_file(data: bytes, name: str = "board.png", *, description: str | None = None) -> discord.File:
    """A picture to attach; ``description``: its alt text (bot/alt_text.py), read by screen readers."""
    return discord.File(io.BytesIO(data), filename=name, description=description)


def clip(text: str, limit: int = CONTENT_LIMIT) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


async def reply(
    interaction: discord.Interaction, text: str, *, ephemeral: bool = True, **kwargs: Any
) -> None:
    """Send ``text`` as the response or, when already acknowledged, as a follow-up."""
    if interaction.response.is_done():
        await interaction.followup.send(clip(text), ephemeral=ephemeral, **kwargs)
    else:
        await interaction.response.send_message(clip(text), ephemeral=ephemeral, **kwargs)


def tr_text(interaction: discord.Interaction, key: str, **params: Any) -> str:
    return t(key, lang(interaction), **params)


CHANNEL_LANG = "channel_lang"  # encounter setting: the language fixed for the channel when it was created


async def channel_language(bot: HexBotCore, meta: Encounter) -> str:
    """The language of everything the encounter posts in public: the server's setting (it applies at once),
    else the director's locale when the encounter was created (fixed), so one English-client player never turns
    a Spanish table's channel English."""
    settings = await bot.service.guild_settings(meta.guild_id)
    if settings.language:
        return language_of(settings.language)
    fixed = meta.settings.get(CHANNEL_LANG)
    if isinstance(fixed, str):
        return language_of(fixed)
    guild = bot.get_guild(meta.guild_id)
    return language_of(guild.preferred_locale.value if guild else None)


async def public_language(interaction: discord.Interaction) -> str:
    """The language of a public answer in the interaction's channel: its encounter's channel language, else the
    server's setting, else the server's own locale; in a DM, the person's. A post the whole table reads never
    follows the client of whoever gave the command."""
    guild_id, channel_id = interaction.guild_id, interaction.channel_id
    if guild_id is None or channel_id is None:
        return lang(interaction)
    bot = bot_of(interaction)
    meta = await bot.service.storage.active_encounter_in_channel(guild_id, channel_id)
    if meta is not None:
        return await channel_language(bot, meta)
    settings = await bot.service.guild_settings(guild_id)
    if settings.language:
        return language_of(settings.language)
    locale = interaction.guild_locale
    return language_of(locale.value if locale is not None else None)


MAX_CHOICES = 25  # Discord: choices in one autocomplete answer


def choices(options: Iterable[tuple[str, str]], current: str) -> list[app_commands.Choice[str]]:
    """Autocomplete choices from (shown name, value) pairs: those whose name or value contains what was typed,
    names clipped to Discord's 100 characters, at most 25."""
    wanted = current.strip().lower()
    return [
        app_commands.Choice(name=name[:100], value=value)
        for name, value in options
        if wanted in f"{value} {name}".lower()
    ][:MAX_CHOICES]


async def state_here(interaction: discord.Interaction) -> EncounterState | None:
    """The channel's encounter state for an autocomplete (None when there is none: the answer is empty)."""
    try:
        meta = await encounter_here(interaction)
        return (await bot_of(interaction).service.read(meta.id)).state
    except GameError:
        return None
