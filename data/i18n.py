"""Locale catalogs (``data/locales/<lang>/*.toml``, one file per area, merged) and the lookup used by the bot, the CLI and the renderer.

Keys are dotted (``orders.received``); values are ``str.format`` templates. A missing key in Spanish falls back to
English, a missing key in English falls back to the key itself, so a gap shows as a readable key, never a crash.
Discord locales (``es-ES``, ``es-419``, ``en-US``, ``en-GB``) map to their language.
"""

from __future__ import annotations

import re
import tomllib
from functools import cache, lru_cache
from typing import Any, cast

from data import LOCALE_DIR

LANGUAGES = ("en", "es")
DEFAULT = "en"


def language_of(locale: str | None) -> str:
    """``"es-ES"`` → ``"es"``; anything unknown → English."""
    if not locale:
        return DEFAULT
    lang = str(locale).split("-")[0].split("_")[0].lower()
    return lang if lang in LANGUAGES else DEFAULT


@cache
def catalog(lang: str) -> dict[str, str]:
    merged: dict[str, str] = {}
    folder = LOCALE_DIR / lang
    for path in sorted(folder.glob("*.toml")) if folder.is_dir() else ():
        with path.open("rb") as fh:
            merged.update(_flatten(tomllib.load(fh), ""))
    return merged


def _flatten(table: dict[str, Any], prefix: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for key, value in table.items():
        full = f"{prefix}.{key}" if prefix else key
        if isinstance(value, dict):
            out.update(_flatten(cast(dict[str, Any], value), full))
        else:
            out[full] = str(value)
    return out


def has(key: str, locale: str | None = None) -> bool:
    return key in catalog(language_of(locale))


def phase_text(ruleset: str, phase: str | None, locale: str | None = None) -> str:
    """A phase as players read it: ``phase.<ruleset>.<phase>`` or ``phase.<phase>`` when a catalog names it
    (pbw ``segment-2`` → "segmento 2", mech ``declare`` → "declaraciones"), else the phase id itself (exo's
    phase numbers)."""
    if not phase:
        return ""
    for key in (f"phase.{ruleset}.{phase}", f"phase.{phase}"):
        if has(key, "en"):
            return t(key, locale)
    return phase


def t(key: str, locale: str | None = None, /, **params: Any) -> str:
    """Translate ``key`` for ``locale`` and fill in ``params`` (missing params stay as ``{name}``).

    The bot calls this tens of thousands of times a minute under load (issue 20: 71,780 calls for 100 duels'
    round): the template is looked up once per (key, locale) and kept; only the formatting is done per call."""
    template, plain = _template(key, locale)
    if plain:  # no field to fill: the template is the text
        return template
    return _format(template, params)


@lru_cache(maxsize=16384)
def _template(key: str, locale: str | None) -> tuple[str, bool]:
    """The template for ``key`` in ``locale``'s language (Spanish falls back to English, English to the key),
    and whether it is plain text (no ``{`` or ``}``: formatting would return it unchanged). Bounded by the
    catalogs' keys times the locales Discord sends (a few dozen); bounded anyway, should a caller build keys."""
    lang = language_of(locale)
    template = catalog(lang).get(key) or catalog(DEFAULT).get(key) or key
    return template, "{" not in template and "}" not in template


class _Safe(dict[str, Any]):
    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


#: ``{count|one|other}``: the word for one or for any other count of the parameter ``count``
_PLURAL = re.compile(r"\{(\w+)\|([^|{}]*)\|([^|{}]*)\}")


def _plural(match: re.Match[str], params: dict[str, Any]) -> str:
    value = params.get(match.group(1))
    return match.group(2) if str(value).strip() in ("1", "-1") else match.group(3)


def _format(template: str, params: dict[str, Any]) -> str:
    """``str.format_map`` does what ``string.Formatter().vformat`` does (same parser, same errors), in C; plural
    words (``{n|one|other}``) are chosen first."""
    if "|" in template:
        template = _PLURAL.sub(lambda m: _plural(m, params), template)
    try:
        return template.format_map(_Safe(params))
    except (ValueError, IndexError, AttributeError, KeyError):
        return template
