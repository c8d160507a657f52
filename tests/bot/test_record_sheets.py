"""``/unit info``'s record sheets (bot/rulesets/sheets/): what each ruleset's sheet says, in both languages, and that no
sheet of any unit of any bundled scenario shows a catalog key or an engine phase id, or more than its reader may
know (FOG-1, NGT-2)."""

from __future__ import annotations

import importlib
import io
from dataclasses import replace
from pathlib import Path

import pytest
from PIL import Image

from bot.rulesets.sheets import Sheet, SheetPlugin, doll_png, record_sheet, sheet_fields
from data import SCENARIO_DIR
from render.doll import GONE
from rules.engine import visibility
from rules.mech.model import Mech
from rules.ocs.model import OcsUnit
from rules.registry import layer_ids, plugin_module, ruleset_for, ruleset_ids
from rules.ruleset import DIRECTOR, PUBLIC
from rules.scenario import load_scenario
from rules.state import EncounterState
from tests.night_fixtures import scene
from tests.words_fixtures import LOCALES, assert_reads_as_words, text_of

SCENARIOS = sorted(SCENARIO_DIR.glob("*.toml"))


def state_of(name: str) -> EncounterState:
    return load_scenario(SCENARIO_DIR / name).state


def viewers(state: EncounterState) -> tuple[str, ...]:
    return (DIRECTOR, *(s.id for s in state.sides), PUBLIC)


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: Path(p).stem)
def test_every_unit_sheet_of_every_bundled_scenario_reads_as_words_for_every_reader(path: Path) -> None:
    """The contract for ``/unit info``: every unit of every bundled scenario, for the director, each side and the
    public (only the units that reader sees), in both languages: no ``stat.``/``term.``/``field[`` key, no
    template left unfilled, no engine phase id; and every sheet has at least its hex."""
    state = load_scenario(path).state
    checked = 0
    for viewer in viewers(state):
        seen = visibility(ruleset_for(state), state, viewer).units
        for uid in state.units:
            if uid not in seen:
                continue
            sheet = record_sheet(state, uid, viewer)
            for locale in LOCALES:
                text = text_of(sheet, locale)
                assert_reads_as_words(text, state, locale, f"{path.name} {uid} {viewer} {locale}")
                assert sheet_fields(sheet, locale)[0][0] in ("Hex", "Hexágono")
            checked += 1
    assert checked >= len(state.units)


def test_mech_sheet_armour_per_location_weapons_heat_and_skills_MECH_2_3_MECH_3_1() -> None:
    state = state_of("mech-duel.toml")
    sheet = record_sheet(state, "hunter", "red")
    en, es = text_of(sheet, "en"), text_of(sheet, "es")
    assert "AC/20 (right torso): damage 20 · range 3/6/9 · heat 7 · uses ammunition" in en
    assert "CA/20 (torso derecho): daño 20 · alcance 3/6/9 · calor 7 · usa munición" in es
    assert "Heat: 0 · 13 sinks" in en and "Pilot: Gunnery 9 · Piloting 8" in en
    assert "Movement points: Walk 4 · Run 6" in en
    assert "left arm: 13/13 · 8/8" in en and "brazo izquierdo: 13/13 · 8/8" in es
    centurion = text_of(record_sheet(state, "centurion", "red"), "en")
    assert (
        "LRM-10 (left torso): damage 1 × 10 missiles · range 7/14/21 · heat 4 · minimum range 6" in centurion
    )
    assert "Medium Laser (centre torso): damage 5 · range 3/6/9 · heat 3 · rear-facing" in centurion
    assert {b.name.key for b in sheet.doll} == {
        f"sheet.mech.doll.{loc}" for loc in state.unit_as("hunter", Mech).locations
    }


