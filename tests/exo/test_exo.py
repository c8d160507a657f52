"""The exo ruleset (RULES.md §1): worked checks, every phase with scripted dice, arcs, orders and the CLI."""

from __future__ import annotations

import dataclasses
import io
import json
import re
from pathlib import Path
from typing import Any

import pytest

from bot.process.cli import main as cli_main
from data.i18n import phrase_text, problem_text
from rules.dice import Quality
from rules.engine import resolve_phase
from rules.errors import IllegalOrderError, InvalidOrderError, ScenarioError
from rules.events import GameOver, Note, RollMade, ShotResolved, UnitDestroyed
from rules.exo import arcs, legal_targets, manta, project_orders
from rules.exo.arcs import SFD, SFI, SPD, SPI, sections
from rules.exo.combat import split_damage
from rules.exo.crew import Crew
from rules.exo.events import (
    CollisionFlagged,
    CrewCasualty,
    CrewEffect,
    HitScored,
    MantaSet,
    PilotingResolved,
    RepairResolved,
    ShotSpent,
    StationChanged,
    Yawed,
)
from rules.exo.model import Ship, SpaceObject, cruise_vector
from rules.exo.movement import execute_orders, inertial_move
from rules.exo.orders import PilotChange, RepairOrder, ShipOrders
from rules.exo.state import ExoState
from rules.exo.weapons import Mount, parse_weapon
from rules.hexgrid import Hex, rotate
from rules.ruleset import DiceFactory, SimStep
from rules.scenario import load_scenario
from rules.serial import from_json, to_json
from tests.exo_fixtures import (
    EXO,
    HEADER,
    at_phase_5,
    damaged,
    events_of,
    load,
    of_type,
    play,
    ship,
    ship_toml,
    volley,
)
from tests.paths import ROOT

# --- RULES §1.3 worked checks ---------------------------------------------------------------------------------


def english(err: ScenarioError) -> str:
    """A scenario's problems as ``validate`` prints them in English (rules/ keeps keys, the catalogs words)."""
    return "\n".join(problem_text(p) for p in err.problems)


def test_exo_4_3_worked_check_da_from_0505_facing_north() -> None:
    at, vector = Hex.parse("0505"), Hex.parse("0503")
    facing, pushed = execute_orders(0, vector, "DA")
    assert facing == 1, "after D the ship faces NE"
    assert pushed == vector.neighbor(1), "A moves the vector one hex NE"
    new_at, new_vector = inertial_move(at, pushed)
    assert new_at == pushed
    assert new_vector - new_at == pushed - at, "the vector moves by the same displacement"


def test_exo_4_2_dda_and_dad_end_in_different_places() -> None:
    at, vector = Hex.parse("0505"), Hex.parse("0503")
    ends = set()
    for moves in ("DDA", "DAD"):
        facing, v = execute_orders(0, vector, moves)
        ends.add((inertial_move(at, v), facing))
    assert len(ends) == 2


def test_exo_1_6_cruise_vector_is_twice_maneuverability_ahead() -> None:
    at = Hex.parse("0510")
    assert at.distance(cruise_vector(at, 0, 1)) == 2
    assert at.distance(cruise_vector(at, 0, 4)) == 8
    state = load(ship_toml("a", "red", "0510", extra="maneuverability = 4"), ship_toml("b", "blue", "1010"))
    a = ship(state, "a")
    assert a.vector == Hex.parse("0502")


def test_exo_1_6_scenario_speed_or_vector_overrides_cruise() -> None:
    state = load(
        ship_toml("a", "red", "0510", extra="speed = 1"),
        ship_toml("b", "blue", "1010", extra='vector = "1110"'),
    )
    assert ship(state, "a").vector == Hex.parse("0509")
    assert ship(state, "b").vector == Hex.parse("1110")


def test_exo_3_5_worked_check_armor_then_internal_points_with_cap() -> None:
    assert split_damage(9, 5) == (5, 1)
    assert split_damage(20, 0) == (0, 3), "cap 3 internal points per shot, not 5"
    assert split_damage(4, 0) == (0, 1) and split_damage(5, 0) == (0, 2), "1 per 4 or fraction"
    assert split_damage(3, 5) == (3, 0)


# --- EXO-1.3 weapon notation ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("notation", "count", "code", "mount", "side"),
    [
        ("Lx3", 3, "L", Mount.BOW, ""),
        ("Pl", 1, "Pl", Mount.BROADSIDE, ""),
        ("Pl(D)", 1, "Pl(D)", Mount.BROADSIDE, "D"),
        ("Ml(I)x2", 2, "Ml(I)", Mount.BROADSIDE, "I"),
        ("Lpx2", 2, "Lp", Mount.STERN, ""),
        ("APt", 1, "APt", Mount.TURRET, ""),
        ("T", 1, "T", Mount.BOW, ""),
    ],
)
def test_exo_1_3_weapon_notation(notation: str, count: int, code: str, mount: Mount, side: str) -> None:
    weapons = parse_weapon(notation)
    assert len(weapons) == count
    assert {(w.code, w.mount, w.side) for w in weapons} == {(code, mount, side)}


def test_exo_1_3_aliases_map_to_base_types() -> None:
    assert [parse_weapon(n)[0].type for n in ("AL", "AM", "APt")] == ["L", "M", "P"]


@pytest.mark.parametrize(
    ("notation", "token"), [("Qx3", "Q"), ("Lq", "q"), ("Lx", "x"), ("Lt(D)", "(D)"), ("Lx0", "x0")]
)
def test_exo_1_3_bad_notation_names_the_bad_token(notation: str, token: str) -> None:
    with pytest.raises(InvalidOrderError) as err:
        parse_weapon(notation)
    assert err.value.rule == "EXO-1.3" and err.value.params["token"] == token
    assert repr(token) in str(err.value)


def test_exo_1_3_bad_notation_in_a_scenario_is_reported_with_its_path() -> None:
    with pytest.raises(ScenarioError) as err:
        load(ship_toml("a", "red", "0505", extra='weapons = ["Lx2", "Zt"]'), ship_toml("b", "blue", "1010"))
    assert any("units[0].weapons[1]" in p.path and "'Z'" in phrase_text(p) for p in err.value.problems)


