"""Each plug-in's words are its own. The catalogs of one language share one namespace (every
data/locales/<lang>/*.toml merged), so a key defined in two files is refused when the catalog loads; a word two
plug-ins mean differently is namespaced (``mech.term.melee``, ``pbw.term.melee``); an event's line is keyed by
its serial tag (``event.pbw.DeclarationLocked``), so two plug-ins may each have an event class of one name; and
each ruleset and layer names itself in ``/encounter new`` from its own file (``choice.ruleset.<id>``)."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import cast

import pytest

from bot.text.account import describe, event_key, value_text
from data import i18n
from data.i18n import DuplicateKeyError, catalog, t, term_key
from rules.mech.events import DeclarationLocked as MechDeclarationLocked
from rules.pbw.events import DeclarationLocked as PbwDeclarationLocked
from rules.registry import PLUGINS
from tests.paths import ROOT

LANGS = ("en", "es")
LOCALES = ROOT / "data" / "locales"


def flat(path: Path) -> set[str]:
    """The dotted keys a catalog file defines."""

    def walk(table: dict[str, object], prefix: str) -> set[str]:
        keys: set[str] = set()
        for key, value in table.items():
            if isinstance(value, dict):
                keys |= walk(cast(dict[str, object], value), f"{prefix}{key}.")
            else:
                keys.add(prefix + key)
        return keys

    return walk(tomllib.loads(path.read_text(encoding="utf-8")), "")


@pytest.mark.parametrize("lang", LANGS)
def test_no_key_is_defined_in_two_files_of_one_language(lang: str) -> None:
    seen: dict[str, str] = {}
    twice: list[str] = []
    for path in sorted((LOCALES / lang).glob("*.toml")):
        for key in flat(path):
            if key in seen:
                twice.append(f"{key}: {seen[key]} and {path.name}")
            seen[key] = path.name
    assert not twice, "\n".join(twice)
    assert len(catalog(lang)) == len(seen)


def test_the_loader_refuses_a_key_two_files_define(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "en").mkdir()
    (tmp_path / "en" / "mech.toml").write_text('[term]\nmelee = "melee weapon"\n', encoding="utf-8")
    (tmp_path / "en" / "pbw.toml").write_text('[term]\nmelee = "fight in melee"\n', encoding="utf-8")
    monkeypatch.setattr(i18n, "LOCALE_DIR", tmp_path)
    with pytest.raises(DuplicateKeyError, match=r"'term\.melee'.*mech\.toml.*pbw\.toml"):
        catalog.__wrapped__("en")


@pytest.mark.parametrize("lang", LANGS)
def test_a_plugins_event_lines_sit_under_its_own_namespace(lang: str) -> None:
    ids = {p.id for p in PLUGINS}
    for pid in ids:
        stray = sorted(
            k
            for k in flat(LOCALES / lang / f"{pid}.toml")
            if k.startswith("event.") and not k.startswith(f"event.{pid}.")
        )
        assert not stray, f"{lang}/{pid}.toml: event lines outside event.{pid}.: {stray}"


def test_two_plugins_event_classes_of_one_name_read_each_its_own_line() -> None:
    pbw = PbwDeclarationLocked(rule="PBW-1", unit="ana", segments=(), initiative=6)
    mech = MechDeclarationLocked(rule="MECH-1.1", unit="hunter", key="mech.declared_none")
    assert event_key(pbw) == "event.pbw.DeclarationLocked"
    assert event_key(mech) == "event.mech.DeclarationLocked"
    assert describe(pbw, locale="en") == "[PBW-1] ana locks the declaration"
    assert "locks the declaration" not in describe(mech, locale="en")


def test_a_word_two_plugins_mean_differently_reads_as_each_ones() -> None:
    assert term_key("melee", "mech") == "mech.term.melee"
    assert term_key("melee", "pbw") == "pbw.term.melee"
    assert term_key("head", "mech") == "term.head"  # a location means the same to both: one shared word
    assert value_text("attack", "melee", "en", "mech") == "melee weapon"
    assert value_text("attack", "melee", "en", "pbw") == "fight in melee"
    assert value_text("attack", "melee", "es", "mech") == "golpe con arma cuerpo a cuerpo"
    assert value_text("attack", "melee", "es", "pbw") == "atacar cuerpo a cuerpo"
    assert t("term.melee", "en") == "term.melee"  # no shared "melee" left to follow whichever file loads last


@pytest.mark.parametrize("pid", [p.id for p in PLUGINS])
def test_every_ruleset_and_layer_names_itself_in_both_languages_in_its_own_file(pid: str) -> None:
    for lang in LANGS:
        assert f"choice.ruleset.{pid}" in flat(LOCALES / lang / f"{pid}.toml"), (lang, pid)


def test_pbw_is_offered_by_its_label_not_its_bare_id() -> None:
    assert t("choice.ruleset.pbw", "en") == "pbw (characters)"
    assert t("choice.ruleset.pbw", "es") == "pbw (personajes)"
