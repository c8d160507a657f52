"""Turret gunners (EXO-1.5, EXO-5.2, EXO-6.2, EXO-6.5): each gunner keeps a fixed turret; a fallen or repairing
gunner leaves that turret silent; only a station change hands it over, from next round."""

from __future__ import annotations

import dataclasses

import pytest

from rules.errors import IllegalOrderError
from rules.exo import legal_targets
from rules.exo.events import StationChanged
from rules.exo.model import Ship
from rules.serial import from_json, to_json
from rules.state import EncounterState
from tests.exo_fixtures import events_of, load, of_type, play, ship, ship_toml, volley

# Bea is listed first but Ana has the higher gunnery: Ana is gunner 1 and mans turret 1, Bea turret 2.
TURRETS = """
cabin = 5
weapons = ["APtx2", "L"]
crew = [
  { name = "Pilar", station = "pilot", skills = { piloting = 15, gunnery = 10 } },
  { name = "Bea", station = "gunner", skills = { gunnery = 12 } },
  { name = "Ana", station = "gunner", skills = { gunnery = 15 } },
  { name = "Doc", station = "medic", skills = { first_aid = 15 } },
  { name = "Tito", station = "technician", skills = { weapons_tech = 15 } },
]
"""


def _state() -> EncounterState:
    # b is dead astern of a: only a manned turret bears (EXO-1.4), an unmanned one fires as bow.
    return load(ship_toml("a", "red", "0805", extra=TURRETS), ship_toml("b", "blue", "0808"))


def _with_crew(state: EncounterState, name: str, **changes: object) -> EncounterState:
    a = ship(state, "a")
    crew = tuple(dataclasses.replace(c, **changes) if c.name == name else c for c in a.crew)
    return state.with_units([dataclasses.replace(a, crew=crew)])


def _fire(by: str, weapon: int) -> dict[str, object]:
    return volley((by, weapon, "b"))


def _turrets(s: Ship) -> dict[str, int]:
    return {c.name: c.turret for c in s.crew if c.turret}


def test_exo_1_5_turret_gunners_man_their_own_turret_in_gunner_order() -> None:
    state = _state()
    assert _turrets(ship(state, "a")) == {"Ana": 1, "Bea": 2}
    steps = play(state, volley(("Ana", 1, "b")))
    after = steps[-1].state
    assert _turrets(ship(after, "a")) == {"Ana": 1, "Bea": 2}, "the assignment survives the round"
    restored = from_json(to_json(after))
    assert _turrets(restored.unit_as("a", Ship)) == {"Ana": 1, "Bea": 2}, "and a save/load"


def test_exo_1_5_a_turret_gunner_fires_only_her_own_turret() -> None:
    state = _state()
    with pytest.raises(IllegalOrderError) as err:
        play(state, _fire("Ana", 3))  # the bow L is not Ana's weapon
    assert (err.value.rule, err.value.code, err.value.params["unit"]) == (
        "EXO-1.5",
        "exo.turret_own_only",
        "a",
    )
    with pytest.raises(IllegalOrderError) as err:
        play(state, _fire("Bea", 1))  # Ana's turret
    assert err.value.rule == "EXO-1.5" and "Ana" in str(err.value)
    with pytest.raises(IllegalOrderError):
        play(state, _fire("pilot", 2))  # a manned turret is its gunner's
    play(state, volley(("Bea", 2, "b"), ("pilot", 3, "b")))


def test_exo_5_2_gunner_down_leaves_that_turret_silent() -> None:
    state = _with_crew(_state(), "Ana", status="wounded")
    for by in ("Bea", "gunner1", "pilot"):  # gunner1 is now Bea by rank, yet Ana's turret stays hers
        with pytest.raises(IllegalOrderError) as err:
            play(state, _fire(by, 1))
        assert (err.value.rule, err.value.code) == ("EXO-5.2", "exo.turret_silent"), by
        assert err.value.params["unit"] == "a" and "Ana" in str(err.value)
    assert legal_targets(state, "a", 1) == [], "not manned, and not fired as bow either"
    assert legal_targets(state, "a", 2) == ["b"], "Bea's own turret still fires"
    play(state, _fire("Bea", 2))


def test_exo_6_2_repairing_gunner_leaves_that_turret_silent() -> None:
    base = _state()
    state = _with_crew(base, "Ana", repaired_round=base.round).replace(round=base.round + 1)
    for by in ("Bea", "pilot"):
        with pytest.raises(IllegalOrderError) as err:
            play(state, _fire(by, 1))
        assert (err.value.rule, err.value.params["unit"]) == ("EXO-6.2", "a"), by
        assert "Ana" in str(err.value)
    play(state, _fire("Bea", 2))  # other weapons still fire (EXO-6.2)


def test_exo_6_5_station_change_hands_a_fallen_gunners_turret_over_next_round() -> None:
    state = _with_crew(_state(), "Ana", status="stunned")
    with pytest.raises(IllegalOrderError):
        play(state, volley(("Doc", 1, "b")))  # not a gunner yet
    steps = play(state, {"a": {"stations": [{"by": "Doc", "station": "gunner"}]}})
    assert [(c.crew, c.to) for c in of_type(events_of(steps, "5"), StationChanged)] == [("Doc", "gunner")]
    nxt = steps[-1].state
    assert _turrets(ship(nxt, "a")) == {"Doc": 1, "Bea": 2}, "Doc takes Ana's turret; Ana loses it"
    assert legal_targets(nxt, "a", 1) == ["b"], "manned again: fires astern"
    play(nxt, _fire("Doc", 1))


def test_exo_6_5_a_gunner_who_leaves_the_station_leaves_the_turret_unmanned() -> None:
    steps = play(_state(), {"a": {"stations": [{"by": "Bea", "station": "technician"}]}})
    nxt = steps[-1].state
    assert _turrets(ship(nxt, "a")) == {"Ana": 1}
    assert legal_targets(nxt, "a", 2) == [], "no gunner assigned: the turret fires as bow (EXO-1.3)"
    play(nxt, _fire("pilot", 2))


def test_exo_6_5_a_crew_member_who_is_down_cannot_change_station() -> None:
    state = _with_crew(_state(), "Ana", status="gravely_wounded")
    with pytest.raises(IllegalOrderError) as err:
        play(state, {"a": {"stations": [{"by": "Ana", "station": "pilot"}]}})
    assert (err.value.rule, err.value.code, err.value.params["crew"]) == (
        "EXO-6.5",
        "exo.station_down",
        "Ana",
    )
    assert "out of action" in str(err.value)


def test_exo_1_5_order_panel_targets_list_only_weapons_the_shooter_may_fire() -> None:
    state = _state()
    assert legal_targets(state, "a", 1, by="Ana") == ["b"]
    assert legal_targets(state, "a", 1, by="Bea") == [], "Ana's turret"
    assert legal_targets(state, "a", 1, by="Pilar") == [], "a manned turret is not the pilot's"
    ahead = load(ship_toml("a", "red", "0805", extra=TURRETS), ship_toml("b", "blue", "0802"))
    assert legal_targets(ahead, "a", 3, by="Pilar") == ["b"], "the bow L bears on a ship ahead"
    assert legal_targets(ahead, "a", 3, by="Ana") == [], "but a turret gunner fires only her turret"
