"""Skirmish (Sombrachapas) rules, RULES.md §2, through the real engine (parse → validate → resolve_phase)."""

from __future__ import annotations

import dataclasses

import pytest

from rules.errors import IllegalOrderError, InvalidOrderError
from rules.events import RollMade, ShotResolved, UnitDestroyed, UnitMoved
from rules.hexgrid import Hex, Vertex
from rules.serial import from_json, to_json
from rules.skirmish.activation import end_round, ext_of
from rules.skirmish.combat import wounds_for
from rules.skirmish.events import SkActionCancelled, SkApSpent, SkGrenadeThrown, SkWounded
from rules.skirmish.geometry import can_see
from tests.skirmish_fixtures import RS, act, ch, char, draw, make, types

H = Hex.parse


# --- SK-8 -----------------------------------------------------------------------------------------------------


def test_sk_8_worked_example_three_shots_kill_the_tyrano() -> None:
    state = make(
        [
            char("veddio", "rfp", "alpha", "0304", "NE-SE", ap=6, ranged=17),
            char("tyrano", "tyr", "bravo", "0804", "SW-NW", resistance=7, wounds=3),
        ],
        dice=[4, 5, 2, 3, 9, 1, 1, 9, 7],
    )
    state = draw(state, "alpha")
    wounds: list[tuple[int, int]] = []
    for _ in range(3):
        result = act(state, "veddio", "shoot tyrano")
        state = result.state
        roll = next(e for e in result.events if isinstance(e, RollMade))
        shot = next(e for e in result.events if isinstance(e, ShotResolved))
        hurt = next(e for e in result.events if isinstance(e, SkWounded))
        assert shot.hit and roll.get("total") <= 17
        wounds.append((hurt.damage, hurt.wounds))
    assert wounds == [(7, 0), (10, 1), (16, 2)]
    tyrano = ch(state, "tyrano")
    assert not tyrano.alive and tyrano.destroyed and tyrano.wounds == 3
    assert any(m.kind == "equipment" and m.at == H("0804") for m in state.markers)
    assert ch(state, "veddio").ap_left == 0
    assert state.over and state.winner == "rfp"


@pytest.mark.parametrize(
    ("damage", "resistance", "wounds"),
    [(7, 7, 0), (10, 7, 1), (14, 7, 1), (15, 7, 2), (16, 7, 2), (0, 7, 0), (1, 1, 0), (2, 1, 1), (21, 5, 4)],
)
def test_sk_3_4_wounds_per_whole_multiple_exceeded(damage: int, resistance: int, wounds: int) -> None:
    assert wounds_for(damage, resistance) == wounds


# --- SK-2 movement and facing -----------------------------------------------------------------------------


def lone(at: str = "0505", facing: str = "NE-SE", terrain: dict[str, str] | None = None, **card: object):  # type: ignore[no-untyped-def]
    units = [char("a", "rfp", "alpha", at, facing, **card), char("z", "tyr", "zulu", "1509", "SW-NW")]
    return draw(make(units, terrain=terrain), "alpha")


@pytest.mark.parametrize(("to", "cost"), [("SE-S", 0), ("N-NE", 0), ("S-SW", 1), ("NW-N", 1), ("SW-NW", 2)])
def test_sk_2_1_turning_in_place_costs_by_vertices(to: str, cost: int) -> None:
    state = lone()
    after = act(state, "a", f"turn {to}").state
    assert ch(state, "a").ap_left - ch(after, "a").ap_left == cost


def turn_costs(state, *turns: str) -> list[int]:  # type: ignore[no-untyped-def]
    costs: list[int] = []
    for text in turns:
        after = act(state, "a", text).state
        costs.append(ch(state, "a").ap_left - ch(after, "a").ap_left)
        state = after
    return costs


def test_sk_2_1_turns_in_place_add_up_within_an_activation() -> None:
    """Three 1-vertex turns cost what one 3-vertex turn costs (2 AP): the table's 1 AP and 2 AP rows cannot be
    dodged by turning one vertex at a time."""
    assert turn_costs(lone(), "turn SE-S", "turn S-SW", "turn SW-NW") == [0, 1, 1]
    assert sum(turn_costs(lone(), "turn SW-NW")) == 2
    assert turn_costs(lone(), "turn SE-S", "turn S-SW") == [0, 1]  # = one 2-vertex turn


