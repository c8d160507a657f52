"""PBW-1 (the turn and its order), PBW-2 (actions, defences, changes of intention) and PBW-3 (fatigue), through
the real engine: parse → validate → resolve_phase, scripted dice (DICE-1)."""

from __future__ import annotations

import dataclasses

import pytest

from rules.errors import IllegalOrderError, InvalidOrderError
from rules.events import RollMade, UnitMoved
from rules.pbw.events import (
    DeclarationLocked,
    PbwAthletics,
    PbwAttack,
    PbwDefence,
    PbwFatigue,
    PbwIntentionChanged,
    PbwMoveStopped,
    PbwSegmentStarted,
)
from rules.pbw.model import Change, Declaration
from rules.serial import from_json, to_json
from rules.state import EncounterState
from tests.pbw_fixtures import (
    DEFEND,
    RS,
    act,
    ch,
    declare,
    declare_all,
    make,
    of_type,
    person,
    play_turn,
    record,
    segment,
    step,
)

# --- PBW-1 ------------------------------------------------------------------------------------------------------


def trio():  # type: ignore[no-untyped-def]
    return make(
        [
            person("hi", "a", "0303", initiative=6),
            person("lo", "b", "0309", initiative=2),
            person("mid", "a", "0503", initiative=4),
            person("twin", "b", "0509", initiative=4),
        ]
    )


def test_pbw_1_declarations_go_from_lowest_to_highest_initiative_one_at_a_time() -> None:
    """Seed: "los participantes indican, por orden de MENOR A MAYOR del atributo de iniciativa, qué acción
    pretenden usar en cada segmento" — ties in file order (DESIGN §7.4)."""
    state = trio()
    asked: list[str] = []
    while state.phase == "declare":
        waiting = RS.awaiting(state)
        assert len(waiting) == 1, "exactly one declarer at a time"
        asked.append(waiting[0])
        result = declare(state, waiting[0])
        locked = of_type(result.events, DeclarationLocked)
        assert [e.unit for e in locked] == [waiting[0]], "each declaration is public when locked"
        state = result.state
    assert asked == ["lo", "mid", "twin", "hi"]
    assert state.phase == "segment-1"


def test_pbw_1_segments_resolve_from_highest_to_lowest_initiative() -> None:
    """Seed: "segmento por segmento, se van resolviendo por orden de MAYOR A MENOR ... al contrario del orden en el
    que se declararon" (ties: file order)."""
    state, _ = declare_all(trio(), {})
    result = segment(state)
    started = of_type(result.events, PbwSegmentStarted)[0]
    assert started.units == ("hi", "mid", "twin", "lo")
    assert (started.turn, started.segment) == (1, 1)


def test_pbw_1_a_turn_is_three_segments_then_new_declarations() -> None:
    state, _ = declare_all(trio(), {})
    phases = []
    for _ in range(3):
        phases.append(state.phase)
        state = segment(state).state
    assert phases == ["segment-1", "segment-2", "segment-3"]
    assert (state.round, state.phase, RS.awaiting(state)) == (2, "declare", ("lo",))


def test_pbw_1_declaring_out_of_turn_is_refused() -> None:
    state = trio()
    order = Declaration(unit="hi", segments=(DEFEND, DEFEND, DEFEND))
    with pytest.raises(IllegalOrderError) as err:
        RS.validate_order(state, "hi", order)
    assert err.value.rule == "PBW-1" and err.value.code == "pbw.not_your_turn"


def test_pbw_1_the_locked_declaration_carries_its_content() -> None:
    state = make([person("ana", "a", "0303"), person("bob", "b", "0306", initiative=2)])
    raw = {
        "segments": [
            {"action": "move", "path": ["0304"]},
            {"action": "shoot", "target": "bob", "aim": "torso"},
        ]
    }
    result = step(state, {"bob": {"segments": [{"action": "defend"}]}})
    result = step(result.state, {"ana": raw})
    locked = of_type(result.events, DeclarationLocked)[0]
    assert locked.segments == (
        (("action", "move"), ("path", (act("move", path=["0304"]).path[0],))),
        (("action", "shoot"), ("target", "bob"), ("weapon", 1), ("aim", "torso")),
        (("action", "defend"),),
    )
    assert locked.source == "declared" and locked.initiative == 5


