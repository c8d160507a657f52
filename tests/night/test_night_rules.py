"""Worked tests for every NGT rule id (RULES.md §5, seed asl-night-rules.es.txt), scripted dice throughout."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import pytest

from rules.engine import resolve_phase, visibility
from rules.errors import IllegalOrderError, InvalidOrderError
from rules.events import Event, Note, RollMade, ShotResolved
from rules.hexgrid import HexSide, hexes_within
from rules.mech.events import DamageDealt
from rules.night import light, rout, stray
from rules.night.events import (
    NightJitterFire,
    NightLightPlaced,
    NightMarkersCleared,
    NightStraying,
    NightWind,
)
from rules.night.layer import RULINGS
from rules.night.sight import lit_hexes
from rules.night.state import night_of
from rules.registry import compose
from rules.ruleset import DiceFactory, MoveIntent
from rules.state import EncounterState, Marker
from tests.night_fixtures import (
    NIGHT_SKIRMISH,
    SKIRMISH,
    H,
    char,
    dice,
    flare,
    gunflash,
    night_scenario,
    night_state,
    with_markers,
    with_terrain,
)


def outcome(events: Sequence[Event]) -> list[Event]:
    """A step's events without its roll lines (RollMade), which say how the dice fell, not what followed."""
    return [e for e in events if not isinstance(e, RollMade)]


