"""PBW-4 (damage, hit locations and their effects), PBW-5 (attack modifiers, melee engagement), DICE-3 (the 2d6
skill roll) and the [HOUSE] range bands, cover and walls, through the real engine with scripted dice."""

from __future__ import annotations

import pytest

from rules.errors import IllegalOrderError
from rules.events import GameOver, RollMade, UnitDestroyed, UnitMoved
from rules.pbw.combat import apply_damage
from rules.pbw.events import (
    PbwActionLost,
    PbwAttack,
    PbwDisengaged,
    PbwItemDropped,
    PbwLocationDisabled,
    PbwMoveStopped,
)
from rules.pbw.model import Change
from rules.pbw.queries import attack_options, to_hit_for
from rules.pbw.tables import LOCATIONS, tables
from rules.state import EncounterState
from tests.pbw_fixtures import (
    DEFEND,
    RS,
    act,
    ch,
    declare_all,
    make,
    of_type,
    person,
    play_turn,
    segment,
    step,
)

# --- PBW-4 ------------------------------------------------------------------------------------------------------

SEED_TABLE = {
    # face: (Proyectiles, C. a C.) — the seed's "Localización" table
    1: ("head", "head"),
    2: ("ra", "ra"),
    3: ("la", "ra"),
    4: ("torso", "la"),
    5: ("torso", "la"),
    6: ("torso", "torso"),
    7: ("rl", "rl"),
    8: ("rl", "rl"),
    9: ("ll", "ll"),
    10: ("ll", "ll"),
}


@pytest.mark.parametrize("face", range(1, 11))
def test_pbw_4_hit_location_table_ranged_and_melee_columns(face: int) -> None:
    """Seed: Cabeza 1 / 1; Brazo Derecho 2 / 2,3; Brazo Izquierdo 3 / 4,5; Torso 4,5,6 / 6; Pierna Derecha 7,8 /
    7,8; Pierna Izquierda 9,10 / 9,10."""
    locations = tables().locations
    assert (locations["ranged"][face], locations["melee"][face]) == SEED_TABLE[face]


def hurt(state: EncounterState, uid: str, location: str, amount: int):  # type: ignore[no-untyped-def]
    return apply_damage(state, uid, "x", location, amount)


def test_pbw_4_damage_comes_off_hit_points_and_the_location() -> None:
    """Seed: "se deducirán de los puntos de resistencia de la localización impactada la misma cantidad de daño que
    los Puntos de Vida"; an arm hit for less than its resistance still works."""
    state = make([person("ana", "a", "0303")])
    state, events = hurt(state, "ana", "ra", 7)
    ana = ch(state, "ana")
    assert (ana.hp, ana.resistance["ra"], ana.condition, ana.held) == (23, 1, "ok", 0)
    assert not of_type(events, PbwLocationDisabled)


def test_pbw_4_a_useless_arm_drops_what_it_holds() -> None:
    """Seed: "si una extremidad recibe daño total igual o mayor que su resistencia, el miembro queda inutilizado.
    Si se trata de un brazo dejará caer los objetos que sujetaba"."""
    state = make([person("ana", "a", "0303")])
    state, events = hurt(state, "ana", "ra", 8)
    assert [e.effect for e in of_type(events, PbwLocationDisabled)] == ["arm_useless"]
    assert [e.weapon for e in of_type(events, PbwItemDropped)] == ["pistol"]
    ana = ch(state, "ana")
    assert ana.held is None and ana.weapons[0].dropped and ana.working_arms == ("la",)


def test_pbw_4_the_other_arm_keeps_its_weapon_and_a_two_handed_one_falls_either_way() -> None:
    state = make(
        [person("ana", "a", "0303"), person("bob", "b", "0306", weapons=[{"type": "assault_rifle"}])]
    )
    state, events = hurt(state, "ana", "la", 9)
    assert not of_type(events, PbwItemDropped) and ch(state, "ana").held == 0
    state, events = hurt(state, "bob", "la", 9)
    assert [e.weapon for e in of_type(events, PbwItemDropped)] == ["assault_rifle"]