def test_pbw_1_no_declaration_given_means_three_skipped_segments() -> None:
    """A deadline or the director resolving without a declaration: the character skips its three segments."""
    state = make([person("ana", "a", "0303"), person("bob", "b", "0306")])
    result = step(state, {})
    locked = of_type(result.events, DeclarationLocked)[0]
    assert locked.unit == "ana" and locked.source == "default"
    assert [a.action for a in record(result.state, "ana").plan] == ["defend"] * 3


# --- PBW-2 ------------------------------------------------------------------------------------------------------


def duel(**extra: object):  # type: ignore[no-untyped-def]
    return make([person("ana", "a", "0303", initiative=6, **extra), person("bob", "b", "0310", initiative=2)])


def test_pbw_2_one_action_per_segment_at_most_three_segments() -> None:
    state = duel()
    raw = {"segments": [{"action": "defend"}] * 4}
    with pytest.raises(InvalidOrderError):
        RS.parse_order(state, "bob", raw)


def test_pbw_2_a_move_goes_up_to_movement_hexes_each_next_to_the_last() -> None:
    """Seed: "se desplaza una distancia igual al valor de su atributo de Movimiento"."""
    state = step(duel(), {"bob": {"segments": [{"action": "defend"}]}}).state
    too_far = {"segments": [{"action": "move", "path": ["0304", "0305", "0306", "0307", "0308"]}]}
    with pytest.raises(IllegalOrderError) as err:
        step(state, {"ana": too_far})
    assert err.value.rule == "PBW-2" and err.value.code == "pbw.too_far"
    jump = {"segments": [{"action": "move", "path": ["0305"]}]}
    with pytest.raises(IllegalOrderError, match="not next to"):
        step(state, {"ana": jump})
    result = step(
        state, {"ana": {"segments": [{"action": "move", "path": ["0304", "0305", "0306", "0307"]}]}}
    )
    result = segment(result.state)
    moved = of_type(result.events, UnitMoved)[0]
    assert moved.to.label == "0307" and moved.rule == "PBW-2"


def test_pbw_2_walls_and_characters_block_a_move() -> None:
    state = make(
        [person("ana", "a", "0303"), person("bob", "b", "0305", initiative=2)], terrain={"0304": "wall"}
    )
    state = step(state, {"bob": {"segments": [{"action": "defend"}]}}).state
    with pytest.raises(IllegalOrderError, match="cannot be entered"):
        step(state, {"ana": {"segments": [{"action": "move", "path": ["0304"]}]}})


def test_pbw_2_a_second_move_in_a_turn_needs_an_athletics_roll() -> None:
    """Seed: "Sólo se permite un desplazamiento por turno a menos que se use Atletismo". [HOUSE] Routine 10,
    agility + Athletics; +1 fatigue."""
    plans = {"ana": [act("move", path=["0304"]), act("move", path=["0305"]), act("move", path=["0306"])]}
    # second move: 5+5 + agility 3 + athletics 1 = 14 ≥ 10; third move: double 1 fails (DICE-3)
    state = duel()
    state = state.replace(dice_script=(5, 5, 1, 1))
    state, events = play_turn(state, plans)
    rolls = of_type(events, PbwAthletics)
    assert [(r.total, r.difficulty, r.success) for r in rolls] == [(14, 10, True), (6, 10, False)]
    assert [m.to.label for m in of_type(events, UnitMoved)] == ["0304", "0305"]
    assert of_type(events, PbwMoveStopped)[0].reason == "athletics"
    assert ch(state, "ana").fatigue == 2


