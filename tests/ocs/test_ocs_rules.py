"""OCS-1..OCS-7 worked: the seed's own examples, the [HOUSE] tables, the clamps at both ends.

Seed: ``seeds/ocs-combat-odds.es.txt``; rules: RULES.md §4; tables: ``data/ocs/crt.toml``.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from data.loader import TableError
from rules.hexgrid import Hex
from rules.ocs import arithmetic as ar
from rules.ocs.legality import hedgehog_of, terrain_of
from rules.ocs.model import DG, NORMAL, STRATEGIC, OcsUnit
from rules.ocs.queries import loss_allocations
from rules.ocs.tables import Odds, parse_result, tables
from rules.ruleset import PhaseResult
from rules.state import EncounterState
from tests.ocs_fixtures import board, director, of_type, resolve, unit
from tests.paths import ROOT

SEED_EXAMPLE = [
    ("pz21", "axis", "0505", 6, 5, 2),
    ("pz15", "axis", "0506", 3.5, 4, 2),
    ("rtr7", "allies", "0605", 3.5, 4, 2),
]


def _seed_example(dice: tuple[int, ...]) -> PhaseResult:
    """The seed's combat (2/1 Pz with 1/8 Pz against 7 RTR in the open, ARs named up front), rolled with ``dice``."""
    combat = {"attackers": ["pz21", "pz15"], "defender": "0605", "ar_attacker": "pz21", "ar_defender": "rtr7"}
    return resolve(director(board(SEED_EXAMPLE), {"combat": combat}).state, dice=dice)


@contextmanager
def _tables_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str) -> Iterator[None]:
    """``data/ocs/crt.toml`` replaced by ``text`` (HEXD_TABLES) while the block runs."""
    (tmp_path / "ocs").mkdir()
    (tmp_path / "ocs" / "crt.toml").write_text(text, encoding="utf-8")
    monkeypatch.setenv("HEXD_TABLES", str(tmp_path))
    tables.cache_clear()
    try:
        yield
    finally:
        monkeypatch.delenv("HEXD_TABLES")
        tables.cache_clear()


# --- OCS-1 ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("mode", "expected"), [(NORMAL, 5), (DG, 4), (STRATEGIC, 0)])
def test_ocs1_mode_changes_the_action_rating(mode: str, expected: int) -> None:
    """Seed: «se sustraerá uno de las unidades que se encuentren en modo "DG" y aquellas unidades en Modo
    Estrategico reducirán el "Action Rating" a 0»."""
    u = OcsUnit(id="u", side="a", name="u", at=None, ar=5, mode=mode)
    assert u.action_rating == expected


def test_ocs1_hexes_carry_a_terrain_class_and_a_hedgehog_level() -> None:
    """DESIGN §7.2: ``[board] terrain`` (open by default) and ``hedgehog`` (Board.features, levels 0-4)."""
    state = board([("a", "axis", "0505", 1, 1, 1)], terrain={"0606": "close"}, hedgehog={"0606": 2})
    assert terrain_of(state, Hex.parse("0606")) == "close" and hedgehog_of(state, Hex.parse("0606")) == 2
    assert terrain_of(state, Hex.parse("0505")) == "open" and hedgehog_of(state, Hex.parse("0505")) == 0
    assert state.board.features["hedgehog"] == {Hex.parse("0606"): 2}


# --- OCS-2 ---------------------------------------------------------------------------------------------------


def test_ocs2_seed_example_drm_is_attacker_ar_minus_defender_ar() -> None:
    """Seed: «el primero cuenta con un Action Rating de 5 y el británico con un Action Rating de 4. Esto nos da un
    DRM por diferencia de Action Rating de 5-4 = 1»."""
    assert ar.drm(5, 4) == 1
    assert ar.drm(2, 4) == -2
    rolled = _seed_example((3, 3, 3, 3))
    (ratings,) = of_type(rolled, "OcsActionRatings")
    assert (ratings.attacker, ratings.attacker_ar, ratings.defender, ratings.defender_ar, ratings.drm) == (
        "pz21",
        5,
        "rtr7",
        4,
        1,
    )


