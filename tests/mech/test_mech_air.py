"""MECH-5: air units, a helicopter and a fighter (RULES.md §3.1, DESIGN §7.1).

Seed (pbw-tactical-mech.es.txt), the to-hit table: "Movimiento del tirador (cazas aeroespaciales o atmosféricos):
+2 si se ha usado velocidad máxima"; "+2 adicional se se trata de un BattleMech que ha efectuado un salto o se
trata de un helicóptero"; "Blancos aéreos: +2 por dispararle de frente, +4 por disparale por el lateral"; the heat
scale: "Fuera de control (Cazas). Evitable con 5+".
"""

from __future__ import annotations

from typing import Any

import pytest

from render import BoardSnapshot, RenderOptions, render_board
from rules.errors import IllegalOrderError
from rules.hexgrid import Hex
from rules.mech.legality import check_declaration
from rules.mech.queries import cost_of_path, fire_options
from rules.state import EncounterState
from tests.mech_fixtures import MECH, build, mech, of_type, play_turn, step, unit, with_unit

H = Hex.parse
AIR_WEAPONS = [{"type": "medium_laser", "loc": "front"}, {"type": "large_laser", "loc": "front"}]


def heli(uid: str, side: str, at: str, facing: str = "N", **keys: Any) -> str:
    base: dict[str, Any] = {"kind": "helicopter", "tonnage": 30, "walk": 6, "weapons": AIR_WEAPONS}
    return unit(uid, side, at, facing, **{**base, **keys})


def fighter(uid: str, side: str, at: str, facing: str = "N", **keys: Any) -> str:
    base: dict[str, Any] = {"kind": "fighter", "tonnage": 30, "walk": 7, "weapons": AIR_WEAPONS}
    return unit(uid, side, at, facing, **{**base, **keys})


def refusal(state: EncounterState, uid: str, raw: dict[str, Any]) -> IllegalOrderError:
    with pytest.raises(IllegalOrderError) as err:
        check_declaration(state, MECH.parse_order(state, uid, raw))  # type: ignore[arg-type]
    return err.value


def _declared(state: EncounterState, uid: str) -> EncounterState:
    """Roll initiative so that ``uid`` declares (its turn), with the others' movement unknown."""
    state, _ = step(state.replace(dice_script=(1, 1, 6, 6, 6, 6)))
    assert MECH.awaiting(state) == (uid,)
    return state


# --- helicopter -----------------------------------------------------------------------------------------------
def test_mech_5_a_helicopter_flies_over_woods_and_hills_at_one_mp_a_hex() -> None:
    """MECH-5: a helicopter ignores terrain and elevation costs and the terrain a vehicle cannot enter."""
    state = build(
        heli("h", "red", "0810", initiative=0),
        unit("b", "blue", "0801", facing="S", initiative=9),
        terrain={"0809": "heavy_woods", "0808": "water"},
        elevation={"0807": 3},
    )
    cost = cost_of_path(state, "h", "cruise", (H("0809"), H("0808"), H("0807")), None)
    assert cost.total == 3 and all(s.terrain == 0 and s.elevation == 0 for s in cost.steps)
    check_declaration(
        state, MECH.parse_order(state, "h", {"mode": "cruise", "path": ["0809", "0808", "0807"]})
    )  # type: ignore[arg-type]
    tank = build(
        unit("t", "red", "0810", kind="vehicle", walk=6, weapons=[{"type": "mg", "loc": "front"}]),
        unit("b", "blue", "0801", facing="S"),
        terrain={"0809": "heavy_woods", "0808": "water"},
    )
    assert refusal(tank, "t", {"mode": "cruise", "path": ["0809", "0808"]}).code == "mech.vehicle_terrain"