def test_sk_2_1_the_run_is_measured_from_where_it_started_and_never_refunds() -> None:
    # back and forth: the facing changed by 0 or 1 vertex from the start of the run, so nothing more is due
    assert turn_costs(lone(), "turn SE-S", "turn NE-SE", "turn N-NE") == [0, 0, 0]
    # 2 vertices (1 AP) then back 1: still paid, no refund, and nothing new to pay
    assert turn_costs(lone(), "turn S-SW", "turn SE-S") == [1, 0]


def test_sk_2_1_another_action_starts_a_new_run() -> None:
    state = lone()
    state = act(state, "a", "turn SE-S").state  # 0 AP
    state = act(state, "a", "act look around").state  # an other action ends the run
    assert turn_costs(state, "turn S-SW", "turn SW-NW") == [0, 1]


def test_sk_2_1_turning_to_the_current_facing_is_refused() -> None:
    with pytest.raises(IllegalOrderError) as err:
        act(lone(), "a", "turn NE-SE")
    assert err.value.rule == "SK-2.1" and err.value.params["unit"] == "a"


@pytest.mark.parametrize(
    ("text", "cost", "facing"),
    [
        ("move 0604", 1, 1),
        ("move 0605", 1, 1),
        ("move 0605 facing SE-S", 1, 2),  # 1 vertex: free
        ("move 0605 facing S-SW", 1, 3),  # 2 vertices: free
        ("move 0605 facing SW-NW", 2, 4),  # 3 vertices: +1
    ],
)
def test_sk_2_2_forward_move_cost_and_facing_change(text: str, cost: int, facing: int) -> None:
    state = lone()
    after = act(state, "a", text).state
    a = ch(after, "a")
    assert ch(state, "a").ap_left - a.ap_left == cost and a.facing == facing
    assert a.at == H(text.split()[1])


@pytest.mark.parametrize("hex_", ["0504", "0506", "0405", "0705"])
def test_sk_2_2_only_the_two_hexes_sharing_the_facing_vertex(hex_: str) -> None:
    with pytest.raises(IllegalOrderError) as err:
        act(lone(), "a", f"move {hex_}")
    assert err.value.rule == "SK-2.2" and "not ahead" in err.value.message


@pytest.mark.parametrize(
    ("text", "cost"),
    [("back 0405", 2), ("back 0404", 2), ("back 0404 facing N-NE", 2), ("back 0404 facing SW-NW", 3)],
)
def test_sk_2_3_backward_move_cost(text: str, cost: int) -> None:
    state = lone()
    after = act(state, "a", text).state
    assert ch(state, "a").ap_left - ch(after, "a").ap_left == cost


def test_sk_2_3_backward_only_behind() -> None:
    with pytest.raises(IllegalOrderError) as err:
        act(lone(), "a", "back 0604")
    assert err.value.rule == "SK-2.3"


def test_sk_2_4_difficult_terrain_doubles_movement() -> None:
    state = lone(terrain={"0605": "difficult", "0404": "difficult"})
    assert ch(state, "a").ap_left - ch(act(state, "a", "move 0605").state, "a").ap_left == 2
    assert ch(state, "a").ap_left - ch(act(state, "a", "back 0404").state, "a").ap_left == 4
    # facing extra is added after the doubling
    assert ch(state, "a").ap_left - ch(act(state, "a", "move 0605 facing SW-NW").state, "a").ap_left == 3


@pytest.mark.parametrize(
    ("kind", "code"), [("obstacle", "skirmish.blocked"), ("obstruction", "skirmish.blocked")]
)
def test_sk_2_4_obstacles_and_obstructions_block_movement(kind: str, code: str) -> None:
    with pytest.raises(IllegalOrderError) as err:
        act(lone(terrain={"0604": kind}), "a", "move 0604")
    assert err.value.code == code and err.value.rule == "SK-2.4"


def test_sk_2_4_one_character_per_hex() -> None:
    units = [
        char("a", "rfp", "alpha", "0505"),
        char("b", "rfp", "alpha", "0604"),
        char("z", "tyr", "zulu", "1509"),
    ]
    state = draw(make(units), "alpha")
    with pytest.raises(IllegalOrderError, match="occupied"):
        act(state, "a", "move 0604")


