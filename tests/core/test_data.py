"""data/: validated TOML tables, locale catalogs with English fallback, bundled fonts."""

from __future__ import annotations

from pathlib import Path

import pytest

from data import DATA_DIR, FONT_DIR, SCENARIO_DIR
from data.i18n import catalog, language_of, t
from data.loader import TableError, check, load_table


def test_schema_errors_name_file_key_and_expected_type(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "demo").mkdir()
    (tmp_path / "demo" / "table.toml").write_text(
        '[L]\nbonus = "two"\nshort = [1, 3]\nextra = 1\n', encoding="utf-8"
    )
    monkeypatch.setenv("HEXD_TABLES", str(tmp_path))
    with pytest.raises(TableError) as err:
        load_table("demo/table", {"*": {"bonus": int, "short": [int], "max": int}})
    msg = str(err.value)
    assert "table.toml" in msg
    assert "L.bonus: expected an integer, got text" in msg
    assert "L.max: missing" in msg
    assert "L.extra: unknown key" in msg


def test_missing_table_is_a_clear_error() -> None:
    with pytest.raises(TableError, match="file not found"):
        load_table("nothing/here")


def test_schema_checker_handles_optional_keys_lists_and_unions() -> None:
    problems: list[str] = []
    check(
        {"a": 1.5, "b": [1, "x"], "c": True},
        {"a": float, "b": [int], "c": (int, bool), "d?": str},
        "",
        problems,
    )
    assert problems == ["b[1]: expected an integer, got text"]


def test_bool_is_not_an_integer_in_tables() -> None:
    problems: list[str] = []
    check({"n": True}, {"n": int}, "", problems)
    assert problems == ["n: expected an integer, got true/false"]


def test_locale_lookup_falls_back_to_english_then_to_the_key() -> None:
    assert language_of("es-ES") == "es" and language_of("es-419") == "es"
    assert language_of("en-GB") == "en" and language_of("fr") == "en" and language_of(None) == "en"
    assert t("quality.fumble", "es-ES") == "pifia"
    assert t("quality.fumble", "en-US") == "fumble"
    assert t("no.such.key", "es") == "no.such.key"


def test_spanish_and_english_catalogs_have_the_same_keys() -> None:
    en, es = set(catalog("en")), set(catalog("es"))
    assert en, "the English catalog is empty"
    assert sorted(en - es) == [], "keys missing in Spanish"
    assert sorted(es - en) == [], "keys missing in English"


def test_templates_fill_params_and_survive_missing_ones() -> None:
    assert t("errors.unit.unknown", "en", unit="x") == "There is no unit called x in this encounter."
    assert "{unit}" in t("errors.unit.unknown", "en")


def test_bundled_fonts_are_there_so_rendering_never_needs_system_fonts() -> None:
    for name in ("DejaVuSans.ttf", "DejaVuSans-Bold.ttf"):
        assert (FONT_DIR / name).stat().st_size > 100_000
    assert any(FONT_DIR.glob("LICENSE*"))


def test_data_dirs_exist() -> None:
    assert DATA_DIR.is_dir() and SCENARIO_DIR.is_dir()


def test_every_spanish_text_is_neutral_spanish() -> None:
    """One Spanish for every Spanish-speaking table: no vosotros forms, no Spain-only words,
    in every catalog and every Spanish rules reference."""
    from tests.paths import ROOT

    banned = ("vosotros", "cogidas", "cogida ", "coger", "estéis", "coged", "tenéis", "podéis", "queréis")
    files = [*(ROOT / "data" / "locales" / "es").glob("*.toml"), *(ROOT / "docs").rglob("*.es.md")]
    assert len(files) > 5
    found = [
        f"{path.name}: {word}"
        for path in files
        for word in banned
        if word in path.read_text(encoding="utf-8").lower()
    ]
    assert not found, found


def test_cached_templates_format_like_the_formatter_did() -> None:
    """``t`` keeps each (key, locale) template and formats with ``str.format_map``; the text is what
    ``string.Formatter().vformat`` gave, for every template of both catalogs, with and without params."""
    from string import Formatter

    from data.i18n import _PLURAL, _plural, _Safe  # pyright: ignore[reportPrivateUsage]

    def before(template: str, params: dict[str, object]) -> str:
        if "|" in template:
            template = _PLURAL.sub(lambda m: _plural(m, params), template)
        try:
            return Formatter().vformat(template, (), _Safe(params))
        except (ValueError, IndexError, AttributeError, KeyError):
            return template

    for lang in ("en", "es"):
        for key, template in catalog(lang).items():
            for params in ({}, {"unit": "x", "n": 3, "name": "Ana", "side": "a"}):
                assert t(key, lang, **params) == before(template, params), key
                assert t(key, lang, **params) == t(key, lang, **params)  # the cached path, twice
    assert t("no.such.{key}", "es", key="x") == "no.such.x"
    assert t("plain {{braces}}", "en") == "plain {braces}"