def test_exo_1_3_unsided_broadside_gets_a_recorded_d10_side() -> None:
    state = load(ship_toml("a", "red", "0505", extra='weapons = ["Pl"]'), ship_toml("b", "blue", "1010"))
    w = ship(state, "a").weapons[0]
    assert w.side in ("D", "I") and w.code == f"Pl({w.side})"
    first = play(state, {})[0]
    rolls = [e for e in first.events if isinstance(e, RollMade) and e.rule == "EXO-1.3"]
    assert len(rolls) == 1 and (rolls[0].dice[0] % 2 == 0) == (w.side == "I"), "even = port, odd = starboard"


@pytest.mark.parametrize(("die", "side"), [(4, "I"), (7, "D")])
def test_exo_1_3_broadside_side_takes_the_scripted_dice_first(die: int, side: str) -> None:
    """DICE-1: every die comes from the scenario's scripted dice first, the EXO-1.3 side roll included."""
    state = load(
        ship_toml("a", "red", "0505", extra='weapons = ["Pl", "Pl"]'),
        ship_toml("b", "blue", "1010"),
        dice=(die, 3, 9),
    )
    assert [w.side for w in ship(state, "a").weapons] == [side, "D"]
    assert state.dice_script == (9,), "the rest of the script goes on to round 1"
    rolls = [e for e in play(state, {})[0].events if isinstance(e, RollMade) and e.rule == "EXO-1.3"]
    assert [(r.dice, r.source) for r in rolls] == [((die,), "script"), ((3,), "script")]


# --- EXO-1.4 sections and arcs ---------------------------------------------------------------------------------

CENTER = Hex.parse("0808")


@pytest.mark.parametrize("facing", range(6))
def test_exo_1_4_sections_for_every_facing(facing: int) -> None:
    def at(offset: Hex) -> Hex:
        return rotate(CENTER + offset, CENTER, facing)

    ahead = CENTER.neighbor(facing).neighbor(facing)
    astern = CENTER.neighbor((facing + 3) % 6)
    assert sections(CENTER, facing, ahead) == {SFD, SFI}, "dead ahead is in both front sections"
    assert sections(CENTER, facing, astern) == {SPD, SPI}, "dead astern is in both rear sections"
    assert sections(CENTER, facing, at(Hex(2, -1))) == {SFD, SPD}, "abeam to starboard: front and rear right"
    assert sections(CENTER, facing, at(Hex(-2, 1))) == {SFI, SPI}, "abeam to port: front and rear left"
    assert sections(CENTER, facing, CENTER.neighbor((facing + 1) % 6)) == {SFD}
    assert sections(CENTER, facing, CENTER.neighbor((facing + 2) % 6)) == {SPD}
    assert sections(CENTER, facing, CENTER.neighbor((facing - 1) % 6)) == {SFI}
    assert sections(CENTER, facing, CENTER.neighbor((facing - 2) % 6)) == {SPI}


def test_exo_1_4_arcs_helper_lists_hexes_per_section_within_weapon_range() -> None:
    state = load(ship_toml("a", "red", "0808", extra='weapons = ["L"]'), ship_toml("b", "blue", "0803"))
    table = arcs(state, "a")
    assert set(table) == {SFD, SFI, SPD, SPI}
    assert Hex.parse("0806") in table[SFD] and Hex.parse("0806") in table[SFI]
    assert all(CENTER.distance(h) <= 9 for hexes in table.values() for h in hexes)
    assert Hex.parse("0818") not in table[SPD], "beyond the L maximum of 9"


def test_exo_1_4_legal_targets_follow_mount_and_range() -> None:
    state = load(
        ship_toml("a", "red", "0808", extra='weapons = ["L", "Lp", "Pl(D)"]'),
        ship_toml("ahead", "blue", "0804"),
        ship_toml("behind", "blue", "0811"),
        ship_toml("far", "blue", "0820"),
    )
    assert legal_targets(state, "a", 1) == ["ahead"]
    assert legal_targets(state, "a", 2) == ["behind"]
    # dead ahead lies in SFD and dead astern in SPD (EXO-1.4), so a starboard broadside bears on both lines
    assert legal_targets(state, "a", 3) == ["ahead", "behind", "far"]
    assert legal_targets(state, "a", 1) == ["ahead"], "the L bow weapon cannot reach 'far' (12 > 9)"


# --- Phase 1: crew rolls, Manta, secret orders ----------------------------------------------------------------

CREWED = """
cabin = 6
crew = [
  { name = "Capi", station = "captain", skills = { command = 15 } },
  { name = "Ines", station = "engineer", skills = { drives = 14 } },
  { name = "Nico", station = "navigator", skills = { navigation = 14 } },
  { name = "Pilar", station = "pilot", skills = { piloting = 15, gunnery = 10 } },
  { name = "Ana", station = "gunner", skills = { gunnery = 15 } },
  { name = "Bea", station = "gunner", skills = { gunnery = 12 } },
]
"""


def test_exo_2_1_engineer_success_raises_manta_and_captain_helps_the_engineer() -> None:
    # captain 2,6,4 = 12 ≤ 15 success (+1 → −1 on the engineer's total); engineer 3,6,5 = 14 −1 = 13 ≤ 14 success
    state = load(
        ship_toml("a", "red", "0810", extra=CREWED), ship_toml("b", "blue", "0805"), dice=(2, 6, 4, 3, 6, 5)
    )
    steps = play(state, {"a": {"crew_rolls": ["captain:engineer", "engineer"], "move": "AAA"}})
    evs = events_of(steps, "1")
    effects = of_type(evs, CrewEffect)
    assert [(e.station, e.effect, e.applies_to) for e in effects] == [
        ("captain", 1, "engineer"),
        ("engineer", 1, "maneuverability"),
    ]
    engineer_roll = next(e for e in evs if isinstance(e, RollMade) and e.get("crew") == "Ines")
    assert engineer_roll.get("modifier") == -1 and engineer_roll.get("total") == 13
    mset = next(e for e in of_type(evs, MantaSet) if e.unit == "a")
    assert mset.manta == 3 and steps[0].state.unit_as("a", Ship).manta == 3


def test_exo_2_1_fumble_lowers_manta_and_not_rolling_changes_nothing() -> None:
    state = load(ship_toml("a", "red", "0810", extra=CREWED), ship_toml("b", "blue", "0805"), dice=(9, 9, 9))
    steps = play(state, {"a": {"crew_rolls": ["engineer"]}})
    assert [e.manta for e in of_type(events_of(steps, "1"), MantaSet) if e.unit == "a"] == [0]
    untouched = play(load(ship_toml("a", "red", "0810", extra=CREWED), ship_toml("b", "blue", "0805")), {})
    assert [e.manta for e in of_type(events_of(untouched, "1"), MantaSet) if e.unit == "a"] == [2]
    assert not of_type(events_of(untouched, "1"), CrewEffect)