def test_pbw_4_a_useless_leg_falls_and_crawls() -> None:
    """Seed: "Si se trata de una pierna caerá al suelo". [HOUSE] a fallen character crawls 1 hex per move."""
    state = make([person("ana", "a", "0303", initiative=6), person("bob", "b", "0310", initiative=2)])
    state, _ = hurt(state, "ana", "ll", 10)
    assert ch(state, "ana").condition == "prone"
    state = step(state, {"bob": {"segments": [{"action": "defend"}]}}).state
    with pytest.raises(IllegalOrderError, match="at most 1 hex"):
        step(state, {"ana": {"segments": [{"action": "move", "path": ["0304", "0305"]}]}})
    step(
        state,
        {"ana": {"segments": [{"action": "move", "path": ["0304"]}, {"action": "shoot", "target": "bob"}]}},
    )


def test_pbw_4_a_torso_at_zero_incapacitates() -> None:
    """Seed: "el personaje cae al suelo incapacitado para ninguna acción salvo arrastrarse un metro por
    segmento"."""
    state = make([person("ana", "a", "0303")])
    state, events = hurt(state, "ana", "torso", 14)
    assert [e.effect for e in of_type(events, PbwLocationDisabled)] == ["incapacitated"]
    assert ch(state, "ana").condition == "incapacitated" and not ch(state, "ana").fighting


def test_pbw_4_incapacitated_characters_only_crawl() -> None:
    state = make(
        [
            person("ana", "a", "0303", initiative=6),
            person("cat", "a", "0103", initiative=1),
            person("bob", "b", "0310", initiative=2),
        ]
    )
    state, _ = hurt(state, "ana", "torso", 14)
    assert ch(state, "ana").condition == "incapacitated"
    state = step(state, {"cat": {"segments": [{"action": "defend"}]}}).state
    state = step(state, {"bob": {"segments": [{"action": "defend"}]}}).state
    with pytest.raises(IllegalOrderError) as err:
        step(state, {"ana": {"segments": [{"action": "shoot", "target": "bob"}]}})
    assert err.value.rule == "PBW-4"
    crawl = {"segments": [{"action": "move", "path": [h]} for h in ("0304", "0305", "0306")]}
    state = step(state, {"ana": crawl}).state
    moves = []
    for _ in range(3):
        result = segment(state)
        state = result.state
        moves += of_type(result.events, UnitMoved)
    assert [m.to.label for m in moves] == ["0304", "0305", "0306"], "no Athletics roll for crawling"


def test_pbw_4_a_head_at_zero_knocks_out_and_hp_at_zero_kills() -> None:
    """Seed: "Cabeza: ... el personaje cae al suelo inconsciente" (the seed's line says "torso", a slip for the
    head); "En caso de que los Puntos de Vida lleguen a 0 o menos, el personaje estará muerto"."""
    state = make([person("ana", "a", "0303"), person("bob", "b", "0310", initiative=2)])
    state, events = hurt(state, "ana", "head", 6)
    assert ch(state, "ana").condition == "unconscious"
    assert "ana" not in RS.awaiting(state)
    state, events = hurt(state, "bob", "torso", 30)
    assert ch(state, "bob").condition == "dead" and ch(state, "bob").destroyed
    assert of_type(events, UnitDestroyed)


def test_pbw_4_a_kill_in_a_fire_fight_ends_the_encounter() -> None:
    state = make(
        [person("ana", "a", "0303", initiative=6), person("bob", "b", "0310", initiative=2, hp=5)],
    )
    state = state.replace(dice_script=(6, 6, 4, 6, 6))
    state, events = play_turn(
        state, {"ana": [act("shoot", target="bob")], "bob": [act("shoot", target="ana")]}
    )
    attack = of_type(events, PbwAttack)[0]
    assert attack.critical and attack.damage == 14
    assert state.over and state.winner == "a"
    assert of_type(events, GameOver)[0].winner == "a"
    assert len(of_type(events, PbwAttack)) == 1, "bob, lower Initiative, died before his turn in the segment"


# --- PBW-5 ------------------------------------------------------------------------------------------------------


def sighted(*extra: dict, **terrain: str):  # type: ignore[no-untyped-def]
    units = [person("ana", "a", "0303", initiative=6), person("bob", "b", "0308", initiative=2), *extra]
    return make(units, terrain=terrain or None)


