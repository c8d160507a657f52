"""discord.py's ``app_commands.Translator`` backed by our locale catalogs (``data/locales/*/bot.toml``).

Command and option names, descriptions and choices are declared with :func:`tr` (the English text plus a
catalog key); Discord asks the translator for every other locale when the commands are synced. Spanish covers
``es-ES`` and ``es-419``.
"""

from __future__ import annotations

import re

from discord import Locale, app_commands

from data.i18n import DEFAULT, has, language_of, t

# Discord's rule for command and option names (lower case, no spaces, 1-32 chars)
_NAME = re.compile(r"^[-_\w]{1,32}$", re.UNICODE)


def tr(english: str, key: str) -> app_commands.locale_str:
    """A translatable string: shown as ``english`` by default, ``key`` looked up for other locales."""
    return app_commands.locale_str(english, key=key)


class HexTranslator(app_commands.Translator):
    async def translate(
        self, string: app_commands.locale_str, locale: Locale, context: app_commands.TranslationContextTypes
    ) -> str | None:
        key = string.extras.get("key")
        if key is None and context.location is app_commands.TranslationContextLocation.parameter_name:
            key = f"param.{string.message}"  # plain option names share one table: param.<english name>
        lang = language_of(locale.value)
        if not isinstance(key, str) or lang == DEFAULT or not has(key, lang):
            return None
        text = t(key, lang)
        if context.location in (
            app_commands.TranslationContextLocation.command_name,
            app_commands.TranslationContextLocation.group_name,
            app_commands.TranslationContextLocation.parameter_name,
        ):
            text = text.lower()
            if not _NAME.match(text) or text != text.lower():
                return None
            return text
        if context.location is app_commands.TranslationContextLocation.choice_name:
            return text[:100]
        return text[:100]
