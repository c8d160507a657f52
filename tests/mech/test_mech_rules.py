"""mech ruleset (RULES.md §3.1): a worked test for every rule id, from the seed's own numbers where it gives
them (pbw-tactical-mech.es.txt, "Combate con vehículos"), and DESIGN.md §7.1's contract figures."""

from __future__ import annotations

import pytest

from rules.errors import IllegalOrderError
from rules.hexgrid import Hex
from rules.mech.damage import apply_damage
from rules.mech.geometry import arc_of, sight
from rules.mech.heat import ammo_rolls, heat_to_hit, movement_heat, mp_penalty, shutdown_rolls
from rules.mech.legality import check_declaration
from rules.mech.movement import mp_available, path_cost
from rules.mech.orders import MechOrder, parse_order
from rules.mech.tables import tables
from rules.mech.tohit import Motion, ceil_fraction, cluster_hits, damage_groups, fire_odds, physical_damage
from tests.mech_fixtures import (
    MECH,
    build,
    by_weapon,
    declare_all,
    mech,
    of_type,
    play_turn,
    step,
    unit,
    with_unit,
)

H = Hex.parse


def lab(h: Hex) -> str:
    return h.label


def order(state, uid: str, raw: dict) -> MechOrder:  # type: ignore[no-untyped-def]
    return parse_order(uid, raw, vehicle=not mech(state, uid).is_mech)


def illegal(state, uid: str, raw: dict) -> IllegalOrderError:  # type: ignore[no-untyped-def]
    with pytest.raises(IllegalOrderError) as err:
        check_declaration(state, order(state, uid, raw))
    return err.value


# --- MECH-1.1 turn order ----------------------------------------------------------------------------------
def test_mech_1_1_initiative_is_2d6_plus_initiative_plus_tactics_and_lowest_declares_first() -> None:
    """Seed: "La declaración de acciones de cada turno de hace en un orden basado en la Iniciativa más una tirada de
    2d6 más un modificador que se puede obtener de pasar una tirada de Táctica"; RULES MECH-1.1: lowest first."""
    state = build(unit("a", "red", "0810", initiative=3, tactics=1), unit("b", "blue", "0805", initiative=5))
    state = state.replace(dice_script=(6, 6, 1, 1))
    state, events = step(state)
    rolled = {e.unit: e.initiative for e in of_type(events, "InitiativeRolled")}
    assert rolled == {"a": 6 + 6 + 3 + 1, "b": 1 + 1 + 5}
    assert of_type(events, "DeclarationOrder")[0].units == ("b", "a")
    assert MECH.awaiting(state) == ("b",)


def test_mech_1_1_ties_higher_initiative_attribute_counts_higher_then_file_order_earlier_is_lower() -> None:
    state = build(
        unit("a", "red", "0810", initiative=5),
        unit("b", "blue", "0805", initiative=3),
        unit("c", "blue", "0405", initiative=3),
    )
    # totals: a 3+5 = 8, b 5+3 = 8, c 5+3 = 8: b and c have the lower attribute; b comes first in the file
    state, events = step(state.replace(dice_script=(1, 2, 2, 3, 4, 1)))
    assert of_type(events, "DeclarationOrder")[0].units == ("b", "c", "a")


def test_mech_1_1_initiative_is_rolled_again_every_turn() -> None:
    state = build(unit("a", "red", "0810"), unit("b", "blue", "0805"))
    state, _ = play_turn(state, {}, dice=(6, 6, 1, 1))
    state, events = step(state.replace(dice_script=(1, 1, 6, 6)))
    assert of_type(events, "DeclarationOrder")[0].units == ("a", "b")


def test_mech_1_1_open_declarations_are_public_and_later_declarers_see_earlier_ends() -> None:
    # a (lower initiative) declares first and walks next to b; b then sees a there and may punch it
    state = build(unit("a", "red", "0810", initiative=0), unit("b", "blue", "0808", facing="S", initiative=9))
    state, _ = step(state.replace(dice_script=(1, 1, 1, 1)))
    state, events = step(state, {"a": order(state, "a", {"mode": "walk", "path": ["0809"]})})
    locked = of_type(events, "DeclarationLocked")[0]
    assert locked.key == "mech.declared" and dict(locked.args)["mode"] == "walk"
    assert dict(locked.args)["path"] == (H("0809"),)
    b = order(state, "b", {"physical": [{"kind": "punch", "limb": "ra", "target": "a"}]})
    MECH.validate_order(state, "b", b)  # 0809, next to b: the declared end of a, not where a stands now


def test_mech_1_1_secret_declarations_carry_only_the_unit_and_are_revealed_together() -> None:
    state = build(
        unit("a", "red", "0810", initiative=0),
        unit("b", "blue", "0808", facing="S", initiative=9),
        options={"secret_declarations": True},
    )
    state, _ = step(state.replace(dice_script=(1, 1, 1, 1)))
    state, events = step(state, {"a": order(state, "a", {"mode": "walk", "path": ["0809"]})})
    locked = of_type(events, "DeclarationLocked")[0]
    assert locked.key == "mech.declared_secret" and locked.args == () and locked.unit == "a"
    # b sees a where it stands (0810), two hexes away: the punch is refused
    err = illegal(state, "b", {"physical": [{"kind": "punch", "limb": "ra", "target": "a"}]})
    assert err.rule == "MECH-2.2"
    state, _ = step(state, {"b": order(state, "b", {"fire": [{"weapon": 1, "target": "a"}]})})
    state, events = step(state)
    revealed = of_type(events, "DeclarationsRevealed")[0]
    assert revealed.units == ("a", "b")
    assert revealed.declarations["a"]["path"] == ("0809",)
    assert revealed.declarations["b"]["fire"] == ({"weapon": 1, "target": "a"},)


def test_mech_1_1_the_director_can_switch_an_encounter_to_secret_declarations() -> None:
    state = build(unit("a", "red", "0810", initiative=0), unit("b", "blue", "0805", initiative=9))
    state = state.replace(options={**state.options, "secret_declarations": True})
    state, _ = step(state.replace(dice_script=(1, 1, 1, 1)))
    state, events = step(state, {"a": order(state, "a", {"mode": "walk", "path": ["0809"]})})
    assert of_type(events, "DeclarationLocked")[0].args == ()


# --- MECH-1.2 declaration and movement points ------------------------------------------------------------
def test_mech_1_2_contract_example_path_then_facing() -> None:
    """DESIGN §7.1: hunter at 0510 facing N walks 0509, 0508 and ends facing NE: 2 hexes + 1 hexside."""
    state = build(unit("hunter", "red", "0510"), unit("raven", "blue", "0505", facing="S"))
    cost = path_cost(state.board, mech(state, "hunter"), "walk", (H("0509"), H("0508")), 1)
    assert (cost.total, cost.end.label, cost.end_facing, cost.facing_turns) == (3, "0508", 1, 1)


@pytest.mark.parametrize(
    ("side", "reverse", "turns", "facing_after"),
    [(0, False, 0, 0), (1, False, 1, 1), (5, False, 1, 5), (2, True, 1, 5), (4, True, 1, 1), (3, True, 0, 0)],
)
def test_mech_1_2_each_hex_costs_1_plus_the_fewer_hexside_turns_forward_or_reverse(
    side: int, reverse: bool, turns: int, facing_after: int
) -> None:
    state = build(unit("a", "red", "0810"), unit("b", "blue", "0803"))
    target = H("0810").neighbor(side)
    cost = path_cost(state.board, mech(state, "a"), "walk", (target,))
    (s,) = cost.steps
    assert (s.reverse, s.turns, s.cost, s.facing) == (reverse, turns, 1 + turns, facing_after)


def test_mech_1_2_reverse_is_allowed_walking_and_illegal_at_run() -> None:
    """Seed: "El movimiento marcha atrás está permitido, pero nunca usando velocidad máxima (correr en el caso de
    BattleMechs)." """
    state = build(unit("a", "red", "0810"), unit("b", "blue", "0803"))
    state, _ = step(state.replace(dice_script=(1, 1, 6, 6)))
    check_declaration(state, order(state, "a", {"mode": "walk", "path": ["0811"]}))
    err = illegal(state, "a", {"mode": "run", "path": ["0811"]})
    assert (err.rule, err.code) == ("MECH-1.2", "mech.reverse_at_run")