def test_exo_1_5_assistants_roll_first_and_shift_station_one() -> None:
    two_pilots = """
cabin = 3
crew = [
  { name = "Low", station = "pilot", skills = { piloting = 12 } },
  { name = "High", station = "pilot", skills = { piloting = 16 } },
]
"""
    # Low assists (2,6,4=12 ≤ 12 success → −1), High rolls 5,6,5 = 16 − 1 = 15 ≤ 16
    state = load(
        ship_toml("a", "red", "0810", extra=two_pilots),
        ship_toml("b", "blue", "1005", extra="cabin = 0"),
        dice=(2, 6, 4, 5, 6, 5),
    )
    steps = play(state, {"a": {"move": "A"}})
    rolls = [e for e in events_of(steps, "3") if isinstance(e, RollMade) and e.actor == "a"]
    assert [r.get("crew") for r in rolls] == ["Low", "High"], (
        "station 1 is the highest skill; assistants roll first"
    )
    assert rolls[1].get("modifier") == -1


def test_exo_2_3_orders_beyond_manta_are_rejected_naming_unit_manta_and_rule() -> None:
    state = load(ship_toml("a", "red", "0810"), ship_toml("b", "blue", "0805"))
    with pytest.raises(IllegalOrderError) as err:
        play(state, {"a": {"move": "DAA"}})
    assert err.value.rule == "EXO-2.3" and err.value.params["unit"] == "a" and err.value.params["manta"] == 2
    assert "Manta is 2" in str(err.value)


def test_exo_2_3_manta_zero_allows_one_turn_never_accelerate() -> None:
    state = load(ship_toml("a", "red", "0810", extra="maneuverability = 0"), ship_toml("b", "blue", "0805"))
    with pytest.raises(IllegalOrderError, match="never A") as err:
        play(state, {"a": {"move": "A"}})
    assert err.value.params["manta"] == 0
    with pytest.raises(IllegalOrderError, match="at most 1"):
        play(state, {"a": {"move": "DD"}})
    steps = play(state, {"a": {"move": "D"}})
    assert steps[-1].state.unit("a").facing in (0, 1)


def test_exo_2_3_adrift_ship_takes_no_movement_orders() -> None:
    state = load(ship_toml("a", "red", "0810", extra="engines = 0"), ship_toml("b", "blue", "0805"))
    with pytest.raises(IllegalOrderError, match="adrift") as err:
        play(state, {"a": {"move": "D"}})
    assert err.value.rule == "EXO-2.3" and err.value.params["unit"] == "a"


def test_exo_2_3_bad_letter_is_a_syntax_error() -> None:
    state = load(ship_toml("a", "red", "0810"), ship_toml("b", "blue", "0805"))
    with pytest.raises(InvalidOrderError, match="'X'"):
        EXO.parse_order(state.replace(ext=ExoState(step="orders")), "a", {"move": "DX"})


def test_exo_2_3_bot_flow_crew_step_then_secret_step() -> None:
    state = load(ship_toml("a", "red", "0810", extra=CREWED), ship_toml("b", "blue", "0805"))
    assert EXO.awaiting(state) == ("a",), "only ships with a captain, engineer or navigator roll"
    crew_order = EXO.parse_order(state, "a", {"crew_rolls": ["navigator"]})
    after = resolve_phase(EXO, state, {"a": crew_order}).state
    assert after.phase == "1" and EXO.awaiting(after) == ("a", "b")
    order = EXO.parse_order(after, "a", {"move": "DA"})
    EXO.validate_order(after, "a", order)
    locked = resolve_phase(EXO, after, {"a": order}).state
    assert locked.phase == "2"
    assert "DA" not in json.dumps([to_json(e) for e in resolve_phase(EXO, after, {"a": order}).events])


def test_exo_2_4_fire_declaration_checks() -> None:
    state = load(
        ship_toml("a", "red", "0810", extra=CREWED),
        ship_toml("b", "blue", "0805"),
        ship_toml("c", "red", "1010"),
    )
    with pytest.raises(IllegalOrderError, match="not a gunner"):
        play(state, volley(("Nico", 1, "b")))
    with pytest.raises(IllegalOrderError, match="not an enemy"):
        play(state, volley(("Ana", 1, "c")))
    with pytest.raises(IllegalOrderError, match="no weapon 9"):
        play(state, volley(("Ana", 9, "b")))
    with pytest.raises(IllegalOrderError) as err:
        play(state, volley(("Ana", 1, "b"), ("Bea", 1, "b")))
    assert err.value.rule == "EXO-3.3"


# --- Phase 2: combat -------------------------------------------------------------------------------------------


def test_exo_3_4_hit_roll_range_and_type_modifiers_and_damage_locations() -> None:
    # L at 5 hexes: medium +3, type −2 → +1. Roll 2,6,4 → 13 vs 13 success; damage 6+4+0 = 10;
    # armor 5 soaks 5, 5 left → 2 internal points: dE 2 → engines, d+ 6 → cabin.
    state = load(ship_toml("a", "red", "0510"), ship_toml("b", "blue", "0505"), dice=(2, 6, 4))
    steps = play(state, volley(("gunner", 1, "b")))
    evs = events_of(steps, "2")
    roll = of_type(evs, RollMade)[0]
    assert (roll.get("modifier"), roll.get("total"), roll.get("skill"), roll.get("quality")) == (
        1,
        13,
        13,
        "success",
    )
    hit = of_type(evs, HitScored)[0]
    assert (hit.damage, hit.armor, hit.internal, hit.locations) == (10, 5, 2, ("engines", "cabin"))
    assert of_type(evs, ShotResolved)[0].hit
    assert steps[1].state.unit_as("b", Ship).armor == 5, "damage waits for phase 4 (EXO-5.1)"
    after = steps[3].state.unit_as("b", Ship)
    assert (after.armor, after.engines, after.cabin) == (0, 1, 1)


