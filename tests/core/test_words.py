"""Every text in the reader's words: a command a text tells the reader to use is named as the reader's Discord
client shows it (/órdenes in Spanish, /orders in English), since a name from the other language finds nothing
when typed."""

from __future__ import annotations

import io
import re
from pathlib import Path
from typing import cast

import pytest

from bot.log_text import log_lines
from bot.panels.draft import Draft
from bot.panels.model import phase_text
from bot.panels.ocs import build_panel
from bot.process.cli import simulate
from bot.service import bundled_scenarios
from bot.side_news import private_title
from bot.text.account import describe
from bot.transforms.dice_expr import parse_roll, roll_expression
from data import SCENARIO_DIR
from data.i18n import LANGUAGES, catalog, t
from render.phase import phase_title
from rules.dice import Dice
from rules.events import Event, Note
from rules.registry import ruleset_for
from rules.ruleset import DIRECTOR, DiceFactory
from rules.scenario import ScenarioError, load_scenario
from rules.state import EncounterState
from tests.paths import GOLDEN

# "/name" or "/name sub" in running text (not a path such as data/{ruleset}/terrain.toml, nor a fraction)
COMMAND_IN_TEXT = re.compile(r"(?<![\w/<.}])/([^\W\d][\w-]*)(?: ([^\W\d][\w-]*))?")


def command_names(lang: str) -> tuple[set[str], set[tuple[str, str]]]:
    """The slash commands and their subcommands as ``lang``'s catalog names them (``cmd.<path>.name``)."""
    cat = catalog(lang)
    paths = [
        k[len("cmd.") : -len(".name")].split(".") for k in cat if k.startswith("cmd.") and k.endswith(".name")
    ]
    top = {cat[f"cmd.{p[0]}.name"] for p in paths if len(p) == 1}
    sub = {(cat[f"cmd.{p[0]}.name"], cat[f"cmd.{'.'.join(p)}.name"]) for p in paths if len(p) == 2}
    return top, sub


@pytest.mark.parametrize("lang", LANGUAGES)
def test_commands_named_in_text_are_the_readers_command_names(lang: str) -> None:
    top, sub = command_names(lang)
    groups = {group for group, _ in sub}
    wrong: list[str] = []
    for key, text in sorted(catalog(lang).items()):
        if key.startswith("cmd."):
            continue
        for found in COMMAND_IN_TEXT.finditer(text):
            name, subcommand = found.group(1), found.group(2)
            if name not in top or (
                name in groups and subcommand is not None and (name, subcommand) not in sub
            ):
                wrong.append(f"{key}: {found.group(0)!r}")
    assert wrong == [], wrong


# --- phases by their names, never their ids -----------------------------------------------------------------------


def history_of(path: Path, rounds: int = 2) -> tuple[list[tuple[int, str, Event]], EncounterState]:
    """The (round, phase, event) rows of the scenario's first ``rounds`` rounds, as ``/encounter log`` reads
    them, and the state they end in."""
    scenario = load_scenario(path)
    state = scenario.state
    ruleset = ruleset_for(state)
    rows: list[tuple[int, str, Event]] = []
    for spec in scenario.rounds[:rounds]:
        for step in ruleset.simulate_round(state, spec, DiceFactory()):
            rows.extend((step.round, step.phase, e) for e in step.events)
            state = step.state
        if state.over:
            break
    return rows, state


#: the engines' phase ids that are words (exo numbers its phases): none may reach a header
PHASE_IDS = re.compile(
    r"\b(initiative|declare|resolve|draw|activation|combat|move|mode|segment-\d)\b|R\d+·", re.IGNORECASE
)