def test_pbw_2_a_skipped_segment_gives_one_melee_defence() -> None:
    """Seed: "Por cada segmento al que se renuncie se puede utilizar una acción para defenderse de ataques cuerpo a
    cuerpo". Bob skips one segment: the first attack is opposed, the second is not."""
    state = make([person("ana", "a", "0303", initiative=6), person("bob", "b", "0304", initiative=2)])
    plans = {
        "ana": [act("melee", target="bob"), act("melee", target="bob")],
        "bob": [act("stow"), act("draw", weapon=2), DEFEND],
    }
    # segment 1: ana (3, 3) + 5 = 11 against bob's defence (6, 5) + 5 = 16; segment 2: ana (2, 2) + 5 = 9 vs 10
    state = state.replace(dice_script=(3, 3, 6, 5, 2, 2))
    state, events = play_turn(state, plans)
    attacks = of_type(events, PbwAttack)
    assert [(a.defence, a.total, a.difficulty, a.hit) for a in attacks] == [
        (16, 11, 17, False),
        (None, 9, 10, False),
    ]
    assert [d.left for d in of_type(events, PbwDefence)] == [0]


def test_pbw_2_changing_an_intention_costs_a_later_action() -> None:
    """Seed: "el personaje está obligado a renunciar a una acción para el turno". Three shots declared; a change
    in segment 1 gives up the last one."""
    state = duel()
    plans = {"ana": [act("shoot", target="bob")] * 3}
    state, _ = declare_all(state, plans)
    change = Change(unit="ana", segment=1, action=act("move", path=["0304"]))
    result = segment(state, {"ana": change})
    changed = of_type(result.events, PbwIntentionChanged)[0]
    assert (changed.segment, changed.forfeited, changed.key) == (1, 3, "pbw.changed.forfeit")
    assert [a.action for a in record(result.state, "ana").plan] == ["move", "shoot", "lost"]
    assert ch(result.state, "ana").at is not None and ch(result.state, "ana").at.label == "0304"


def test_pbw_2_a_change_paid_with_a_spare_action_cannot_defend() -> None:
    """Seed: "(y no podrá usar esa acción para defenderse)": the spare action was the skipped segment's defence."""
    state = make([person("ana", "a", "0303", initiative=2), person("bob", "b", "0304", initiative=6)])
    plans = {
        "ana": [act("melee", target="bob"), act("melee", target="bob"), DEFEND],
        "bob": [DEFEND, act("melee", target="ana")],
    }
    state, _ = declare_all(state, plans)
    result = segment(state, {"ana": Change(unit="ana", segment=1, action=act("stow"))})
    assert of_type(result.events, PbwIntentionChanged)[0].forfeited == 0
    assert record(result.state, "ana").defences_left(2) == 0
    result = segment(result.state)  # bob attacks in segment 2: ana has no defence left
    attack = next(a for a in of_type(result.events, PbwAttack) if a.unit == "bob")
    assert attack.defence is None


def test_pbw_2_a_change_with_nothing_left_to_pay_is_refused() -> None:
    state = duel()
    plans = {"ana": [act("shoot", target="bob"), act("shoot", target="bob"), DEFEND]}
    state, _ = declare_all(state, plans)
    state = segment(state).state
    state = segment(state).state
    with pytest.raises(IllegalOrderError) as err:
        RS.validate_order(state, "ana", Change(unit="ana", segment=3, action=act("shoot", target="bob")))
    assert err.value.rule == "PBW-2" and err.value.code == "pbw.cannot_pay"
    assert "ana" not in RS.awaiting(state), "nobody is asked who cannot pay"


def test_pbw_2_keeping_the_declared_action_costs_nothing() -> None:
    state, _ = declare_all(duel(), {"ana": [act("shoot", target="bob")] * 3})
    assert "ana" in RS.awaiting(state) and RS.optional_orders(state)
    result = segment(state, {"ana": RS.parse_order(state, "ana", "keep")})
    assert not of_type(result.events, PbwIntentionChanged)
    assert record(result.state, "ana").spent == 1