@pytest.fixture(autouse=True)
def _all_round_sight(monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests are about the night's own sight (NGT-2): the skirmish facing arcs and lines of sight (SK-3.2),
    which apply on top, are lifted here; ``test_ngt2_the_base_rulesets_sight_still_applies`` puts them back."""
    monkeypatch.setattr(type(SKIRMISH), "sees_hex", lambda self, state, unit_id, target: True)


# --- NGT-1 night visibility range and wind --------------------------------------------------------------------


@pytest.mark.parametrize(("roll", "nvr"), [(1, 1), (2, 2), (5, 2), (6, 3)])
def test_ngt1_wind_d6_changes_the_nvr_at_the_start_of_the_round(roll: int, nvr: int) -> None:
    state = night_state(char("u", "a", "0505"), nvr=2, wind=True)
    state, events = light.wind(state, dice(roll))
    assert night_of(state).nvr == nvr
    assert outcome(events) == [NightWind(rule="NGT-1", roll=roll, change=nvr - 2, nvr=nvr)]


def test_ngt1_the_wind_is_rolled_once_per_round_and_only_when_on() -> None:
    calm = night_state(char("u", "a", "0505"), char("e", "b", "1010"), wind=False)
    _, events = NIGHT_SKIRMISH.layer.round_start(calm, dice(6))  # type: ignore[attr-defined]
    assert events == []
    windy = night_state(char("u", "a", "0505"), char("e", "b", "1010"), wind=True)
    d = dice(6, 6)
    state, started = NIGHT_SKIRMISH.layer.round_start(windy, d)  # type: ignore[attr-defined]
    events: list[Event] = started
    assert [type(e) for e in outcome(events)] == [NightWind] and night_of(state).nvr == 3
    again, more = NIGHT_SKIRMISH.layer.round_start(state, d)  # type: ignore[attr-defined]
    assert more == [] and again == state
    assert [r.rule for r in d.rolls] == ["NGT-1"]


def test_ngt1_the_director_sets_the_nvr_by_ruling() -> None:
    state = night_state(char("u", "a", "0505"))
    after, events = RULINGS["nvr"].apply(state, ("4",))
    assert night_of(after).nvr == 4 and events[0].rule == "NGT-1"
    with pytest.raises(InvalidOrderError):
        RULINGS["nvr"].apply(state, ("far",))
    assert set(NIGHT_SKIRMISH.rulings()) >= {"flare", "illuminate", "nvr"}


# --- NGT-2 what a side sees ---------------------------------------------------------------------------------


def test_ngt2_from_a_dark_hex_a_unit_sees_within_nvr_only() -> None:
    state = night_state(char("u", "a", "0505"), char("near", "b", "0507"), char("far", "b", "0508"), nvr=2)
    seen = visibility(NIGHT_SKIRMISH, state, "a")
    assert seen.units == {"u", "near"}
    assert seen.hexes is not None and H("0507") in seen.hexes and H("0508") not in seen.hexes


def test_ngt2_an_illuminated_hex_is_seen_at_any_range_from_the_dark() -> None:
    state = night_state(char("u", "a", "0502"), char("far", "b", "0510"), nvr=1)
    assert "far" not in visibility(NIGHT_SKIRMISH, state, "a").units
    lit = with_markers(state, flare("0510"))
    assert "far" in visibility(NIGHT_SKIRMISH, lit, "a").units


def test_ngt2_from_an_illuminated_hex_only_illuminated_hexes_are_seen_even_within_nvr() -> None:
    """The seed is literal and wins: not dark hexes, even adjacent."""
    state = night_state(char("u", "a", "0505"), char("e", "b", "0506"), nvr=2)
    assert "e" in visibility(NIGHT_SKIRMISH, state, "a").units
    in_light = with_markers(state, flare("0503", radius=2))  # lights 0505 but not 0506
    assert H("0505") in lit_hexes(in_light) and H("0506") not in lit_hexes(in_light)
    assert "e" not in visibility(NIGHT_SKIRMISH, in_light, "a").units
    # the enemy in the dark, next to it, still sees the lit unit
    assert "u" in visibility(NIGHT_SKIRMISH, in_light, "b").units


@pytest.mark.parametrize(
    ("tracked", "distance", "seen"), [(False, 3, True), (False, 4, False), (True, 4, True)]
)
def test_ngt2_moving_vehicles_are_seen_to_one_and_a_half_or_twice_nvr(
    tracked: bool, distance: int, seen: bool
) -> None:
    at = f"05{5 + distance:02d}"
    state = night_state(char("u", "a", "0505"), char("v", "b", at, motorized=True, tracked=tracked), nvr=2)
    assert "v" not in visibility(NIGHT_SKIRMISH, state, "a").units  # standing: NVR only
    moving = state.replace(layer_state={"night": replace(night_of(state), moved=("v",))})
    assert ("v" in visibility(NIGHT_SKIRMISH, moving, "a").units) is seen


def test_ngt2_the_base_rulesets_sight_still_applies(monkeypatch: pytest.MonkeyPatch) -> None:
    """SK-3.2 on top of NGT-2: within NVR but behind the unit's front arc, or behind an obstacle, is not seen."""
    monkeypatch.undo()
    ahead = night_state(char("u", "a", "0505", facing="SE-S"), char("e", "b", "0506"), nvr=2)
    assert "e" in visibility(NIGHT_SKIRMISH, ahead, "a").units
    behind = night_state(char("u", "a", "0505", facing="NW-N"), char("e", "b", "0506"), nvr=2)
    assert "e" not in visibility(NIGHT_SKIRMISH, behind, "a").units
    walled = with_terrain(
        night_state(char("u", "a", "0505", facing="SE-S"), char("e", "b", "0507"), nvr=2),
        {"0506": "obstacle"},
    )
    assert "e" not in visibility(NIGHT_SKIRMISH, walled, "a").units


def test_ngt2_a_gunflash_beyond_nvr_is_a_concealed_question_mark() -> None:
    state = night_state(char("u", "a", "0502"), char("e", "b", "0510"), nvr=2)
    flashed = with_markers(state, gunflash("e", "0510"))
    view = visibility(NIGHT_SKIRMISH, flashed, "a")
    assert "e" not in view.units and view.concealed == {"e"}
    # the public sees what every side sees: the '?' but never the unit
    public = visibility(NIGHT_SKIRMISH, flashed, "public")
    assert "e" not in public.units and "e" in public.concealed


def test_ngt2_a_hidden_unit_stays_hidden_even_within_nvr() -> None:
    state = night_state(char("u", "a", "0505"), char("h", "b", "0506", hidden=True), nvr=2)
    assert "h" not in visibility(NIGHT_SKIRMISH, state, "a").units
    assert "h" in visibility(NIGHT_SKIRMISH, state, "b").units
    assert "h" in visibility(NIGHT_SKIRMISH, state, "director").units


def test_ngt2_a_side_may_not_attack_what_it_cannot_see() -> None:
    state = night_state(
        char("scout", "a", "0505", group="g1"), char("sniper", "b", "0509", group="g2"), nvr=2
    )
    drawn = resolve_phase(NIGHT_SKIRMISH, state.replace(dice_script=()), {}).state
    actor = NIGHT_SKIRMISH.awaiting(drawn)[0]
    target = "sniper" if actor == "scout" else "scout"
    order = NIGHT_SKIRMISH.parse_order(drawn, actor, f"shoot {target}")
    with pytest.raises(IllegalOrderError) as err:
        NIGHT_SKIRMISH.validate_order(drawn, actor, order)
    assert err.value.code == "night.unseen_target"
    assert target not in str(err.value).lower() and target not in str(err.value.params).lower()


def test_ngt2_a_sides_view_is_worked_out_once_per_state_and_anew_for_a_state_where_a_unit_moved(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A panel validates each order it may offer against one state, each validation asking what the side sees:
    the lines of sight are drawn once per state and side, and the next state gets its own view."""
    looked: list[str] = []

    def sees_hex(self: object, state: EncounterState, unit_id: str, target: object) -> bool:
        looked.append(unit_id)
        return True

    monkeypatch.setattr(type(SKIRMISH), "sees_hex", sees_hex)
    state = night_state(char("u", "a", "0505"), char("far", "b", "0508"), nvr=2)
    first = visibility(NIGHT_SKIRMISH, state, "a")
    drawn = len(looked)
    assert drawn and "far" not in first.units
    assert visibility(NIGHT_SKIRMISH, state, "a") is first and len(looked) == drawn
    assert "far" in visibility(NIGHT_SKIRMISH, state, "b").units  # the other side's view is its own
    closer = state.replace(units={**state.units, "far": replace(state.units["far"], at=H("0507"))})
    assert "far" in visibility(NIGHT_SKIRMISH, closer, "a").units


# --- NGT-3 illumination -------------------------------------------------------------------------------------


def test_ngt3_a_flare_drifts_one_hex_by_d6_and_lights_its_hex_and_the_six_around() -> None:
    state = night_state(char("u", "a", "0505"))
    d = dice(3)  # 3 → SE
    after, events = light.place_light(state, "flare", H("0808"), d)
    (placed,) = outcome(events)
    assert (
        isinstance(placed, NightLightPlaced)
        and placed.drift == "SE"
        and placed.at == H("0808").neighbor(HexSide.SE)
    )
    assert lit_hexes(after) == frozenset(hexes_within(placed.at, 1)) and len(lit_hexes(after)) == 7
    assert d.rolls[0].rule == "NGT-3"


def test_ngt3_an_illuminating_round_lights_radius_two() -> None:
    state = night_state(char("u", "a", "0505"))
    after, _ = RULINGS["illuminate"].apply(state.replace(dice_script=(1,)), ("0808",))
    assert len(lit_hexes(after)) == 19
    assert (m := after.markers[-1]).kind == "illumination" and m.at == H("0807")  # drift 1 → N


def test_ngt3_flares_from_the_round_entry_are_placed_at_its_start_after_the_wind() -> None:
    sc = night_scenario(
        char("u", "a", "0505", group="g1"),
        char("e", "b", "1010", group="g2"),
        wind=True,
        rounds='[[rounds]]\ndraw = ["g1", "g2"]\nnight = { flares = ["0303"], illuminating_rounds = ["1212"] }\n'
        'actions = { u = ["end"], e = ["end"] }\n',
    )
    state = sc.state.replace(dice_script=(3, 1, 2))
    steps = list(NIGHT_SKIRMISH.simulate_round(state, sc.rounds[0], DiceFactory()))
    rolls = [e for s in steps for e in s.events if isinstance(e, RollMade)]
    assert [(r.rule, r.dice) for r in rolls[:3]] == [("NGT-1", (3,)), ("NGT-3", (1,)), ("NGT-3", (2,))]
    placed = [e for s in steps for e in s.events if isinstance(e, NightLightPlaced)]
    assert [(p.kind, p.at.label) for p in placed] == [("flare", "0302"), ("illumination", "1312")]


def test_ngt3_every_night_marker_is_removed_at_the_end_of_the_round() -> None:
    sc = night_scenario(
        char("u", "a", "0505", group="g1"),
        char("e", "b", "1010", group="g2"),
        rounds='[[rounds]]\ndraw = ["g1", "g2"]\nnight = { flares = ["0303"] }\nactions = { u = ["end"], e = ["end"] }\n',
    )
    state = with_markers(
        sc.state.replace(dice_script=(1,)), gunflash("e", "1010"), Marker(kind="fire", at=H("0909"))
    )
    steps = list(NIGHT_SKIRMISH.simulate_round(state, sc.rounds[0], DiceFactory()))
    end = steps[-1]
    cleared = [e for e in end.events if isinstance(e, NightMarkersCleared)]
    assert cleared == [NightMarkersCleared(rule="NGT-3", round=1, count=2)]
    assert not [m for m in end.state.markers if m.kind in ("flare", "gunflash")]


def test_ngt3_a_flare_ruling_is_refused_off_the_board_and_without_a_hex() -> None:
    state = night_state(char("u", "a", "0505"))
    with pytest.raises(InvalidOrderError):
        RULINGS["flare"].apply(state, ("9999",))
    with pytest.raises(InvalidOrderError):
        RULINGS["flare"].apply(state, ())


# --- NGT-4 gunflash -----------------------------------------------------------------------------------------


def test_ngt4_a_unit_that_fires_gets_a_gunflash_until_the_end_of_the_round() -> None:
    sc = night_scenario(
        char("u", "a", "0505", group="g1", facing="SE-S"),
        char("e", "b", "0507", group="g2", facing="NW-N"),
        rounds='[[rounds]]\ndraw = ["g1", "g2"]\nactions = { u = ["shoot e"], e = ["end"] }\n',
    )
    steps = list(NIGHT_SKIRMISH.simulate_round(sc.state, sc.rounds[0], DiceFactory()))
    first = steps[0]
    assert any(isinstance(e, ShotResolved) for e in first.events)
    assert [(m.kind, m.owner, m.at.label) for m in first.state.markers if m.kind == "gunflash"] == [
        ("gunflash", "u", "0505")
    ]
    assert not [m for m in steps[-1].state.markers if m.kind == "gunflash"]


# --- NGT-5 straying -----------------------------------------------------------------------------------------


def _check(
    state: EncounterState, unit: str, *script: int, points: int = 6, vehicle: bool = False
) -> tuple[EncounterState, list[Event], bool]:
    """The check's outcome events (its roll lines, tested on their own, left out)."""
    after, events, taken = stray.check(
        SKIRMISH, state, MoveIntent(unit=unit, points=points, vehicle=vehicle), dice(*script)
    )
    return after, outcome(events), taken


def test_ngt5_exempt_when_it_sees_a_known_enemy_or_is_by_a_road_or_a_lit_hex() -> None:
    state = night_state(char("u", "a", "0505"), char("e", "b", "0507"), char("far", "b", "1010"))
    _, events, taken = _check(state, "u")
    assert not taken and events[0].exempt == "enemy"  # type: ignore[attr-defined]
    alone = night_state(char("u", "a", "0505"), char("far", "b", "1010"))
    by_road = with_terrain(alone, {"0506": "road"})
    assert _check(by_road, "u")[1][0].exempt == "road"  # type: ignore[attr-defined]
    by_light = with_markers(alone, flare("0507"))  # lights 0506, next to 0505
    assert _check(by_light, "u")[1][0].exempt == "illuminated"  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("discipline", "white", "strays"),
    [
        ("lax", 1, True),
        ("normal", 2, False),
        ("normal", 3, True),
        ("stealthy", 4, False),
        ("stealthy", 5, True),
    ],
)
def test_ngt5_coloured_six_then_lax_always_normal_white_3_stealthy_white_5(
    discipline: str, white: int, strays: bool
) -> None:
    state = night_state(char("u", "a", "0505", discipline=discipline), char("far", "b", "1010"))
    _, events, taken = _check(state, "u", 6, white, 1, 2)
    assert taken is strays and events[0].strayed is strays  # type: ignore[attr-defined]
    assert events[0].colored == 6 and events[0].white == white  # type: ignore[attr-defined]


def test_ngt5_no_stray_without_a_coloured_six_and_motor_vehicles_are_always_lax() -> None:
    state = night_state(char("u", "a", "0505", discipline="stealthy"), char("far", "b", "1010"))
    assert _check(state, "u", 5, 6)[2] is False
    assert _check(state, "u", 6, 1, 1, 2, vehicle=True)[2] is True
    motor = night_state(
        char("u", "a", "0505", discipline="stealthy", motorized=True), char("far", "b", "1010")
    )
    _, events, taken = _check(motor, "u", 6, 1, 1, 2)
    assert taken and events[0].discipline == "lax"  # type: ignore[attr-defined]


def test_ngt5_seed_example_a_stray_6_6_then_direction_4_3_moves_as_far_as_it_can() -> None:
    """Seed: "Asumiendo que la unidad obtiene un (6,6) … realiza una DR de dirección (4,3) y mueve en la dirección
    4": here side 4 = S; 6 AP of open ground → six hexes south, then out of points (no TI)."""
    state = night_state(char("u", "a", "0802"), char("far", "b", "1501"), height=12)
    after, events, taken = _check(state, "u", 6, 6, 4, 3)
    (stray_event, *_rest) = events
    assert isinstance(stray_event, NightStraying) and taken
    assert stray_event.direction == "S" and stray_event.stopped_at == H("0808")
    assert stray_event.stopped_because == "points" and not stray_event.ti and stray_event.hexes == 6
    moved = after.unit("u")
    assert moved.at == H("0808") and moved.ap_left == 0  # type: ignore[attr-defined]


def test_ngt5_stops_at_the_board_edge_before_a_lit_hex_and_at_a_friendly_unit() -> None:
    edge = night_state(char("u", "a", "0803"), height=12)
    assert _check(edge, "u", 6, 6, 1, 2)[1][0].stopped_because == "edge"  # type: ignore[attr-defined]
    lit = with_markers(night_state(char("u", "a", "0802"), height=12), flare("0808"))
    ev = _check(lit, "u", 6, 6, 4, 3)[1][0]
    assert ev.stopped_because == "illuminated" and ev.stopped_at == H("0806")  # type: ignore[attr-defined]
    pal = night_state(char("u", "a", "0802"), char("pal", "a", "0805"), height=12)
    ev = _check(pal, "u", 6, 6, 4, 3)[1][0]
    assert ev.stopped_because == "friendly" and ev.stopped_at == H("0804") and not ev.ti  # type: ignore[attr-defined]


def test_ngt5_blocked_by_terrain_or_lacking_the_points_for_it_the_unit_is_marked_ti() -> None:
    wall = with_terrain(night_state(char("u", "a", "0802"), height=12), {"0805": "obstruction"})
    after, events, _ = _check(wall, "u", 6, 6, 4, 3)
    assert events[0].stopped_because == "terrain" and events[0].ti  # type: ignore[attr-defined]
    assert [(m.kind, m.owner) for m in after.markers] == [("ti", "u")]
    mud = with_terrain(night_state(char("u", "a", "0802", ap=3), height=12), {"0805": "difficult"})
    ev = _check(mud, "u", 6, 6, 4, 3, points=3)[1][0]
    assert ev.stopped_because == "points" and ev.ti and ev.stopped_at == H("0804")  # type: ignore[attr-defined]


def test_ngt5_seed_example_straying_into_sight_of_an_enemy_stops_it_there_marked_ti() -> None:
    """Seed: "2CC6 entraría en 2DD5, ganaría una LOS a la unidad en 2GG4 y quedaría T.I."."""
    state = night_state(char("u", "a", "0802"), char("e", "b", "0807"), nvr=2, height=12)
    ev = _check(state, "u", 6, 6, 4, 3)[1][0]
    assert ev.stopped_at == H("0805") and ev.stopped_because == "enemy" and ev.ti  # type: ignore[attr-defined]


def test_ngt5_a_straying_unit_never_moves_closer_to_a_known_enemy() -> None:
    state = night_state(char("u", "a", "0805"), char("e", "b", "0503"), nvr=4, height=12)
    state = state.replace(layer_state={"night": replace(night_of(state), nvr=4)})
    lit = with_markers(
        state, flare("0503")
    )  # the enemy is known, but u is not exempt only if it can't see it
    assert stray.exemption(lit, lit.unit("u"), lit_hexes(lit)) == "enemy"
    walk = stray.walk(SKIRMISH, state, state.unit("u"), HexSide.NW, 6, lit_hexes(state))
    assert walk.because == "enemy" and walk.path == ()


def test_ngt5_in_play_the_stray_replaces_the_move_action_and_spends_its_ap() -> None:
    sc = night_scenario(
        char("u", "a", "0802", group="g1"),
        char("e", "b", "1501", group="g2"),
        height=12,
        rounds='[[rounds]]\ndraw = ["g1", "g2"]\nactions = { u = ["move 0801", "end"], e = ["end"] }\n',
    )
    state = sc.state.replace(dice_script=(6, 6, 4, 3))
    steps = list(NIGHT_SKIRMISH.simulate_round(state, sc.rounds[0], DiceFactory()))
    first = steps[0]
    strays = [e for e in first.events if isinstance(e, NightStraying)]
    assert strays and strays[0].strayed and first.state.unit("u").at == H("0808")
    assert [r.rule for r in first.events if isinstance(r, RollMade)] == ["NGT-5", "NGT-5"]


# --- NGT-6 jitter fire ----------------------------------------------------------------------------------------


def test_ngt6_doubles_with_a_gunflash_on_the_board_make_the_nearest_enemy_fire_wildly() -> None:
    state = night_state(
        char("u", "a", "0802"), char("near", "b", "1105"), char("far", "b", "1510"), height=12
    )
    flashed = with_markers(state, gunflash("far", "1510"))
    after, events, taken = _check(flashed, "u", 6, 6, 4, 4, 3, 5)
    jitter = [e for e in events if isinstance(e, NightJitterFire)]
    assert jitter == [NightJitterFire(rule="NGT-6", unit="near", roll=8, cancels_move=False)]
    assert taken and after.unit("u").at != H("0802")  # it still strays
    assert ("gunflash", "near") in [(m.kind, m.owner) for m in after.markers]
    # the same doubles with no gunflash on the board: no jitter fire, no roll
    _, quiet, _ = _check(state, "u", 6, 6, 4, 4, 3, 5)
    assert not [e for e in quiet if isinstance(e, NightJitterFire)]


def test_ngt6_seed_example_6_6_the_moving_unit_fires_wildly_and_does_not_move() -> None:
    state = with_markers(
        night_state(char("u", "a", "0802"), char("e", "b", "1510"), height=12), gunflash("e", "1510")
    )
    after, events, taken = _check(state, "u", 6, 6, 6, 6, 2, 2)
    assert taken and after.unit("u").at == H("0802")
    assert events[0].key == "night_jittered"  # type: ignore[attr-defined]
    assert NightJitterFire(rule="NGT-6", unit="u", roll=4, cancels_move=True) in events


# --- NGT-7 rout at night --------------------------------------------------------------------------------------


def test_ngt7_seed_example_a_routing_unit_may_crawl_anywhere_but_toward_a_known_enemy() -> None:
    """Seed: the broken unit may crawl to 2EE6, still adjacent to the known enemy in 2FF5 and closer to the one
    in 2CC8 beyond NVR (unknown); with NVR 5 (or 2CC8 lit) it could not."""
    state = night_state(char("r", "a", "0505"), char("ff", "b", "0605"), char("cc", "b", "0508"), nvr=2)
    moves = rout.rout_moves(state, "r")
    assert H("0605") not in moves  # into the known enemy's hex: closer
    assert H("0506") in moves  # toward the unknown enemy beyond NVR
    assert not rout.rout_eliminates()
    far_sight = state.replace(layer_state={"night": replace(night_of(state), nvr=5)})
    assert H("0506") not in rout.rout_moves(far_sight, "r")
    lit = with_markers(state, flare("0508"))
    assert H("0506") not in rout.rout_moves(lit, "r")


def test_ngt7_seed_example_an_unseen_enemy_in_the_dark_is_not_known() -> None:
    """Seed: from a lit hex the broken unit does not see the adjacent enemy in the dark, so it may even crawl
    into its location."""
    state = with_markers(
        night_state(char("r", "a", "0505"), char("e", "b", "0605"), nvr=2),
        Marker(kind="flare", at=H("0504"), radius=1),
    )
    assert H("0505") in lit_hexes(state) and H("0605") not in lit_hexes(state)
    assert H("0605") in rout.rout_moves(state, "r")


# --- NGT-8 ambush and concealment ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("attacker", "defender", "lit", "who"),
    [
        (1, 3, False, "attacker"),
        (1, 3, True, None),
        (1, 4, True, "attacker"),
        (2, 3, False, None),
        (4, 1, False, "defender"),
    ],
)
def test_ngt8_the_attacker_ambushes_on_two_less_at_night_three_when_lit(
    attacker: int, defender: int, lit: bool, who: str | None
) -> None:
    assert rout.ambush(attacker, defender, lit=lit) == who