def test_exo_3_7_space_weapons_do_ten_times_damage_to_a_small_target() -> None:
    """Seed: "Si te encuentras en la necesidad de disparar un arma espacial contra un objetivo menor (personas o
    vehículos) multiplica por diez el daño." A light gun's 3 + 1 = 4 becomes 40 against a vehicle."""
    state = load(
        ship_toml("a", "red", "0510"), ship_toml("b", "blue", "0505", extra="small = true"), dice=(2, 3, 1)
    )
    a = ship(state, "a")
    state = state.with_units(
        [dataclasses.replace(a, crew=(Crew(name="G", station="gunner", skills={"gunnery": 40}),))]
    )
    assert ship(state, "b").small and not ship(state, "a").small
    hit = of_type(events_of(play(state, volley(("G", 1, "b"))), "2"), HitScored)[0]
    assert (hit.damage, hit.multiplier, hit.armor, hit.internal) == (40, 10, 5, 3)
    assert hit.locations == ("engines", "engines", "maneuverability")  # dE 2, d+ 3, d- 1 (EXO-3.5)
    plain = load(ship_toml("a", "red", "0510"), ship_toml("b", "blue", "0505"), dice=(2, 3, 1))
    plain = plain.with_units([dataclasses.replace(ship(plain, "a"), crew=ship(state, "a").crew)])
    hit = of_type(events_of(play(plain, volley(("G", 1, "b"))), "2"), HitScored)[0]
    assert (hit.damage, hit.multiplier) == (4, 1)


def test_exo_3_4_beyond_max_range_cannot_hit() -> None:
    state = load(ship_toml("a", "red", "0520"), ship_toml("b", "blue", "0505"))
    steps = play(state, volley(("gunner", 1, "b")))
    spent = of_type(events_of(steps, "2"), ShotSpent)
    assert [(s.reason, s.rule) for s in spent] == [("range", "EXO-3.4")]
    assert not [e for e in events_of(steps, "2") if isinstance(e, RollMade)]


def test_exo_3_1_out_of_arc_shot_is_spent_without_effect() -> None:
    state = load(ship_toml("a", "red", "0505"), ship_toml("b", "blue", "0508"))  # b dead astern, bow weapons
    steps = play(state, volley(("gunner", 1, "b")))
    shot = of_type(events_of(steps, "2"), ShotResolved)[0]
    assert shot.spent and not shot.hit and shot.rule == "EXO-3.1"


def test_exo_3_2_nearest_target_rule_spends_later_shots_at_nearer_ships() -> None:
    state = load(
        ship_toml("a", "red", "0812", extra=CREWED + 'weapons = ["Lx3"]'),
        ship_toml("near", "blue", "0809"),
        ship_toml("far", "blue", "0806"),
        dice=(1, 2, 3) * 3,
    )
    fire = [
        {"by": "Bea", "weapon": 1, "target": "near"},  # gunner 2: after Ana fired at 6 hexes → automatic miss
        {"by": "Ana", "weapon": 2, "target": "far"},  # gunner 1 fires first
        {"by": "pilot", "weapon": 3, "target": "far"},  # the pilot last; equal distance is allowed
    ]
    steps = play(state, {"a": {"fire": fire}})
    shots = [e for e in events_of(steps, "2") if isinstance(e, ShotResolved) and e.shooter == "a"]
    assert [(s.target, s.spent) for s in shots] == [("far", False), ("near", True), ("far", False)]
    spent = of_type(events_of(steps, "2"), ShotSpent)
    assert [(s.reason, s.rule) for s in spent] == [("nearest", "EXO-3.2")]


def test_exo_3_2_same_shooter_may_fire_nearer_after_farther() -> None:
    state = load(
        ship_toml("a", "red", "0812", extra='weapons = ["Lx2"]'),
        ship_toml("near", "blue", "0809"),
        ship_toml("far", "blue", "0806"),
    )
    fire = [{"by": "gunner", "weapon": 1, "target": "far"}, {"by": "gunner", "weapon": 2, "target": "near"}]
    steps = play(state, {"a": {"fire": fire}})
    assert not of_type(events_of(steps, "2"), ShotSpent), "the rule binds later shooters only"


def test_exo_3_3_torpedo_fires_twice_at_one_ship_only() -> None:
    state = load(
        ship_toml("a", "red", "0810", extra='weapons = ["T", "L"]'),
        ship_toml("b", "blue", "0808"),
        ship_toml("c", "blue", "0807"),
    )
    steps = play(state, {"a": {"fire": [{"by": "gunner", "weapon": 1, "target": "b", "shots": 2}]}})
    assert len([e for e in events_of(steps, "2") if isinstance(e, RollMade) and e.rule == "EXO-3.4"]) == 2
    with pytest.raises(IllegalOrderError) as err:
        play(state, volley(("gunner", 1, "b"), ("gunner", 1, "c")))
    assert err.value.rule == "EXO-3.3"
    with pytest.raises(IllegalOrderError):
        play(state, {"a": {"fire": [{"by": "gunner", "weapon": 2, "target": "b", "shots": 2}]}})


def test_exo_1_3_turret_manned_fires_anywhere_unmanned_as_bow() -> None:
    manned = load(ship_toml("a", "red", "0805", extra='weapons = ["APt"]'), ship_toml("b", "blue", "0808"))
    assert legal_targets(manned, "a", 1) == ["b"], "NPC crew of 2 has a gunner: the turret covers astern"
    lone = load(
        ship_toml("a", "red", "0805", extra='weapons = ["APt"]\ncabin = 1'), ship_toml("b", "blue", "0808")
    )
    assert legal_targets(lone, "a", 1) == [], "no gunner: fires as bow"
    steps = play(lone, volley(("pilot", 1, "b")))
    assert of_type(events_of(steps, "2"), ShotSpent)[0].reason == "arc"


def test_exo_3_6_shots_alternate_sides() -> None:
    state = load(
        ship_toml("a", "red", "0810", extra='weapons = ["Lx2"]'),
        ship_toml("b", "blue", "0806", facing="S"),
    )
    fire_a = [{"by": "gunner", "weapon": 1, "target": "b"}, {"by": "pilot", "weapon": 2, "target": "b"}]
    steps = play(
        state, {"a": {"fire": fire_a}, "b": {"fire": [{"by": "gunner", "weapon": 1, "target": "a"}]}}
    )
    order = [e.shooter for e in events_of(steps, "2") if isinstance(e, ShotResolved)]
    assert order == ["a", "b", "a"]


# --- Phase 3: piloting and movement ---------------------------------------------------------------------------


PILOT_10 = 'crew = [{ name = "Pilar", station = "pilot", skills = { piloting = 10 } }]'