def test_pbw_2_draw_stow_and_reload_are_actions_and_are_planned_ahead() -> None:
    """Seed: "Recargar un arma" and "Guardar un objeto o coger un objeto de su sitio" take one action each; the
    declaration is checked with the hands as the earlier segments leave them."""
    state = step(duel(), {"bob": {"segments": [{"action": "defend"}]}}).state
    knife_first = {"segments": [{"action": "melee", "target": "bob", "weapon": 2}]}
    with pytest.raises(IllegalOrderError, match="not in hand"):
        step(state, {"ana": knife_first})
    swap = {"segments": [{"action": "draw", "weapon": 2}]}
    with pytest.raises(IllegalOrderError, match="stow it first"):
        step(state, {"ana": swap})
    ok = {"segments": [{"action": "stow"}, {"action": "draw", "weapon": 2}, {"action": "defend"}]}
    state = step(state, {"ana": ok}).state
    for _ in range(3):
        state = segment(state).state
    assert ch(state, "ana").held == 1


def test_pbw_2_an_empty_weapon_must_be_reloaded() -> None:
    state = make(
        [
            person("ana", "a", "0303", initiative=6, weapons=[{"type": "bow", "ammo": 0}]),
            person("bob", "b", "0310", initiative=2),
        ]
    )
    state = step(state, {"bob": {"segments": [{"action": "defend"}]}}).state
    with pytest.raises(IllegalOrderError) as err:
        step(state, {"ana": {"segments": [{"action": "shoot", "target": "bob"}]}})
    assert err.value.code == "pbw.empty"
    plan = {
        "segments": [
            {"action": "reload"},
            {"action": "shoot", "target": "bob"},
            {"action": "shoot", "target": "bob"},
        ]
    }
    with pytest.raises(IllegalOrderError, match="empty"):
        step(state, {"ana": plan})  # a bow holds one arrow
    step(state, {"ana": {"segments": plan["segments"][:2]}})


# --- PBW-3 ------------------------------------------------------------------------------------------------------


def tired(state: EncounterState, uid: str, fatigue: int) -> EncounterState:
    return state.with_units([dataclasses.replace(ch(state, uid), fatigue=fatigue)])


def test_pbw_3_at_fatigue_equal_to_the_attribute_one_action_per_turn() -> None:
    """Seed: "Cuando el nivel de fatiga acumulado iguala o supera el valor del atributo de Fatiga ... el número de
    acciones por turno a 1 en lugar de 3"."""
    state = tired(duel(), "bob", 4)
    two = {"segments": [{"action": "shoot", "target": "ana"}, {"action": "shoot", "target": "ana"}]}
    with pytest.raises(IllegalOrderError) as err:
        step(state, {"bob": two})
    assert err.value.rule == "PBW-3" and err.value.code == "pbw.tired"
    result = step(state, {"bob": {"segments": [{"action": "defend"}, {"action": "shoot", "target": "ana"}]}})
    assert record(result.state, "bob").actions == 1


def test_pbw_3_at_twice_the_attribute_the_character_is_exhausted_and_rests() -> None:
    """Seed: "Si el nivel de fatiga alcanza el doble del valor del atributo de Fatiga, el personaje ya no puede usar
    acciones en el turno y cae exhausto" — nothing to ask: it rests, and a whole turn of rest recovers one point."""
    state = tired(duel(), "bob", 8)
    assert RS.awaiting(state) == ("ana",)
    state, events = play_turn(state, {})
    locked = {e.unit: e for e in of_type(events, DeclarationLocked)}
    assert locked["bob"].source == "exhausted" and locked["bob"].rest
    recovered = [e for e in of_type(events, PbwFatigue) if e.unit == "bob"]
    assert [(e.change, e.fatigue, e.reason) for e in recovered] == [(-1, 7, "rest")]
    assert ch(state, "bob").actions_per_turn() == 1


def test_pbw_3_a_whole_turn_of_rest_recovers_one_point_unless_broken_by_a_change() -> None:
    """Seed: "debe renunciar a todas sus acciones durante el turno"."""
    state = tired(duel(), "ana", 2)
    rest = [act("rest")] * 3
    after, _ = play_turn(state, {"ana": rest})
    assert ch(after, "ana").fatigue == 1
    broken, events = play_turn(
        state, {"ana": rest}, {2: {"ana": Change(unit="ana", segment=2, action=act("stow"))}}
    )
    assert of_type(events, PbwIntentionChanged)[0].rest_broken
    assert ch(broken, "ana").fatigue == 2