def test_pbw_5_modifiers_for_moving_aiming_and_accuracy() -> None:
    """Seed: −1 per segment the attacker moved, −1 per segment the defender moved, −5 to choose the location,
    ± the weapon's accuracy."""
    state = make(
        [
            person("ana", "a", "0303", initiative=6, weapons=[{"type": "revolver"}]),
            person("bob", "b", "0310", initiative=2),
        ]
    )
    plans = {
        "ana": [act("move", path=["0304"]), act("shoot", target="bob", aim="head")],
        "bob": [act("move", path=["0309"])],
    }
    # segment 2: 6 + 6 = 12, critical; aimed: no location die; damage 2d6+4 = 1 + 1 + 4
    state = state.replace(dice_script=(6, 6, 1, 1))
    state, events = play_turn(state, plans)
    attack = of_type(events, PbwAttack)[0]
    assert dict(attack.modifiers) == {"attacker_moved": -1, "target_moved": -1, "aim": -5, "accuracy": -1}
    assert attack.bonus == 3 + 3 - 8
    assert (attack.location, attack.aimed, attack.damage) == ("head", True, 6)
    assert [r.sides for r in of_type(events, RollMade)] == [6, 6], "aimed: no location roll"
    assert ch(state, "bob").condition == "unconscious"


@pytest.mark.parametrize(
    ("bob_at", "band", "difficulty"),
    [
        ("0305", "short", 10),
        ("0311", "short", 10),
        ("0312", "medium", 15),
        ("0330", "long", 20),
        ("0350", "extreme", 25),
    ],
)
def test_pbw_5_range_bands_set_the_difficulty_house(bob_at: str, band: str, difficulty: int) -> None:
    """[HOUSE] DESIGN §7.4: short 10, medium 15, long 20, extreme 25; the pistol's bands end at 8, 20, 40, 60 m."""
    state = make(
        [person("ana", "a", "0303", initiative=6), person("bob", "b", bob_at, initiative=2)], height=60
    )
    th = to_hit_for(state, "ana", "bob", "shoot")
    assert (th.band, th.difficulty, th.bonus, th.needed) == (
        band,
        difficulty,
        6,
        min(max(3, difficulty - 6), 12),
    )


def test_pbw_5_out_of_range_is_refused() -> None:
    state = make(
        [
            person("ana", "a", "0101", initiative=6, weapons=[{"type": "shotgun"}]),
            person("bob", "b", "0150", initiative=2),
        ],
        height=60,
    )
    with pytest.raises(IllegalOrderError) as err:
        to_hit_for(state, "ana", "bob", "shoot")
    assert err.value.rule == "PBW-5" and err.value.code == "pbw.out_of_range"


def test_pbw_5_walls_block_sight_and_cover_adds_difficulty_house() -> None:
    """DESIGN §7.4: a wall blocks sight; [HOUSE] cover next to the target +5; cover by the shooter does not count."""
    walled = sighted(**{"0305": "wall"})
    with pytest.raises(IllegalOrderError) as err:
        to_hit_for(walled, "ana", "bob", "shoot")
    assert err.value.code == "pbw.no_sight"
    covered = sighted(**{"0307": "cover"})
    th = to_hit_for(covered, "ana", "bob", "shoot")
    assert (th.cover, th.difficulty, dict(th.parts)) == (5, 15, {"short": 10, "cover": 5})
    own = sighted(**{"0303": "cover", "0304": "cover"})
    assert to_hit_for(own, "ana", "bob", "shoot").cover == 0


def test_pbw_5_melee_needs_a_target_within_a_metre() -> None:
    state = sighted()
    with pytest.raises(IllegalOrderError) as err:
        to_hit_for(state, "ana", "bob", "melee")
    assert err.value.code == "pbw.not_in_reach"
    near = make([person("ana", "a", "0303", initiative=6), person("bob", "b", "0304", initiative=2)])
    th = to_hit_for(near, "ana", "bob", "melee")
    assert (th.weapon, th.difficulty, th.bonus) == ("fists", 10, 3 + 2)


def test_pbw_5_engaged_characters_cannot_walk_away() -> None:
    """Seed: "cuando dos oponentes están a menos de un metro ... no pueden desplazarse sin abandonar dicha
    situación"."""
    state = make([person("ana", "a", "0303", initiative=6), person("bob", "b", "0304", initiative=2)])
    state = step(state, {"bob": {"segments": [{"action": "defend"}]}}).state
    with pytest.raises(IllegalOrderError) as err:
        step(state, {"ana": {"segments": [{"action": "move", "path": ["0302"]}]}})
    assert err.value.rule == "PBW-5" and err.value.code == "pbw.engaged"