def _pilot(dice: tuple[int, ...], move: str, **extra: Any) -> list[SimStep]:
    state = load(
        ship_toml("a", "red", "0810", extra=PILOT_10),
        ship_toml("b", "blue", "1505", extra="engines = 0"),
        dice=dice,
    )
    return play(state, {"a": {"move": move, **extra}})


@pytest.mark.parametrize(
    ("dice", "quality", "executed"),
    [
        ((1, 3, 5), "success", "DA"),
        ((1, 2, 2), "low_success", "DA"),
        ((9, 1, 3), "low_failure", "D"),
        ((9, 8, 7), "failure", ""),
    ],
)
def test_exo_4_1_piloting_table(dice: tuple[int, ...], quality: str, executed: str) -> None:
    steps = _pilot(dice, "DA")
    res = of_type(events_of(steps, "3"), PilotingResolved)[0]
    assert (res.quality, res.executed) == (quality, executed)
    a = steps[2].state.unit_as("a", Ship)
    facing, vector = execute_orders(0, Hex.parse("0806"), executed)
    assert (a.facing, a.at) == (facing, vector)


def test_exo_4_1_fumble_runs_nothing_and_yaws() -> None:
    steps = _pilot((9, 9, 9, 4), "DA")  # fumble, then d10 4 → even → port
    yaw = of_type(events_of(steps, "3"), Yawed)[0]
    assert yaw.direction == "I" and yaw.facing == 5
    a = steps[2].state.unit_as("a", Ship)
    assert a.at == Hex.parse("0806") and a.facing == 5


def test_exo_4_1_critical_applies_pilot_change_from_the_orders() -> None:
    steps = _pilot((3, 3, 3), "DA", pilot_change="IA")
    res = of_type(events_of(steps, "3"), PilotingResolved)[0]
    assert (res.quality, res.executed) == ("critical", "IA")
    assert steps[2].state.unit("a").facing == 5


def test_exo_4_1_pilot_change_must_be_one_letter_change() -> None:
    with pytest.raises(IllegalOrderError) as err:
        _pilot((3, 3, 3), "DA", pilot_change="IIA")
    assert err.value.rule == "EXO-4.1"


def test_exo_4_1_critical_without_change_asks_a_decision_in_the_bot_flow() -> None:
    state = load(
        ship_toml("a", "red", "0810", extra=PILOT_10),
        ship_toml("b", "blue", "1505", extra="engines = 0"),
        dice=(3, 3, 3),
    )
    state = resolve_phase(EXO, state, {}).state
    state = resolve_phase(EXO, state, {"a": EXO.parse_order(state, "a", {"move": "DA"})}).state
    state = resolve_phase(EXO, state, {}).state  # phase 2
    result = resolve_phase(EXO, state, {})  # phase 3
    assert result.pending is not None and result.pending.kind == "pilot_change"
    assert result.pending.unit == "a" and "A" in result.pending.options and "IA" in result.pending.options
    assert EXO.awaiting(result.state) == ("a",) and result.state.phase == "3"
    answer = EXO.parse_order(result.state, "a", "A")
    assert isinstance(answer, PilotChange)
    with pytest.raises(IllegalOrderError):
        EXO.validate_order(result.state, "a", PilotChange(unit="a", moves="AAA"))
    done = resolve_phase(EXO, result.state, {"a": answer})
    assert done.pending is None and done.state.phase == "4"
    assert done.state.unit("a").facing == 0 and done.state.unit("a").at == Hex.parse("0805")


def test_exo_4_1_no_pilot_ignores_written_orders() -> None:
    busy = dataclasses.replace
    state = load(ship_toml("a", "red", "0810"), ship_toml("b", "blue", "1505", extra="engines = 0"))
    a = ship(state, "a")
    crew = tuple(busy(c, status="stunned") if c.station == "pilot" else c for c in a.crew)
    state = state.with_units([busy(a, crew=crew)])
    with pytest.raises(IllegalOrderError) as err:
        play(state, {"a": {"move": "D"}})
    assert err.value.rule == "EXO-6.2"
    steps = play(state, {})
    assert steps[2].state.unit("a").at == Hex.parse("0806")


def test_exo_4_5_pieces_ending_in_one_hex_are_flagged_and_unruled_is_logged() -> None:
    state = load(
        ship_toml("a", "red", "0810", extra="speed = 2"),
        ship_toml("b", "blue", "0806", facing="S", extra="speed = 2"),
        '[[units]]\nid = "rock"\nside = "blue"\nat = "0801"\nkind = "asteroid"\n',
    )
    steps = play(state, {})
    flagged = of_type(events_of(steps, "3"), CollisionFlagged)
    assert [(f.at, f.units) for f in flagged] == [(Hex.parse("0808"), ("a", "b"))]
    assert any(isinstance(e, Note) and e.key == "exo.collision_unruled" for e in events_of(steps, "4"))
    assert isinstance(steps[-1].state.unit("rock"), SpaceObject)


def test_project_orders_matches_execution() -> None:
    state = load(ship_toml("a", "red", "0810"), ship_toml("b", "blue", "1505"))
    at, facing, vector = project_orders(state, "a", "DA")
    steps = play(
        load(ship_toml("a", "red", "0810"), ship_toml("b", "blue", "1505"), dice=(1, 3, 5)),
        {"a": {"move": "DA"}},
    )
    a = steps[2].state.unit_as("a", Ship)
    assert (a.at, a.facing, a.vector) == (at, facing, vector)
    assert manta(state, "a") == 2


# --- Phase 4: damage -------------------------------------------------------------------------------------------


def test_exo_5_1_destruction_leaves_debris_and_ends_the_encounter() -> None:
    # T at 2 hexes: short, +0; roll 1,5,4 = 10 ≤ 13: damage 9+10 = 19 vs armor 0 → 3 internal: dE 1 maneuverability,
    # d+ 5 weapon, d− 4 weapon ... structure 1 takes the overflow when nothing is left? No: use structure dice.
    state = load(
        ship_toml("a", "red", "0810", extra='weapons = ["T"]'),
        ship_toml("b", "blue", "0808", extra="armor = 0\nstructure = 1\nweapons = []"),
        dice=(9, 10, 9),
    )
    state = state.with_units(
        [
            dataclasses.replace(
                ship(state, "a"),
                crew=(
                    Crew(name="G", station="gunner", skills={"gunnery": 40}),
                    Crew(name="P", station="pilot", skills={"piloting": 14}),
                ),
            )
        ]
    )
    steps = play(state, volley(("G", 1, "b")))
    hit = of_type(events_of(steps, "2"), HitScored)[0]
    assert hit.locations == ("structure", "structure", "structure")
    assert steps[1].state.unit("b").destroyed is False, (
        "a ship destroyed this round still moves (EXO-1.2 §1.2)"
    )
    evs = events_of(steps, "4")
    assert of_type(evs, UnitDestroyed)[0].unit == "b"
    final = steps[-1].state
    assert final.unit("b").destroyed and final.unit("b-debris").kind == "debris"
    assert final.over and final.winner == "red" and of_type(evs, GameOver)[0].winner == "red"
    assert [s.phase for s in steps] == ["1", "2", "3", "4"], "nothing runs after the end"