def test_mech_5_a_helicopter_is_the_seeds_plus_two_target_and_never_a_physical_one() -> None:
    """Seed: "+2 adicional ... se trata de un helicóptero"; MECH-5: no physical attack reaches it, and it makes
    none."""
    state = build(
        unit("m", "red", "0810", initiative=0),
        heli("h", "blue", "0809", facing="S", initiative=9),
    )
    (laser,) = fire_options(state, "m", "h")
    assert ("target_helicopter", 2) in [m.pair() for m in laser.modifiers]
    assert refusal(state, "m", {"physical": [{"kind": "punch", "limb": "ra", "target": "h"}]}).code == (
        "mech.air_target"
    )
    up = build(heli("h", "red", "0810", initiative=0), unit("m", "blue", "0809", facing="S", initiative=9))
    assert refusal(up, "h", {"physical": [{"kind": "charge", "target": "m"}]}).code == "mech.air_physical"


def test_mech_5_shots_at_an_air_unit_pass_over_the_woods() -> None:
    """MECH-5: air units are never screened by woods (no +2 per woods hex)."""
    woods = {"0808": "heavy_woods", "0807": "light_woods"}
    ground = build(
        unit("m", "red", "0810", initiative=0),
        unit("g", "blue", "0805", facing="S", initiative=9),
        terrain=woods,
    )
    air = build(
        unit("m", "red", "0810", initiative=0),
        heli("g", "blue", "0805", facing="S", initiative=9),
        terrain=woods,
    )
    assert "woods" in [m.code for m in fire_options(ground, "m", "g")[0].modifiers]
    assert "woods" not in [m.code for m in fire_options(air, "m", "g")[0].modifiers]


# --- fighter movement -------------------------------------------------------------------------------------------
def test_mech_5_a_fighter_flies_straight_and_turns_one_hexside_only_after_two_hexes() -> None:
    state = build(
        fighter("f", "red", "0810", initiative=0), unit("b", "blue", "0101", facing="S", initiative=9)
    )
    check_declaration(
        state, MECH.parse_order(state, "f", {"mode": "cruise", "path": ["0809", "0808", "0908"]})
    )  # type: ignore[arg-type]
    assert refusal(state, "f", {"mode": "cruise", "path": ["0809", "0909"]}).code == "mech.fighter_turn"
    assert (
        refusal(state, "f", {"mode": "cruise", "path": ["0809"], "facing": "NE"}).code == "mech.fighter_turn"
    )
    assert refusal(state, "f", {"mode": "cruise", "path": ["0811"]}).code == "mech.fighter_reverse"
    assert refusal(state, "f", {}).code == "mech.fighter_still"


def test_mech_5_a_fighter_without_a_declaration_flies_straight_on_at_cruise() -> None:
    state = build(
        fighter("f", "red", "0810", initiative=0, walk=3), unit("b", "blue", "0101", facing="S", initiative=9)
    )
    state, _ = step(state.replace(dice_script=(1, 1, 6, 6)))
    state, events = step(state)  # the deadline: the stand-in
    (locked,) = of_type(events, "DeclarationLocked")
    assert dict(locked.args)["mode"] == "cruise" and dict(locked.args)["path"] == (
        H("0809"),
        H("0808"),
        H("0807"),
    )


def test_mech_5_house_a_fighter_leaves_the_board_and_comes_back_on_the_same_edge() -> None:
    """MECH-5 [HOUSE]: "may leave the board and re-enter next turn on the same edge"; off the board it fires
    nothing and its side has not lost it."""
    state = build(
        fighter("f", "red", "0802", initiative=0), unit("b", "blue", "0810", facing="N", initiative=9)
    )
    assert refusal(
        state, "f", {"mode": "cruise", "path": ["0801", "8,0"], "fire": [{"weapon": 1, "target": "b"}]}
    ).code == ("mech.fighter_off_fire")
    state, events = play_turn(state, {"f": {"mode": "cruise", "path": ["0801", "8,0"]}})
    f = mech(state, "f")
    assert f.at is None and f.off_board == H("0801") and f.facing == 3  # turned back toward the board
    assert not state.over
    assert [n.key for n in of_type(events, "Note") if n.key == "mech.left_board"] == ["mech.left_board"]
    state, events = step(state)  # the next turn's initiative: it is back
    assert mech(state, "f").at == H("0801") and mech(state, "f").off_board is None
    assert [n.key for n in of_type(events, "Note") if n.rule == "MECH-5"] == ["mech.reentered"]