def test_mech_1_2_woods_rough_water_and_each_elevation_level_cost_one_more() -> None:
    """Seed: "los obstáculos a atravesar (cambios de elevación, bosques, terreno abrupto, riachuelos, etc. cuestan
    un punto adicional)"."""
    state = build(
        unit("a", "red", "0810", walk=8),
        unit("b", "blue", "0401"),
        terrain={
            "0809": "light_woods",
            "0808": "heavy_woods",
            "0807": "rough",
            "0806": "water",
            "0805": "road",
        },
        elevation={"0804": 2},
    )
    path = tuple(H(x) for x in ("0809", "0808", "0807", "0806", "0805", "0804"))
    cost = path_cost(state.board, mech(state, "a"), "walk", path)
    assert [s.cost for s in cost.steps] == [2, 2, 2, 2, 1, 3]
    assert cost.total == 12


def test_mech_1_2_over_mp_is_illegal_with_the_rule() -> None:
    state = build(unit("a", "red", "0810", walk=4), unit("b", "blue", "0801"))
    state, _ = step(state.replace(dice_script=(1, 1, 6, 6)))
    path = ["0809", "0808", "0807", "0806", "0805"]
    err = illegal(state, "a", {"mode": "walk", "path": path})
    assert (err.rule, err.code, err.params["cost"], err.params["mp"]) == ("MECH-1.2", "mech.over_mp", 5, 4)
    check_declaration(state, order(state, "a", {"mode": "run", "path": path}))  # run = ceil(1.5 × 4) = 6


def test_mech_1_2_run_is_one_and_a_half_walk_rounded_up_unless_given() -> None:
    state = build(unit("a", "red", "0810", walk=5), unit("b", "blue", "0801", walk=4, run=5))
    assert mp_available(mech(state, "a"))["run"] == 8
    assert mp_available(mech(state, "b"))["run"] == 5


def test_mech_1_2_jump_ignores_terrain_and_turns_and_any_facing_is_free() -> None:
    state = build(
        unit("a", "red", "0810", jump=3),
        unit("b", "blue", "0801"),
        terrain={"0809": "heavy_woods"},
        elevation={"0808": 2},
    )
    path = (H("0809"), H("0808"), H("0807"))
    cost = path_cost(state.board, mech(state, "a"), "jump", path, 3)
    assert (cost.total, cost.end_facing) == (3, 3)
    state, _ = step(state.replace(dice_script=(1, 1, 6, 6)))
    check_declaration(
        state, order(state, "a", {"mode": "jump", "path": ["0809", "0808", "0807"], "facing": "S"})
    )
    err = illegal(state, "a", {"mode": "jump", "path": ["0809", "0808", "0807", "0806"]})
    assert err.code == "mech.over_mp"


def test_mech_1_2_no_jump_jets_no_jump() -> None:
    state = build(unit("a", "red", "0810"), unit("b", "blue", "0801"))
    state, _ = step(state.replace(dice_script=(1, 1, 6, 6)))
    assert illegal(state, "a", {"mode": "jump", "path": ["0809"]}).code == "mech.no_jump"


def test_mech_1_2_a_path_lists_adjacent_hexes_on_the_board() -> None:
    state = build(unit("a", "red", "0810"), unit("b", "blue", "0801"), width=8, height=17)
    state, _ = step(state.replace(dice_script=(1, 1, 6, 6)))
    assert illegal(state, "a", {"mode": "walk", "path": ["0808"]}).code == "mech.path_gap"
    assert illegal(state, "a", {"mode": "walk", "path": ["0910"]}).code == "mech.off_board"


def test_mech_1_2_no_entering_an_enemy_hex_nor_ending_in_any_occupied_hex_friends_may_be_passed() -> None:
    state = build(
        unit("a", "red", "0810", initiative=0),
        unit("f", "red", "0809", initiative=9),
        unit("e", "blue", "0807", initiative=9),
    )
    state, _ = step(state.replace(dice_script=(1, 1, 6, 6, 6, 6)))
    assert MECH.awaiting(state) == ("a",)
    check_declaration(state, order(state, "a", {"mode": "walk", "path": ["0809", "0808"]}))
    assert illegal(state, "a", {"mode": "walk", "path": ["0809"]}).code == "mech.end_occupied"
    err = illegal(state, "a", {"mode": "run", "path": ["0809", "0808", "0807", "0806"]})
    assert err.code == "mech.path_blocked"


def test_mech_1_2_standing_still_cannot_turn_walking_in_place_can() -> None:
    state = build(unit("a", "red", "0810"), unit("b", "blue", "0801"))
    state, _ = step(state.replace(dice_script=(1, 1, 6, 6)))
    assert illegal(state, "a", {"facing": "S"}).code == "mech.stand_move"
    cost = path_cost(state.board, mech(state, "a"), "walk", (), 3)
    assert cost.total == 3


def test_mech_1_2_vehicles_cruise_and_flank_cannot_enter_water_nor_twist() -> None:
    state = build(
        unit(
            "t", "red", "0810", kind="vehicle", tonnage=50, walk=5, weapons=[{"type": "ac5", "loc": "turret"}]
        ),
        unit("b", "blue", "0801"),
        terrain={"0809": "water"},
    )
    assert mp_available(mech(state, "t")) == {"stand": 0, "cruise": 5, "flank": 8}
    state, _ = step(state.replace(dice_script=(1, 1, 6, 6)))
    assert order(state, "t", {"mode": "walk", "path": ["0709"]}).mode == "cruise"
    assert illegal(state, "t", {"mode": "cruise", "path": ["0809"]}).code == "mech.vehicle_terrain"
    assert illegal(state, "t", {"twist": "R"}).rule == "MECH-1.3"
    assert illegal(state, "t", {"mode": "flank", "path": ["0811"]}).code == "mech.reverse_at_run"


def test_mech_1_2_elevation_steps_too_steep_are_illegal() -> None:
    state = build(unit("a", "red", "0810", walk=8), unit("b", "blue", "0801"), elevation={"0809": 3})
    state, _ = step(state.replace(dice_script=(1, 1, 6, 6)))
    assert illegal(state, "a", {"mode": "walk", "path": ["0809"]}).code == "mech.climb"


def test_mech_1_2_movement_resolves_in_declaration_order_so_a_hex_left_earlier_may_be_entered() -> None:
    state = build(
        unit("a", "red", "0810", initiative=0),
        unit("b", "red", "0809", initiative=9),
        unit("e", "blue", "0401"),
    )
    raw = {"a": {"mode": "walk", "path": ["0809"]}}
    state, _ = step(state.replace(dice_script=(6, 6, 1, 1, 6, 6)))
    assert MECH.awaiting(state) == ("b",)  # b declares first and walks away
    state, _ = step(state, {"b": order(state, "b", {"mode": "walk", "path": ["0808"]})})
    check_declaration(state, order(state, "a", raw["a"]))
    state, _ = step(state, {"a": order(state, "a", raw["a"])})
    state, _ = step(state, {})
    state, _ = step(state)
    assert (mech(state, "a").at, mech(state, "b").at) == (H("0809"), H("0808"))


# --- MECH-1.3 arcs ------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("steps", "arc"),
    [
        ((0,), "front"),
        ((1,), "front"),
        ((5,), "front"),
        ((2,), "right"),
        ((4,), "left"),
        ((3,), "rear"),
        ((1, 1), "front"),  # bearing exactly 60
        ((1, 2), "right"),  # 90
        ((2, 2), "right"),  # 120
        ((2, 3), "rear"),  # 150
        ((5, 4), "left"),  # -90
        ((4, 4), "left"),  # -120
    ],
)
def test_mech_1_3_arcs_by_bearing_from_the_torso(steps: tuple[int, ...], arc: str) -> None:
    origin = H("0810")
    target = origin
    for s in steps:
        target = target.neighbor(s)
    assert arc_of(origin, 0, target) == arc


