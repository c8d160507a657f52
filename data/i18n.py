"""Locale catalogs (``data/locales/<lang>/*.toml``, one file per area, merged) and the lookup used by the bot, the CLI and the renderer.

Keys are dotted (``orders.received``); values are ``str.format`` templates. A missing key in Spanish falls back to
English, a missing key in English falls back to the key itself, so a gap shows as a readable key, never a crash.
Discord locales (``es-ES``, ``es-419``, ``en-US``, ``en-GB``) map to their language.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping
from functools import cache, lru_cache
from typing import Any, Protocol, cast

from data import LOCALE_DIR

LANGUAGES = ("en", "es")
DEFAULT = "en"


def language_of(locale: str | None) -> str:
    """``"es-ES"`` → ``"es"``; anything unknown → English."""
    if not locale:
        return DEFAULT
    lang = str(locale).split("-")[0].split("_")[0].lower()
    return lang if lang in LANGUAGES else DEFAULT


class DuplicateKeyError(ValueError):
    """A key defined in two files of one language: the catalogs share one namespace, so the second file would
    silently replace the first one's words (a plug-in's words go under its own ``<id>.`` prefix)."""


@cache
def catalog(lang: str) -> dict[str, str]:
    merged: dict[str, str] = {}
    where: dict[str, str] = {}
    folder = LOCALE_DIR / lang
    for path in sorted(folder.glob("*.toml")) if folder.is_dir() else ():
        with path.open("rb") as fh:
            table = _flatten(tomllib.load(fh), "")
        for key in table:
            if key in where:
                raise DuplicateKeyError(f"{lang}: {key!r} is defined in both {where[key]} and {path.name}")
            where[key] = path.name
        merged.update(table)
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


def term_key(value: str, plugin: str = "") -> str:
    """The key naming a keyword (a location, an action, a reason): the plug-in's own ``<plugin>.term.<value>``
    when its catalog defines one (two plug-ins may mean different things by one word: mech's "melee" is a
    weapon, pbw's a way to fight), else the shared ``term.<value>``."""
    own = f"{plugin}.term.{value}"
    return own if plugin and has(own, "en") else f"term.{value}"


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

    The bot calls this tens of thousands of times a minute under load (71,780 calls for 100 duels'
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


class Wording(Protocol):
    """Words not yet written (``rules.errors.Phrase``, ``rules.errors.Problem``): a catalog key and its params;
    a param that is itself a ``Wording`` is written first. Optional ``rule`` is cited after the text (unless the
    text names it); optional ``fallback`` is shown when the key is in no catalog (an engine error's English)."""

    @property
    def key(self) -> str: ...

    @property
    def params(self) -> Mapping[str, object]: ...


class Located(Wording, Protocol):
    """A scenario problem: a ``Wording`` at a key ``path`` of the file, on ``line`` when known."""

    @property
    def path(self) -> str: ...

    @property
    def line(self) -> int | None: ...


def _is_wording(value: object) -> bool:
    return isinstance(getattr(value, "key", None), str) and isinstance(
        getattr(value, "params", None), Mapping
    )


def phrase_text(phrase: Wording, locale: str | None = None) -> str:
    """A ``Wording`` in ``locale``'s language (its nested params first)."""
    values = {
        name: phrase_text(cast(Wording, v), locale) if _is_wording(v) else v
        for name, v in phrase.params.items()
    }
    fallback = str(getattr(phrase, "fallback", "") or "")
    if fallback and not has(phrase.key, "en"):
        text = fallback
    else:
        text = t(phrase.key, locale, **values)
    rule = getattr(phrase, "rule", None)
    if isinstance(rule, str) and rule and rule not in text:
        text = f"{text} [{rule}]"
    return text


def localized(value: object, locale: str | None = None) -> object:
    """A message param in ``locale``'s language when it carries words (a ``Wording``, or anything with a
    ``localized(locale)`` method such as the bot's ``ProblemLines``); any other value as it is."""
    if _is_wording(value):
        return phrase_text(cast(Wording, value), locale)
    render = getattr(value, "localized", None)
    if callable(render):
        return render(locale)
    return value


def problem_text(problem: Located, locale: str | None = None) -> str:
    """``line 12: units[3].crew: 3 crew members but cabin 2: …`` in ``locale``'s language."""
    where = t("problem.at_line", locale, line=problem.line) if problem.line else ""
    return f"{where}{problem.path or t('problem.file', locale)}: {phrase_text(problem, locale)}"


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
