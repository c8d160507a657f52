"""``/settings show|language|director-role|deadline|idle-reminder|open-limit|imports|palette``: a server's own settings (DESIGN §4, ``GuildSettings``).

Anyone may look (``show``); only members with Manage Server may change them, refused with a localized reason
before anything is written. ``palette`` is also each person's own: the colours of the pictures only they see. A change takes effect at once: the service replaces its cached copy on write, so the
channel's language (announcer), the director role (director checks) and the default deadline of phases opened
from now on follow it. Replies are ephemeral, in the reader's language.
"""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands

from bot.idle import IDLE_REMINDER_HOURS
from bot.palettes import CONTRAST, SCHEMES, STANDARD
from bot.process.client import HexBotCore
from bot.results import refuse
from bot.storage import GuildSettings
from bot.translator import tr
from cogs.common import actor_of, lang, reply
from data.i18n import language_of, t

MAX_DEADLINE_MINUTES = 10080  # a week, the same ceiling as /director deadline
MAX_OPEN_LIMIT = 100  # open encounters per member; each takes a channel
MAX_IDLE_HOURS = 720  # a month: a table that meets weekly may still want a nudge between sessions
AUTO = "auto"  # language: follow the server's preferred locale
LANGUAGE_CHOICES = [
    app_commands.Choice(name=tr("Español", "choice.language.es"), value="es"),
    app_commands.Choice(name=tr("English", "choice.language.en"), value="en"),
    app_commands.Choice(name=tr("auto (the server's language)", "choice.language.auto"), value=AUTO),
]
PALETTE_CHOICES = [
    app_commands.Choice(name=tr("standard colours", "choice.palette.standard"), value=STANDARD),
    app_commands.Choice(name=tr("high contrast", "choice.palette.contrast"), value=CONTRAST),
]


def _guild_id(interaction: discord.Interaction) -> int:
    if interaction.guild_id is None:
        raise refuse("settings.guild_only", "Server settings are changed in a server channel.")
    return interaction.guild_id


def _require_manager(interaction: discord.Interaction) -> int:
    """The guild id, once the member is known to hold Manage Server (or Administrator)."""
    guild_id = _guild_id(interaction)
    if not actor_of(interaction).manage_guild:
        raise refuse(
            "settings.manage_only", "Only members with Manage Server can change the server settings."
        )
    return guild_id


def _server_language(interaction: discord.Interaction) -> str:
    guild = interaction.guild
    return language_of(guild.preferred_locale.value if guild is not None else None)


def settings_text(settings: GuildSettings, locale: str, server_language: str) -> str:
    """The three settings, one line each, in ``locale``."""
    if settings.language:
        language = t(f"settings.language_name.{language_of(settings.language)}", locale)
    else:
        language = t(
            "settings.language_auto",
            locale,
            language=t(f"settings.language_name.{server_language}", locale),
        )
    role = (
        f"<@&{settings.director_role_id}>"
        if settings.director_role_id is not None
        else t("settings.role_none", locale)
    )
    deadline = (
        t("settings.deadline_minutes", locale, minutes=settings.default_deadline_minutes)
        if settings.default_deadline_minutes
        else t("settings.deadline_none", locale)
    )
    limit = settings.open_limit
    imports = "settings.imports_managers" if settings.import_managers_only else "settings.imports_directors"
    return "\n".join(
        (
            t("settings.head", locale),
            t("settings.show_language", locale, value=language),
            t("settings.show_role", locale, value=role),
            t("settings.show_deadline", locale, value=deadline),
            t("settings.show_open_limit", locale, value=limit or t("settings.open_limit_none", locale)),
            t("settings.show_imports", locale, value=t(imports, locale)),
            t("settings.show_idle", locale, hours=settings.idle_reminder_hours or IDLE_REMINDER_HOURS),
            t(
                "settings.show_palette",
                locale,
                value=t(f"choice.palette.{settings.palette or STANDARD}", locale),
            ),
        )
    )