def _arc_case(weapon: dict, target_at: str, twist: str = "", kind: str = "mech") -> str | None:  # type: ignore[type-arg]
    keys = {"weapons": [weapon]}
    if kind == "vehicle":
        keys.update(kind="vehicle", tonnage=50, walk=5)
    state = build(unit("a", "red", "0810", **keys), unit("b", "blue", target_at))
    state, _ = step(state.replace(dice_script=(1, 1, 6, 6)))
    raw = (
        {"fire": [{"weapon": 1, "target": "b"}], "twist": twist}
        if twist
        else {"fire": [{"weapon": 1, "target": "b"}]}
    )
    try:
        check_declaration(state, order(state, "a", raw))
    except IllegalOrderError as exc:
        return exc.rule
    return None


AHEAD = lab(H("0810").neighbor(0).neighbor(0))
RIGHT90 = lab(H("0810").neighbor(1).neighbor(2))
LEFT90 = lab(H("0810").neighbor(5).neighbor(4))
BEHIND = lab(H("0810").neighbor(3).neighbor(3))


def test_mech_1_3_torso_weapons_fire_ahead_only() -> None:
    w = {"type": "medium_laser", "loc": "ct"}
    assert _arc_case(w, AHEAD) is None
    assert _arc_case(w, RIGHT90) == "MECH-1.3"
    assert _arc_case(w, BEHIND) == "MECH-1.3"


def test_mech_1_3_arm_weapons_add_their_own_side() -> None:
    """Seed: "Las armas de los brazos ... además del arco frontal pueden disaparar en un ángulo extendido a su lado
    correspondiente"."""
    assert _arc_case({"type": "medium_laser", "loc": "ra"}, RIGHT90) is None
    assert _arc_case({"type": "medium_laser", "loc": "ra"}, LEFT90) == "MECH-1.3"
    assert _arc_case({"type": "medium_laser", "loc": "la"}, LEFT90) is None


def test_mech_1_3_rear_mounted_weapons_fire_only_behind() -> None:
    """Seed: "Las armas montadas en el la parte trasera, solo pueden disparar en el arco trasero"."""
    w = {"type": "medium_laser", "loc": "ct", "rear": True}
    assert _arc_case(w, BEHIND) is None
    assert _arc_case(w, AHEAD) == "MECH-1.3"


def test_mech_1_3_torso_twist_turns_torso_and_arm_arcs_one_hexside_but_not_the_legs() -> None:
    assert _arc_case({"type": "medium_laser", "loc": "ct"}, RIGHT90, twist="R") is None
    assert _arc_case({"type": "medium_laser", "loc": "ct"}, LEFT90, twist="L") is None
    assert _arc_case({"type": "medium_laser", "loc": "rl"}, RIGHT90, twist="R") == "MECH-1.3"


def test_mech_1_3_vehicle_mounts_use_the_hull_and_a_turret_fires_all_round() -> None:
    assert _arc_case({"type": "ac5", "loc": "turret"}, BEHIND, kind="vehicle") is None
    assert _arc_case({"type": "ac5", "loc": "front"}, BEHIND, kind="vehicle") == "MECH-1.3"
    assert _arc_case({"type": "ac5", "loc": "left"}, LEFT90, kind="vehicle") is None
    assert _arc_case({"type": "ac5", "loc": "rear"}, BEHIND, kind="vehicle") is None


def test_mech_1_3_kicks_reach_the_three_hexes_ahead_of_the_legs_even_with_the_torso_twisted() -> None:
    """Seed: "las patadas, se pueden dar en cualquiera de los tres hexágonos del arco frontal (y aunque se gire el
    torso esto no varía, ya que las piernas siguen apuntando hacia adelante)"."""
    for side, ok in ((0, True), (1, True), (5, True), (2, False), (4, False)):
        state = build(unit("a", "red", "0810"), unit("b", "blue", lab(H("0810").neighbor(side))))
        state, _ = step(state.replace(dice_script=(1, 1, 6, 6)))
        raw = {"twist": "R", "physical": [{"kind": "kick", "limb": "rl", "target": "b"}]}
        if ok:
            check_declaration(state, order(state, "a", raw))
        else:
            assert illegal(state, "a", raw).rule == "MECH-1.3"


def test_mech_1_3_punches_reach_the_front_hexes_and_the_arms_own_side_hex() -> None:
    right_side = lab(H("0810").neighbor(2))
    state = build(unit("a", "red", "0810"), unit("b", "blue", right_side))
    state, _ = step(state.replace(dice_script=(1, 1, 6, 6)))
    check_declaration(
        state, order(state, "a", {"physical": [{"kind": "punch", "limb": "ra", "target": "b"}]})
    )
    err = illegal(state, "a", {"physical": [{"kind": "punch", "limb": "la", "target": "b"}]})
    assert err.rule == "MECH-1.3"


# --- MECH-2.1 to-hit ---------------------------------------------------------------------------------------
def _odds(
    state,
    shooter: str,
    target: str,
    weapon: int = 1,
    *,
    mode: str = "stand",
    motion: Motion | None = None,
    primary: bool = True,
):  # type: ignore[no-untyped-def]
    s, t = mech(state, shooter), mech(state, target)
    assert s.at is not None and t.at is not None
    return fire_odds(
        state.board, s, s.at, mode, s.weapons[weapon - 1].spec, t, t.at, motion or Motion(), primary=primary
    )


def _mods(odds) -> dict[str, int]:  # type: ignore[no-untyped-def]
    return dict(m.pair() for m in odds.modifiers)


def test_mech_2_1_base_15_range_and_shooter_movement() -> None:
    """Seed: "+0 si está a distancia Corta, +3 ... Media, +6 ... Larga"; "+2 si se ha usado movimiento de andar
    (velocidad de crucero), +4 ... correr (velocidad máxima), +6 ... salto". Base 15 is [HOUSE]."""
    state = build(unit("a", "red", "0810"), unit("b", "blue", "0805"))  # 5 hexes: medium laser medium range
    assert _odds(state, "a", "b").target_number == 15 + 3
    assert _odds(state, "a", "b", mode="walk").target_number == 15 + 3 + 2
    assert _odds(state, "a", "b", mode="run").target_number == 15 + 3 + 4
    assert _odds(state, "a", "b", mode="jump").target_number == 15 + 3 + 6
    assert _odds(state, "a", "b", mode="cruise").target_number == 15 + 3 + 2
    assert _odds(state, "a", "b", mode="flank").target_number == 15 + 3 + 4


@pytest.mark.parametrize(
    ("distance", "band", "mod"),
    [(1, "short", 0), (3, "short", 0), (4, "medium", 3), (6, "medium", 3), (7, "long", 6), (9, "long", 6)],
)
def test_mech_2_1_range_bands_short_medium_long(distance: int, band: str, mod: int) -> None:
    target = lab(H("0810") + Hex(0, -distance))
    state = build(unit("a", "red", "0810"), unit("b", "blue", target))
    odds = _odds(state, "a", "b")
    assert (odds.distance, odds.band, _mods(odds)[f"range_{band}"]) == (distance, band, mod)


def test_mech_2_1_beyond_long_range_the_declaration_is_illegal() -> None:
    state = build(unit("a", "red", "0812"), unit("b", "blue", "0802"))  # 10 hexes, medium laser long 9
    state, _ = step(state.replace(dice_script=(1, 1, 6, 6)))
    err = illegal(state, "a", {"fire": [{"weapon": 1, "target": "b"}]})
    assert (err.rule, err.code) == ("MECH-2.1", "mech.out_of_range")


@pytest.mark.parametrize(
    ("hexes", "mod"), [(0, 0), (2, 0), (3, 2), (4, 2), (5, 4), (6, 4), (7, 6), (9, 6), (10, 8), (14, 8)]
)
def test_mech_2_1_target_movement_bands(hexes: int, mod: int) -> None:
    state = build(unit("a", "red", "0810"), unit("b", "blue", "0807"))
    assert _odds(state, "a", "b", motion=Motion("run", hexes)).target_number == 15 + mod