def test_mech_doll_is_legible_at_550_px_and_greys_a_destroyed_location_MECH_2_3() -> None:
    state = state_of("mech-duel.toml")
    unit = state.unit_as("hunter", Mech)
    hurt = replace(unit, armor={**unit.armor, "la": 0}, structure={**unit.structure, "la": 0})
    sheet = record_sheet(state.with_units([hurt]), "hunter", DIRECTOR)
    png = doll_png(sheet, "es")
    assert png is not None
    image = Image.open(io.BytesIO(png)).convert("RGB")
    assert 400 <= image.width <= 550  # shown at its own size: nothing is scaled down
    la = next(b for b in sheet.doll if b.name.key == "sheet.mech.doll.la")
    # the left arm's box, near its corner (10 px pad, 26 px legend, 104 px cells)
    x = int((image.width - 5 * 104) / 2 + la.col * 104 + 10)
    y = int(10 + 26 + la.row * 104 + 10)
    assert image.getpixel((x, y)) == GONE


def test_a_mech_location_no_layout_knows_still_shows_MECH_5() -> None:
    """An air unit of a later kind may bring locations of its own: they go on a row of their own, by name."""
    state = state_of("mech-air.toml")
    uid = next(u.id for u in state.units.values() if isinstance(u, Mech) and u.kind == "helicopter")
    unit = state.unit_as(uid, Mech)
    rotor = replace(
        unit,
        armor={**unit.armor, "rotor": 2},
        structure={**unit.structure, "rotor": 2},
        max_armor={**unit.max_armor, "rotor": 2},
        max_structure={**unit.max_structure, "rotor": 2},
    )
    sheet = record_sheet(state.with_units([rotor]), uid, DIRECTOR)
    box = next(b for b in sheet.doll if b.name.render("en") == "rotor")
    assert box.row > max(b.row for b in sheet.doll if b is not box)
    assert "rotor: 2/2 · 2/2" in text_of(sheet, "en")
    assert doll_png(sheet, "en") is not None


def test_exo_sheet_crew_by_station_and_weapons_by_section_EXO_1_4_EXO_1_5() -> None:
    state = state_of("exo-duel.toml")
    en = text_of(record_sheet(state, "halcon", "blue"), "en")
    assert "Vector (next round): 0511" in en
    assert "**Rhea (pilot)** · Piloting 15, Gunnery 13" in en
    # the manned turret covers all four sections (EXO-1.3), the bow lasers the front two
    # English readers read the section in English, the seed's abbreviation after it
    assert "front right (SFD): APt#1, L#2, L#3" in en and "rear right (SPD): APt#1" in en
    assert "Armor 4/4 · Structure 3/3" in en
    es = text_of(record_sheet(state, "pirata", "red"), "es")
    assert "**piloto** · Pilotar 14" in es  # an NPC crew is named by its station, with that skill alone
    assert "Tipo: asteroide" in text_of(record_sheet(state, "roca", "red"), "es")


def test_pbw_sheet_fatigue_thresholds_resistance_and_weapon_bands_PBW_3_PBW_4_PBW_5() -> None:
    state = state_of("pbw-street.toml")
    en = text_of(record_sheet(state, "ana", DIRECTOR), "en")
    assert "Fatigue: 0 · tired at 4, exhausted at 8 · 3 actions a turn" in en
    assert "head 6/6" in en and "Brawling 1" in en
    assert "pistol: damage 2d6+2, accuracy +0 · range to 8/20/40/60 m (short/medium/long/extreme)" in en
    assert "loaded 12/12 · in hand" in en
    es = text_of(record_sheet(state, "ana", DIRECTOR), "es")
    assert "cabeza 6/6" in es and "la cabeza" not in es
    assert "Fatiga: 0 · cansado en 4, agotado en 8 · 3 acciones por turno" in es


def test_skirmish_sheet_is_the_character_card_SK_7() -> None:
    state = state_of("skirmish-corridor.toml")
    uid = next(iter(state.units))
    es = text_of(record_sheet(state, uid, DIRECTOR), "es")
    assert "Combate a distancia" in es and "C/C (cuerpo a cuerpo)" in es and "Resistencia:" in es
    assert "Position" not in text_of(record_sheet(state, uid, DIRECTOR), "en")