class SettingsCog(
    commands.GroupCog,
    group_name=tr("settings", "cmd.settings.name"),
    group_description=tr("This server's hexdirector settings", "cmd.settings.desc"),
):
    def __init__(self, bot: HexBotCore) -> None:
        self.bot = bot
        super().__init__()

    async def _answer(self, interaction: discord.Interaction, text: str) -> None:
        await reply(interaction, text, allowed_mentions=discord.AllowedMentions.none())

    @app_commands.command(
        name=tr("show", "cmd.settings.show.name"),
        description=tr("Show this server's settings", "cmd.settings.show.desc"),
    )
    @app_commands.guild_only()
    async def show(self, interaction: discord.Interaction) -> None:
        settings = await self.bot.service.guild_settings(_guild_id(interaction))
        await self._answer(
            interaction, settings_text(settings, lang(interaction), _server_language(interaction))
        )

    @app_commands.command(
        name=tr("language", "cmd.settings.language.name"),
        description=tr("The language of the encounter channels", "cmd.settings.language.desc"),
    )
    @app_commands.describe(language=tr("es, en or auto (the server's language)", "cmd.settings.language.opt"))
    @app_commands.choices(language=LANGUAGE_CHOICES)
    @app_commands.guild_only()
    async def language(self, interaction: discord.Interaction, language: str) -> None:
        guild_id = _require_manager(interaction)
        if language not in ("es", "en", AUTO):
            raise refuse("settings.bad_language", "The language is es, en or auto.", value=language[:20])
        await self.bot.service.change_guild_settings(
            guild_id, language=None if language == AUTO else language
        )
        locale = lang(interaction)
        if language == AUTO:
            name = t(f"settings.language_name.{_server_language(interaction)}", locale)
            await self._answer(interaction, t("settings.language_auto_set", locale, language=name))
        else:
            name = t(f"settings.language_name.{language}", locale)
            await self._answer(interaction, t("settings.language_set", locale, language=name))

    @app_commands.command(
        name=tr("director-role", "cmd.settings.director_role.name"),
        description=tr(
            "The role whose members direct every encounter (empty: none)", "cmd.settings.director_role.desc"
        ),
    )
    @app_commands.describe(
        role=tr("Leave it out to remove the director role", "cmd.settings.director_role.opt")
    )
    @app_commands.guild_only()
    async def director_role(self, interaction: discord.Interaction, role: discord.Role | None = None) -> None:
        guild_id = _require_manager(interaction)
        await self.bot.service.change_guild_settings(guild_id, director_role_id=role.id if role else None)
        locale = lang(interaction)
        if role is None:
            await self._answer(interaction, t("settings.role_cleared", locale))
        else:
            await self._answer(interaction, t("settings.role_set", locale, role=role.mention))

    @app_commands.command(
        name=tr("deadline", "cmd.settings.deadline.name"),
        description=tr(
            "Default minutes to give orders in each new phase (0: none)", "cmd.settings.deadline.desc"
        ),
    )
    @app_commands.guild_only()
    async def deadline(
        self, interaction: discord.Interaction, minutes: app_commands.Range[int, 0, MAX_DEADLINE_MINUTES]
    ) -> None:
        guild_id = _require_manager(interaction)
        # storage keeps "no default deadline" as NULL (it refuses 0): 0 means none here
        await self.bot.service.change_guild_settings(guild_id, default_deadline_minutes=minutes or None)
        locale = lang(interaction)
        if minutes:
            await self._answer(interaction, t("settings.deadline_set", locale, minutes=minutes))
        else:
            await self._answer(interaction, t("settings.deadline_cleared", locale))

    @app_commands.command(
        name=tr("open-limit", "cmd.settings.open_limit.name"),
        description=tr(
            "How many encounters one member may keep open (0: no limit)", "cmd.settings.open_limit.desc"
        ),
    )
    @app_commands.guild_only()
    async def open_limit(
        self, interaction: discord.Interaction, limit: app_commands.Range[int, 0, MAX_OPEN_LIMIT]
    ) -> None:
        guild_id = _require_manager(interaction)
        await self.bot.service.change_guild_settings(guild_id, max_open_encounters=limit)
        locale = lang(interaction)
        if limit:
            await self._answer(interaction, t("settings.open_limit_set", locale, limit=limit))
        else:
            await self._answer(interaction, t("settings.open_limit_cleared", locale))

    @app_commands.command(
        name=tr("imports", "cmd.settings.imports.name"),
        description=tr("Who may import an encounter", "cmd.settings.imports.desc"),
    )
    @app_commands.describe(
        managers_only=tr("True: only members with Manage Server", "cmd.settings.imports.opt")
    )
    @app_commands.guild_only()
    async def imports(self, interaction: discord.Interaction, managers_only: bool) -> None:
        guild_id = _require_manager(interaction)
        await self.bot.service.change_guild_settings(guild_id, import_managers_only=managers_only)
        locale = lang(interaction)
        who = t("settings.imports_managers" if managers_only else "settings.imports_directors", locale)
        await self._answer(interaction, t("settings.imports_set", locale, value=who))

    @app_commands.command(
        name=tr("idle-reminder", "cmd.settings.idle.name"),
        description=tr(
            "Hours a phase without a deadline may wait before its director is reminded",
            "cmd.settings.idle.desc",
        ),
    )
    @app_commands.guild_only()
    async def idle_reminder(
        self, interaction: discord.Interaction, hours: app_commands.Range[int, 1, MAX_IDLE_HOURS]
    ) -> None:
        guild_id = _require_manager(interaction)
        await self.bot.service.change_guild_settings(guild_id, idle_reminder_hours=hours)
        await self._answer(interaction, t("settings.idle_set", lang(interaction), hours=hours))

    @app_commands.command(
        name=tr("palette", "cmd.settings.palette.name"),
        description=tr(
            "Colours of the pictures only you see (server: of public posts)", "cmd.settings.palette.desc"
        ),
    )
    @app_commands.describe(
        scheme=tr("Standard colours or high contrast", "cmd.settings.palette.scheme"),
        server=tr(
            "True: the server's default for public posts (Manage Server)", "cmd.settings.palette.server"
        ),
    )
    @app_commands.choices(scheme=PALETTE_CHOICES)
    @app_commands.guild_only()
    async def palette(self, interaction: discord.Interaction, scheme: str, server: bool = False) -> None:
        """A person's own colours for the pictures only they see; with ``server``, the server's for public posts
        (Manage Server only, as every server setting)."""
        if scheme not in SCHEMES:
            raise refuse("settings.bad_palette", "The palette is standard or contrast.", value=scheme[:20])
        locale = lang(interaction)
        value = t(f"choice.palette.{scheme}", locale)
        if server:
            guild_id = _require_manager(interaction)
            await self.bot.service.change_guild_settings(
                guild_id, palette=None if scheme == STANDARD else scheme
            )
            await self._answer(interaction, t("settings.palette_server_set", locale, value=value))
            return
        await self.bot.service.storage.set_user_palette(
            interaction.user.id, None if scheme == STANDARD else scheme
        )
        await self._answer(interaction, t("settings.palette_set", locale, value=value))


async def setup(bot: HexBotCore) -> None:
    await bot.add_cog(SettingsCog(bot))