def test_pbw_3_a_turn_spent_only_defending_is_a_turn_of_rest() -> None:
    """Seed: "debe renunciar a todas sus acciones durante el turno (por ejemplo, en un combate se puede permanecer a
    la defensiva todo el turno y solo defenderse de ataques)" — three skipped segments, or no declaration at all,
    recover one point like ``rest``."""
    state = tired(tired(duel(), "ana", 2), "bob", 3)
    after, events = play_turn(state, {"ana": [DEFEND] * 3})  # bob declares nothing
    recovered = {e.unit: (e.change, e.fatigue, e.reason) for e in of_type(events, PbwFatigue)}
    assert recovered == {"ana": (-1, 1, "defended"), "bob": (-1, 2, "defended")}
    assert ch(after, "ana").fatigue == 1 and ch(after, "bob").fatigue == 2


def test_pbw_3_defending_then_acting_is_no_rest() -> None:
    """Any action (here a change of intention to stow) gives up the turn of rest, as it does for ``rest``."""
    state = tired(duel(), "ana", 2)
    one_shot, _ = play_turn(state, {"ana": [DEFEND, DEFEND, act("shoot", target="bob")]})
    assert ch(one_shot, "ana").fatigue == 2
    changed, _ = play_turn(
        state, {"ana": [DEFEND] * 3}, {2: {"ana": Change(unit="ana", segment=2, action=act("stow"))}}
    )
    assert ch(changed, "ana").fatigue == 2


def test_pbw_3_rest_takes_the_whole_turn() -> None:
    state = step(duel(), {"bob": {"segments": [{"action": "defend"}]}}).state
    with pytest.raises(IllegalOrderError) as err:
        step(state, {"ana": {"segments": [{"action": "rest"}, {"action": "shoot", "target": "bob"}]}})
    assert err.value.rule == "PBW-3"
    result = step(state, {"ana": {"segments": [{"action": "rest"}]}})
    assert [a.action for a in record(result.state, "ana").plan] == ["rest"] * 3


def test_pbw_3_melee_and_athletics_raise_fatigue_house() -> None:
    """[HOUSE] data/pbw/turn.toml: +1 per melee attack, per melee defence and per Athletics roll."""
    state = make([person("ana", "a", "0303", initiative=6), person("bob", "b", "0304", initiative=2)])
    plans = {"ana": [act("melee", target="bob")], "bob": [DEFEND]}
    state = state.replace(
        dice_script=(1, 1, 1, 1)
    )  # both roll double 1 (DICE-3: both fail, the attack misses)
    state, events = play_turn(state, plans)
    assert [(e.unit, e.reason) for e in of_type(events, PbwFatigue)] == [
        ("ana", "melee_attack"),
        ("bob", "melee_defence"),
        ("bob", "defended"),  # PBW-3: bob's turn was only defending, a turn of rest
    ]
    assert ch(state, "ana").fatigue == 1 and ch(state, "bob").fatigue == 0


def test_pbw_state_mid_turn_round_trips_through_json() -> None:
    state, _ = declare_all(duel(), {"ana": [act("move", path=["0304"]), act("shoot", target="bob")]})
    state = segment(state).state
    assert from_json(to_json(state)) == state


def test_pbw_dice_order_attack_then_location_then_damage() -> None:
    """DESIGN §7.4: per attack 2d6, then the location 1d10 unless aimed, then the weapon's damage dice."""
    state = duel()
    state = state.replace(dice_script=(6, 5, 4, 3, 3))
    state, events = play_turn(state, {"ana": [act("shoot", target="bob")]})
    rolls = [(r.rule, r.dice) for r in of_type(events, RollMade)]
    assert rolls == [("PBW-5", (6, 5)), ("PBW-4", (4,)), ("PBW-4", (3, 3))]
    attack = of_type(events, PbwAttack)[0]
    assert (attack.roll, attack.location, attack.damage) == (11, "torso", 8)