def test_sk_1_2_not_enough_ap() -> None:
    state = lone(ap=1)
    with pytest.raises(IllegalOrderError) as err:
        act(state, "a", "back 0405")
    assert err.value.rule == "SK-1.2" and err.value.params["cost"] == 2


# --- SK-3.2 visibility --------------------------------------------------------------------------------------


def sight(viewer_at: str, facing: str, target: str, terrain: dict[str, str] | None = None) -> bool:
    units = [char("a", "rfp", "alpha", viewer_at, facing), char("z", "tyr", "zulu", target)]
    state = make(units, terrain=terrain)
    return can_see(state, ch(state, "a"), H(target))


def test_sk_3_2_front_arc_is_180_degrees_inclusive() -> None:
    assert sight("0505", "NE-SE", "0705")  # dead ahead
    assert sight("0505", "NE-SE", "0503")  # exactly -90
    assert sight("0505", "NE-SE", "0507")  # exactly +90
    assert not sight("0505", "NE-SE", "0305")  # behind
    assert not sight("0505", "NE-SE", "0406")  # behind the flank


def test_sk_3_2_obstacle_blocks_and_grazing_blocks_obstruction_does_not() -> None:
    # 0505 → 0503 runs through 0504
    assert not sight("0505", "N-NE", "0503", {"0504": "obstacle"})
    assert sight("0505", "N-NE", "0503", {"0504": "obstruction"})
    assert sight("0505", "N-NE", "0503", {"0504": "difficult"})
    # 0505 → 0705 runs exactly along the side between 0604 and 0605: touching either blocks
    assert sight("0505", "NE-SE", "0705")
    assert not sight("0505", "NE-SE", "0705", {"0604": "obstacle"})
    assert not sight("0505", "NE-SE", "0705", {"0605": "obstacle"})


def test_sk_3_2_a_line_that_only_touches_an_obstacle_corner_is_blocked() -> None:
    """Seed: "En el caso de que la línea que define la Visibilidad pase por uno o varios hexágonos 'tocando' pero
    no atravesando Obstáculos se entenderá que NO hay Visibilidad". 0505 → 0902 passes exactly over a corner of
    0603 (and of 0803): the sampled ε-traces stepped over it and saw through."""
    assert sight("0505", "N-NE", "0902")
    assert not sight("0505", "N-NE", "0902", {"0603": "obstacle"})
    assert not sight("0505", "N-NE", "0902", {"0803": "obstacle"})
    assert sight("0505", "N-NE", "0902", {"0603": "obstruction"}), "obstructions never block (SK-2.4)"


# --- SK-3.1 / 3.3 / 3.5 ranged combat ------------------------------------------------------------------------


def shooter_vs(target_at: str, *, dice: list[int] | None = None, **options: object):  # type: ignore[no-untyped-def]
    units = [char("a", "rfp", "alpha", "0105", "NE-SE", ranged=29), char("z", "tyr", "zulu", target_at)]
    return draw(make(units, dice=dice or [], options=options or None, width=20), "alpha")


@pytest.mark.parametrize(("target", "ok"), [("0205", False), ("0305", True), ("1305", True), ("1405", False)])
def test_sk_3_1_range_is_2_to_12(target: str, ok: bool) -> None:
    state = shooter_vs(target)
    assert H("0105").distance(H(target)) in (1, 2, 12, 13)
    if ok:
        assert any(isinstance(e, ShotResolved) for e in act(state, "a", "shoot z").events)
    else:
        with pytest.raises(IllegalOrderError) as err:
            act(state, "a", "shoot z")
        assert err.value.rule == "SK-3.1" and err.value.code in ("skirmish.adjacent", "skirmish.range")


def test_sk_3_1_needs_visibility() -> None:
    units = [char("a", "rfp", "alpha", "0505", "SW-NW"), char("z", "tyr", "zulu", "0805")]
    with pytest.raises(IllegalOrderError) as err:
        act(draw(make(units), "alpha"), "a", "shoot z")
    assert err.value.code == "skirmish.no_sight" and err.value.rule == "SK-3.2"


@pytest.mark.parametrize(
    ("target", "long_range", "modifier"), [("0805", True, 5), ("0705", True, 0), ("0805", False, 0)]
)
def test_sk_3_5_long_range_penalty_is_optional(target: str, long_range: bool, modifier: int) -> None:
    state = shooter_vs(target, dice=[1, 1, 2], long_range=long_range)
    roll = next(e for e in act(state, "a", "shoot z").events if isinstance(e, RollMade))
    assert roll.get("modifier") == modifier and roll.get("total") == 4 + modifier


