"""The exo panel's multi-selects offer only combinations the rules take, as many as the rules allow: a weapon fires
at one ship a round, a torpedo mount twice at the same ship (EXO-3.3); a crew member changes station once and a
ship has one captain (EXO-6.5, EXO-1.5); and the maxima are the rules', whatever else the draft holds (the picks
ride packed in the custom id, bot/panels/picks.py)."""

from __future__ import annotations

import dataclasses

from bot.panels import exo as exo_panel
from bot.panels.draft import Draft, encode_draft
from bot.panels.model import MAX_OPTIONS, Option, PanelModel, Select
from bot.panels.picks import pack, together, unpack
from rules.exo.state import ORDERS_STEP, ExoState
from rules.state import EncounterState
from tests.exo_fixtures import EXO, load, ship_toml

# weapon 1 a torpedo mount (two shots, EXO-3.3), weapon 2 a bow laser; b and c both ahead, in arc and range
CREW = """
cabin = 5
weapons = ["T", "L"]
crew = [
  { name = "Pilar", station = "pilot", skills = { piloting = 15, gunnery = 10 } },
  { name = "Ana", station = "gunner", skills = { gunnery = 15 } },
  { name = "Bea", station = "gunner", skills = { gunnery = 12 } },
  { name = "Tito", station = "technician", skills = { weapons_tech = 15 } },
  { name = "Cora", station = "captain", skills = { command = 12 } },
]
"""


def orders_step(state: EncounterState) -> EncounterState:
    """Phase 1 after the crew rolls: secret orders are open."""
    assert isinstance(state.ext, ExoState)
    return state.replace(ext=dataclasses.replace(state.ext, step=ORDERS_STEP))


def two_ships_ahead() -> EncounterState:
    return orders_step(
        load(
            ship_toml("a", "red", "0805", extra=CREW),
            ship_toml("b", "blue", "0802"),
            ship_toml("c", "blue", "0902"),
        )
    )


def panel(state: EncounterState, **draft: list[str]) -> PanelModel:
    model = exo_panel.build_panel(state, "a", draft=Draft(**draft), owing=True)
    assert model.step == "orders"
    return model


def select(model: PanelModel, action: str) -> Select:
    found = model.control(action)
    assert isinstance(found, Select)
    return found


def submitted(state: EncounterState, model: PanelModel) -> None:
    raw = exo_panel.raw_order(model)
    EXO.validate_order(state, "a", EXO.parse_order(state, "a", raw))


def weapon_target(value: str) -> tuple[str, str]:
    _, weapon, target = value.split(".")
    return weapon, target


def test_exo_3_3_a_weapon_picked_at_one_ship_is_not_offered_at_another() -> None:
    state = two_ships_ahead()
    offered = [o.value for o in panel(state).options("fire")]
    assert {"gunner1.1.b", "gunner1.1.c", "pilot.2.b", "pilot.2.c"} <= set(offered), offered
    for first in offered:
        weapon, target = weapon_target(first)
        model = panel(state, fire=[first])
        assert select(model, "fire").chosen == (first,)
        others = [weapon_target(o.value) for o in model.options("fire") if o.value != first]
        assert not [t for w, t in others if w == weapon and t != target], (
            f"weapon {weapon} offered at two ships"
        )
        submitted(state, model)


def test_exo_3_3_a_torpedo_mount_fires_twice_at_the_same_ship_never_at_two() -> None:
    state = two_ships_ahead()
    model = panel(state, fire=["gunner1.1.b"])
    offered = {o.value for o in model.options("fire")}
    assert {"gunner2.1.b", "pilot.1.b"} & offered, "the second torpedo shot, at the same ship"
    assert not {v for v in offered if v.endswith(".1.c")}
    second = next(v for v in ("gunner2.1.b", "pilot.1.b") if v in offered)
    both = panel(state, fire=["gunner1.1.b", second])
    assert set(select(both, "fire").chosen) == {"gunner1.1.b", second}
    submitted(state, both)
    third = {o.value for o in both.options("fire")} - {"gunner1.1.b", second}
    assert not {v for v in third if v.split(".")[1] == "1"}, "no third torpedo shot (EXO-3.3: once or twice)"


def test_exo_3_3_picks_ticked_together_that_exclude_each_other_keep_the_first() -> None:
    """Discord lets a player tick several options in one go: the panel keeps what the rules take together."""
    state = two_ships_ahead()
    model = panel(state)
    pressed = exo_panel.build_panel(
        state,
        "a",
        draft=exo_panel.apply(model, "fire", ("gunner1.1.b", "gunner1.1.c", "pilot.2.c")),
        owing=True,
    )
    assert select(pressed, "fire").chosen == ("gunner1.1.b", "pilot.2.c")
    submitted(state, pressed)