def test_ocs2_the_first_step_lost_comes_from_the_ar_unit() -> None:
    """Seed: «el primer incremento perdido por una unidad en el combate deberá ser tomado de la unidad que sirvió
    para calcular el "Action Rating"». 2d6 = 1+1 at 1:2 in the open: AL2; the AR unit pz15 (not the stronger pz21)
    takes the first step, the second is the attacker's choice."""
    state = board(
        [
            ("pz21", "axis", "0505", 1, 3, 2),
            ("pz15", "axis", "0506", 1, 4, 2),
            ("rtr7", "allies", "0605", 4, 4, 2),
        ]
    )
    opened = director(
        state,
        {
            "combat": {
                "attackers": ["pz21", "pz15"],
                "defender": "0605",
                "ar_attacker": "pz15",
                "ar_defender": "rtr7",
            }
        },
    )
    rolled = resolve(opened.state, dice=(3, 3, 1, 1))  # surprise 6 +0: none; combat 2 → AL2 on column 1
    (roll,) = of_type(rolled, "OcsCombatRoll")
    assert (roll.column, roll.modified, roll.result) == (1, 2, "AL2")
    (first,) = of_type(rolled, "OcsStepLost")
    assert (first.unit, first.cause, first.rule) == ("pz15", "action_rating", "OCS-2")
    assert unit(rolled.state, "pz15").steps == 1 and unit(rolled.state, "pz21").steps == 2
    assert loss_allocations(rolled.state, 1) == (("pz21",), ("pz15",))


# --- OCS-3 ---------------------------------------------------------------------------------------------------


def test_ocs3_seed_example_9_5_against_3_5_is_2_71_rounded_to_3_to_1() -> None:
    """Seed: «Una fuerza con 9,5 Puntos de Combate (Modificado) frente a otra de 3,5 Puntos de Combate (modificada)
    del defensor sería una proporción de 2,71 a 1, lo que termina redondeandose a una proporción de 3:1»."""
    attack, defense = ar.total_strength([6, 3.5]), ar.total_strength([3.5])
    assert attack == Fraction(19, 2)
    assert round(float(ar.ratio(attack, defense)), 2) == 2.71
    assert ar.odds(attack, defense).text == "3:1"


def test_ocs3_rules_example_3_against_7_is_1_to_2_33_rounded_to_1_to_2() -> None:
    """RULES.md OCS-3: 3 vs 7 → 1:2.33 → 1:2 (the larger divided by the smaller, written attacker first)."""
    attack, defense = ar.total_strength([3]), ar.total_strength([7])
    assert round(float(ar.ratio(attack, defense)), 2) == 2.33
    assert ar.odds(attack, defense).text == "1:2"


@pytest.mark.parametrize(
    ("attack", "defense", "odds"),
    [
        (3, 2, "2:1"),
        (5, 2, "3:1"),
        (2, 3, "1:2"),
        (2, 5, "1:3"),
        (1.4, 1, "1:1"),
        (1, 1.4, "1:1"),
        (4, 4, "1:1"),
    ],
)
def test_ocs3_half_rounds_up_only_at_the_end(attack: float, defense: float, odds: str) -> None:
    """Seed: «si es ,5 entonces redondeamos hacia arriba»: 3/2 = 1.5 → 2:1, 5/2 = 2.5 → 3:1, 2 vs 3 → 1:2."""
    assert ar.odds(ar.exact(attack), ar.exact(defense)).text == odds


def test_ocs3_decimal_strengths_add_exactly() -> None:
    """Rounded only at the end: ten units of 0.1 are exactly 1, so 1 against 1 is 1:1 and 1.5 is 2:1."""
    assert ar.total_strength([0.1] * 10) == 1
    assert ar.odds(ar.total_strength([0.1] * 15), ar.total_strength([1])).text == "2:1"


@given(
    st.integers(min_value=1, max_value=400).map(lambda n: n / 4),
    st.integers(min_value=1, max_value=400).map(lambda n: n / 4),
)
def test_ocs3_odds_round_the_exact_ratio_half_up(attack: float, defense: float) -> None:
    a, d = ar.exact(attack), ar.exact(defense)
    odds = ar.odds(a, d)
    big, small = max(a, d), min(a, d)
    n = odds.attacker if a >= d else odds.defender
    assert (odds.defender if a >= d else odds.attacker) == 1
    assert n - Fraction(1, 2) <= big / small < n + Fraction(1, 2)