def test_mech_2_1_a_target_that_jumped_adds_two_more() -> None:
    """Seed: "+2 adicional se se trata de un BattleMech que ha efectuado un salto"."""
    state = build(unit("a", "red", "0810"), unit("b", "blue", "0807"))
    odds = _odds(state, "a", "b", motion=Motion("jump", 4))
    assert _mods(odds) == {"range_short": 0, "target_moved": 2, "target_jumped": 2}


def test_mech_2_1_immobile_target_minus_8_only_when_shut_down_or_a_leg_is_gone() -> None:
    state = build(unit("a", "red", "0810"), unit("b", "blue", "0807"))
    assert _odds(state, "a", "b").target_number == 15
    assert _odds(with_unit(state, "b", shutdown=True), "a", "b").target_number == 15 - 8
    legless = with_unit(state, "b", structure={**mech(state, "b").structure, "ll": 0})
    assert _odds(legless, "a", "b").target_number == 15 - 8


def test_mech_2_1_two_per_intervening_woods_hex() -> None:
    """Seed: "+2 por cada hexágono de bosque que haya entre tirador y blanco"."""
    state = build(
        unit("a", "red", "0810"),
        unit("b", "blue", "0806"),
        terrain={"0809": "light_woods", "0808": "heavy_woods", "0806": "heavy_woods"},
    )
    odds = _odds(state, "a", "b")
    assert (
        _mods(odds)["woods"] == 4 and odds.target_number == 15 + 3 + 4
    )  # the target's own hex is not between


def test_mech_2_1_partial_cover_plus_two() -> None:
    water = build(unit("a", "red", "0810"), unit("b", "blue", "0806"), terrain={"0806": "water"})
    assert _mods(_odds(water, "a", "b"))["partial_cover"] == 2
    hill = build(unit("a", "red", "0810"), unit("b", "blue", "0806"), elevation={"0807": 1})
    assert _mods(_odds(hill, "a", "b"))["partial_cover"] == 2
    above = build(unit("a", "red", "0810"), unit("b", "blue", "0806"), elevation={"0807": 1, "0810": 2})
    assert "partial_cover" not in _mods(_odds(above, "a", "b"))


def test_mech_2_1_plus_two_for_every_target_after_the_first() -> None:
    """Seed: "+2 a los objetivos adicionales a partir del primero"."""
    state = build(unit("a", "red", "0810"), unit("b", "blue", "0807"))
    odds = _odds(state, "a", "b", primary=False)
    assert _mods(odds)["secondary_target"] == 2


@pytest.mark.parametrize(
    ("heat", "mod"), [(7, 0), (8, 2), (12, 2), (13, 4), (17, 6), (23, 6), (24, 8), (29, 8)]
)
def test_mech_2_1_and_3_2_heat_to_hit_modifier(heat: int, mod: int) -> None:
    state = build(unit("a", "red", "0810"), unit("b", "blue", "0807"))
    assert _odds(with_unit(state, "a", heat=heat), "a", "b").target_number == 15 + mod


@pytest.mark.parametrize(("distance", "extra"), [(4, 0), (3, 1), (2, 2), (1, 3)])
def test_mech_2_1_minimum_range_ppc(distance: int, extra: int) -> None:
    """DESIGN §7.1: at a distance <= the minimum the difficulty rises by (minimum − distance + 1): PPC at 3 → +1."""
    target = lab(H("0810") + Hex(0, -distance))
    state = build(unit("a", "red", "0810", weapons=[{"type": "ppc", "loc": "ra"}]), unit("b", "blue", target))
    assert _mods(_odds(state, "a", "b")).get("minimum_range", 0) == extra


def test_mech_2_1_no_line_of_sight_past_a_hill_as_high_as_both_units() -> None:
    state = build(unit("a", "red", "0810"), unit("b", "blue", "0806"), elevation={"0808": 2})
    assert not sight(state.board, H("0810"), "mech", H("0806"), "mech").clear
    state, _ = step(state.replace(dice_script=(1, 1, 6, 6)))
    assert illegal(state, "a", {"fire": [{"weapon": 1, "target": "b"}]}).code == "mech.no_sight"
    low = build(unit("a", "red", "0810"), unit("b", "blue", "0806"), elevation={"0808": 1})
    assert sight(low.board, H("0810"), "mech", H("0806"), "mech").clear


def test_mech_2_1_double_one_always_misses_and_double_six_always_hits() -> None:
    state = build(
        unit("a", "red", "0810", gunnery=30, initiative=0),
        unit(
            "b",
            "blue",
            "0805",
            facing="S",
            gunnery=0,
            initiative=9,
            weapons=[{"type": "medium_laser", "loc": "ct"}],
        ),
    )
    raw = {"a": {"fire": [{"weapon": 1, "target": "b"}]}, "b": {"fire": [{"weapon": 1, "target": "a"}]}}
    # initiative a (1,1), b (6,6); a declares first: Gunnery (1,1): 2 + 30 ≥ 18 but a double 1, Piloting (2,2);
    # b: Gunnery (6,6): 12 < 18 but a double 6, Piloting (2,2) (MECH-2.1a: DICE-3 applies to the one roll);
    # b's hit rolls a location (3, 4) = 7 centre torso
    state, events = play_turn(state, raw, dice=(1, 1, 6, 6, 1, 1, 2, 2, 6, 6, 2, 2, 3, 4))
    shots = {e.unit: e for e in of_type(events, "WeaponFired")}
    assert shots["a"].total >= shots["a"].target_number and not shots["a"].hit
    assert shots["b"].total < shots["b"].target_number and shots["b"].hit


def test_mech_2_1_a_target_that_moves_out_of_arc_before_fire_is_not_fired_at() -> None:
    # a declares first (fire ahead at b); b then walks round behind a: the shot is spent, no roll, no heat
    state = build(
        unit("a", "red", "0810", initiative=0), unit("b", "blue", "0808", facing="S", initiative=9, walk=6)
    )
    path_round = [
        lab(H("0808").neighbor(2)),
        lab(H("0808").neighbor(2).neighbor(3)),
        lab(H("0808").neighbor(2).neighbor(3).neighbor(3)),
    ]
    raw = {"a": {"fire": [{"weapon": 1, "target": "b"}]}, "b": {"mode": "walk", "path": path_round}}
    state, events = play_turn(state, raw, dice=(1, 1, 6, 6))
    spent = of_type(events, "FireSpent")
    assert [(e.unit, e.reason, e.rule) for e in spent] == [("a", "out_of_arc", "MECH-1.3")]
    assert not of_type(events, "WeaponFired")
    heat = {e.unit: e.generated for e in of_type(events, "HeatChanged")}
    assert heat["a"] == 0


# --- MECH-2.2 physical attacks --------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("kind", "tonnage", "straight", "to_target", "to_self"),
    [
        ("punch", 50, 0, 5, 0),
        ("punch", 55, 0, 6, 0),  # 5.5 rounded up
        ("kick", 55, 0, 11, 0),
        ("melee", 45, 0, 9, 0),
        ("charge", 55, 3, 17, 6),  # 3 × 55 / 10 = 16.5 → 17; the target (60 t) gives 60 / 10 = 6
        ("dfa", 45, 0, 27, 9),  # 3 × 45 / 5 = 27; the attacker takes 45 / 5 = 9 on its legs
        ("push", 80, 0, 0, 0),
    ],
)
def test_mech_2_2_physical_damage_by_tonnage_rounded_up_once(
    kind: str, tonnage: int, straight: int, to_target: int, to_self: int
) -> None:
    state = build(unit("a", "red", "0810", tonnage=tonnage), unit("b", "blue", "0809", tonnage=60))
    assert physical_damage(kind, mech(state, "a"), mech(state, "b"), straight) == (to_target, to_self)


def test_mech_2_2_rounding_is_exact_then_up_once() -> None:
    assert ceil_fraction(tables().physical["charge"], 35, 3) == 11  # 10.5 → 11, not 4 × 3 = 12