def test_exo_5_1_the_end_in_phase_4_cancels_the_rounds_declared_repairs_with_an_event() -> None:
    state = load(
        ship_toml("a", "red", "0810", extra='weapons = ["T"]'),
        ship_toml("b", "blue", "0808", extra="armor = 0\nstructure = 1\nweapons = []"),
        dice=(9, 10, 9),
    )
    crew = (
        Crew(name="G", station="gunner", skills={"gunnery": 40}),
        Crew(name="P", station="pilot", skills={"piloting": 14}),
    )
    state = state.with_units([dataclasses.replace(ship(state, "a"), crew=crew)])
    orders = volley(("G", 1, "b"))
    orders["a"]["repairs"] = [{"by": "P", "item": "engines"}]
    steps = play(state, orders)
    assert steps[-1].state.over and steps[-1].phase == "4"
    notes = [e for e in events_of(steps, "4") if isinstance(e, Note) and e.key == "exo.cancelled_game_over"]
    assert [(n.unit, n.rule, dict(n.args)["count"]) for n in notes] == [("a", "EXO-5.1", 1)]


def test_exo_5_2_cabin_hit_puts_a_crew_member_out_and_pilot_down_stops_maneuvers() -> None:
    # roll 6,6,5: total 17+1 > 13? use a skilled gunner: damage 11 vs armor 0 → 3 internal: 6 cabin, 6 cabin, 5 weapon
    state = load(
        ship_toml("a", "red", "0510"),
        ship_toml("b", "blue", "0505", extra="armor = 0\ncabin = 1\nstructure = 5"),
        dice=(6, 6, 5),
    )
    a = ship(state, "a")
    state = state.with_units(
        [dataclasses.replace(a, crew=(Crew(name="G", station="gunner", skills={"gunnery": 40}),))]
    )
    steps = play(state, volley(("G", 1, "b")))
    evs = events_of(steps, "4")
    casualty = of_type(evs, CrewCasualty)
    assert len(casualty) == 1 and casualty[0].station == "pilot"
    b = steps[3].state.unit_as("b", Ship)
    assert b.cabin == 0 and b.crew[0].down
    assert b.structure == 5 - 1, (
        "the second cabin point had nothing left: it went to structure ([HOUSE] overflow)"
    )
    with pytest.raises(IllegalOrderError):
        play(steps[-1].state, {"b": {"move": "A"}})


def test_exo_5_3_a_fallen_crew_member_takes_a_damage_roll_at_once() -> None:
    """Seed: "El DJ hará una tirada en la siguiente tabla y le aplicará inmediatamente una tirada de daño."
    Injury d10 7 → wounded → [HOUSE] 2d10 damage (4 + 9), recorded on the crew member; scripted dice reach it."""
    state = load(
        ship_toml("a", "red", "0510"),
        ship_toml("b", "blue", "0505", extra="armor = 0\ncabin = 1\nstructure = 5"),
        dice=(6, 6, 5, 1, 2, 3, 7, 4, 9),  # hit; b's piloting; injury d10; damage 2d10
    )
    a = ship(state, "a")
    state = state.with_units(
        [dataclasses.replace(a, crew=(Crew(name="G", station="gunner", skills={"gunnery": 40}),))]
    )
    steps = play(state, volley(("G", 1, "b")))
    evs = events_of(steps, "4")
    (casualty,) = of_type(evs, CrewCasualty)
    assert (casualty.injury, casualty.damage) == ("wounded", 13)
    (roll,) = [e for e in evs if isinstance(e, RollMade) and e.rule == "EXO-5.3"]
    assert (roll.dice, roll.source) == ((4, 9), "script")
    assert steps[3].state.unit_as("b", Ship).crew[0].damage == 13


# --- Phase 5: repairs -----------------------------------------------------------------------------------------


def test_exo_6_1_repair_success_restores_an_engine_point_and_busies_the_technician() -> None:
    # piloting roll first (phase 3): 1,3,5; then the repair 2,6,4 = 12 ≤ 16
    state = damaged((1, 3, 5, 2, 6, 4))
    steps = play(state, {"a": {"repairs": [{"by": "Tito", "item": "engines"}]}})
    rep = of_type(events_of(steps, "5"), RepairResolved)[0]
    assert (rep.item, rep.result, rep.rule) == ("engines", "repaired", "EXO-6.1")
    a = steps[-1].state.unit_as("a", Ship)
    assert a.engines == 2
    tito = next(c for c in a.crew if c.name == "Tito")
    assert tito.busy(steps[-1].state.round), "EXO-6.2: nothing but repairs next round"


def test_exo_6_1_phase_5_asks_damaged_ships_their_repairs_after_the_damage() -> None:
    """Seed: "Tras comprobar si la nave sobrevive, la tripulación puede proceder a realizar reparaciones" —
    the bot asks in phase 5; a ship that declared them with its round orders (scripts) is not asked again."""
    state = at_phase_5(damaged((1, 3, 5, 2, 6, 4)), {})
    assert EXO.awaiting(state) == ("a",), "b has nothing to repair, a has an engine point and a weapon"
    order = EXO.parse_order(state, "a", {"repairs": [{"by": "technician", "item": "engines"}]})
    EXO.validate_order(state, "a", order)
    result = resolve_phase(EXO, state, {"a": order}, dice_for=DiceFactory())
    rep = of_type(list(result.events), RepairResolved)[0]
    assert (rep.crew, rep.item, rep.result) == ("Tito", "engines", "repaired")
    assert result.state.unit_as("a", Ship).engines == 2 and result.state.phase == "1"
    declared = at_phase_5(damaged((1, 3, 5)), {"a": {"repairs": [{"by": "Tito", "item": "weapon"}]}})
    assert EXO.awaiting(declared) == ()
    # a station change given with the round's orders does not skip the repairs question, and stands
    moving = at_phase_5(damaged((1, 3, 5)), {"a": {"stations": [{"by": "Doc", "station": "gunner"}]}})
    assert EXO.awaiting(moving) == ("a",)
    quiet = EXO.parse_order(moving, "a", {"repairs": []})
    after = resolve_phase(EXO, moving, {"a": quiet}, dice_for=DiceFactory())
    assert [(e.crew, e.to) for e in of_type(list(after.events), StationChanged)] == [("Doc", "gunner")]


