"""Engine texts, roll lines and phase names as a Spanish reader sees them: every engine text of the bundled exo and skirmish
scenarios goes through the catalogs (no English purpose words, raw ids, True/False or "(s)" plurals), every roll
line can be checked with a pencil (dice, each modifier with its reason, total, target and the way it succeeds:
DICE-1, DICE-2, DICE-3), and every header names one phase, by number and name."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest

from bot.panels.model import phase_text
from bot.process.cli import simulate
from bot.text.account import describe, display_value, event_json, roll_purpose
from bot.transforms.dice_expr import parse_roll, roll_expression
from data import SCENARIO_DIR
from data.i18n import t
from render.board import _subtitle  # pyright: ignore[reportPrivateUsage]
from render.phase import phase_title
from rules.dice import Dice
from rules.events import DirectorOverride, RollMade
from rules.hexgrid import HexSide, Vertex
from rules.ruleset import PUBLIC
from rules.scenario import load_scenario
from tests.paths import GOLDEN

SCENARIOS = [
    *sorted(SCENARIO_DIR.glob("exo-*.toml")),
    *sorted(SCENARIO_DIR.glob("skirmish-*.toml")),
    GOLDEN / "exo-golden.toml",
]
#: the other rulesets' accounts, checked with the same scan (their panels have tests of their own)
OTHER_RULESETS = [p for rid in ("mech", "pbw", "ocs") for p in sorted(SCENARIO_DIR.glob(f"{rid}-*.toml"))]

#: English words an engine text used to leak into a Spanish account (purposes, keywords, phase ids)
ENGLISH = re.compile(
    r"\b(roll|hit|hexes|shot|shots|gunner|pilot|engineer|navigator|captain|medium|long|short|ranged|overwatch|"
    r"move|shoot|ask|always|never|engines|weapon|cabin|cargo|structure|maneuverability|wounded|gravely|stunned|"
    r"assistant|repair|phase|round|activation|draw|debris|injury|piloting|damage|vs)\b",
    re.IGNORECASE,
)


def spanish_account(path: Path) -> list[str]:
    out = io.StringIO()
    assert simulate(load_scenario(path), lang="es", stream=out) == 0
    return out.getvalue().splitlines()


@pytest.mark.parametrize("path", SCENARIOS + OTHER_RULESETS, ids=lambda p: p.stem)
def test_every_spanish_account_line_is_spanish(path: Path) -> None:
    """No English purpose words: "hit roll", "(medium, 10 hexes)", "engines, weapon", "fase activation", NPC crew named
    "gunner", "(1 disparo(s))" and "True/False" never reach a Spanish account."""
    lines = spanish_account(path)
    assert len(lines) > 20
    bad: list[str] = []
    for line in lines:
        if (
            "[NGT-" in line
        ):  # the night layer's own texts are its catalog's business (data/locales/*/night.toml)
            continue
        if "force the hatch" in line:  # a description the scenario file wrote (its own words)
            line = line.replace("force the hatch", "")
        problems = [
            ENGLISH.search(line) and f"english {ENGLISH.search(line)!r}",
            ("(s)" in line or "(es)" in line) and "plural (s)",
            re.search(r"\b(True|False|None)\b", line) and "python value",
            re.search(r"[{}]", line) and "unfilled template",
            re.search(r"\b[a-z]+_[a-z_]+\b", line) and "raw keyword",
            re.search(r"\[([A-Z]+-[\d.]+b?)\] \1", line) and "rule id twice",
            re.search(r"-debris\b", line) and "raw unit id",
        ]
        bad.extend(f"{p}: {line}" for p in problems if p)
    assert not bad, "\n".join(bad[:30])


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_every_roll_line_shows_dice_modifiers_total_target_and_direction(path: Path) -> None:
    """DICE-2: a Sombra roll line reads "3d10 a+b+c = s, +m (reason) … = total — necesita ≤
    skill: result" and the numbers add up, so anyone can check it with a pencil."""
    out = io.StringIO()
    assert simulate(load_scenario(path), as_json=True, stream=out) == 0
    checked = 0
    for raw in out.getvalue().splitlines():
        record = json.loads(raw)
        if record["type"] != "RollMade" or "need" not in record["detail"]:
            continue
        if record["rule"].startswith("NGT-"):
            continue  # the night layer's straying check reads two dice apart (tests/night/test_night_roll_lines.py)
        detail = record["detail"]
        mods: dict[str, int] = detail["modifiers"]
        assert sum(mods.values()) == detail["modifier"], record
        assert detail["total"] == sum(record["dice"]) + detail["modifier"], record
        assert detail["need"] == "le"  # Sombra: total ≤ skill (DICE-2)
        quality = detail["quality"]
        assert (detail["total"] <= detail["skill"]) == (quality in ("success", "low_success", "critical")), (
            record
        )
        checked += 1
    assert checked >= 1