def test_ocs_sheet_strength_ar_mode_steps_hedgehog_OCS_1() -> None:
    state = state_of("ocs-gazala.toml")
    uid = next(u.id for u in state.units.values() if isinstance(u, OcsUnit) and u.at is not None)
    unit = state.unit_as(uid, OcsUnit)
    assert unit.at is not None
    board = replace(state.board, features={**state.board.features, "hedgehog": {unit.at: 2}})
    dg = state.replace(board=board).with_units([replace(unit, mode="dg")])
    en = text_of(record_sheet(dg, uid, DIRECTOR), "en")
    assert f"Action Rating: {unit.ar - 1} ({unit.ar})" in en  # OCS-1: DG one less, the printed one after
    assert "Mode: DG" in en and "Hedgehog level of its hex: 2" in en and f"Steps: {unit.steps}" in en


def test_night_sheet_tells_a_player_only_their_own_spotters_NGT_2() -> None:
    """A player reads which of their own units see an enemy, never who sees their own; nothing on any sheet
    they can read changes when units they cannot see are taken off the board."""
    state = scene()
    for viewer in ("a", "b"):
        seen = visibility(ruleset_for(state), state, viewer).units
        unseen = set(state.units) - seen
        bare = state.replace(units={k: u for k, u in state.units.items() if k not in unseen})
        for uid in seen:
            for locale in LOCALES:
                assert text_of(record_sheet(state, uid, viewer), locale) == text_of(
                    record_sheet(bare, uid, viewer), locale
                ), (viewer, uid)
            mine = state.units[uid].side == viewer
            has_seen_by = any(
                line.name.key == "sheet.night.seen_by" for line in record_sheet(state, uid, viewer).lines
            )
            assert has_seen_by != mine, (viewer, uid)
    director = text_of(record_sheet(state, "ash", DIRECTOR), "en")
    assert "Night discipline:" in director and "Seen in the dark by:" in director


def test_a_sheet_never_passes_an_embeds_limits() -> None:
    """Discord refuses an embed over 6,000 characters or a field over 1,024: a long sheet drops whole lines."""
    from bot.panels.model import Text
    from bot.rulesets.sheets import EMBED_TEXT, Line

    long = Sheet(tuple(Line(Text.plain(f"line {n}"), Text.plain("x" * 2000), wide=True) for n in range(10)))
    shown = sheet_fields(long, "en")
    assert all(len(value) <= 1024 for _, value, _ in shown)
    assert 0 < sum(len(name) + len(value) for name, value, _ in shown) <= EMBED_TEXT
    assert [name for name, _, _ in shown] == [f"line {n}" for n in range(len(shown))]


def test_pbw_sheet_shows_a_treatment_to_its_own_side_only_PBW_6() -> None:
    from rules.pbw.model import Character, Treatment

    state = state_of("pbw-brawl.toml")
    healer = next(u for u in state.units_of(Character) if "medkit" in u.items)
    patient = next(u for u in state.units_of(Character) if u.side == healer.side and u.id != healer.id)
    treating = replace(healer, treating=Treatment(target=patient.id, location="la", turns=3))
    state = state.with_units([treating])
    own = text_of(record_sheet(state, healer.id, healer.side), "en")
    assert f"Treating: {patient.name}'s left arm: 3/10 turns" in own
    assert f"Being treated: left arm, by {healer.name}: 3/10 turns" in text_of(
        record_sheet(state, patient.id, healer.side), "en"
    )
    other = next(s.id for s in state.sides if s.id != healer.side)
    assert "Treating" not in text_of(record_sheet(state, healer.id, other), "en")


@pytest.mark.parametrize("pid", [p for p in (*ruleset_ids(), *layer_ids()) if plugin_module(p, "sheet")])
def test_every_sheet_module_exposes_one_sheet_plugin(pid: str) -> None:
    """The same shape as an order panel and a render overlay: ``SHEET``, an instance of the base class."""
    module = importlib.import_module(plugin_module(pid, "sheet"))
    assert isinstance(vars(module).get("SHEET"), SheetPlugin)