def test_mech_2_2_physical_attacks_roll_piloting_with_the_movement_modifiers_and_no_range() -> None:
    state = build(
        unit("a", "red", "0810", piloting=10, gunnery=0, initiative=0),
        unit("b", "blue", "0808", facing="S", initiative=9),
    )
    state = by_weapon(state)  # MECH-2.1a [HOUSE] rolls = "weapon": the dice scripted per shot
    raw = {
        "a": {"mode": "walk", "path": ["0809"], "physical": [{"kind": "punch", "limb": "ra", "target": "b"}]}
    }
    # initiative, then the punch 2d6 (4, 4) = 8 + piloting 10 = 18 vs 15 + walked 2 = 17: hit; punch table 1d6 = 6: head
    state, events = play_turn(state, raw, dice=(1, 1, 6, 6, 4, 4, 6))
    (attack,) = of_type(events, "PhysicalAttackMade")
    assert (attack.target_number, attack.total, attack.hit, attack.damage) == (17, 18, True, 5)
    assert dict(attack.modifiers) == {"shooter_walk": 2}
    (hit,) = of_type(events, "DamageDealt")
    assert (hit.unit, hit.location, hit.amount, hit.by) == ("b", "head", 5, "a")


def test_mech_2_2_the_attacker_must_end_its_move_adjacent() -> None:
    state = build(unit("a", "red", "0810"), unit("b", "blue", "0807"))
    state, _ = step(state.replace(dice_script=(1, 1, 6, 6)))
    err = illegal(state, "a", {"physical": [{"kind": "kick", "limb": "rl", "target": "b"}]})
    assert (err.rule, err.code) == ("MECH-2.2", "mech.not_adjacent")


def test_mech_2_2_charge_counts_the_last_straight_run_and_hurts_both() -> None:
    """Seed: "Cargas = Nº Hexágonos movidos en línea recta antes de alcanzar el blanco X (Tonelaje del BattleMech /
    10)"; "La unidad que realiza la carga recibe daño = Tonelaje del BattleMech blanco / 10"."""
    state = build(
        unit("a", "red", "0812", tonnage=55, walk=5, piloting=10, initiative=0),
        unit("b", "blue", "0808", tonnage=60, facing="S", initiative=9),
    )
    state = by_weapon(state)  # MECH-2.1a [HOUSE] rolls = "weapon": the dice scripted per shot
    raw = {
        "a": {
            "mode": "run",
            "path": ["0811", "0810", "0809"],
            "physical": [{"kind": "charge", "target": "b"}],
        }
    }
    # charge 2d6 (6, 5) = 11 + 10 = 21 vs 15 + run 4 = 19: hit; b location (3, 4) ct; a location (4, 4) lt
    state, events = play_turn(state, raw, dice=(1, 1, 6, 6, 6, 5, 3, 4, 4, 4))
    (attack,) = of_type(events, "PhysicalAttackMade")
    assert attack.hit and attack.damage == 17  # 3 hexes × 55 / 10 = 16.5 → 17
    dealt = [(e.unit, e.location, e.amount) for e in of_type(events, "DamageDealt")]
    assert dealt == [("b", "ct", 17), ("a", "lt", 6)]


def test_mech_2_2_charge_needs_a_straight_run_ending_at_the_target_and_no_jump() -> None:
    state = build(unit("a", "red", "0812", walk=6, jump=4), unit("b", "blue", "0808", facing="S"))
    state, _ = step(state.replace(dice_script=(1, 1, 6, 6)))
    side = lab(H("0809").neighbor(1))  # ends next to b but its run points past it
    bent = {
        "mode": "walk",
        "path": ["0811", "0810", "0809", side],
        "physical": [{"kind": "charge", "target": "b"}],
    }
    assert illegal(state, "a", bent).code in ("mech.charge_line", "mech.not_adjacent")
    jumped = {
        "mode": "jump",
        "path": ["0811", "0810", "0809"],
        "physical": [{"kind": "charge", "target": "b"}],
    }
    assert illegal(state, "a", jumped).code == "mech.charge_mode"


def test_mech_2_2_death_from_above_hits_upper_locations_and_the_attackers_legs() -> None:
    """Seed: "Muerte Desde el Cielo = 3 X (Tonelaje del BattleMech / 5) (impactos en la parte superior ...)"; "La
    unidad que realiza la MDC recibe daño = Tonelaje del BattleMech / 5 (impactos en la parte inferior: piernas)"."""
    state = build(
        unit("a", "red", "0812", tonnage=45, jump=5, piloting=12, initiative=0),
        unit("b", "blue", "0808", facing="S", initiative=9),
    )
    state = by_weapon(state)  # MECH-2.1a [HOUSE] rolls = "weapon": the dice scripted per shot
    raw = {
        "a": {"mode": "jump", "path": ["0811", "0810", "0809"], "physical": [{"kind": "dfa", "target": "b"}]}
    }
    # dfa 2d6 (5, 5) = 10 + 12 = 22 vs 15 + jump 6 = 21: hit; b punch table 1d6 = 1 (left arm); a kick table 1d6 = 6 (left leg)
    state, events = play_turn(state, raw, dice=(1, 1, 6, 6, 5, 5, 1, 6))
    dealt = [(e.unit, e.location, e.amount) for e in of_type(events, "DamageDealt")]
    assert dealt == [("b", "la", 27), ("a", "ll", 9)]


def test_mech_2_2_a_death_from_above_that_misses_makes_the_attacker_roll_piloting_or_fall() -> None:
    state = build(
        unit("a", "red", "0812", tonnage=45, jump=5, piloting=5, initiative=0),
        unit("b", "blue", "0808", facing="S", initiative=9),
    )
    state = by_weapon(state)  # MECH-2.1a [HOUSE] rolls = "weapon": the dice scripted per shot
    raw = {
        "a": {"mode": "jump", "path": ["0811", "0810", "0809"], "physical": [{"kind": "dfa", "target": "b"}]}
    }
    # dfa (1, 2) misses; piloting (2, 3) = 5 + 5 = 10 < 15: falls; fall location (3, 4) = 7 ct, 45 / 10 → 5
    state, events = play_turn(state, raw, dice=(1, 1, 6, 6, 1, 2, 2, 3, 3, 4))
    (roll,) = of_type(events, "PilotingRolled")
    assert (roll.reason, roll.fell, roll.rule) == ("dfa", True, "MECH-2.2")
    assert [(e.unit, e.location, e.amount) for e in of_type(events, "DamageDealt")] == [("a", "ct", 5)]
    assert mech(state, "a").prone


def test_mech_2_2_push_moves_the_target_one_hex_away_without_damage() -> None:
    """Seed: "Empujar = No causa daño, desplaza al BattleMech enemigo." """
    state = build(
        unit("a", "red", "0810", piloting=12, initiative=0),
        unit("b", "blue", "0809", facing="S", initiative=9),
    )
    raw = {"a": {"physical": [{"kind": "push", "target": "b"}]}}
    state, events = play_turn(state, raw, dice=(1, 1, 6, 6, 4, 4))
    (pushed,) = of_type(events, "Pushed")
    assert (pushed.frm, pushed.to) == (H("0809"), H("0808"))
    assert mech(state, "b").at == H("0808") and not of_type(events, "DamageDealt")


def test_mech_2_2_vehicles_only_charge_and_one_physical_attack_a_turn() -> None:
    state = build(
        unit(
            "t", "red", "0810", kind="vehicle", tonnage=50, walk=5, weapons=[{"type": "ac5", "loc": "turret"}]
        ),
        unit("a", "red", "0710"),
        unit("b", "blue", "0809", facing="S"),
    )
    state, _ = step(state.replace(dice_script=(1, 1, 2, 2, 6, 6)))
    assert illegal(state, "t", {"physical": [{"kind": "punch", "limb": "ra", "target": "b"}]}).code in (
        "mech.vehicle_physical",
        "mech.limb_needed",
    )
    state, _ = step(state, {"t": order(state, "t", {})})
    both = {
        "physical": [
            {"kind": "punch", "limb": "ra", "target": "b"},
            {"kind": "kick", "limb": "rl", "target": "b"},
        ]
    }
    assert illegal(state, "a", both).code == "mech.physical_combo"