# --- OCS-4 ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("terrain", "odds", "column"),
    [
        ("open", "3:1", 4),
        ("close", "3:1", 3),
        ("very_close", "3:1", 2),
        ("extra_close", "3:1", 1),
        ("extra_close", "20:1", 12),
        ("open", "11:1", 11),  # between printed odds: the column at or below
        ("open", "1:9", 1),  # worse than the first column [HOUSE]: the first
        ("open", "40:1", 12),  # beyond the last column: the last
    ],
)
def test_ocs4_the_column_comes_from_the_defenders_terrain_class(terrain: str, odds: str, column: int) -> None:
    """Seed: «la proporción que hemos hayado ... debe ser trasladada utilizando ahora la columna correspondiente al
    hexágono en el que se encuentra el Defensor» (Extra Close, Very Close, Close ó Open)."""
    assert ar.column(tables(), terrain, Odds.parse(odds)) == column


def test_ocs4_terrain_classes_are_the_seeds_four() -> None:
    assert set(tables().terrain_classes) == {"open", "close", "very_close", "extra_close"}
    assert tables().default_terrain == "open" and tables().width == 12


# --- OCS-5 ---------------------------------------------------------------------------------------------------


def test_ocs5_surprise_is_2d6_plus_drm_minus_one_for_any_hedgehog() -> None:
    """Seed: «Se lanzan dos dados y se añade el DRM ... Sustraeremos 1 de la tirada si el defensor se encuentra en
    cualquier nivel de fortificación» and «el nivel de fortificación solo afecta con un -1 a la sorpresa
    INDEPENDIENTEMENTE del nivel»."""
    assert ar.surprise_modified(7, 2, 0) == 9
    assert ar.surprise_modified(7, 2, 1) == ar.surprise_modified(7, 2, 4) == 8


@pytest.mark.parametrize(
    ("kind", "modified", "who"),
    [
        ("regular", 10, "attacker"),
        ("regular", 9, None),
        ("regular", 5, None),
        ("regular", 4, "defender"),
        ("overrun", 8, "attacker"),
        ("overrun", 7, None),
        ("overrun", 3, "defender"),
    ],
)
def test_ocs5_thresholds_depend_on_the_attack_type(kind: str, modified: int, who: str | None) -> None:
    """Seed: «El tipo de ataque (arrollamiento o normal) determinará lo que necesitamos para obtener una Sorpresa»
    ([HOUSE] thresholds: regular 10+ / 4−, overrun 8+ / 3−)."""
    assert ar.surprise(modified, tables().surprise[kind]) == who


def test_ocs5_shift_right_for_the_attacker_left_for_the_defender_clamped_at_both_ends() -> None:
    """Seed: «se tira un dado y saltamos tantas columnas ... a la derecha si la sorpresa la consigue el atacante y a la
    izquierda si la consigue el defensor»; the table's ends stop the shift."""
    assert (
        ar.signed_shift("attacker", 3) == 3
        and ar.signed_shift("defender", 3) == -3
        and ar.signed_shift(None, 0) == 0
    )
    assert ar.shifted(4, 3, 12) == 7 and ar.shifted(4, -3, 12) == 1
    assert ar.shifted(2, -5, 12) == 1  # left end
    assert ar.shifted(10, 6, 12) == 12  # right end


# --- OCS-6 ---------------------------------------------------------------------------------------------------


def test_ocs6_combat_roll_subtracts_the_full_hedgehog_and_clamps_to_1_15() -> None:
    """Seed: «Añadimos el DRM ... y sustraemos el valor completo de cualquier fortificación ... Si la tirada
    Modificada resulta en menor que 1 entonces consideraremos un 1, Si es mayor que 15 será 15»."""
    assert ar.combat_modified(7, 1, 3) == 5
    assert ar.clamp_roll(ar.combat_modified(2, -4, 4)) == 1  # −6 → 1
    assert ar.clamp_roll(ar.combat_modified(12, 5, 0)) == 15  # 17 → 15
    assert [ar.clamp_roll(v) for v in (0, 1, 15, 16)] == [1, 1, 15, 15]