def test_sk_3_3_miss_does_no_damage() -> None:
    state = shooter_vs("0505", dice=[10, 10, 10])
    events = act(state, "a", "shoot z").events
    assert not next(e for e in events if isinstance(e, ShotResolved)).hit
    assert not any(isinstance(e, SkWounded) for e in events)


# --- SK-5.1 melee ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("defender_facing", "expected"),
    [
        ("N-NE", "NW-N"),
        ("SE-S", "SW-NW"),
        ("S-SW", "SW-NW"),
        ("SW-NW", "SW-NW"),
        ("NW-N", "NW-N"),
        ("NE-SE", "NW-N"),
    ],
)
def test_sk_5_1_defender_turns_to_the_nearest_vertex_of_the_attacked_side(
    defender_facing: str, expected: str
) -> None:
    # the attacker at 0505 faces east; the defender at 0605 is attacked through its NW side (vertices SW-NW, NW-N)
    units = [char("a", "rfp", "alpha", "0505", "NE-SE"), char("z", "tyr", "zulu", "0605", defender_facing)]
    state = draw(make(units, dice=[9, 9, 8]), "alpha")
    after = act(state, "a", "melee z").state
    assert Vertex(ch(after, "z").facing).label == expected


def test_sk_5_1_melee_damage_is_high_die_plus_bonus_and_needs_adjacency() -> None:
    units = [
        char("a", "rfp", "alpha", "0505", melee=20, melee_bonus=3),
        char("z", "tyr", "zulu", "0605", resistance=5),
    ]
    state = draw(make(units, dice=[2, 8, 3]), "alpha")
    events = act(state, "a", "melee z").events
    shot = next(e for e in events if isinstance(e, ShotResolved))
    assert shot.hit and shot.weapon == "melee" and shot.damage == 11  # d+ 8 + 3
    assert ch(state, "a").ap_left == 6
    far = [char("a", "rfp", "alpha", "0505"), char("z", "tyr", "zulu", "0705")]
    with pytest.raises(IllegalOrderError) as err:
        act(draw(make(far), "alpha"), "a", "melee z")
    assert err.value.rule == "SK-5.1"


# --- SK-6 other actions and grenades -------------------------------------------------------------------------


def test_sk_6_1_other_action_costs_1_ap_and_rolls_against_action() -> None:
    state = lone(action=12)
    state = state.replace(dice_script=(3, 4, 5, 6, 6, 6))
    first = act(state, "a", "act open the door")
    assert ch(first.state, "a").ap_left == 5
    assert [getattr(e, "success", None) for e in first.events if e.type == "SkActionResolved"] == [True]
    second = act(first.state, "a", "act open the door")
    assert [getattr(e, "success", None) for e in second.events if e.type == "SkActionResolved"] == [False]


def grenade_board(dice: list[int]):  # type: ignore[no-untyped-def]
    units = [
        char("a", "rfp", "alpha", "0305", "NE-SE", action=12),
        char("z", "tyr", "zulu", "0705", resistance=5, wounds=3),
        char("y", "tyr", "zulu", "0706", resistance=5, wounds=3),  # neighbour of 0705
        char("x", "tyr", "zulu", "0905", resistance=5, wounds=3),  # two hexes away: untouched
    ]
    return draw(make(units, dice=dice), "alpha")


def test_sk_6_2_grenade_blast_and_fire() -> None:
    state = grenade_board([3, 4, 2])  # 9 <= 12: hit, d+ + d- = 6
    result = act(state, "a", "grenade z")
    after = result.state
    blast = next(e for e in result.events if isinstance(e, SkGrenadeThrown))
    assert blast.hit and blast.center_damage == 12 and blast.ring_damage == 6
    assert (ch(after, "z").wounds, ch(after, "y").wounds, ch(after, "x").wounds) == (2, 1, 0)
    assert ch(state, "a").ap_left - ch(after, "a").ap_left == 1  # SK-6.2: an other action
    fires = {m.at for m in after.markers if m.kind == "fire"}
    assert fires == {H("0705"), *H("0705").neighbors()}
    assert all(m.expires_round == 1 + 3 for m in after.markers if m.kind == "fire")  # dE = 3 rounds
    # fire blocks sight like an obstacle and movement like an obstruction
    a = ch(after, "a")
    assert not can_see(after, a, H("0905"))