# --- MECH-2.3 damage -----------------------------------------------------------------------------------------
def test_mech_2_3_hit_location_tables_are_the_seeds() -> None:
    tb = tables()
    standard = {
        2: "ct",
        3: "ra",
        4: "ra",
        5: "rl",
        6: "rt",
        7: "ct",
        8: "lt",
        9: "ll",
        10: "la",
        11: "la",
        12: "head",
    }
    assert tb.mech_locations["standard"] == standard
    assert tb.mech_locations["punch"] == {1: "la", 2: "lt", 3: "ct", 4: "rt", 5: "ra", 6: "head"}
    assert tb.mech_locations["kick"] == {1: "rl", 2: "rl", 3: "rl", 4: "ll", 5: "ll", 6: "ll"}


def test_mech_2_3_weapon_table_is_the_contracts() -> None:
    """DESIGN §7.1 standard values: damage / short-medium-long / minimum, and MECH-3.1 heat."""
    expected = {
        "small_laser": (3, 1, 2, 3, 0, 1),
        "medium_laser": (5, 3, 6, 9, 0, 3),
        "large_laser": (8, 5, 10, 15, 0, 8),
        "ppc": (10, 6, 12, 18, 3, 10),
        "mg": (2, 1, 2, 3, 0, 0),
        "flamer": (2, 1, 2, 3, 0, 3),
        "ac2": (2, 8, 16, 24, 4, 1),
        "ac5": (5, 6, 12, 18, 3, 1),
        "ac10": (10, 5, 10, 15, 0, 3),
        "ac20": (20, 3, 6, 9, 0, 7),
        "srm2": (2, 3, 6, 9, 0, 2),
        "srm4": (2, 3, 6, 9, 0, 3),
        "srm6": (2, 3, 6, 9, 0, 4),
        "lrm5": (1, 7, 14, 21, 6, 2),
        "lrm10": (1, 7, 14, 21, 6, 4),
        "lrm15": (1, 7, 14, 21, 6, 5),
        "lrm20": (1, 7, 14, 21, 6, 6),
    }
    got = {k: (w.damage, w.short, w.medium, w.long, w.minimum, w.heat) for k, w in tables().weapons.items()}
    assert got == expected
    ammo = {k for k, w in tables().weapons.items() if w.ammo}
    assert ammo == {
        "mg",
        "ac2",
        "ac5",
        "ac10",
        "ac20",
        "srm2",
        "srm4",
        "srm6",
        "lrm5",
        "lrm10",
        "lrm15",
        "lrm20",
    }


@pytest.mark.parametrize(
    ("n", "roll", "hits"), [(6, 7, 4), (10, 2, 2), (2, 2, 1), (20, 9, 15), (5, 6, 3), (4, 12, 4), (10, 11, 9)]
)
def test_mech_2_3_missiles_that_hit_max_1_of_n_times_2d6_over_12_rounded_half_up(
    n: int, roll: int, hits: int
) -> None:
    assert cluster_hits(n, roll) == hits


def test_mech_2_3_srms_roll_a_location_per_missile_lrms_per_group_of_five() -> None:
    assert damage_groups(tables().weapons["srm6"], 4) == (2, 2, 2, 2)
    assert damage_groups(tables().weapons["lrm15"], 12) == (5, 5, 2)
    assert damage_groups(tables().weapons["ac20"], 0) == (20,)


def test_mech_2_3_armour_first_then_structure() -> None:
    state = build(unit("a", "red", "0810", armor={"la": 10}, structure={"la": 8}), unit("b", "blue", "0801"))
    after, events = apply_damage(state, "a", "la", 13, by="b")
    a = mech(after, "a")
    assert (a.armor["la"], a.structure["la"]) == (0, 5)
    assert [(type(e).__name__, e.amount) for e in events] == [("DamageDealt", 13)]
    assert mech(state, "a").armor["la"] == 10  # pure: the old state is untouched


def test_mech_2_3_damage_beyond_a_destroyed_arm_goes_to_its_side_torso_then_the_centre() -> None:
    state = build(
        unit("a", "red", "0810", armor={"la": 2, "lt": 3, "ct": 4}, structure={"la": 2, "lt": 3, "ct": 20}),
        unit("b", "blue", "0801"),
    )
    after, events = apply_damage(state, "a", "la", 14)
    names = [(type(e).__name__, getattr(e, "location", getattr(e, "to", ""))) for e in events]
    assert names == [
        ("DamageDealt", "la"),
        ("LocationDestroyed", "la"),
        ("DamageTransferred", "lt"),
        ("LocationDestroyed", "lt"),
        ("DamageTransferred", "ct"),
    ]
    a = mech(after, "a")
    assert (a.structure["la"], a.structure["lt"], a.armor["ct"], a.structure["ct"]) == (
        0,
        0,
        0,
        20 - (14 - 4 - 6 - 4),
    )


def test_mech_2_3_a_destroyed_side_torso_takes_its_arm() -> None:
    state = build(unit("a", "red", "0810", armor={"rt": 0}, structure={"rt": 5}), unit("b", "blue", "0801"))
    after, events = apply_damage(state, "a", "rt", 5)
    destroyed = of_type(list(events), "LocationDestroyed")
    assert (destroyed[0].location, destroyed[0].with_location) == ("rt", "ra")
    assert mech(after, "a").structure["ra"] == 0


def test_mech_2_3_a_weapon_in_a_destroyed_location_cannot_fire() -> None:
    state = build(
        unit("a", "red", "0810", weapons=[{"type": "medium_laser", "loc": "ra"}]), unit("b", "blue", "0805")
    )
    state = with_unit(state, "a", structure={**mech(state, "a").structure, "ra": 0})
    state, _ = step(state.replace(dice_script=(1, 1, 6, 6)))
    err = illegal(state, "a", {"fire": [{"weapon": 1, "target": "b"}]})
    assert (err.rule, err.code) == ("MECH-2.3", "mech.weapon_destroyed")


@pytest.mark.parametrize("loc", ["head", "ct"])
def test_mech_2_3_a_destroyed_head_or_centre_torso_destroys_the_mech(loc: str) -> None:
    state = build(unit("a", "red", "0810"), unit("b", "blue", "0801"))
    after, events = apply_damage(state, "a", loc, 200)
    assert mech(after, "a").destroyed
    assert of_type(list(events), "UnitDestroyed")[0].unit == "a"


def test_mech_2_3_a_destroyed_leg_leaves_the_mech_immobile() -> None:
    state = build(unit("a", "red", "0810"), unit("b", "blue", "0801"))
    leg = mech(state, "a")
    after, _ = apply_damage(state, "a", "rl", leg.armor["rl"] + leg.structure["rl"])
    a = mech(after, "a")
    assert a.immobile and not a.destroyed
    assert mp_available(a) == {"stand": 0}
    after, _ = step(after.replace(dice_script=(1, 1, 6, 6)))
    assert illegal(after, "a", {"mode": "walk", "path": ["0809"]}).code == "mech.immobile"


def test_mech_2_3_a_leg_destroyed_by_fire_makes_the_mech_roll_piloting_house_or_fall() -> None:
    state = build(
        unit("a", "red", "0810", initiative=0, gunnery=20, weapons=[{"type": "ac20", "loc": "rt"}]),
        unit("b", "blue", "0807", facing="S", initiative=9, piloting=1, armor={"rl": 0}, structure={"rl": 5}),
    )
    state = by_weapon(state)  # MECH-2.1a [HOUSE] rolls = "weapon": the dice scripted per shot
    raw = {"a": {"fire": [{"weapon": 1, "target": "b"}]}}
    # to-hit (5, 5) hits; location (2, 3) = 5 right leg; b's piloting (1, 2) + 1 < 15: falls; fall location (3, 4) = ct
    state, events = play_turn(state, raw, dice=(1, 1, 6, 6, 5, 5, 2, 3, 1, 2, 3, 4))
    (roll,) = of_type(events, "PilotingRolled")
    assert (roll.unit, roll.reason, roll.fell, roll.rule) == ("b", "leg", True, "MECH-2.3")
    assert mech(state, "b").prone and mech(state, "b").immobile
    assert of_type(events, "Fell")[0].damage == 5