@pytest.mark.parametrize("name", ["mech-duel", "skirmish-corridor", "pbw-street", "ocs-gazala"])
@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_log_heads_each_step_with_its_name_never_its_phase_id(name: str, lang: str) -> None:
    rows, state = history_of(SCENARIO_DIR / f"{name}.toml")
    lines = log_lines(rows, state, lang)
    headers = [line for line in lines if line.startswith("**")]
    assert headers and len(lines) == len(rows) + len(headers)
    round_word = "Ronda" if lang == "es" else "Round"
    for header in headers:
        assert header.startswith(f"**{round_word} ") or header == f"**{t('render.start', lang)}**", header
        if lang == "es":
            assert not PHASE_IDS.search(header), header
        else:  # English names may be the ids' own words, but capitalized as names, never the raw ids
            assert not re.search(r"·\s*[a-z]", header) and "R1·" not in header, header


def test_mech_log_reads_iniciativa_declaraciones_resolucion_in_spanish() -> None:
    rows, state = history_of(SCENARIO_DIR / "mech-duel.toml", rounds=1)
    headers = [line for line in log_lines(rows, state, "es") if line.startswith("**")]
    assert headers[:3] == [
        "**Ronda 1 · Fase 1 · Iniciativa**",
        "**Ronda 1 · Fase 2 · Declaraciones**",
        "**Ronda 1 · Fase 3 · Resolución**",
    ], headers


@pytest.mark.parametrize(
    ("phase", "es", "en"),
    [
        ("declare", "Ronda 3 · Declaración", "Round 3 · Declaration"),
        ("segment-2", "Ronda 3 · Segmento 2", "Round 3 · Segment 2"),
        ("declare-ana", "Ronda 3 · Declaración de Ana", "Round 3 · Ana declares"),
    ],
)
def test_pbw_1_segments_are_named_as_segments_never_numbered_as_phases(phase: str, es: str, en: str) -> None:
    state = load_scenario(SCENARIO_DIR / "pbw-street.toml").state
    assert phase_title(state, 3, phase, "es") == es
    assert phase_title(state, 3, phase, "en") == en
    assert phase_text(state, 3, phase).render("es") == es


def test_the_ocs_directors_panel_names_its_step() -> None:
    rows, state = history_of(SCENARIO_DIR / "ocs-gazala.toml", rounds=1)
    assert rows
    model = build_panel(state, DIRECTOR, draft=Draft(), owing=True)
    assert model.when is not None
    for lang in LANGUAGES:
        title = model.when.render(lang)
        assert title.startswith("Ronda " if lang == "es" else "Round ") and not PHASE_IDS.search(
            title.replace("Combate", "").replace("Combat", "")
        ), title


# --- scenario names and descriptions in the reader's language (DESIGN §7) ----------------------------------------

TWO_NAMES = """ruleset = "exo"
name = { es = "Duelo al amanecer", en = "Duel at dawn" }
description = { en = "Two ships.", es = "Dos naves." }
[[sides]]
id = "a"
name = "A"
[[sides]]
id = "b"
name = "B"
[[units]]
id = "u1"
side = "a"
at = "0505"
[[units]]
id = "u2"
side = "b"
at = "0909"
"""


@pytest.mark.parametrize(
    ("lang", "name", "description"),
    [
        ("es", "Duelo al amanecer", "Dos naves."),
        ("en", "Duel at dawn", "Two ships."),
        (None, "Duelo al amanecer", "Two ships."),
    ],
)
def test_a_scenario_names_itself_in_the_readers_language(
    lang: str | None, name: str, description: str
) -> None:
    scenario = load_scenario(TWO_NAMES, lang=lang)
    assert scenario.state.name == name and scenario.description == description
    assert dict(scenario.names) == {"es": "Duelo al amanecer", "en": "Duel at dawn"}


def test_a_plain_name_still_names_the_scenario_for_everyone() -> None:
    text = TWO_NAMES.replace('name = { es = "Duelo al amanecer", en = "Duel at dawn" }', 'name = "Duelo"')
    for lang in (None, "en", "es"):
        assert load_scenario(text, lang=lang).state.name == "Duelo"
    only_spanish = TWO_NAMES.replace(', en = "Duel at dawn"', "")
    assert load_scenario(only_spanish, lang="en").state.name == "Duelo al amanecer"