def test_ngt8_gaining_concealment_needs_no_roll_at_night() -> None:
    assert rout.concealment_needs_roll() is False


# --- NGT-9 views ------------------------------------------------------------------------------------------------


def test_ngt9_every_side_gets_its_own_board_and_the_base_ruleset_none() -> None:
    state = night_state(char("u", "a", "0505"), char("e", "b", "1010"))
    assert NIGHT_SKIRMISH.private_views(state) == ("a", "b")
    assert SKIRMISH.private_views(state.replace(layers=())) == ()


def test_ngt9_a_shot_from_an_unseen_unit_reads_as_a_shot_from_the_dark() -> None:
    shot = ShotResolved(rule="SK-3.3", shooter="h", target="u", hit=True, damage=4)
    known = frozenset({"h", "u"})
    dark = NIGHT_SKIRMISH.public_event(shot, frozenset({"u"}), known)
    assert isinstance(dark, Note) and dark.key == "shot_from_dark" and dark.involved() == ("u",)
    assert NIGHT_SKIRMISH.public_event(shot, frozenset({"h", "u"}), known) == shot
    assert NIGHT_SKIRMISH.public_event(shot, frozenset(), known) is None


def test_fog1_damage_to_a_seen_unit_from_an_unseen_one_is_read_without_its_cause() -> None:
    """A mech damaged from the dark: the side reads the damage its own mech took, never which unit dealt it."""
    night_mech = compose("mech", ("night",))
    hit = DamageDealt(rule="MECH-2.3", unit="u", by="h", location="la", amount=5, armor=3, structure=4)
    known = frozenset({"h", "u"})
    assert night_mech.public_event(hit, frozenset({"u"}), known) == replace(hit, by="")
    assert night_mech.public_event(hit, frozenset({"h", "u"}), known) == hit
    assert night_mech.public_event(hit, frozenset({"h"}), known) is None


def test_ngt5_seed_example_after_straying_onto_a_friend_it_moves_on_without_straying_this_round() -> None:
    """Seed: "Entra en 2CC7 donde hay una unidad amiga en Buen Orden. Puede ahora volver a 2CC6 y entrar en 2CC5
    sin tener que hacer un segundo chequeo por extravío"."""
    pal = night_state(char("u", "a", "0802"), char("pal", "a", "0805"), height=12)
    after, events, _ = _check(pal, "u", 6, 6, 4, 3)
    assert events[0].stopped_because == "friendly"  # type: ignore[attr-defined]
    _, again, taken = _check(after, "u", 6, 6, 4, 3)
    assert not taken and again[0].exempt == "friendly"  # type: ignore[attr-defined]
    cleared, _ = light.end_of_round(after, 1)
    assert night_of(cleared).steady == ()