def test_ocs6_crt_cells_read_the_notation() -> None:
    cell = parse_result("AL1 DL2o3 e")
    assert (cell.attacker_loss, cell.defender_loss, cell.option, cell.exploit) == (1, 2, 3, True)
    assert parse_result("-") == parse_result(" - ").__class__(text="-")
    for bad in ("", "AL1 AL2", "DX1", "- AL1", "o"):
        with pytest.raises(ValueError):
            parse_result(bad)


def _scripted_combat(state: EncounterState, at: str, dice: tuple[int, ...]) -> PhaseResult:
    """Every axis unit attacks ``at``; the combat rolls with ``dice``."""
    attackers = [u.id for u in state.units.values() if u.side == "axis"]
    opened = director(state, {"combat": {"attackers": attackers, "defender": at}})
    return resolve(opened.state, dice=dice)


def test_ocs5_ocs6_clamps_at_the_low_end_of_both_tables() -> None:
    """AR 0 against AR 4 behind a level-4 hedgehog: surprise 1+1 −4 −1 = −3, the defender surprises and a 6 shifts
    from column 1 (1:2) nowhere further left; combat 1+1 −4 −4 = −6, read as 1: AL2."""
    state = board([("a", "axis", "0505", 1, 0, 2), ("d", "allies", "0605", 2, 4, 2)], hedgehog={"0605": 4})
    rolled = _scripted_combat(state, "0605", (1, 1, 6, 1, 1))
    (surprise,) = of_type(rolled, "OcsSurprise")
    assert (surprise.modified, surprise.surprise, surprise.shift, surprise.final_column) == (
        -3,
        "defender",
        -6,
        1,
    )
    (roll,) = of_type(rolled, "OcsCombatRoll")
    assert (roll.unclamped, roll.modified, roll.column, roll.result) == (-6, 1, 1, "AL2")


def test_ocs5_ocs6_clamps_at_the_high_end_of_both_tables() -> None:
    """AR 5 against a defender in strategic mode (AR 0) at 10:1: surprise 6+6 +5 = 17, a 6 shifts column 11 past
    the right end to 12; combat 6+6 +5 = 17, read as 15: DL3o3 e."""
    state = board([("a", "axis", "0505", 10, 5, 2), ("d", "allies", "0605", 1, 4, 3, "strategic")])
    rolled = _scripted_combat(state, "0605", (6, 6, 6, 6, 6))
    (col,) = of_type(rolled, "OcsColumn")
    assert col.column == 11
    (surprise,) = of_type(rolled, "OcsSurprise")
    assert (surprise.modified, surprise.shift, surprise.final_column) == (17, 6, 12)
    (roll,) = of_type(rolled, "OcsCombatRoll")
    assert (roll.unclamped, roll.modified, roll.result) == (17, 15, "DL3o3 e")
    assert roll.exploit


# --- OCS-7 ---------------------------------------------------------------------------------------------------


def test_ocs7_every_figure_of_the_procedure_is_in_the_events() -> None:
    """RULES OCS-7: ARs, DRM, raw ratio, rounded odds, column, surprise roll and threshold, shift, final column,
    combat roll (raw, modified, clamped) and the result, for the seed's example with an attacker surprise."""
    rolled = _seed_example((5, 6, 2, 4, 3))
    figures = {k for e in rolled.events if e.type.startswith("Ocs") for k in e.params()}
    (odds,) = of_type(rolled, "OcsOdds")
    assert (odds.attack, odds.defense, odds.ratio, odds.odds) == (9.5, 3.5, 2.71, "3:1")
    (col,) = of_type(rolled, "OcsColumn")
    assert (col.terrain, col.column, col.column_odds) == ("open", 4, "3:1")
    (s,) = of_type(rolled, "OcsSurprise")
    assert (s.roll, s.drm, s.modified, s.threshold_attacker, s.threshold_defender) == (11, 1, 12, 10, 4)
    assert (s.surprise, s.shift_roll, s.shift, s.final_column, s.final_odds) == ("attacker", 2, 2, 6, "5:1")
    (r,) = of_type(rolled, "OcsCombatRoll")
    assert (r.roll, r.unclamped, r.modified, r.column, r.result) == (7, 8, 8, 6, "DL1o2")
    rolls = of_type(rolled, "RollMade")
    assert [(x.rule, x.dice) for x in rolls] == [("OCS-5", (5, 6)), ("OCS-5", (2,)), ("OCS-6", (4, 3))]
    assert {
        "attacker_ar",
        "defender_ar",
        "drm",
        "ratio",
        "odds",
        "column",
        "shift",
        "final_column",
        "result",
    } <= figures


