"""Every pbw event, note, refusal and keyword reads in Spanish and in English (data/locales/*/pbw.toml), and the
rules reference (docs/rules/pbw.*.md) has one heading per rule id."""

from __future__ import annotations

import dataclasses
import inspect
import re

import pytest

from bot.text.account import describe
from data.i18n import catalog, has, t, term_key
from rules.engine import visibility
from rules.events import Event, Note
from rules.pbw import events as pbw_events
from rules.pbw.events import PbwInitiativeTie
from rules.pbw.model import ACTIONS, CONDITIONS, LOST
from rules.pbw.tables import BANDS, LOCATIONS, tables
from rules.ruleset import PUBLIC
from rules.state import EncounterState
from tests.paths import ROOT
from tests.pbw_fixtures import RS, act, declare, make, of_type, person, play_turn

RULE_IDS = ("PBW-1", "PBW-2", "PBW-3", "PBW-4", "PBW-5", "PBW-6")


def event_classes() -> list[type[Event]]:
    return [
        cls
        for _, cls in inspect.getmembers(pbw_events, inspect.isclass)
        if issubclass(cls, Event) and cls.__module__ == pbw_events.__name__
    ]


@pytest.mark.parametrize("lang", ["en", "es"])
def test_every_event_class_has_a_template(lang: str) -> None:
    for cls in event_classes():
        if issubclass(cls, Note):
            continue  # notes are looked up by their key, checked below
        assert has(f"event.pbw.{cls.__name__}", lang), cls.__name__


def note_keys() -> set[str]:
    source = "\n".join(p.read_text(encoding="utf-8") for p in (ROOT / "rules" / "pbw").glob("*.py"))
    keys = set(re.findall(r'(?<![a-z_])key="(pbw\.[a-z_.]+)"', source))
    keys |= {f"pbw.plan.{a}" for a in (*ACTIONS, LOST)} | {f"pbw.plan.{a}_aimed" for a in ("shoot", "melee")}
    keys |= {"pbw.changed.spare", "pbw.changed.forfeit"} | {
        f"pbw.hands.{a}" for a in ("draw", "stow", "reload")
    }
    keys |= {f"pbw.treat.{k}" for k in ("turn", "restored", "broken")}  # PBW-6
    return keys


@pytest.mark.parametrize("lang", ["en", "es"])
def test_every_note_and_refusal_has_a_text(lang: str) -> None:
    for key in note_keys():
        assert has(f"note.{key}", lang), key
    source = "\n".join(p.read_text(encoding="utf-8") for p in (ROOT / "rules" / "pbw").glob("*.py"))
    codes = set(re.findall(r'refuse\(\s*ch,\s*"([a-z_]+)"', source)) | {"syntax", "bad_phase"}
    for code in codes:
        assert has(f"errors.pbw.{code}", lang), code


@pytest.mark.parametrize("lang", ["en", "es"])
def test_keywords_shown_in_accounts_are_translated(lang: str) -> None:
    words = [*ACTIONS, LOST, *LOCATIONS, *CONDITIONS, *BANDS, *tables().weapons]
    words += [
        "arm_useless",
        "falls",
        "engaged",
        "occupied",
        "path",
        "athletics",
        "melee_attack",
        "melee_defence",
    ]
    words += ["attacker_moved", "target_moved", "aim", "accuracy", "cover", "skill_zero", "tired"]
    for word in words:
        assert has(term_key(word, "pbw"), lang), word


def test_the_pbw_catalogs_have_the_same_keys() -> None:
    def keys(lang: str) -> set[str]:
        import tomllib

        path = ROOT / "data" / "locales" / lang / "pbw.toml"
        flat: set[str] = set()

        def walk(table: dict[str, object], prefix: str) -> None:
            for k, v in table.items():
                if isinstance(v, dict):
                    walk(v, f"{prefix}{k}.")  # type: ignore[arg-type]
                else:
                    flat.add(prefix + k)

        walk(tomllib.loads(path.read_text(encoding="utf-8")), "")
        return flat

    assert keys("en") == keys("es")