# --- fighter to-hit ---------------------------------------------------------------------------------------------
def test_mech_5_a_fighter_shooting_is_plus_two_only_at_max_speed() -> None:
    """Seed: "Movimiento del tirador (cazas aeroespaciales o atmosféricos): +2 si se ha usado velocidad máxima"."""
    state = build(
        fighter("f", "red", "0814", initiative=0), unit("b", "blue", "0806", facing="S", initiative=9)
    )
    cruise = fire_options(state, "f", "b", mode="cruise", at=H("0810"))[0]
    flank = fire_options(state, "f", "b", mode="flank", at=H("0810"))[0]
    assert not [m for m in cruise.modifiers if m.code.startswith("shooter")]
    assert [m.pair() for m in flank.modifiers if m.code.startswith("shooter")] == [
        ("shooter_fighter_flank", 2)
    ]


@pytest.mark.parametrize(
    ("facing", "code", "value"),
    [("S", "air_front", 2), ("SE", "air_front", 2), ("NE", "air_side", 4), ("N", "air_side", 4)],
)
def test_mech_5_air_target_plus_two_head_on_plus_four_from_the_side(
    facing: str, code: str, value: int
) -> None:
    """Seed: "Blancos aéreos: +2 por dispararle de frente, +4 por disparale por el lateral" (a shooter in the
    fighter's front arc, or in a side arc; [HOUSE] its rear counts as a side)."""
    state = build(
        unit("m", "red", "0810", initiative=0),
        fighter("f", "blue", "0806", facing=facing, initiative=9),
    )
    (laser,) = fire_options(state, "m", "f")
    assert [m.pair() for m in laser.modifiers if m.code.startswith("air_")] == [(code, value)]


def test_mech_5_unit_arcs_of_a_fighter_show_where_it_is_plus_two_and_plus_four() -> None:
    state = build(fighter("f", "red", "0808", facing="N"), unit("b", "blue", "0101", facing="S"))
    arcs = MECH.firing_arcs(state, "f")
    assert H("0804") in arcs["air_front"] and H("0812") in arcs["air_side"] and H("1208") in arcs["air_side"]
    assert not arcs["air_front"] & arcs["air_side"]
    assert "front" in arcs  # its own weapons' arc is still drawn


# --- fighter heat ------------------------------------------------------------------------------------------------
def test_mech_5_a_hot_fighter_rolls_against_losing_control_and_then_flies_straight_at_max_firing_nothing() -> (
    None
):
    """Seed heat scale: "Fuera de control (Cazas). Evitable con 5+" at 5 (and 6+ at 10); MECH-5 [HOUSE]: out of
    control it flies straight at max speed next turn and fires nothing."""
    state = build(
        fighter("f", "red", "0814", initiative=0, heat_sinks=0, run=4),
        unit("b", "blue", "0101", facing="S", initiative=9),
    )
    state = with_unit(state, "f", heat=8)  # + cruise 1 = 9: the roll of level 5 (5+)
    # initiative; f: Gunnery, Piloting; b: Gunnery, Piloting; then f's out-of-control roll (2, 2) = 4: fails
    dice = (1, 1, 6, 6, 3, 3, 3, 3, 3, 3, 3, 3, 2, 2)
    state, events = play_turn(state, {"f": {"mode": "cruise", "path": ["0813"]}}, dice=dice)
    (rolled,) = [e for e in of_type(events, "AvoidRolled") if e.unit == "f"]
    assert (rolled.what, rolled.level, rolled.needed, rolled.avoided) == ("out_of_control", 5, 5, False)
    assert mech(state, "f").out_of_control and not mech(state, "f").shutdown
    state, _ = step(state.replace(dice_script=(1, 1, 6, 6)))
    assert refusal(
        state, "f", {"mode": "cruise", "path": ["0812"], "fire": [{"weapon": 1, "target": "b"}]}
    ).code == ("mech.out_of_control")
    state, events = step(state, {"f": MECH.parse_order(state, "f", {})})  # submitted as it is
    (locked,) = of_type(events, "DeclarationLocked")
    args = dict(locked.args)
    assert args["mode"] == "flank" and args["path"] == (H("0812"), H("0811"), H("0810"), H("0809"))
    assert args["fire"] == ()