def test_ocs7_the_account_shows_the_figures_in_both_languages() -> None:
    from bot.text.account import describe

    rolled = _seed_example((5, 6, 2, 4, 3))
    es = "\n".join(describe(e, rolled.state, "es") for e in rolled.events)
    en = "\n".join(describe(e, rolled.state, "en") for e in rolled.events)
    assert "cociente 2.71 → proporción 3:1" in es and "ratio 2.71 → odds 3:1" in en
    assert "el atacante sorprende al defensor; desplazamiento de columna +2 → columna 6 (5:1)" in es
    assert "7 +1 DRM −0 erizo = 8 → 8 en la columna 6: DL1o2" in es
    assert "{" not in es and "{" not in en, "every template is filled"


# --- the tables are data ---------------------------------------------------------------------------------------


def test_a_group_can_type_in_its_own_tables(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """OCS-4/5/6 [HOUSE]: the engine never holds a column; a three-column table with other terrain names works."""
    rows = "\n".join(f'{r} = ["AL1", "-", "DL{1 if r < 8 else 2}"]' for r in range(1, 16))
    text = (
        '[columns]\nflat = ["1:1", "2:1", "4:1"]\nrough = ["1:2", "1:1", "3:1"]\n[terrain]\ndefault = "flat"\n'
        "[surprise.regular]\nattacker = 11\ndefender = 2\n[surprise.overrun]\nattacker = 9\ndefender = 3\n"
        f"[results]\n{rows}\n"
    )
    with _tables_file(tmp_path, monkeypatch, text):
        own = tables()
        assert own.width == 3 and own.terrain_classes == ("flat", "rough")
        assert (
            ar.column(own, "rough", Odds.parse("2:1")) == 2 and ar.column(own, "flat", Odds.parse("5:1")) == 3
        )
        assert own.result(9, 3).defender_loss == 2 and own.result(1, 2).text == "-"


def test_a_broken_table_names_the_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    text = (
        '[columns]\nopen = ["2:1", "1:1"]\n[terrain]\ndefault = "desert"\n'
        "[surprise.regular]\nattacker = 4\ndefender = 4\n[surprise.overrun]\nattacker = 9\ndefender = 3\n"
        '[results]\n1 = ["AL1", "XX"]\n'
    )
    with _tables_file(tmp_path, monkeypatch, text), pytest.raises(TableError) as err:
        tables()
    for where in (
        "results.2: missing",
        "results.1[1]",
        "columns.open: the odds must grow",
        "terrain.default",
        "surprise.regular",
    ):
        assert where in str(err.value)


def test_every_bundled_cell_parses_and_rows_cover_1_to_15() -> None:
    tab = tables()
    assert sorted(tab.results) == list(range(1, 16))
    assert all(len(row) == tab.width for row in tab.results.values())


@pytest.mark.parametrize("lang", ["es", "en"])
def test_the_rules_reference_has_one_heading_per_rule_id(lang: str) -> None:
    """docs/rules/ocs.<lang>.md: ``## OCS-n — Title`` for every OCS id of RULES.md §4, each once, in order."""
    import re

    text = (ROOT / "docs" / "rules" / f"ocs.{lang}.md").read_text(encoding="utf-8")
    headings = re.findall(r"^## (\S+) — \S.*$", text, flags=re.MULTILINE)
    assert headings == [f"OCS-{n}" for n in range(1, 8)]
    assert len(re.findall(r"^## ", text, flags=re.MULTILINE)) == 7