def test_sk_6_2_grenade_costs_1_ap_like_every_other_action() -> None:
    """Seed: "Para que la granada impacte se ha de superar una tirada de Acción, aplicando todas las reglas
    descritas en la sección: Otras acciones" and "Para realizar una acción el personaje activo debe pagar un coste
    de 1 Punto de acción"."""
    state = grenade_board([3, 4, 2])
    thrower = ch(state, "a")
    state = state.with_units([dataclasses.replace(thrower, ap_left=1)])
    result = act(state, "a", "grenade z")  # refused with 1 AP left when a grenade cost 2
    spent = next(e for e in result.events if isinstance(e, SkApSpent))
    assert (spent.action, spent.cost, spent.ap_left) == ("grenade", 1, 0)


def test_sk_6_2_grenade_triggers_one_overwatch_shot_per_ap_as_an_other_action() -> None:
    units = [
        char("a", "rfp", "alpha", "0305", "NE-SE", action=12),
        char("z", "tyr", "zulu", "0705", resistance=5, wounds=3),
        char("w", "tyr", "watch", "0307", "N-NE", ranged=20),
    ]
    state = draw(make(units, dice=[9, 9, 9, 9, 9, 9]), "watch")
    state = act(state, "w", "overwatch always").state
    state = draw(state, "alpha")
    events = act(state, "a", "grenade z").events
    assert [e.weapon for e in events if isinstance(e, ShotResolved)] == ["overwatch"]


def test_sk_6_2_grenade_at_an_object_or_empty_hex_in_sight() -> None:
    """Seed: "ha de tener Visibilidad con el personaje u objeto objetivo": an object on the board is a hex."""
    state = grenade_board([3, 4, 2])  # hit, d+ + d- = 6
    result = act(state, "a", "grenade 0706")  # y stands there; z (0705) is a neighbour
    blast = next(e for e in result.events if isinstance(e, SkGrenadeThrown))
    assert (blast.target, blast.at, blast.hit) == ("", H("0706"), True)
    after = result.state
    assert (ch(after, "y").wounds, ch(after, "z").wounds) == (2, 1)
    empty = act(grenade_board([3, 4, 2]), "a", "grenade 0604")  # nobody there
    fires = {m.at for m in empty.state.markers if m.kind == "fire"}
    assert fires == {H("0604"), *H("0604").neighbors()}
    assert ch(empty.state, "a").ap_left == 5


def test_sk_6_2_grenade_at_a_hex_needs_sight_and_a_hex_on_the_board() -> None:
    units = [char("a", "rfp", "alpha", "0305", "NE-SE", action=12), char("z", "tyr", "zulu", "1509")]
    state = draw(make(units, terrain={"0405": "obstacle"}), "alpha")
    with pytest.raises(IllegalOrderError) as err:
        act(state, "a", "grenade 0505")  # behind the wall
    assert err.value.code == "skirmish.no_sight_hex" and err.value.rule == "SK-3.2"
    with pytest.raises(IllegalOrderError) as err:
        act(state, "a", "grenade 0105")  # behind the thrower
    assert err.value.code == "skirmish.no_sight_hex"
    with pytest.raises(IllegalOrderError) as err:
        act(state, "a", "grenade 3005")
    assert err.value.code == "skirmish.off_board"
    with pytest.raises(InvalidOrderError):
        RS.parse_order(state, "a", "grenade nowhere")


def test_sk_6_2_objects_only_table_refuses_an_empty_hex(monkeypatch: pytest.MonkeyPatch) -> None:
    """[HOUSE] ``target_hexes = "objects"`` (the seed's "no puede lanzarse una granada a cualquier parte del
    mapa"): only a hex holding terrain, a marker or a character."""
    from rules.skirmish import legality
    from rules.skirmish.tables import tables

    strict = dataclasses.replace(tables(), grenade_any_hex=False)
    monkeypatch.setattr(legality, "tables", lambda: strict)
    units = [char("a", "rfp", "alpha", "0305", "NE-SE", action=12), char("z", "tyr", "zulu", "1509")]
    state = draw(make(units, terrain={"0604": "obstruction"}), "alpha")
    with pytest.raises(IllegalOrderError) as err:
        act(state, "a", "grenade 0605")
    assert err.value.code == "skirmish.no_object"
    assert any(isinstance(e, SkGrenadeThrown) for e in act(state, "a", "grenade 0604").events)  # the crates


