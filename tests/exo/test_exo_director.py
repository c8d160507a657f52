"""The director's rulings of EXO-4.5 (seed: "habrá una posibilidad de colisión, de atraque o de abordaje"):
collision (EXO-4.6), docking (EXO-4.7) and boarding (EXO-4.8), as pure functions of the state."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from rules.dice import Dice
from rules.engine import resolve_phase
from rules.errors import IllegalOrderError
from rules.events import Event, GameOver, Note, RollMade
from rules.exo.crew import BOARDING
from rules.exo.director import rule_boarding, rule_collision, rule_docking
from rules.exo.events import (
    CollisionFlagged,
    CollisionRuled,
    CrewCasualty,
    DamageApplied,
    HitScored,
    ShipBoarded,
    ShipsDocked,
)
from rules.exo.model import Ship
from rules.exo.state import ext_of
from rules.hexgrid import Hex
from rules.ruleset import DiceFactory
from rules.serial import from_json, to_json
from rules.state import EncounterState
from tests.exo_fixtures import EXO, events_of, load, of_type, play, ship, ship_toml

H = Hex.parse
CREW = """
cabin = 2
crew = [
  { name = "Pia", station = "pilot", skills = { piloting = 15 } },
  { name = "Max", station = "gunner", skills = { gunnery = 14 } },
]
"""


def converging(*, extra_b: str = "") -> EncounterState:
    """a (red) and b (blue) both end round 1 in 0508: a from 0510 northward, b from 0506 southward, speed 2."""
    return load(
        ship_toml("a", "red", "0510", extra="speed = 2" + CREW),
        ship_toml("b", "blue", "0506", facing="S", extra="speed = 2\n" + extra_b),
    )


def after_movement(
    state: EncounterState, orders: dict[str, Any] | None = None
) -> tuple[EncounterState, list[Event]]:
    """The state right after phase 3 (waiting for phase 4) and the events so far."""
    steps = play(state, orders or {})
    index = next(i for i, s in enumerate(steps) if s.phase == "3")
    return steps[index].state, events_of(steps[: index + 1])


def finish_round(state: EncounterState) -> EncounterState:
    """Phases 4 and 5 with no orders: the state of the next round's phase 1."""
    for _ in ("4", "5"):
        state = resolve_phase(EXO, state, {}, dice_for=DiceFactory()).state
    return state


def test_exo_4_5_the_pieces_meet_and_the_collision_is_flagged() -> None:
    state, events = after_movement(converging())
    assert state.phase == "4"
    assert [f.units for f in of_type(events, CollisionFlagged)] == [("a", "b")]
    assert ext_of(state.ext).collisions == (("a", "b"),)


def test_exo_4_6_collision_ruled_before_phase_4_joins_the_rounds_damage() -> None:
    state, _ = after_movement(converging())
    dice = Dice("test", (9, 8))  # the two location d10s: 9 structure, 8 cargo
    ruled, events = rule_collision(state, ["a", "b"], {"a": 6, "b": 9}, dice)
    first = events[0]
    assert isinstance(first, CollisionRuled) and first.rule == "EXO-4.6"
    assert (first.at, first.units, first.damage, first.queued) == (
        H("0508"),
        ("a", "b"),
        (6, 9),
        True,
    )
    hits = {h.target: h for h in of_type(list(events), HitScored)}
    assert (hits["a"].armor, hits["a"].internal, hits["a"].locations, hits["a"].shooter) == (
        5,
        1,
        ("structure",),
        "b",
    )
    assert (hits["b"].armor, hits["b"].internal, hits["b"].locations) == (5, 1, ("cargo",))
    assert [r.source for r in of_type(list(events), RollMade)] == ["script", "script"]
    assert ship(ruled, "a").armor == 5, "EXO-5.1: it waits for phase 4"
    assert ext_of(ruled.ext).collisions == ()
    damage = resolve_phase(EXO, ruled, {}, dice_for=DiceFactory())
    applied = {e.unit: (e.armor_lost, e.internal) for e in of_type(list(damage.events), DamageApplied)}
    assert applied == {"a": (5, 1), "b": (5, 1)}
    assert not [e for e in damage.events if isinstance(e, Note) and e.key == "exo.collision_unruled"]
    a, b = ship(damage.state, "a"), ship(damage.state, "b")
    assert (a.armor, a.structure, b.armor, b.cargo) == (0, 2, 0, 0)


def test_exo_4_5_an_unruled_collision_is_logged_without_effect() -> None:
    state, _ = after_movement(converging())
    damage = resolve_phase(EXO, state, {}, dice_for=DiceFactory())
    assert [e.key for e in damage.events if isinstance(e, Note)] == ["exo.collision_unruled"]


def test_exo_4_6_collision_ruled_after_the_damage_phase_takes_effect_at_once() -> None:
    state, _ = after_movement(converging())
    state = resolve_phase(EXO, state, {}, dice_for=DiceFactory()).state  # phase 4 passed: now phase 5
    assert state.phase == "5"
    ruled, events = rule_collision(state, ["b", "a"], {"b": 20}, Dice("test", (9, 9, 9)))
    assert not of_type(list(events), CollisionRuled)[0].queued
    b = ship(ruled, "b")
    assert b.destroyed and b.structure == 0, "20 vs armor 5: 3 internal points, all structure"
    assert any(isinstance(e, GameOver) and e.winner == "red" for e in events) and ruled.over