def test_a_turn_reads_in_spanish_with_the_seed_terms() -> None:
    state = make([person("ana", "a", "0303", initiative=6), person("bob", "b", "0304", initiative=2)])
    state = state.replace(dice_script=(6, 5, 2, 2, 6, 3, 3))
    state, events = play_turn(state, {"ana": [act("melee", target="bob")], "bob": [act("defend")]})
    lines = "\n".join(describe(e, state, "es") for e in events)
    for term in ("segmento", "iniciativa", "defensa", "fatiga", "Puntos de Vida", "cuerpo a cuerpo"):
        assert term in lines, term
    assert "{" not in lines
    assert t("term.head", "es") == "la cabeza"


def test_spanish_is_neutral() -> None:
    """Neutral Spanish for every Spanish-speaking table: no vosotros forms, no Spain-only words."""
    text = (ROOT / "data" / "locales" / "es" / "pbw.toml").read_text(encoding="utf-8").lower()
    for word in ("vosotros", "cogidas", "estéis", "coged", "tenéis", "podéis"):
        assert word not in text


@pytest.mark.parametrize("lang", ["es", "en"])
def test_rules_reference_has_one_heading_per_rule_id(lang: str) -> None:
    text = (ROOT / "docs" / "rules" / f"pbw.{lang}.md").read_text(encoding="utf-8")
    headings = re.findall(r"^## (PBW-\d+) — \S.*$", text, flags=re.M)
    assert headings == list(RULE_IDS)
    assert "[HOUSE]" in text


def test_every_event_field_is_plain_data_for_sim_json() -> None:
    """``sim --json`` prints events with bot.text.account.event_json: no nested engine objects."""
    for cls in event_classes():
        for f in dataclasses.fields(cls):
            assert "SegmentAction" not in str(f.type), (cls.__name__, f.name)
    assert catalog("es")["event.pbw.PbwAttack"].count("{") == catalog("en")["event.pbw.PbwAttack"].count("{")


# --- PBW-1: a tie of Initiative says how it was broken, and never names a character the reader cannot see ------
def _tied_pair() -> EncounterState:
    """Sole and Lola share Initiative 5; Sole is first in the file. Bruno (3) ties with nobody."""
    return make(
        [
            person("sole", "a", "0303", initiative=5),
            person("lola", "b", "0306", initiative=5),
            person("bruno", "b", "0308", initiative=3),
        ]
    )


def test_pbw_1_an_initiative_tie_is_told_once_a_turn_as_declarations_begin_in_both_languages() -> None:
    state = _tied_pair()
    first = declare(state, RS.awaiting(state)[0])
    ties = of_type(first.events, PbwInitiativeTie)
    assert [(e.unit, e.other, e.initiative) for e in ties] == [("sole", "lola", 5)]
    assert first.events.index(ties[0]) == 0, "before the declaration it explains"
    assert describe(ties[0], first.state, "en") == (
        "[PBW-1] Tie at Initiative 5: Sole comes first in the scenario, so declares and acts before Lola"
    )
    assert describe(ties[0], first.state, "es") == (
        "[PBW-1] Empate a Iniciativa 5: Sole va antes en el escenario, así que declara y actúa antes que Lola"
    )
    # the turn's later declarations do not repeat it
    later = declare(first.state, RS.awaiting(first.state)[0])
    assert not of_type(later.events, PbwInitiativeTie)


def test_pbw_1_fog_1_a_tie_with_a_hidden_character_is_not_told_to_those_who_cannot_see_it() -> None:
    state = _tied_pair()
    state = state.with_units([dataclasses.replace(state.units["lola"], hidden=True)])
    result = declare(state, RS.awaiting(state)[0])
    known = frozenset(result.state.units)
    for viewer, told in (("a", 0), (PUBLIC, 0), ("b", 1)):
        seen = frozenset(visibility(RS, result.state, viewer).units)
        shown = [e for e in (RS.public_event(e, seen, known) for e in result.events) if e is not None]
        assert len(of_type(shown, PbwInitiativeTie)) == told, viewer
        if not told:
            for lang in ("en", "es"):
                text = "\n".join(describe(e, result.state, lang) for e in shown)
                assert "Lola" not in text, (viewer, text)