@pytest.mark.parametrize(
    ("name", "path"),
    [('{ es = "Duelo", fr = "Duel" }', "name.fr"), ("{ }", "name"), ("{ es = 3 }", "name.es")],
)
def test_a_name_table_with_a_wrong_language_or_none_is_refused_at_its_key(name: str, path: str) -> None:
    text = TWO_NAMES.replace('{ es = "Duelo al amanecer", en = "Duel at dawn" }', name)
    with pytest.raises(ScenarioError) as err:
        load_scenario(text)
    assert [p.path for p in err.value.problems] == [path], err.value.problems


@pytest.mark.parametrize("path", sorted(SCENARIO_DIR.glob("*.toml")), ids=lambda p: p.stem)
def test_every_bundled_scenario_has_its_name_and_description_in_both_languages(path: Path) -> None:
    scenario = load_scenario(path)
    assert {lang for lang, _ in scenario.names} == set(LANGUAGES)
    assert {lang for lang, _ in scenario.descriptions} == set(LANGUAGES)
    for lang in LANGUAGES:
        assert load_scenario(path, lang=lang).state.name == dict(scenario.names)[lang]


def test_the_scenario_menu_names_each_scenario_in_the_readers_language() -> None:
    es = dict((sid, name) for sid, name, _ in bundled_scenarios("skirmish", "es"))
    en = dict((sid, name) for sid, name, _ in bundled_scenarios("skirmish", "en"))
    assert es["skirmish-corridor"] == "El pasillo" and en["skirmish-corridor"] == "The corridor"


def test_ngt_9_the_directors_private_board_is_titled_as_the_directors_view() -> None:
    """The director's DM after a step read "… · visto por Vista del director" (a board caption used as a name)."""
    state = load_scenario(SCENARIO_DIR / "mech-night.toml", lang="es").state
    es = private_title(state, DIRECTOR, (1, "declare"), state.name, "es")
    assert es == "Incursión nocturna — Ronda 1 · Fase 2 · Declaraciones · visto por el director"
    assert private_title(state, DIRECTOR, (1, "declare"), "Night raid", "en").endswith(
        "as the director sees it"
    )
    side = state.sides[0]
    assert private_title(state, side.id, (1, "declare"), state.name, "es").endswith(
        f"· visto por {side.name}"
    )


# --- English readers read English terms, the seed's in parentheses where the book names them ----------------------


def test_english_readers_read_english_terms_with_the_seeds_in_parentheses() -> None:
    outcome = roll_expression(parse_roll("sombra 12"), Dice(1, (1, 1, 2)))
    params = dict(outcome.params)
    params["quality_text"] = t(f"quality.{params['quality']}", "en")
    assert t(outcome.key, "en", **params).startswith("Skill roll (Sombra): 3d10 1+1+2 = 4")
    assert t(outcome.key, "es", **params).startswith("Sombra: 3d10")  # the seed's own word, in Spanish
    assert t("arc.SFD", "en") == "front right (SFD)" and t("arc.SFD", "es") != t("arc.SFD", "en")
    manta = t(
        "event.exo.MantaSet",
        "en",
        rule="EXO-2.1",
        unit_name="Halcón",
        manta=2,
        maneuverability=3,
        engineer_effect=-1,
    )
    assert "Maneuverability (Manta) 2" in manta, manta


# --- units by name, never by id ------------------------------------------------------------------------------------


@pytest.mark.parametrize("lang", LANGUAGES)
def test_ocs_2_a_combat_names_its_attackers_and_defenders_never_their_ids(lang: str) -> None:
    """The account read "rtr7 contra 0505 (pz21)": the units of a combat are shown by their names."""
    out = io.StringIO()
    assert simulate(load_scenario(SCENARIO_DIR / "ocs-gazala.toml", lang=lang), lang=lang, stream=out) == 0
    text = out.getvalue()
    state = load_scenario(SCENARIO_DIR / "ocs-gazala.toml").state
    ids = [u.id for u in state.units.values() if u.id != u.name]
    leaked = [i for i in ids if re.search(rf"\b{re.escape(i)}\b", text)]
    assert leaked == [], leaked
    opened = next(line for line in text.splitlines() if "[OCS-2]" in line and "(" in line)
    assert state.units[ids[0]].name in text and "Pz" in opened, opened