def test_pbw_5_leaving_a_melee_takes_a_whole_turn_without_attacking() -> None:
    """Seed: "debe declararlo así y emplear un turno completo sin atacar ... Al siguiente turno podrá moverse con
    normalidad"."""
    state = make([person("ana", "a", "0303", initiative=6), person("bob", "b", "0304", initiative=2)])
    state = step(state, {"bob": {"segments": [{"action": "defend"}]}}).state
    with pytest.raises(IllegalOrderError) as err:
        step(state, {"ana": {"segments": [{"action": "melee", "target": "bob"}], "disengage": True}})
    assert err.value.code == "pbw.disengage_attacks"
    state = step(state, {"ana": {"segments": [{"action": "defend"}], "disengage": True}}).state
    events = []
    for _ in range(3):
        result = segment(state)
        state, events = result.state, [*events, *result.events]
    assert [e.unit for e in of_type(events, PbwDisengaged)] == ["ana"]
    state, events = play_turn(state, {"ana": [act("move", path=["0302", "0301"])]})
    assert [m.to.label for m in of_type(events, UnitMoved)] == ["0301"]


def test_pbw_5_a_move_ends_where_it_comes_within_a_metre_of_an_enemy() -> None:
    state = make([person("ana", "a", "0303", initiative=6), person("bob", "b", "0307", initiative=2)])
    state = step(state, {"bob": {"segments": [{"action": "defend"}]}}).state
    too_far = {"segments": [{"action": "move", "path": ["0304", "0305", "0306", "0406"]}]}
    with pytest.raises(IllegalOrderError) as err:
        step(state, {"ana": too_far})
    assert err.value.code == "pbw.runs_into_melee"
    step(state, {"ana": {"segments": [{"action": "move", "path": ["0304", "0305", "0306"]}]}})
    # bob walks up in segment 1, after ana declared: her segment 2 move ends where she meets him
    state = make([person("ana", "a", "0303", initiative=2), person("bob", "b", "0308", initiative=6)])
    plans = {
        "ana": [DEFEND, act("move", path=["0304", "0305", "0306"])],
        "bob": [act("move", path=["0307", "0306"])],
    }
    state, events = play_turn(state, plans)
    assert [m.to.label for m in of_type(events, UnitMoved) if m.unit == "ana"] == ["0305"]
    assert [(s.unit, s.reason, s.other) for s in of_type(events, PbwMoveStopped)] == [
        ("ana", "engaged", "bob")
    ]


def hide_and_seek() -> EncounterState:
    """Bob (Initiative 6) walks behind a wall in segment 1; Ana (2) declared a shot for segment 2."""
    state = make(
        [person("ana", "a", "0303", initiative=2), person("bob", "b", "0306", initiative=6)],
        terrain={"0405": "wall", "0505": "wall"},
    )
    plans = {"ana": [DEFEND, act("shoot", target="bob"), DEFEND], "bob": [act("move", path=["0406", "0507"])]}
    state, _ = declare_all(state, plans)
    return segment(state).state


def test_pbw_5_an_attack_that_became_impossible_is_spent() -> None:
    result = segment(hide_and_seek())
    lost = of_type(result.events, PbwActionLost)
    assert [(e.unit, e.action, e.reason, e.rule) for e in lost] == [("ana", "shoot", "no_sight", "PBW-5")]
    assert not of_type(result.events, PbwAttack)


def test_pbw_5_opposed_melee_ties_go_to_the_defender_house() -> None:
    """DICE-3 "tiradas enfrentadas": higher total wins; [HOUSE] a tie goes to the defender."""
    state = make([person("ana", "a", "0303", initiative=6), person("bob", "b", "0304", initiative=2)])
    state = state.replace(dice_script=(4, 3, 5, 2))  # 7 + 5 against 7 + 5
    state, events = play_turn(state, {"ana": [act("melee", target="bob")]})
    attack = of_type(events, PbwAttack)[0]
    assert (attack.total, attack.defence, attack.difficulty, attack.hit) == (12, 12, 13, False)


def test_pbw_5_a_change_of_intention_can_follow_a_target_that_moved() -> None:
    """PBW-2 + PBW-5: bob walked out of sight; ana turns her lost shot into a move."""
    state = hide_and_seek()
    assert "ana" in RS.awaiting(state)
    change = Change(unit="ana", segment=2, action=act("move", path=["0304"]))
    result = segment(state, {"ana": change})
    assert [m.unit for m in of_type(result.events, UnitMoved)] == ["ana"]
    assert not of_type(result.events, PbwActionLost)