def test_mech_2_3_vehicles_fall_apart_when_a_hull_location_fails_a_missing_turret_hits_the_side() -> None:
    state = build(
        unit(
            "t", "red", "0810", kind="vehicle", tonnage=50, walk=5, weapons=[{"type": "mg", "loc": "front"}]
        ),
        unit("b", "blue", "0801"),
    )
    assert "turret" not in mech(state, "t").structure
    after, _ = apply_damage(state, "t", "front", 100)
    assert mech(after, "t").destroyed


# --- MECH-3.1 heat generated -----------------------------------------------------------------------------------
def test_mech_3_1_movement_heat_walk_1_run_2_jump_1_per_hex_minimum_3() -> None:
    """Seed: "Andar: +1 al calor; Correr: +2 al calor; Salto con retrorreactores: +1 al calor por cada 30 metros
    (el mínimo es +3)" (one hex is 30 m)."""
    assert (movement_heat("stand", 0), movement_heat("walk", 4), movement_heat("run", 6)) == (0, 1, 2)
    assert (movement_heat("jump", 1), movement_heat("jump", 3), movement_heat("jump", 5)) == (3, 3, 5)


def test_mech_3_1_weapon_heat_is_the_seeds_list() -> None:
    """Seed: "Ametralladoras: +0 ... Lanzallamas: +3 ... Láser Ligero: +1 ... Láser Medio: +3 ... Láser Pesado: +8 ...
    CPP: +10 ... CA/2: +1 ... CA/20: +7 ... AMCA/6: +4 ... AMLA/20: +6 al calor"."""
    seed = {
        "mg": 0,
        "flamer": 3,
        "small_laser": 1,
        "medium_laser": 3,
        "large_laser": 8,
        "ppc": 10,
        "ac2": 1,
        "ac5": 1,
        "ac10": 3,
        "ac20": 7,
        "srm2": 2,
        "srm4": 3,
        "srm6": 4,
        "lrm5": 2,
        "lrm10": 4,
        "lrm15": 5,
        "lrm20": 6,
    }
    assert {k: w.heat for k, w in tables().weapons.items()} == seed


def test_mech_3_1_end_of_turn_heat_is_heat_plus_generated_minus_sinks_never_below_zero() -> None:
    state = build(
        unit(
            "a",
            "red",
            "0810",
            heat_sinks=10,
            initiative=0,
            weapons=[{"type": "ppc", "loc": "ra"}, {"type": "medium_laser", "loc": "ct"}],
        ),
        unit("b", "blue", "0805", initiative=9),
    )
    state = with_unit(state, "a", heat=4)
    raw = {
        "a": {
            "mode": "run",
            "path": ["0809"],
            "fire": [{"weapon": 1, "target": "b"}, {"weapon": 2, "target": "b"}],
        }
    }
    state, events = play_turn(state, raw, dice=(1, 1, 6, 6, 1, 1, 1, 1))
    heat = {e.unit: e for e in of_type(events, "HeatChanged")}
    assert (heat["a"].generated, heat["a"].heat) == (2 + 10 + 3, 4 + 15 - 10)
    assert heat["b"].heat == 0


def test_mech_3_1_standing_up_adds_one() -> None:
    """Seed: "BattleMech levantándose del suelo: +1 al calor adicional al movimiento realizado"."""
    state = build(unit("a", "red", "0810", initiative=0), unit("b", "blue", "0801", initiative=9))
    state = with_unit(state, "a", prone=True, heat=10)
    state, events = play_turn(state, {"a": {"mode": "walk", "path": []}}, dice=(1, 1, 6, 6))
    heat = {e.unit: e for e in of_type(events, "HeatChanged")}
    assert heat["a"].generated == 1 + 1
    assert not mech(state, "a").prone


def test_mech_3_1_vehicles_make_no_heat() -> None:
    state = build(
        unit(
            "t",
            "red",
            "0810",
            kind="vehicle",
            tonnage=50,
            walk=5,
            initiative=0,
            weapons=[{"type": "ac5", "loc": "turret"}],
        ),
        unit("b", "blue", "0805", initiative=9),
    )
    state, events = play_turn(
        state,
        {"t": {"mode": "flank", "path": ["0809"], "fire": [{"weapon": 1, "target": "b"}]}},
        dice=(1, 1, 6, 6, 1, 1),
    )
    assert [e.unit for e in of_type(events, "HeatChanged")] == ["b"]


# --- MECH-3.2 heat scale -----------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("heat", "mp"), [(4, 0), (5, 1), (9, 1), (10, 2), (15, 3), (20, 4), (25, 5), (30, 5)]
)
def test_mech_3_2_heat_takes_movement_points(heat: int, mp: int) -> None:
    """Seed: "5 -1 Punto de Movimiento (BattleMech) ... 10 -2 ... 15 -3 ... 20 -4 ... 25 -5 Puntos de Movimiento"."""
    assert mp_penalty(heat) == mp
    state = build(unit("a", "red", "0810", walk=6, jump=6), unit("b", "blue", "0801"))
    avail = mp_available(with_unit(state, "a", heat=heat).unit_as("a", type(mech(state, "a"))))
    assert avail == {"stand": 0, "walk": 6 - mp, "run": 9 - mp, "jump": 6 - mp}


def test_mech_3_2_over_mp_because_of_heat_says_so() -> None:
    state = build(unit("a", "red", "0810", walk=4), unit("b", "blue", "0801"))
    state = with_unit(state, "a", heat=10)
    state, _ = step(state.replace(dice_script=(1, 1, 6, 6)))
    err = illegal(state, "a", {"mode": "walk", "path": ["0809", "0808", "0807"]})
    assert (err.code, err.params["penalty"], err.params["mp"]) == ("mech.over_mp_heat", 2, 2)


def test_mech_3_2_the_rolls_each_heat_level_requires() -> None:
    """Seed: "14 Desconexión. Evitable con tirada de 4+ ... 19 Explosión de Munición. Evitable con tirada de 4+ ...
    30 Desconexión automática"."""
    assert shutdown_rolls(13) == ()
    assert shutdown_rolls(14) == ((14, 4),)
    assert shutdown_rolls(23) == ((14, 4), (18, 6), (22, 8))
    assert shutdown_rolls(29) == ((14, 4), (18, 6), (22, 8), (26, 10))
    assert shutdown_rolls(30) == ()  # automatic
    assert ammo_rolls(18) == () and ammo_rolls(19) == ((19, 4),)
    assert ammo_rolls(28) == ((19, 4), (23, 6), (28, 8))
    assert [heat_to_hit(h) for h in (7, 8, 13, 17, 24)] == [0, 2, 4, 6, 8]


def _hot(heat: int, *, ammo: bool):  # type: ignore[no-untyped-def]
    weapons = [{"type": "ac10", "loc": "rt"}] if ammo else [{"type": "medium_laser", "loc": "ct"}]
    state = build(
        unit("a", "red", "0810", heat_sinks=0, initiative=0, weapons=weapons),
        unit("b", "blue", "0801", initiative=9),
    )
    return with_unit(state, "a", heat=heat)


def test_mech_3_2_shutdown_avoid_rolls_then_ammunition_rolls_in_that_order() -> None:
    state = by_weapon(_hot(23, ammo=True))  # MECH-2.1a [HOUSE]: no declaration rolls in the script
    # initiative; then a: shutdown 14 (4+) 2+2 ok, 18 (6+) 3+3 ok, 22 (8+) 4+4 ok; ammo 19 (4+) 2+2, 23 (6+) 1+1 fails
    state, events = play_turn(state, {}, dice=(1, 1, 6, 6, 2, 2, 3, 3, 4, 4, 2, 2, 1, 1, 3, 4))
    rolls = [(e.what, e.level, e.avoided) for e in of_type(events, "AvoidRolled")]
    assert rolls == [
        ("shutdown", 14, True),
        ("shutdown", 18, True),
        ("shutdown", 22, True),
        ("ammo", 19, True),
        ("ammo", 23, False),
    ]
    (boom,) = of_type(events, "AmmoExploded")
    assert (boom.location, boom.damage) == ("rt", 20)
    assert not mech(state, "a").shutdown
    hit = next(e for e in of_type(events, "DamageDealt") if e.unit == "a")
    assert hit.location == "rt" and hit.armor == mech(state, "a").max_armor["rt"]  # armour does not stop it