def test_sk_6_2_fire_lasts_de_rounds_then_goes_out() -> None:
    state = act(grenade_board([3, 4, 2]), "a", "grenade z").state
    for _ in range(3):  # end of rounds 1, 2, 3: still burning
        state, _events = end_round(state)
        assert any(m.kind == "fire" for m in state.markers)
    state, events = end_round(state)  # end of round 4
    assert not any(m.kind == "fire" for m in state.markers)
    assert "SkFireOut" in types(events)


def test_sk_6_2_missed_grenade_has_no_effect() -> None:
    after = act(grenade_board([9, 9, 8]), "a", "grenade z").state
    assert not any(m.kind == "fire" for m in after.markers)
    assert ch(after, "z").wounds == 0


def test_sk_6_2_fire_blocks_movement() -> None:
    units = [
        char("a", "rfp", "alpha", "0305", "NE-SE", action=12),
        char("b", "rfp", "alpha", "0505", "NE-SE"),  # ahead of b: 0604 and 0605, both next to 0705
        char("z", "tyr", "zulu", "0705"),
    ]
    state = act(draw(make(units, dice=[3, 4, 2]), "alpha"), "a", "grenade z").state
    state = act(state, "a", "end").state
    for target in ("0604", "0605"):
        with pytest.raises(IllegalOrderError, match="fire"):
            act(state, "b", f"move {target}")


# --- SK-4.1 overwatch --------------------------------------------------------------------------------------


def watch_board(
    policy: str = "always",
    *,
    dice: list[int] | None = None,
    watcher_ap: int = 6,
    actor_card: dict[str, int] | None = None,
):  # type: ignore[no-untyped-def]
    """Kara (tyr) watches down the row; Veddio (rfp) stands 4 hexes in front of her."""
    units = [
        char("veddio", "rfp", "alpha", "0505", "NE-SE", **(actor_card or {})),
        char("mate", "rfp", "alpha", "0408", "NE-SE"),
        char("kara", "tyr", "bravo", "0905", "SW-NW", ap=watcher_ap, ranged=20),
    ]
    state = make(units, dice=dice or [])
    state = draw(state, "bravo")
    state = act(state, "kara", f"overwatch {policy}").state
    assert ch(state, "kara").overwatch == policy
    state = draw(state, "alpha")
    return state


def test_sk_4_1_overwatch_shot_resolves_before_the_action() -> None:
    state = watch_board(dice=[9, 9, 9])  # 27 > 20: miss
    result = act(state, "veddio", "move 0605")
    order = types(result.events)
    assert order.index("ShotResolved") < order.index("UnitMoved")
    assert ch(result.state, "veddio").at == H("0605")
    assert ch(result.state, "kara").overwatch_shots_left == 2


def test_sk_4_1_a_kill_cancels_the_action() -> None:
    state = watch_board(dice=[1, 9, 9], actor_card={"resistance": 3, "wounds": 1})
    result = act(state, "veddio", "move 0605")
    assert "SkActionCancelled" in types(result.events) and "UnitMoved" not in types(result.events)
    assert ch(result.state, "veddio").at == H("0505") and not ch(result.state, "veddio").alive
    assert "veddio" not in RS.awaiting(result.state)


def test_sk_4_1_not_triggered_by_overwatch_melee_or_free_turns() -> None:
    state = watch_board()
    assert "ShotResolved" not in types(act(state, "veddio", "overwatch always").events)
    assert "ShotResolved" not in types(act(state, "veddio", "turn SE-S").events)  # 0 AP
    units = [
        char("veddio", "rfp", "alpha", "0505", "NE-SE"),
        char("tyrano", "tyr", "bravo", "0605", "SW-NW"),
        char("kara", "tyr", "bravo", "0905", "SW-NW", ranged=20),
    ]
    s = draw(make(units, dice=[9, 9, 9]), "bravo")
    s = act(s, "kara", "overwatch always").state
    s = act(s, "tyrano", "end").state
    s = draw(s, "alpha")
    melee = act(s, "veddio", "melee tyrano").events
    assert [e.weapon for e in melee if isinstance(e, ShotResolved)] == ["melee"]
    turned = act(s, "veddio", "turn S-SW").events  # 1 AP: kara could fire, so her silence above was the rule
    assert [e.weapon for e in turned if isinstance(e, ShotResolved)] == ["overwatch"]