def test_exo_6_1_phase_5_takes_only_repairs_and_station_changes() -> None:
    state = at_phase_5(damaged((1, 3, 5)), {})
    with pytest.raises(IllegalOrderError) as refused:
        EXO.validate_order(state, "a", EXO.parse_order(state, "a", {"move": "A"}))
    assert refused.value.code == "exo.phase5_only_repairs"
    twice = {"repairs": [{"by": "Tito", "item": "engines"}, {"by": "Tito", "item": "weapon"}]}
    with pytest.raises(IllegalOrderError) as busy:
        EXO.validate_order(state, "a", EXO.parse_order(state, "a", twice))
    assert busy.value.code == "exo.repair_twice"
    # nothing given (deadline, director): no repairs, the round ends
    quiet = resolve_phase(EXO, state, {}, dice_for=DiceFactory())
    assert not of_type(list(quiet.events), RepairResolved) and quiet.state.round == state.round + 1


def test_exo_6_1_repair_fumble_is_beyond_repair() -> None:
    state = damaged((1, 3, 5, 9, 9, 9))
    steps = play(state, {"a": {"repairs": [{"by": "Tito", "item": "weapon"}]}})
    rep = of_type(events_of(steps, "5"), RepairResolved)[0]
    assert rep.result == "beyond_repair" and rep.detail == "L#1"
    w = steps[-1].state.unit_as("a", Ship).weapons[0]
    assert w.beyond_repair and w.disabled
    again = play(steps[-1].state, {"a": {"repairs": [{"by": "Tito", "item": "weapon"}]}})
    assert of_type(events_of(again, "5"), RepairResolved)[0].result == "nothing"


def test_exo_6_2_busy_gunner_cannot_fire_next_round() -> None:
    state = load(ship_toml("a", "red", "0810"), ship_toml("b", "blue", "0805"))
    a = ship(state, "a")
    crew = tuple(dataclasses.replace(c, repaired_round=state.round - 1 + 1) for c in a.crew)
    nxt = state.replace(round=state.round + 1).with_units([dataclasses.replace(a, crew=crew)])
    with pytest.raises(IllegalOrderError) as err:
        play(nxt, volley(("gunner", 1, "b")))
    assert err.value.rule in ("EXO-2.4", "EXO-6.2")


def test_exo_6_4_medic_first_aid_brings_a_crew_member_back() -> None:
    state = damaged((1, 3, 5, 2, 6, 4))
    a = ship(state, "a")
    crew = tuple(dataclasses.replace(c, status="wounded") if c.name == "Tito" else c for c in a.crew)
    state = state.with_units([dataclasses.replace(a, crew=crew, cabin=2)])
    steps = play(state, {"a": {"repairs": [{"by": "Doc", "item": "cabin"}]}})
    rep = of_type(events_of(steps, "5"), RepairResolved)[0]
    assert (rep.rule, rep.result, rep.detail) == ("EXO-6.4", "repaired", "Tito")
    a2 = steps[-1].state.unit_as("a", Ship)
    assert a2.cabin == 3 and not [c for c in a2.crew if c.down]


def test_exo_6_4_first_aid_is_the_medics() -> None:
    """Seed: "El Oficial médico puede intentar volver a poner en forma a un tripulante … con una TA de su
    habilidad de Primeros auxilios": a crew member at another station may not, whatever its skill."""
    state = damaged((1, 3, 5, 2, 6, 4))
    a = ship(state, "a")
    crew = tuple(
        dataclasses.replace(c, skills={**c.skills, "first_aid": 18}) if c.name == "Tito" else c
        for c in a.crew
    )
    crew = tuple(dataclasses.replace(c, status="stunned") if c.name == "Pilar" else c for c in crew)
    state = state.with_units([dataclasses.replace(a, crew=crew, cabin=2)])
    with pytest.raises(IllegalOrderError) as err:
        play(state, {"a": {"repairs": [{"by": "Tito", "item": "cabin"}]}})
    assert (err.value.code, err.value.rule) == ("exo.first_aid_medic", "EXO-6.4")
    steps = play(state, {"a": {"repairs": [{"by": "Doc", "item": "cabin"}]}})
    assert of_type(events_of(steps, "5"), RepairResolved)[0].result == "repaired"
    # resolution guards it too (an order that skipped validation): no roll, nothing treated
    at_5 = at_phase_5(state, {})
    unchecked = ShipOrders(unit="a", repairs=(RepairOrder(by="Tito", item="cabin"),))
    result = resolve_phase(EXO, at_5, {"a": unchecked}, dice_for=DiceFactory())
    assert [e.result for e in of_type(list(result.events), RepairResolved)] == ["not_medic"]
    assert not of_type(list(result.events), RollMade)


def test_exo_6_5_station_change_applies_next_round_not_for_repairers() -> None:
    state = damaged((1, 3, 5, 2, 6, 4))
    steps = play(state, {"a": {"stations": [{"by": "Doc", "station": "gunner"}]}})
    change = of_type(events_of(steps, "5"), StationChanged)[0]
    assert (change.crew, change.frm, change.to) == ("Doc", "medic", "gunner")
    with pytest.raises(IllegalOrderError) as err:
        play(
            state,
            {
                "a": {
                    "repairs": [{"by": "Doc", "item": "cabin"}],
                    "stations": [{"by": "Doc", "station": "gunner"}],
                }
            },
        )
    assert err.value.rule == "EXO-6.5"


# --- scenario files, state, CLI ---------------------------------------------------------------------------------


