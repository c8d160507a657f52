"""``/rule id`` reads the project's rules reference in the reader's language, and the accounts
point at it for every rule id they cite."""

from __future__ import annotations

import pytest

from bot.text.rules_reference import cited, lookup, matching, rules


@pytest.mark.parametrize("lang", ["es", "en"])
def test_every_documented_rule_is_found_by_id_in_both_languages(lang: str) -> None:
    table = rules(lang)
    assert {"EXO-3.4", "SK-1.1", "MECH-2", "PBW-1", "OCS-3"} <= set(table) or len(table) > 50
    for rid, rule in table.items():
        assert lookup(rid, lang) == rule and rule.title and rule.text, rid


def test_lookup_speaks_the_readers_language_and_forgives_case_and_brackets() -> None:
    es, en = lookup("[exo-3.4]", "es-ES"), lookup("EXO-3.4", "en-US")
    assert es is not None and en is not None and es.id == en.id == "EXO-3.4"
    assert es.text != en.text and es.ruleset == "exo"
    assert lookup("EXO-99.9", "es") is None


@pytest.mark.parametrize(
    ("rid", "ruleset", "es_title", "en_title"),
    [
        ("NGT-5.1", "night", "Costes de movimiento de noche", "Night movement costs"),
        ("PBW-6", "pbw", "Medicina", "Medicine"),
    ],
)
def test_rule_ngt_5_1_and_pbw_6_answer_in_both_languages(
    rid: str, ruleset: str, es_title: str, en_title: str
) -> None:
    es, en = lookup(rid, "es-ES"), lookup(rid.lower(), "en-GB")
    assert es is not None and en is not None and es.ruleset == en.ruleset == ruleset
    assert (es.title, en.title) == (es_title, en_title) and es.text != en.text
    assert rid in [r.id for r in matching(rid[:5], "es")]


def test_autocomplete_matches_ids_by_prefix_and_titles_by_words() -> None:
    by_id = matching("sk-1", "en")
    assert by_id and all(r.id.startswith("SK-1") for r in by_id)
    assert len(matching("", "es")) == 25
    first = next(iter(rules("en").values()))
    assert first in matching(first.title.split()[0], "en")


def test_an_account_cites_only_documented_ids_once_each_in_order() -> None:
    lines = ["[EXO-3.4] Halcón rolls 7, 1, 5", "[EXO-2.1] moved", "[EXO-3.4] again", "[XYZ-9] unknown"]
    assert cited(lines) == ["EXO-3.4", "EXO-2.1"]