def test_exo3_4_hit_roll_shows_each_modifier_with_its_reason() -> None:
    """EXO-3.4: the golden log's first shot: +3 medium range and +2 weapon type were hidden in "→ 17 contra 15"."""
    event = RollMade(
        rule="EXO-3.4",
        purpose="EXO-3.4 hit roll, Halcón APt#1 → Pirata (medium, 10 hexes)",
        sides=10,
        dice=(2, 6, 4),
        actor="halcon",
        target="pirata",
        detail=(
            ("band", "medium"),
            ("crew", "Kal"),
            ("distance", 10),
            ("modifier", 5),
            ("modifiers", (("range.medium", 3), ("weapon", 2))),
            ("need", "le"),
            ("purpose_key", "exo.hit"),
            ("quality", "failure"),
            ("skill", 15),
            ("total", 17),
            ("weapon", "APt#1"),
        ),
    )
    state = load_scenario(GOLDEN / "exo-golden.toml").state
    assert describe(event, state, "es") == (
        "[EXO-3.4] Halcón (Kal) APt#1 → Pirata, alcance medio (10 hex.): "
        "3d10 2+6+4 = 12, +3 (alcance medio) +2 (tipo de arma) = 17 — necesita ≤ 15: fallo"
    )
    assert describe(event, state, "en") == (
        "[EXO-3.4] Halcón (Kal) APt#1 → Pirata, medium range (10 hexes): "
        "3d10 2+6+4 = 12, +3 (medium range) +2 (weapon type) = 17 — needs ≤ 15: failure"
    )
    # the director reviewing held rolls reads the same purpose, in their language
    assert roll_purpose(event, state, "es") == "Halcón (Kal) APt#1 → Pirata, alcance medio (10 hex.)"
    # sim --json keeps every old field and adds the structured detail (DESIGN §7: add, never rename)
    out = json.loads(event_json(event, round=1, phase="2"))
    assert out["purpose"].startswith("EXO-3.4 hit roll") and out["dice"] == [2, 6, 4]
    assert out["detail"]["modifiers"] == {"range.medium": 3, "weapon": 2}


def test_an_npc_gunner_is_named_by_its_station_in_spanish() -> None:
    lines = spanish_account(SCENARIO_DIR / "exo-duel.toml")
    assert any("Pirata (artillero) AMt#1" in line for line in lines), "NPC crew 'gunner' reads 'artillero'"


@pytest.mark.parametrize(
    ("expression", "dice", "es"),
    [
        ("2d6+5 vs 15", (4, 5), "2d6 4+5 = 9, +5 = 14 — necesita ≥ 15: fallo"),
        ("sombra 15 +5", (7, 1, 5), "Sombra: 3d10 7+1+5 = 13, +5 = 18 — necesita ≤ 15: fallo"),
        ("sombra 12", (1, 1, 2), "Sombra: 3d10 1+1+2 = 4 — necesita ≤ 12: éxito bajo"),
    ],
)
def test_roll_command_spells_out_the_direction(expression: str, dice: tuple[int, ...], es: str) -> None:
    """DICE-2 succeeds low, DICE-3 high: /roll no longer says "vs/contra" for both."""
    outcome = roll_expression(parse_roll(expression), Dice(1, dice))
    params = dict(outcome.params)
    params["quality_text"] = t(f"quality.{params['quality']}", "es")
    assert t(outcome.key, "es", **params) == es


def test_unit_info_and_director_set_speak_spanish() -> None:
    """ "Destruida: False", "Tipo: ship" and "armor = 2" were raw values."""
    assert display_value("destroyed", False, "es") == "no"
    assert display_value("kind", "ship", "es") == "nave"
    assert display_value("facing", "SW", "es") == "SO" and display_value("facing", "S-SW", "es") == "S-SO"
    assert display_value("overwatch", "ask", "es") == "pregunta cada vez"
    event = DirectorOverride(
        rule="DIR-1", action="set", unit="halcon", args=(("stat", "armor"), ("value", 2))
    )
    state = load_scenario(SCENARIO_DIR / "exo-duel.toml").state
    assert describe(event, state, "es") == "[Director] Halcón: Blindaje = 2"


def test_spanish_facings_are_accepted() -> None:
    """SO/NO as well as SW/NW wherever a facing is typed (HEX-2)."""
    assert HexSide.parse("SO") == HexSide.SW and HexSide.parse("no") == HexSide.NW
    assert Vertex.parse("SO-NO") == Vertex.SW_NW and Vertex.parse("s-so") == Vertex.S_SW
    assert Vertex.parse("NO-N") == Vertex.NW_N