def test_sk_4_1_shots_per_ap_and_per_round_cap() -> None:
    # 2 AP backward move → 2 shots; a ranged attack (2 AP) → 1 shot; cap floor(5/2) = 2 per round
    state = watch_board(dice=[9, 9, 9] * 6, watcher_ap=5)
    result = act(state, "veddio", "back 0404")
    shots = [e for e in result.events if isinstance(e, ShotResolved) and e.weapon == "overwatch"]
    assert len(shots) == 2 and ch(result.state, "kara").overwatch_shots_left == 0
    more = act(result.state, "veddio", "move 0504")
    assert not [e for e in more.events if isinstance(e, ShotResolved) and e.weapon == "overwatch"]

    state = watch_board(dice=[9, 9, 9] * 6, watcher_ap=6)
    mate_shot = act(state, "veddio", "turn N-NE")  # 0 AP
    assert not [e for e in mate_shot.events if isinstance(e, ShotResolved)]


def test_sk_4_1_ranged_attack_triggers_one_shot_per_two_ap() -> None:
    state = watch_board(dice=[9, 9, 9] * 3)
    result = act(state, "veddio", "shoot kara")
    shots = [e for e in result.events if isinstance(e, ShotResolved)]
    assert [s.weapon for s in shots] == ["overwatch", "ranged"]


def test_sk_4_1_ask_pauses_and_the_answer_fires() -> None:
    state = watch_board("ask", dice=[9, 9, 9])
    paused = act(state, "veddio", "move 0605")
    assert paused.pending is not None and paused.pending.kind == "overwatch" and paused.pending.unit == "kara"
    assert RS.awaiting(paused.state) == ("kara",)
    assert ch(paused.state, "veddio").at == H("0505")  # the move waits
    with pytest.raises(IllegalOrderError):
        act(paused.state, "veddio", "move 0604")
    fired = act(paused.state, "kara", "fire")
    assert types(fired.events).index("ShotResolved") < types(fired.events).index("UnitMoved")
    assert fired.state.pending is None and ch(fired.state, "veddio").at == H("0605")


def test_sk_4_1_hold_lets_the_action_happen_without_a_shot() -> None:
    state = watch_board("ask")
    paused = act(state, "veddio", "back 0404")  # 2 AP: one question, holding answers for the whole action
    held = act(paused.state, "kara", "hold")
    assert "ShotResolved" not in types(held.events) and "SkOverwatchHeld" in types(held.events)
    assert held.pending is None and ch(held.state, "veddio").at == H("0404")


def test_sk_4_1_never_policy_does_not_fire_and_acting_again_ends_overwatch() -> None:
    state = watch_board("never")
    assert "ShotResolved" not in types(act(state, "veddio", "move 0605").events)
    units = [char("a", "rfp", "alpha", "0505"), char("z", "tyr", "zulu", "1509")]
    s = draw(make(units), "alpha")
    s = act(s, "a", "overwatch always").state
    assert ch(s, "a").overwatch == "always" and "a" in ext_of(s).done  # overwatch is the last action
    s = act(draw(s, "zulu"), "z", "end").state  # round ends; the overwatch stays
    s = draw(s, "alpha")
    assert ch(s, "a").overwatch == "always"
    s = act(s, "a", "turn SE-S").state
    assert ch(s, "a").overwatch is None


def test_sk_4_1_overwatch_ends_when_the_next_activation_begins_even_without_ap() -> None:
    """A watcher who paid 2 AP once and then only ends its activations must not get floor(AP/2) fresh shots
    every round: the overwatch ends when its next activation begins."""
    state = watch_board("always", dice=[9, 9, 9] * 4)
    state = act(state, "veddio", "end").state
    state = act(state, "mate", "end").state  # round 1 over; kara is still watching
    assert state.round == 2 and ch(state, "kara").overwatch == "always"
    state = draw(state, "bravo")
    idle = act(state, "kara", "end")  # her next activation begins and ends without spending AP
    assert "SkOverwatchLost" in types(idle.events) and ch(idle.state, "kara").overwatch is None
    state = draw(idle.state, "alpha")
    moved = act(state, "veddio", "move 0605")
    assert not [e for e in moved.events if isinstance(e, ShotResolved)], "no overwatch shot any more"


