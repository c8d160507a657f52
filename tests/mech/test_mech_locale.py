"""Spanish and English everywhere (mech): every event, note and refusal has a template in both languages, the
templates fill from the fields the engine gives, and the seed's Spanish names are the ones shown."""

from __future__ import annotations

import dataclasses
import inspect
import re
from string import Formatter

import pytest

import rules.mech.events as mech_events
from bot.process.cli import main as cli_main
from bot.text.account import describe, template_params
from data import SCENARIO_DIR
from data.i18n import catalog, has, t
from rules.engine import visibility
from rules.events import Event, Note
from rules.mech.events import InitiativeTie, LocationDestroyed
from rules.mech.tables import MECH_LOCATIONS, VEHICLE_LOCATIONS, tables
from rules.mech.tohit import Modifier
from rules.registry import ruleset_for
from rules.ruleset import PUBLIC
from rules.state import EncounterState
from tests.mech_fixtures import build, of_type, step, unit
from tests.paths import ROOT

LANGS = ("en", "es")


def _codes() -> set[str]:
    found: set[str] = set()
    for path in (ROOT / "rules" / "mech").glob("*.py"):
        if path.name == "tables.py":
            continue  # its "mech.standard" … are table names, not refusals
        found |= set(re.findall(r'"(mech\.[a-z_]+)"', path.read_text(encoding="utf-8")))
    return found


def test_every_refusal_code_has_a_template_in_both_languages() -> None:
    notes = {c for c in _codes() if has(f"note.{c}", "en")}
    errors = (
        _codes() - notes - {"mech.declared", "mech.declared_secret", "mech.stood_up", "mech.move_stopped"}
    )
    missing = [
        f"{lang}: errors.{c}" for c in sorted(errors) for lang in LANGS if f"errors.{c}" not in catalog(lang)
    ]
    assert not missing, missing


def test_every_mech_event_has_a_template_in_both_languages() -> None:
    classes = [
        c
        for _, c in inspect.getmembers(mech_events, inspect.isclass)
        if issubclass(c, Event) and c.__module__ == mech_events.__name__ and not issubclass(c, Note)
    ]
    assert len(classes) >= 18
    for lang in LANGS:
        for c in classes:
            assert f"event.mech.{c.__name__}" in catalog(lang), (lang, c.__name__)


#: an event whose line reads what mech's text hook adds (bot/rulesets/text/mech.py): one of it, filled
HOOKED: dict[str, Event] = {
    "LocationDestroyed": LocationDestroyed(rule="MECH-2.3", unit="u", location="lt", with_location="la")
}


def test_templates_name_only_fields_their_events_have() -> None:
    for name, cls in inspect.getmembers(mech_events, inspect.isclass):
        if not issubclass(cls, Event) or issubclass(cls, Note) or cls.__module__ != mech_events.__name__:
            continue
        fields = {f.name for f in dataclasses.fields(cls)}
        allowed = fields | {f"{f}_name" for f in fields} | {f"{f}_text" for f in fields}
        if name in HOOKED:
            allowed |= set(template_params(HOOKED[name], {}, "en", plugins=("mech",)))
        for lang in LANGS:
            template = catalog(lang)[f"event.mech.{name}"]
            used = {
                field.split("|")[0].split(".")[0].split("[")[0]
                for _, field, _, _ in Formatter().parse(template)
                if field
            }
            assert used <= allowed, (lang, name, used - allowed)