def test_exo_1_5b_npc_crew_from_defaults_and_crew_limits() -> None:
    state = load(ship_toml("a", "red", "0810", extra="cabin = 3"), ship_toml("b", "blue", "0805"))
    assert [c.station for c in ship(state, "a").crew] == ["pilot", "gunner", "engineer"]
    with pytest.raises(ScenarioError) as problems:
        load(
            ship_toml("a", "red", "0810", extra=CREWED.replace("cabin = 6", "cabin = 2")),
            ship_toml("b", "blue", "0805"),
        )
    assert re.search("one crew member per cabin point", english(problems.value)), english(problems.value)
    with pytest.raises(ScenarioError) as problems:
        load(
            ship_toml(
                "a",
                "red",
                "0810",
                extra='crew = [{ name = "X", station = "pilot", skills = { flying = 3 } }]',
            ),
            ship_toml("b", "blue", "0805"),
        )
    assert re.search("unknown skill", english(problems.value)), english(problems.value)


def test_state_round_trips_through_json() -> None:
    state = load(
        ship_toml("a", "red", "0810", extra=CREWED + 'weapons = ["Pl", "APt", "Tx2"]'),
        ship_toml("b", "blue", "0805"),
    )
    steps = play(state, {"a": {"move": "DA", "fire": [{"by": "Ana", "weapon": 2, "target": "b"}]}})
    for step in steps:
        assert from_json(json.loads(json.dumps(to_json(step.state)))) == step.state


def test_quality_names_match_the_crew_tables() -> None:
    from rules.exo.tables import tables

    assert set(tables().crew_effect) == set(Quality)


def _cli(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    import contextlib

    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli_main(list(args))
    return code, out.getvalue(), err.getvalue()


def test_cli_illegal_order_exits_2_with_unit_round_and_rule(tmp_path: Path) -> None:
    text = HEADER + ship_toml("a", "red", "0810") + ship_toml("b", "blue", "0805")
    text += '[[rounds]]\norders = { a = { move = "A" } }\n[[rounds]]\norders = { a = { move = "AAAA" } }\n'
    path = tmp_path / "bad.toml"
    path.write_text(text, encoding="utf-8")
    code, _, err = _cli("sim", str(path))
    assert code == 2
    assert "round 2" in err and "unit a" in err and "[EXO-2.3]" in err and "Manta is 2" in err


def test_cli_json_phase_end_records_each_phase_and_its_units(tmp_path: Path) -> None:
    code, out, _ = _cli("sim", str(ROOT / "data/scenarios/exo-duel.toml"), "--json")
    assert code == 0
    records = [json.loads(line) for line in out.splitlines()]
    ends = [r for r in records if r["type"] == "phase_end"]
    assert [e["phase"] for e in ends[:5]] == ["1", "2", "3", "4", "5"]
    unit = next(iter(ends[0]["units"].values()))
    for key in (
        "at",
        "facing",
        "vector",
        "maneuverability",
        "engines",
        "armor",
        "structure",
        "cabin",
        "cargo",
        "destroyed",
    ):
        assert key in unit
    assert any(r["type"] == "GameOver" for r in records)


def test_cli_json_phase_end_shows_crew_weapons_turrets_and_manta() -> None:
    """Enough to check a game from outside: each crew member's station and state, each weapon's state and the
    sections it covers (a manned turret all four), and Manta. The older fields stay (DESIGN §7)."""
    code, out, _ = _cli("sim", str(ROOT / "data/scenarios/exo-duel.toml"), "--json")
    assert code == 0
    ends = [json.loads(line) for line in out.splitlines() if '"phase_end"' in line]
    halcon = ends[0]["units"]["halcon"]
    assert {"at", "facing", "vector", "armor", "structure", "destroyed"} <= set(halcon)
    assert halcon["manta"] == 2 and halcon["small"] is False
    assert halcon["crew"] == [
        {
            "name": "Rhea",
            "station": "pilot",
            "state": "active",
            "repaired_round": 0,
            "turret": None,
            "damage": 0,
        },
        {
            "name": "Kal",
            "station": "gunner",
            "state": "active",
            "repaired_round": 0,
            "turret": "APt#1",
            "damage": 0,
        },
    ]
    assert halcon["weapons"][0] == {
        "weapon": "APt#1",
        "mount": "turret",
        "side": None,
        "state": "ok",
        "gunner": "Kal",
        "sections": ["SFD", "SFI", "SPD", "SPI"],
    }
    assert halcon["weapons"][1]["sections"] == ["SFD", "SFI"] and halcon["weapons"][1]["gunner"] is None
    states = {w["state"] for end in ends for u in end["units"].values() for w in u.get("weapons", [])}
    assert "disabled" in states or "ok" in states
    assert "roca" in ends[0]["units"] and "crew" not in ends[0]["units"]["roca"]


@pytest.mark.parametrize("name", ["exo-duel.toml", "exo-patrol.toml"])
def test_bundled_scenarios_play_to_the_end(name: str) -> None:
    code, out, _ = _cli("sim", str(ROOT / "data/scenarios" / name), "--json")
    assert code == 0
    assert any(json.loads(line)["type"] == "GameOver" for line in out.splitlines())


def test_spanish_account_uses_the_seed_vocabulary() -> None:
    code, out, _ = _cli("sim", str(ROOT / "data/scenarios/exo-duel.toml"), "--lang", "es")
    assert code == 0 and "Manta" in out and "Maniobrabilidad" in out and "TA de Pilotar" in out


def test_validate_names_unknown_crew_weapons_and_targets_in_scripted_rounds() -> None:
    """``validate`` once said "ok" for crew "Kall", weapon 7 and target "pirat", and ``sim`` then blamed
    "out of action"; each is now a problem with its path and the nearest right name."""
    text = (ROOT / "data/scenarios/exo-duel.toml").read_text(encoding="utf-8")
    broken = text.replace(
        'by = "Kal", weapon = 1, target = "pirata"', 'by = "Kall", weapon = 7, target = "pirat"', 1
    )
    with pytest.raises(ScenarioError) as err:
        load_scenario(broken)
    found = {(p.path, phrase_text(p)) for p in err.value.problems}
    assert (
        "rounds[0].orders.halcon.fire[0].by",
        "'Kall' is not in halcon's crew (did you mean 'Kal'?) (Kal, Rhea)",
    ) in found
    assert any(p.endswith("fire[0].weapon") and "weapons 1 to 3, not 7" in m for p, m in found)
    assert any(p.endswith("fire[0].target") and "did you mean 'pirata'" in m for p, m in found)
    assert all(p.startswith("rounds[0].") for p, _ in found), "only the round that is wrong"