def test_exo_3_3_the_fire_maximum_is_the_rules_two_torpedo_shots_and_the_laser() -> None:
    state = two_ships_ahead()
    assert select(panel(state), "fire").max_values == 3


def test_exo_6_5_one_station_change_per_crew_member() -> None:
    state = two_ships_ahead()
    stations = select(panel(state), "stations")
    crew = {o.param("crew") for o in stations.options}
    assert stations.max_values == len(crew) == 5, "each crew member may change once (EXO-6.5)"
    for option in stations.options:
        after = panel(state, stations=[option.value])
        again = [o.value for o in after.options("stations") if o.param("crew") == option.param("crew")]
        assert again == [option.value], f"{option.param('crew')} offered a second station"
        assert select(after, "stations").max_values == 5
        submitted(state, after)


def test_exo_1_5_two_crew_members_are_never_both_offered_the_captaincy() -> None:
    captainless = CREW.replace('  { name = "Cora", station = "captain", skills = { command = 12 } },\n', "")
    state = orders_step(
        load(ship_toml("a", "red", "0805", extra=captainless), ship_toml("b", "blue", "0802"))
    )
    captains = [o for o in select(panel(state), "stations").options if o.label == "captain"]
    assert len(captains) >= 2, [o.value for o in captains]
    for first in captains:
        after = panel(state, stations=[first.value])
        assert [o.value for o in after.options("stations") if o.label == "captain"] == [first.value]
        submitted(state, after)
    ticked = exo_panel.apply(panel(state), "stations", tuple(o.value for o in captains))
    both = exo_panel.build_panel(state, "a", draft=ticked, owing=True)
    assert select(both, "stations").chosen == (captains[0].value,), "ticked together: the first is kept"
    submitted(state, both)


def test_the_maxima_follow_the_rules_not_the_room_left_in_the_custom_id() -> None:
    """The station select kept its 12 only while nothing else was drafted: with fire declared and the movement
    written, the room left in the 100-character custom id cut it to 8. Packed picks leave the rules' maxima."""
    state = two_ships_ahead()
    empty = panel(state)
    fire = select(empty, "fire")
    full_fire = panel(state, fire=[o.value for o in fire.options])
    assert len(select(full_fire, "fire").chosen) == fire.max_values == 3
    stations = select(empty, "stations")
    crew_moves: dict[str, str] = {}
    for option in stations.options:  # one station change per crew member, none to a second captain
        if option.param("crew") not in crew_moves and option.label != "captain":
            crew_moves[option.param("crew")] = option.value
    moved = dict(fire=list(select(full_fire, "fire").chosen), stations=list(crew_moves.values()))
    fullest = exo_panel.build_panel(state, "a", draft=Draft(move="AAAAAAAA", **moved), owing=True)
    assert select(fullest, "stations").max_values == stations.max_values == 5
    assert len(select(fullest, "stations").chosen) == 5 and len(select(fullest, "fire").chosen) == 3
    encode_draft(fullest.draft, 9_999_999)  # fits the custom id in the longest phase number
    submitted(state, fullest)


def test_picks_packed_over_another_list_of_options_are_dropped_not_read_as_others() -> None:
    """After the board changes under a panel (a director's override), its options may be others: a pick is never
    read as the option that now holds its place."""
    values = [f"s{i}.{j}" for i in range(5) for j in range(5)][:MAX_OPTIONS]
    code = pack(values, ["s0.1", "s4.4"])
    assert len(code) <= 9 and unpack(values, code) == ("s0.1", "s4.4")
    assert unpack(values[1:], code) == ()
    assert unpack(values, "s4.4,s0.1,forged") == ("s0.1", "s4.4"), "a plain list keeps what is offered"
    assert unpack(values, "~zzz!") == () and pack(values, []) == ""


def test_together_keeps_offers_and_counts_by_the_rules_test() -> None:
    options = tuple(Option(v, v) for v in ("a1", "a2", "b1", "c1"))

    def one_per_letter(picks: tuple[str, ...]) -> bool:
        return len({p[0] for p in picks}) == len(picks)

    picked = together(options, ("a2", "a1", "c1"), one_per_letter)
    assert picked.kept == ("a2", "c1")
    assert [o.value for o in picked.offered] == ["a2", "b1", "c1"]
    assert picked.most == 3
    assert together(options, (), one_per_letter).offered is options