def test_mech_3_2_only_units_with_ammunition_weapons_roll_for_it() -> None:
    _state, events = play_turn(_hot(23, ammo=False), {}, dice=(1, 1, 6, 6, 6, 6, 6, 6, 6, 6))
    assert {e.what for e in of_type(events, "AvoidRolled")} == {"shutdown"}


def test_mech_3_2_a_failed_shutdown_roll_shuts_the_mech_down_until_its_heat_falls() -> None:
    state = by_weapon(_hot(14, ammo=False))  # MECH-2.1a [HOUSE]: no declaration rolls in the script
    state, events = play_turn(state, {}, dice=(1, 1, 6, 6, 1, 2))
    assert mech(state, "a").shutdown and of_type(events, "ShutdownChanged")[0].change == "shut_down"
    assert MECH.awaiting(step(state.replace(dice_script=(1, 1, 6, 6)))[0]) == (
        "b",
    )  # a shut-down unit does not declare
    # shut down, it is an immobile target (−8) and cannot declare anything but standing still
    b_state = step(state.replace(dice_script=(1, 1, 6, 6)))[0]
    assert illegal(b_state, "a", {"mode": "walk", "path": ["0809"]}).code in (
        "mech.shutdown",
        "mech.not_your_turn",
    )
    cooled = with_unit(state, "a", heat_sinks=10)
    cooled, events = play_turn(cooled, {}, dice=(1, 1, 6, 6))
    assert not mech(cooled, "a").shutdown and of_type(events, "ShutdownChanged")[0].change == "started_up"


def test_mech_3_2_automatic_shutdown_at_30() -> None:
    state, events = play_turn(_hot(30, ammo=False), {}, dice=(1, 1, 6, 6))
    assert mech(state, "a").shutdown
    assert of_type(events, "ShutdownChanged")[0].automatic
    assert not [e for e in of_type(events, "AvoidRolled") if e.what == "shutdown"]


# --- MECH-4 resolution ------------------------------------------------------------------------------------------
def test_mech_4_fire_is_simultaneous_a_unit_destroyed_this_turn_still_fires_and_makes_no_physical_attack() -> (
    None
):
    state = build(
        unit("a", "red", "0810", gunnery=20, initiative=0, armor={"head": 0}, structure={"head": 1}),
        unit(
            "b",
            "blue",
            "0809",
            facing="S",
            gunnery=20,
            initiative=9,
            armor={"head": 0},
            structure={"head": 1},
        ),
    )
    state = by_weapon(state)  # MECH-2.1a [HOUSE] rolls = "weapon": the dice scripted per shot
    raw = {
        "a": {
            "fire": [{"weapon": 1, "target": "b"}],
            "physical": [{"kind": "punch", "limb": "ra", "target": "b"}],
        },
        "b": {"fire": [{"weapon": 1, "target": "a"}]},
    }
    # initiative a (1,1) b (6,6); a hits (4,4) head (6,6); b hits (4,4) head (6,6): both die, the punch is not made
    state, events = play_turn(state, raw, dice=(1, 1, 6, 6, 4, 4, 6, 6, 4, 4, 6, 6))
    assert [e.unit for e in of_type(events, "WeaponFired")] == ["a", "b"]
    assert mech(state, "a").destroyed and mech(state, "b").destroyed
    assert [(e.unit, e.reason) for e in of_type(events, "PhysicalSpent")] == [("a", "attacker_down")]
    order_of = [
        type(e).__name__
        for e in events
        if type(e).__name__ in ("WeaponFired", "DamageDealt", "PhysicalSpent")
    ]
    assert order_of == ["WeaponFired", "WeaponFired", "DamageDealt", "DamageDealt", "PhysicalSpent"]
    assert state.over and state.winner is None


def test_mech_4_the_turn_steps_are_movement_fire_physical_heat() -> None:
    state = build(unit("a", "red", "0810", initiative=0), unit("b", "blue", "0808", facing="S", initiative=9))
    raw = {
        "a": {
            "mode": "walk",
            "path": ["0809"],
            "fire": [{"weapon": 1, "target": "b"}],
            "physical": [{"kind": "kick", "limb": "rl", "target": "b"}],
        }
    }
    _, events = play_turn(state, raw, dice=(1, 1, 6, 6, 1, 2, 1, 2))
    kinds = [
        type(e).__name__
        for e in events
        if type(e).__name__ in ("UnitMoved", "WeaponFired", "PhysicalAttackMade", "HeatChanged")
    ]
    assert kinds == ["UnitMoved", "WeaponFired", "PhysicalAttackMade", "HeatChanged", "HeatChanged"]


def test_mech_4_dice_order_initiative_then_to_hit_cluster_locations_then_avoid_rolls() -> None:
    """DESIGN §7.1: initiative per unit in file order; per shot to-hit, cluster, each location; end of turn
    avoid rolls (shutdown then ammunition) per unit in file order."""
    state = build(
        unit(
            "a",
            "red",
            "0810",
            gunnery=20,
            initiative=0,
            heat_sinks=0,
            weapons=[{"type": "lrm10", "loc": "lt"}],
        ),
        unit("b", "blue", "0802", facing="S", initiative=9),
    )
    state = by_weapon(state)  # MECH-2.1a [HOUSE] rolls = "weapon": the dice scripted per shot
    state = with_unit(state, "a", heat=16)  # 16 + 4 (LRM-10) = 20: shutdown 14, 18; ammo 19
    raw = {"a": {"fire": [{"weapon": 1, "target": "b"}]}}
    dice = (1, 2, 5, 6, 3, 3, 6, 6, 2, 5, 1, 1, 4, 4, 5, 5, 6, 6)
    state, events = play_turn(state, raw, dice=dice)
    rolls = [(e.rule, e.dice) for e in of_type(events, "RollMade")]
    assert rolls == [
        ("MECH-1.1", (1, 2)),  # a's initiative (file order)
        ("MECH-1.1", (5, 6)),  # b's
        ("MECH-2.1", (3, 3)),  # a's to-hit
        ("MECH-2.3", (6, 6)),  # cluster: 10 missiles
        ("MECH-2.3", (2, 5)),  # first group of 5: 7 → ct
        ("MECH-2.3", (1, 1)),  # second group of 5: 2 → ct
        ("MECH-3.2", (4, 4)),  # shutdown 14
        ("MECH-3.2", (5, 5)),  # shutdown 18
        ("MECH-3.2", (6, 6)),  # ammunition 19
    ]
    assert state.dice_script == ()


def test_mech_house_stacking_a_unit_stopped_by_a_secret_clash_ends_short() -> None:
    state = build(
        unit("a", "red", "0810", initiative=0),
        unit("b", "red", "0806", facing="S", initiative=9),
        unit("e", "blue", "0401"),
        options={"secret_declarations": True},
    )
    raw = {"a": {"mode": "walk", "path": ["0809", "0808"]}, "b": {"mode": "walk", "path": ["0807", "0808"]}}
    state, events = play_turn(state, raw, dice=(1, 1, 6, 6, 3, 3))
    assert mech(state, "a").at == H("0808")
    assert mech(state, "b").at == H("0807")
    assert [n.key for n in of_type(events, "Note") if n.key == "mech.move_stopped"] == ["mech.move_stopped"]


def test_mech_declare_all_helper_locks_in_initiative_order() -> None:
    state = build(unit("a", "red", "0810", initiative=9), unit("b", "blue", "0805", initiative=0))
    state, events = declare_all(state.replace(dice_script=(3, 3, 3, 3)), {})
    assert [e.unit for e in of_type(events, "DeclarationLocked")] == ["b", "a"]