# --- every event of every scenario, in both languages: no word of the other language ------------------------------

#: words an English text has and a Spanish one never does (ids and names are taken out first)
ENGLISH_WORDS = re.compile(
    r"\b(the|and|with|roll|rolls|hit|hits|miss|misses|shot|shoots|fires|moves|turns|damage|needs|success|"
    r"failure|phase|round|against|unit|destroyed|armor|armour|structure|heat|falls|stands|engine|weapon|"
    r"weapons|range|short|medium|long|initiative|declares|wins|loses|strays|seen|sees|step|retreat|retreats|"
    r"attack|attacks|defender|attacker|segment|fatigue|wounded|dead|alive|charge|shoot|aim)\b"
)
#: words a Spanish text has and an English one never does
SPANISH_WORDS = re.compile(
    r"\b(el|los|las|del|con|contra|tira|tirada|impacto|fallo|éxito|daño|dispara|mueve|gira|necesita|ronda|"
    r"fase|unidad|destruid[oa]|blindaje|estructura|calor|cae|motor|arma|armas|alcance|corto|medio|largo|"
    r"iniciativa|declara|gana|pierde|extravía|iluminad[oa]|oscuridad|visto|retrocede|ataque|ataca|defensor|"
    r"atacante|segmento|fatiga|herid[oa]|muert[oa]|vivo|carga|apunta|por|para)\b",
    re.IGNORECASE,
)
EVERY_SCENARIO = sorted(SCENARIO_DIR.glob("*.toml")) + sorted(GOLDEN.glob("*.toml"))


def free_text(value: object) -> list[str]:
    """Every string of more than one word in a ``[[rounds]]`` entry, and what follows its verb ("act force the
    hatch": "force the hatch")."""
    if isinstance(value, str):
        return [value, value.split(" ", 1)[1]] if " " in value else []
    if isinstance(value, dict):
        return [text for item in cast(dict[str, object], value).values() for text in free_text(item)]
    if isinstance(value, list | tuple):
        return [text for item in cast(list[object], value) for text in free_text(item)]
    return []


@pytest.mark.parametrize("path", EVERY_SCENARIO, ids=lambda p: p.stem)
def test_every_event_reads_in_one_language_in_both_languages(path: Path) -> None:
    """Every catalog template of every event the scenario's scripted rounds produce (the events of its golden
    log), rendered in Spanish and in English: no English word in the Spanish text, no Spanish word in the
    English one."""
    rows, state = history_of(path, rounds=99)
    assert rows
    # names, and the words the file wrote itself (an action its rounds describe), in the file's own language
    written = [text for spec in load_scenario(path).rounds for text in free_text(spec.raw)]
    names = sorted([u.name for u in state.units.values()] + [s.name for s in state.sides] + written, key=len)
    names.reverse()
    bad: list[str] = []
    for _, _, event in rows:
        for lang, other in (("es", ENGLISH_WORDS), ("en", SPANISH_WORDS)):
            line = describe(event, state, lang, markdown=False)
            bare = line
            for name in names:
                bare = bare.replace(name, "")
            if found := other.search(bare):
                bad.append(f"{lang} {type(event).__name__} {found.group(0)!r}: {line}")
    assert bad == [], "\n".join(bad[:20])


def test_exo_4_5_an_unruled_collision_names_its_pieces() -> None:
    """The note read "Collision of pirata, roca …": the pieces' ids."""
    rows, state = history_of(SCENARIO_DIR / "exo-duel.toml", rounds=99)
    notes = [e for _, _, e in rows if isinstance(e, Note) and e.key == "exo.collision_unruled"]
    assert notes
    for lang in LANGUAGES:
        line = describe(notes[0], state, lang)
        assert "Pirata" in line and "pirata" not in line, line