def test_sk_4_1_overwatch_stays_until_that_activation_begins() -> None:
    """Round 2 before the watcher's chit is drawn: still watching, with the round's floor(AP/2) shots."""
    state = watch_board("always", dice=[9, 9, 9] * 4)
    state = act(act(state, "veddio", "end").state, "mate", "end").state
    state = draw(state, "alpha")
    moved = act(state, "veddio", "move 0605")
    assert [e.weapon for e in moved.events if isinstance(e, ShotResolved)] == ["overwatch"]


def test_sk_1_1_an_action_cancelled_because_the_encounter_ended_says_so() -> None:
    """Veddio is the last of his side: kara's overwatch shot kills him and ends the encounter before his move."""
    units = [
        char("veddio", "rfp", "alpha", "0505", "NE-SE", resistance=3, wounds=1),
        char("kara", "tyr", "bravo", "0905", "SW-NW", ranged=20),
    ]
    state = draw(make(units, dice=[1, 9, 9]), "bravo")
    state = draw(act(state, "kara", "overwatch always").state, "alpha")
    result = act(state, "veddio", "move 0605")
    assert result.state.over
    (cancelled,) = [e for e in result.events if isinstance(e, SkActionCancelled)]
    assert (cancelled.unit, cancelled.action, cancelled.reason, cancelled.rule) == (
        "veddio",
        "move",
        "game_over",
        "SK-1.1",
    )


# --- SK-1.1 activation ---------------------------------------------------------------------------------------


def test_sk_1_1_chit_draw_turns_and_round_end() -> None:
    units = [
        char("a", "rfp", "alpha", "0505"),
        char("b", "rfp", "alpha", "0508"),
        char("z", "tyr", "zulu", "1509"),
    ]
    state = make(units, dice=[5, 5, 5])
    assert RS.awaiting(state) == ()  # a chit must be drawn first
    drawn = draw(state, "zulu")
    assert RS.awaiting(drawn) == ("z",) and drawn.dice_script == (5, 5, 5)  # draws never use scripted dice
    with pytest.raises(IllegalOrderError) as err:
        act(drawn, "a", "turn SE-S")
    assert err.value.code == "skirmish.not_your_turn"
    s = act(drawn, "z", "end").state
    s = draw(s, "alpha")
    assert RS.awaiting(s) == ("a", "b")
    s = act(s, "b", "move 0608").state
    assert RS.awaiting(s) == ("b",)  # one character at a time
    s = act(s, "b", "end").state
    s = act(s, "a", "end").state
    assert s.round == 2 and ch(s, "b").ap_left == 6 and ext_of(s).bag == ("alpha", "zulu")


def test_sk_1_1_random_draw_is_seeded_and_reproducible() -> None:
    from rules.engine import resolve_phase

    units = [char(f"c{i}", "rfp" if i % 2 else "tyr", f"g{i}", f"0{i + 1}05") for i in range(5)]
    state = make(units)
    first = [resolve_phase(RS, state.replace(seed=s), {}).state.ext for s in range(6)]
    again = [resolve_phase(RS, state.replace(seed=s), {}).state.ext for s in range(6)]
    assert first == again and len({getattr(e, "chit", None) for e in first}) > 1


def test_orders_that_do_not_parse_name_the_bad_token() -> None:
    state = lone()
    for text, token in [
        ("jump 0505", "jump"),
        ("move 05x5", "05x5"),
        ("turn UP", "UP"),
        ("shoot nobody", "nobody"),
        ("overwatch maybe", "maybe"),
    ]:
        with pytest.raises(InvalidOrderError) as err:
            RS.parse_order(state, "a", text)
        assert err.value.params["token"] == token and err.value.params["unit"] == "a"


def test_state_round_trips_through_json_while_an_overwatch_question_waits() -> None:
    paused = act(watch_board("ask"), "veddio", "move 0605").state
    assert from_json(to_json(paused)) == paused


def test_death_leaves_equipment_and_ends_the_game() -> None:
    state = shooter_vs("0505", dice=[1, 10, 10])
    result = act(state, "a", "shoot z")  # 20 vs R5: 3 wounds
    assert any(isinstance(e, UnitDestroyed) for e in result.events)
    assert result.state.over and "GameOver" in types(result.events)
    assert any(isinstance(e, UnitMoved) for e in result.events) is False
