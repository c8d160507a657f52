"""NGT-5 judged at every hex of a declared path (RULES.md, DESIGN §7.3): a unit that sets out exempt and loses
its exemption mid-path makes the movement roll before entering the next hex, and a stray there replaces the rest
of the path. Seed (asl-night-rules.es.txt): "Unidades que reunan una o más de las condiciones antes mencionadas
evitaran el extravio y tendrán que chequear por extravio cuando no sigan reuniendo ninguna de esas condiciones y
quieran entrar en un nuevo hexágono"."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from rules.events import UnitMoved
from rules.hexgrid import Hex
from rules.mech.state import DECLARE
from rules.night import stray
from rules.night.events import NightStraying
from rules.pbw.model import DEFEND, Declaration
from rules.registry import get_ruleset
from rules.ruleset import MoveIntent, Ruleset
from rules.scenario import load_scenario
from rules.state import EncounterState
from tests.mech_fixtures import scenario_text as mech_text
from tests.mech_fixtures import unit
from tests.night_fixtures import H, dice, flare, with_markers
from tests.pbw_fixtures import person
from tests.pbw_fixtures import scenario_text as pbw_text

MECH = get_ruleset("mech")
PBW = get_ruleset("pbw")


def at_night(text: str, ruleset: str) -> str:
    return text.replace(f'ruleset = "{ruleset}"\n', f'ruleset = "{ruleset}"\nlayers = ["night"]\n', 1)


def tank_on_a_road(**keys: Any) -> EncounterState:
    """A lax motor vehicle (NGT-5) on the road at 0508, heading north into the dark; the enemy far away."""
    tank = unit(
        "tank",
        "red",
        "0508",
        kind="vehicle",
        walk=4,
        weapons=[{"type": "medium_laser", "loc": "front"}],
        **keys,
    )
    far = unit("far", "blue", "1515")
    text = at_night(mech_text(tank, far, terrain={"0508": "road"}), "mech")
    return load_scenario(text).state.replace(phase=DECLARE)


def intent_of(ruleset: Ruleset, state: EncounterState, uid: str, raw: Any) -> MoveIntent:
    intent = ruleset.move_intent(state, ruleset.parse_order(state, uid, raw))
    assert intent is not None
    return intent


def strays_of(events: list[Any]) -> list[NightStraying]:
    return [e for e in events if isinstance(e, NightStraying)]


NORTH = {"mode": "cruise", "path": ["0507", "0506", "0505", "0504"]}


def test_ngt5_a_lax_vehicle_leaving_its_road_checks_at_the_first_hex_not_next_to_it() -> None:
    """Today's old reading judged the path once, from its road hex, and the tank drove four hexes into the dark
    without a roll. On the road (0508) and next to it (0507) it is exempt; at 0506 it is neither, so it rolls
    there, before entering 0505: coloured 6 → a lax unit strays; direction (2, 5) → side 2, NE."""
    state = tank_on_a_road()
    intent = intent_of(MECH, state, "tank", NORTH)
    assert intent.path == tuple(H(h) for h in NORTH["path"])
    after, events, taken = stray.check(MECH, state, intent, dice(6, 1, 2, 5))
    (event,) = strays_of(events)
    assert taken and event.strayed and event.key == "night_strayed_at"
    assert dict(event.args) == {"checked_at": "0506"} and event.direction == "NE"
    # the path so far is walked, then the stray spends what is left (4 MP − 2 for 0507 and 0506) to the NE
    ne = H("0506").neighbor(1)
    assert event.hexes == 2 and event.stopped_at == ne.neighbor(1) and event.stopped_because == "points"
    (moved,) = [e for e in events if isinstance(e, UnitMoved)]
    assert moved.path == (H("0508"), H("0507"), H("0506"), ne, ne.neighbor(1))
    assert after.unit("tank").at == ne.neighbor(1)


def test_ngt5_keeping_its_way_where_the_exemption_ends_the_path_goes_on_as_declared() -> None:
    state = tank_on_a_road()
    after, events, taken = stray.check(MECH, state, intent_of(MECH, state, "tank", NORTH), dice(5, 6))
    (event,) = strays_of(events)
    assert not taken and event.key == "night_kept_way_at" and dict(event.args) == {"checked_at": "0506"}
    assert after.unit("tank").at == H("0508"), "the declared path is the base ruleset's to carry out"


def test_ngt5_seed_example_a_path_that_stays_by_the_road_never_rolls() -> None:
    """Seed: "Si mueve despues a 2FF6, 2EE7, y quiere mover a otro hexágono entonces tendrá que tirar por extravio
    en 2EE7": a path that ends next to the road never wants another hex, so no roll at all."""
    state = tank_on_a_road()
    raw = {"mode": "cruise", "path": ["0507", "0506"]}
    _, events, taken = stray.check(MECH, state, intent_of(MECH, state, "tank", raw), dice())
    (event,) = strays_of(events)
    assert not taken and event.key == "night_exempt" and event.exempt == "road"


def test_ngt5_a_unit_that_starts_in_the_dark_still_rolls_once_before_moving() -> None:
    """Seed: "Si la unidad comienza en 2EE7 tendria que chequear por extravio antes de comenzar a mover"."""
    state = tank_on_a_road()
    raw = {"mode": "cruise", "path": ["0505", "0504"]}
    moved = state.with_units([_at(state, "tank", "0506")])
    _, events, taken = stray.check(MECH, moved, intent_of(MECH, moved, "tank", raw), dice(5, 6))
    (event,) = strays_of(events)
    assert not taken and event.key == "night_kept_way" and event.args == ()


def _at(state: EncounterState, uid: str, label: str) -> Any:
    return replace(state.unit(uid), at=Hex.parse(label))


def test_ngt5_pbw_a_character_leaving_the_light_checks_mid_path_and_its_moves_become_defences() -> None:
    """pbw: the path is every move segment's hexes in turn. Ana starts next to a flare's light and walks out of
    it; at 0304 she is two hexes from any lit hex and rolls there; her stray replaces the rest of her moves."""
    text = at_night(pbw_text([person("ana", "a", "0303"), person("bob", "b", "1813")], height=14), "pbw")
    state = with_markers(load_scenario(text).state, flare("0301"))  # lights 0301, 0302 and around
    raw = {
        "segments": [
            {"action": "move", "path": ["0304", "0305"]},
            {"action": "defend"},
            {"action": "move", "path": ["0306", "0307"]},
        ]
    }
    intent = intent_of(PBW, state, "ana", raw)
    assert isinstance(intent.rest, Declaration) and [s.action for s in intent.rest.segments] == [DEFEND] * 3
    after, events, taken = stray.check(PBW, state, intent, dice(6, 3, 4, 1))
    (event,) = strays_of(events)
    assert taken and event.key == "night_strayed_at" and dict(event.args) == {"checked_at": "0304"}
    (moved,) = [e for e in events if isinstance(e, UnitMoved)]
    assert moved.path[:2] == (H("0303"), H("0304")) and event.direction == "S"
    assert after.unit("ana").at == event.stopped_at