def test_exo_4_6_a_ship_on_an_asteroid_hex_can_collide_alone_and_bad_rulings_are_refused() -> None:
    state = load(ship_toml("a", "red", "0505"), ship_toml("b", "blue", "1010"))
    with pytest.raises(IllegalOrderError) as err:
        rule_collision(state, ["a", "b"], {"a": 3})
    assert (err.value.code, err.value.rule) == ("exo.ruling_apart", "EXO-4.6")
    with pytest.raises(IllegalOrderError) as err:
        rule_collision(state, ["a"], {"a": 3})
    assert err.value.code == "exo.ruling_apart"
    rock = state.replace(board=dataclasses.replace(state.board, terrain={H("0505"): "asteroid"}))
    ruled, events = rule_collision(rock, ["a"], {"a": 2})
    assert ship(ruled, "a").armor == 3 and of_type(list(events), HitScored)[0].internal == 0
    with pytest.raises(IllegalOrderError) as err:
        rule_collision(rock, ["a"], {"b": 2})
    assert err.value.code == "exo.ruling_unit"


def test_exo_4_7_docking_matches_velocity_and_the_pair_moves_together() -> None:
    state, _ = after_movement(converging())
    docked, events = rule_docking(state, "b", "a")
    (event,) = events
    assert isinstance(event, ShipsDocked) and (event.unit, event.other, event.at, event.rule) == (
        "b",
        "a",
        H("0508"),
        "EXO-4.7",
    )
    a, b = ship(docked, "a"), ship(docked, "b")
    assert b.velocity == a.velocity and ext_of(docked.ext).collisions == ()
    final = finish_round(docked)
    assert final.round == 2 and final.phase == "1"
    final = play(final, {})[-1].state  # round 2, no maneuvers
    assert ship(final, "a").at == ship(final, "b").at != H("0508"), "they go on together"
    kept, _ = rule_docking(state, "b", "a", match_velocity=False)
    assert ship(kept, "b").vector == ship(state, "b").vector


def test_exo_4_8_boarding_party_leaves_its_stations_and_a_capture_changes_sides() -> None:
    state, _ = after_movement(converging())
    boarded, events = rule_boarding(state, "a", "b", ["Max"])
    (event,) = events
    assert isinstance(event, ShipBoarded) and (event.crew, event.captured, event.rule) == (
        ("Max",),
        False,
        "EXO-4.8",
    )
    max_ = next(c for c in ship(boarded, "a").crew if c.name == "Max")
    assert max_.station == BOARDING and max_.turret == 0
    later = finish_round(boarded)
    with pytest.raises(IllegalOrderError):
        play(later, {"a": {"fire": [{"by": "Max", "weapon": 1, "target": "b"}]}})
    back = play(later, {"a": {"stations": [{"by": "Max", "station": "gunner"}]}})
    assert next(c for c in ship(back[-1].state, "a").crew if c.name == "Max").station == "gunner"
    taken, events = rule_boarding(state, "a", "b", ["Max"], captured=True)
    assert ship(taken, "b").side == "red" and taken.over
    assert [type(e) for e in events] == [ShipBoarded, GameOver]


def test_exo_4_8_boarding_refusals() -> None:
    state, _ = after_movement(converging())
    for crew, code in ((["Nobody"], "exo.board_crew"), ([], "exo.board_crew")):
        with pytest.raises(IllegalOrderError) as err:
            rule_boarding(state, "a", "b", crew)
        assert (err.value.code, err.value.rule) == (code, "EXO-4.8")
    friend = state.with_units([dataclasses.replace(ship(state, "b"), side="red")])
    with pytest.raises(IllegalOrderError) as err:
        rule_boarding(friend, "a", "b", ["Max"])
    assert err.value.code == "exo.board_friend"


def test_exo_4_8_boarders_are_not_in_their_ships_cabin() -> None:
    state, _ = after_movement(converging())
    boarded, _ = rule_boarding(state, "a", "b", ["Max"])
    ruled, _ = rule_collision(boarded, ["a", "b"], {"a": 12}, Dice("test", (6, 6)))  # two cabin points
    later = resolve_phase(EXO, ruled, {}, dice_for=DiceFactory())
    fallen = [e.crew for e in of_type(list(later.events), CrewCasualty)]
    assert fallen == ["Pia"], "Max is aboard b: only Pia can fall; the second cabin point finds nobody"


def test_exo_director_events_round_trip_through_json() -> None:
    state, _ = after_movement(converging())
    for _, events in (
        rule_collision(state, ["a", "b"], {"a": 6}, Dice("t", (9,))),
        rule_docking(state, "a", "b"),
        rule_boarding(state, "a", "b", ["Max"]),
    ):
        for event in events:
            assert from_json(to_json(event)) == event
    assert isinstance(ship(state, "a"), Ship)