def test_mech_5_a_helicopter_keeps_no_heat_and_a_fighter_does() -> None:
    state = build(
        heli("h", "red", "0814", initiative=0),
        fighter("f", "red", "0314", initiative=1),
        unit("b", "blue", "0101", facing="S", initiative=9),
    )
    assert not mech(state, "h").keeps_heat and mech(state, "f").keeps_heat
    assert mech(state, "f").heat_sinks == 10  # like a BattleMech's default
    raw = {"f": {"mode": "flank", "path": ["0313"]}, "h": {"mode": "cruise", "path": ["0813"]}}
    _, events = play_turn(state, raw)
    assert [e.unit for e in of_type(events, "HeatChanged") if e.unit in ("h", "f")] == ["f"]


def test_mech_5_rule_answers_in_both_languages() -> None:
    from bot.text.rules_reference import lookup

    for locale, words in (("es", "Fuera de control"), ("en", "Blancos aéreos")):
        rule = lookup("MECH-5", locale)
        assert rule is not None and words in rule.text


def test_mech_5_an_air_unit_is_drawn_with_its_shadow_and_an_altitude_mark() -> None:
    """MECH-5 on the board: the same unit as a helicopter and as a ground vehicle draws differently (its shadow
    on the ground beside the counter, the altitude chevron), and the legend says what the mark means."""

    def png(kind: str) -> bytes:
        state = build(
            unit("h", "red", "0808", kind=kind, walk=6, weapons=[{"type": "mg", "loc": "front"}]),
            unit("b", "blue", "0102", facing="S"),
        )
        return render_board(BoardSnapshot(state, ()), viewer="director", options=RenderOptions(locale="en"))

    assert png("helicopter") != png("vehicle")


def test_mech_5_house_an_air_unit_does_not_stray_at_night() -> None:
    """NGT-5 is about finding one's way over the ground: an air unit's path gives the night layer nothing to
    check [HOUSE], so a straying roll never turns a fighter's flight into standing still (which it cannot)."""
    state = build(
        fighter("f", "red", "0810", initiative=0), unit("b", "blue", "0101", facing="S", initiative=9)
    )
    state, _ = step(state.replace(dice_script=(1, 1, 6, 6)))
    order = MECH.parse_order(state, "f", {"mode": "cruise", "path": ["0809"]})
    assert MECH.move_intent(state, order) is None
    walker = build(
        unit("m", "red", "0810", initiative=0), unit("b", "blue", "0101", facing="S", initiative=9)
    )
    walker, _ = step(walker.replace(dice_script=(1, 1, 6, 6)))
    assert (
        MECH.move_intent(walker, MECH.parse_order(walker, "m", {"mode": "walk", "path": ["0809"]}))
        is not None
    )


def test_mech_5_a_fighter_rolls_out_of_control_first_then_shutdown_like_a_battlemech() -> None:
    """The seed's scale marks only its MP rows "(BattleMech)" ("-1 Punto de Movimiento (BattleMech)", "Fuera de
    control (Cazas). Evitable con 5+"); its "Desconexión" rows carry no such mark, so a fighter makes them too."""
    state = build(
        fighter("f", "red", "0814", initiative=0, heat_sinks=0),
        unit("b", "blue", "0101", facing="S", initiative=9),
    )
    state = with_unit(state, "f", heat=13)  # + cruise 1 = 14
    dice = (1, 1, 6, 6, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3)
    state, events = play_turn(state, {"f": {"mode": "cruise", "path": ["0813"]}}, dice=dice)
    rolls = [(e.what, e.level) for e in of_type(events, "AvoidRolled") if e.unit == "f"]
    assert rolls == [("out_of_control", 5), ("out_of_control", 10), ("shutdown", 14)]
    (heat,) = [e for e in of_type(events, "HeatChanged") if e.unit == "f"]
    assert heat.mp == 0  # no MP lost: the fighter's rows are the out-of-control ones
    assert not mech(state, "f").out_of_control and not mech(state, "f").shutdown