@pytest.mark.parametrize("lang", LANGS)
def test_the_whole_bundled_accounts_fill_every_placeholder(
    lang: str, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in ("mech-duel", "mech-mixed"):
        assert cli_main(["sim", str(SCENARIO_DIR / f"{name}.toml"), "--lang", lang]) == 0
        out = capsys.readouterr().out
        leftovers = [line for line in out.splitlines() if re.search(r"\{[a-z_]+\}", line)]
        assert not leftovers, leftovers[:5]
        fallback = [line for line in out.splitlines() if re.search(r"\] [A-Z][A-Za-z]+: \w+=", line)]
        assert not fallback, fallback[:5]  # an event with no template prints its type and fields


def test_spanish_weapon_and_movement_names_are_the_seeds() -> None:
    names = {k: t(f"term.{k}", "es") for k in tables().weapons}
    assert names == {
        "small_laser": "Láser Ligero",
        "medium_laser": "Láser Medio",
        "large_laser": "Láser Pesado",
        "ppc": "CPP",
        "mg": "Ametralladora",
        "flamer": "Lanzallamas",
        "ac2": "CA/2",
        "ac5": "CA/5",
        "ac10": "CA/10",
        "ac20": "CA/20",
        "srm2": "AMCA/2",
        "srm4": "AMCA/4",
        "srm6": "AMCA/6",
        "lrm5": "AMLA/5",
        "lrm10": "AMLA/10",
        "lrm15": "AMLA/15",
        "lrm20": "AMLA/20",
    }
    assert (t("term.walk", "es"), t("term.run", "es"), t("term.jump", "es")) == ("anda", "corre", "salta")
    assert "giro de torso" in t("errors.mech.twist", "es", unit="x", twist="up") or "I" in t(
        "errors.mech.twist", "es"
    )


def test_every_modifier_reason_reads_in_both_languages() -> None:
    codes = {
        "range_short",
        "range_medium",
        "range_long",
        "minimum_range",
        "shooter_walk",
        "shooter_run",
        "shooter_jump",
        "shooter_cruise",
        "shooter_flank",
        "target_immobile",
        "target_moved",
        "target_jumped",
        "woods",
        "partial_cover",
        "secondary_target",
        "heat",
    }
    for lang in LANGS:
        for code in codes:
            assert f"mech.modifier.{code}" in catalog(lang), (lang, code)
    mod = Modifier("range_medium", 3, (("distance", 5),))
    assert t(f"mech.modifier.{mod.code}", "es", **dict(mod.params)) == "distancia media (5 hexágonos)"


def _destroyed(location: str, with_location: str = "") -> LocationDestroyed:
    return LocationDestroyed(rule="MECH-2.3", unit="hunter", location=location, with_location=with_location)


def test_mech_2_3_a_destroyed_head_reads_feminine_in_spanish() -> None:
    """ "la cabeza destruido" read wrong: the participle agrees with the location."""
    assert describe(_destroyed("head"), None, "es") == "[MECH-2.3] hunter: cabeza destruida"
    assert describe(_destroyed("head"), None, "en") == "[MECH-2.3] hunter: head destroyed"


def test_mech_2_3_a_destroyed_arm_leg_and_torso_agree_in_spanish() -> None:
    assert describe(_destroyed("ra"), None, "es") == "[MECH-2.3] hunter: brazo derecho destruido"
    assert describe(_destroyed("ll"), None, "es") == "[MECH-2.3] hunter: pierna izquierda destruida"
    assert describe(_destroyed("ct"), None, "es") == "[MECH-2.3] hunter: torso central destruido"
    assert describe(_destroyed("rear"), None, "es") == "[MECH-2.3] hunter: trasera destruida"
    # a side torso takes its arm with it, named once, not glued after the participle
    torso = _destroyed("lt", "la")
    assert (
        describe(torso, None, "es")
        == "[MECH-2.3] hunter: torso izquierdo destruido, y con él el brazo izquierdo"
    )
    assert describe(torso, None, "en") == "[MECH-2.3] hunter: left torso destroyed, and the left arm with it"


@pytest.mark.parametrize("lang", LANGS)
def test_mech_2_3_every_location_has_its_destroyed_phrase(lang: str) -> None:
    for location in (*MECH_LOCATIONS, *VEHICLE_LOCATIONS):
        assert f"mech.location_destroyed.{location}" in catalog(lang), (lang, location)
    # a location the catalogs do not know still reads as words
    assert describe(_destroyed("wing"), None, lang).endswith(
        ("localización wing destruida", "location wing destroyed")
    )


def test_a_declaration_reads_in_spanish() -> None:
    from rules.hexgrid import Hex
    from rules.mech.events import DeclarationLocked

    ev = DeclarationLocked(
        rule="MECH-1.2",
        key="mech.declared",
        unit="hunter",
        args=(
            ("mode", "walk"),
            ("path", (Hex.parse("0509"), Hex.parse("0508"))),
            ("facing", "NE"),
            ("twist", "R"),
            ("fire", ()),
            ("physical", ()),
            ("fire_text", "#1→raven"),
            ("physical_text", "—"),
        ),
    )
    text = describe(ev, None, "es")  # an event logged before the targets were named reads with their ids
    assert text.startswith(
        "[MECH-1.2] hunter declara: anda 0509→0508 encarado al NE con el torso girado a la derecha;"
        " dispara #1→raven"
    )
    named = dataclasses.replace(ev, args=(*ev.args, ("fire_named", "#1→Raven"), ("physical_named", "—")))
    assert "dispara #1→Raven; ataque físico —" in describe(named, None, "es")


@pytest.mark.parametrize("lang", LANGS)
def test_the_rules_reference_has_one_heading_per_rule_id(lang: str) -> None:
    text = (ROOT / "docs" / "rules" / f"mech.{lang}.md").read_text(encoding="utf-8")
    ids = re.findall(r"^## (MECH-[0-9.]+[a-z]?) — \S", text, flags=re.MULTILINE)
    assert ids == [
        "MECH-1.1",
        "MECH-1.2",
        "MECH-1.3",
        "MECH-2.1",
        "MECH-2.1a",
        "MECH-2.2",
        "MECH-2.3",
        "MECH-3.1",
        "MECH-3.2",
        "MECH-4",
        "MECH-5",
    ]


# --- MECH-1.1: a tie says how it was broken, and never names a unit the reader cannot see ----------------------
def _three_tied() -> EncounterState:
    """Totals a 3+5 = 8, b 5+3 = 8, c 5+3 = 8: b and c have the lower attribute; b comes first in the file."""
    state = build(
        unit("a", "red", "0810", initiative=5, name="Atlas"),
        unit("b", "blue", "0805", initiative=3, name="Blackjack"),
        unit("c", "blue", "0405", initiative=3, name="Catapult"),
    )
    return state.replace(dice_script=(1, 2, 2, 3, 4, 1))


def test_mech_1_1_an_initiative_tie_says_how_it_was_broken_in_both_languages() -> None:
    state, events = step(_three_tied())
    ties = [e for e in events if isinstance(e, InitiativeTie)]
    assert [(e.unit, e.other, e.total, e.key) for e in ties] == [
        ("b", "c", 8, "mech.tie.file_order"),
        ("c", "a", 8, "mech.tie.attribute"),
    ]
    # the ties come before the order they explain
    assert events.index(ties[-1]) < events.index(of_type(events, "DeclarationOrder")[0])
    assert [describe(e, state, "en") for e in ties] == [
        "[MECH-1.1] Tie at 8 and the same Initiative: Blackjack declares before Catapult,"
        " as it comes first in the scenario",
        "[MECH-1.1] Tie at 8: Catapult declares before Atlas, whose Initiative is higher",
    ]
    assert [describe(e, state, "es") for e in ties] == [
        "[MECH-1.1] Empate a 8 con la misma Iniciativa: Blackjack declara antes que Catapult,"
        " que va después en el escenario",
        "[MECH-1.1] Empate a 8: Catapult declara antes que Atlas, que tiene más Iniciativa",
    ]


def test_mech_1_1_fog_1_a_tie_with_a_hidden_unit_is_not_told_to_those_who_cannot_see_it() -> None:
    before = _three_tied()
    before = before.with_units([dataclasses.replace(before.units["c"], hidden=True)])
    after, events = step(before)
    known = frozenset(after.units)
    ruleset = ruleset_for(after)
    for viewer in ("red", PUBLIC):
        seen = visibility(ruleset, after, viewer).units
        shown = [
            e for e in (ruleset.public_event(e, frozenset(seen), known) for e in events) if e is not None
        ]
        assert not [e for e in shown if isinstance(e, InitiativeTie)], viewer
        for lang in LANGS:
            text = "\n".join(describe(e, after, lang) for e in shown)
            assert "Catapult" not in text and "Tie" not in text and "Empate" not in text, (viewer, text)
    # the side that sees all three is told both ties
    seen = visibility(ruleset, after, "blue").units
    told = [
        e for e in events if isinstance(e, InitiativeTie) and ruleset.public_event(e, frozenset(seen), known)
    ]
    assert len(told) == 2