# --- DICE-3 ------------------------------------------------------------------------------------------------------


def test_dice_3_a_skill_at_zero_raises_the_difficulty_one_grade() -> None:
    """Seed: "la dificultad de la acción se incrementará automáticamente en un grado si la habilidad que se
    necesita utilizar tiene un grado de desarrollo de 0"."""
    state = make(
        [
            person("ana", "a", "0303", skills={"melee": 2}),
            person("bob", "b", "0305", initiative=2),
        ]
    )
    th = to_hit_for(state, "ana", "bob", "shoot")
    assert (th.difficulty, dict(th.parts)) == (15, {"short": 10, "skill_zero": 5})


def test_dice_3_double_one_fails_and_double_six_succeeds_whatever_the_totals() -> None:
    """Seed: "un resultado de doble 1 es un fallo automático y un resultado de doble 6 un éxito crítico"."""
    sharp = {"attributes": {"perception": 20}, "skills": {"ranged": 20}}
    state = make(
        [person("ana", "a", "0303", initiative=6, **sharp), person("bob", "b", "0305", initiative=2)]
    )
    state = state.replace(dice_script=(1, 1))
    _, events = play_turn(state, {"ana": [act("shoot", target="bob")]})
    attack = of_type(events, PbwAttack)[0]
    assert (attack.total, attack.hit, attack.fumble, attack.quality) == (42, False, True, "fumble")
    clumsy = {"attributes": {"perception": 0}, "skills": {"ranged": 0}}
    far = make(
        [person("ana", "a", "0101", initiative=6, **clumsy), person("bob", "b", "0155", initiative=2)],
        height=60,
    )
    far = far.replace(dice_script=(6, 6, 5, 1, 1))
    _, events = play_turn(far, {"ana": [act("shoot", target="bob")]})
    attack = of_type(events, PbwAttack)[0]
    assert (attack.band, attack.difficulty, attack.total) == ("extreme", 25 + 5, 12)
    assert (attack.hit, attack.critical, attack.quality) == (True, True, "critical")


def test_dice_3_a_defender_double_six_beats_any_attack_but_a_double_six() -> None:
    state = make([person("ana", "a", "0303", initiative=6), person("bob", "b", "0304", initiative=2)])
    state = state.replace(dice_script=(5, 5, 6, 6))
    _, events = play_turn(state, {"ana": [act("melee", target="bob")]})
    assert of_type(events, PbwAttack)[0].hit is False


def test_every_location_has_an_effect() -> None:
    state = make([person("ana", "a", "0303")])
    effects = {}
    for loc in LOCATIONS:
        _, events = hurt(state, "ana", loc, 15)
        effects[loc] = [e.effect for e in of_type(events, PbwLocationDisabled)]
    assert effects == {
        "head": ["unconscious"],
        "ra": ["arm_useless"],
        "la": ["arm_useless"],
        "torso": ["incapacitated"],
        "rl": ["falls"],
        "ll": ["falls"],
    }


def test_fog_1_a_hidden_enemy_is_never_named_nor_offered() -> None:
    """FOG-1: a character the director placed hidden is no target, engages nobody ([HOUSE]) and blocks a move
    without being named."""
    hidden = person("bob", "b", "0304", initiative=2)
    hidden["hidden"] = True
    state = make([person("ana", "a", "0303", initiative=6), hidden, person("cid", "b", "0310", initiative=1)])
    assert [o.target for o in attack_options(state, "ana", "shoot")] == ["cid"]
    with pytest.raises(IllegalOrderError) as err:
        to_hit_for(state, "ana", "bob", "shoot")
    assert err.value.code == "pbw.no_target" and "Bob" not in str(err.value)
    state = step(state, {"cid": {"segments": [{"action": "defend"}]}}).state
    state = step(state, {"bob": {"segments": [{"action": "defend"}]}}).state
    with pytest.raises(IllegalOrderError) as err:
        step(state, {"ana": {"segments": [{"action": "move", "path": ["0304"]}]}})
    assert err.value.code == "pbw.occupied_unseen" and "Bob" not in str(err.value)
    step(state, {"ana": {"segments": [{"action": "move", "path": ["0203", "0202"]}]}})