@pytest.mark.parametrize(
    ("path", "round_no", "phase", "es"),
    [
        ("exo-duel.toml", 4, "3", "Ronda 4 · Fase 3 · Ejecución de movimientos"),
        ("exo-duel.toml", 4, "2", "Ronda 4 · Fase 2 · Combate"),
        ("skirmish-corridor.toml", 1, "draw", "Ronda 1 · Fase 1 · Extracción de ficha directora"),
        ("skirmish-corridor.toml", 1, "activation", "Ronda 1 · Fase 2 · Activación"),
        ("skirmish-corridor.toml", 1, "delta-kara", "Ronda 1 · Fase 2 · Activación de Kara"),
    ],
)
def test_one_phase_number_with_its_name(path: str, round_no: int, phase: str, es: str) -> None:
    """The header, the panel/status title and the board subtitle say the same single phase."""
    state = load_scenario(SCENARIO_DIR / path).state
    assert phase_title(state, round_no, phase, "es") == es
    assert phase_text(state, round_no, phase).render("es") == es
    subtitle = _subtitle(state, PUBLIC, None, "es", (round_no, phase))
    assert subtitle.startswith(es) and subtitle.count("Fase") == 1
    assert "activation" not in subtitle and "draw" not in subtitle


def test_the_channel_board_names_the_step_its_account_tells() -> None:
    """The board after phase 2 said "Ronda 4 · Fase 3" under a "ronda 4 · fase 2" title: now its subtitle names
    the step it shows, and the sim header uses the same words."""
    lines = spanish_account(SCENARIO_DIR / "exo-duel.toml")
    headers = [line for line in lines if line.startswith("== ") and "fin" not in line]
    assert headers[:2] == ["== Ronda 1 · Fase 1 · Tripulación y órdenes", "== Ronda 1 · Fase 2 · Combate"]
    assert all(h.count("Fase") == 1 for h in headers)


def panel_texts(path: Path) -> set[str]:
    """Every text of every unit's panel, in Spanish, at every step of the scenario's first two rounds."""
    from bot.panels import panel_for
    from bot.panels.draft import Draft
    from bot.panels.model import PanelModel, Select
    from rules.registry import ruleset_for
    from rules.ruleset import DiceFactory

    def texts(model: PanelModel) -> list[str]:
        out = [model.when.render("es")] if model.when is not None else []
        out += [line.render("es") for line in model.lines]
        out += [s.value if isinstance(s.value, str) else s.value.render("es") for s in model.stats]
        for f in model.fields:
            out += [f.name.render("es"), *(v.render("es") for v in f.lines)]
        for c in model.controls:
            if isinstance(c, Select):
                out += [c.placeholder.render("es"), *(o.text.render("es") for o in c.options)]
        return out

    scenario = load_scenario(path)
    ruleset = ruleset_for(scenario.state)
    plugin = panel_for(ruleset.innermost().id)
    state = scenario.state
    seen: set[str] = set()
    for spec in scenario.rounds[:2]:
        for step in ruleset.simulate_round(state, spec, DiceFactory()):
            for uid, unit in step.state.units.items():
                if unit.side and not unit.destroyed:
                    seen.update(texts(plugin.build_panel(step.state, uid, draft=Draft(), owing=True)))
            state = step.state
    return seen


@pytest.mark.parametrize("path", SCENARIOS[:-1], ids=lambda p: p.stem)
def test_every_spanish_panel_text_is_spanish(path: Path) -> None:
    """No raw ids: "gunner1 · APt#1", "El capitán ayuda a engineer", NPC crew "pilot pasa a capitán" and
    vertex "SW-NW" never reach a Spanish panel."""
    texts = panel_texts(path)
    assert len(texts) > 10
    bad = [
        x
        for x in texts
        if ENGLISH.search(x)
        or re.search(r"\b(SW|NW)\b", x)
        or re.search(r"\b(gunner|pilot)\d*\b", x)
        or re.search(r"\b(True|False|None)\b|[{}]|\(s\)", x)
    ]
    assert not bad, bad[:20]


def test_cli_images_follow_lang(tmp_path: Path) -> None:
    """`sim --out` and `demo` draw their boards in `--lang` (the subtitle names the phase)."""
    from render.files import write_step_images
    from rules.ruleset import SimStep

    state = load_scenario(SCENARIO_DIR / "exo-duel.toml").state
    step = SimStep(round=1, phase="2", state=state, events=())
    es = write_step_images(tmp_path / "es", step, "es")
    en = write_step_images(tmp_path / "en", step, "en")
    assert [p.name for p in es] == [p.name for p in en] == ["r01-p2.png", "r01-p2-director.png"]
    assert es[0].read_bytes() != en[0].read_bytes(), "the Spanish board is not the English one"
    assert write_step_images(tmp_path / "again", step, "es")[0].read_bytes() == es[0].read_bytes()
    from bot.process.cli import _parser  # pyright: ignore[reportPrivateUsage]

    assert _parser().parse_args(["demo", "--lang", "es"]).lang == "es"


def test_the_captain_helps_a_named_station_in_spanish() -> None:
    """EXO-2.1: "El capitán ayuda a engineer" read a raw station id; the gunners are named by name and rank."""
    texts = panel_texts(SCENARIO_DIR / "exo-patrol.toml")
    assert {"El capitán ayuda al ingeniero", "El capitán ayuda a Bruno (artillero 1)"} <= texts
