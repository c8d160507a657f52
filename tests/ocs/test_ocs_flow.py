"""The director-run procedure (OCS-2..6 in play): who is asked what and when, several combats at once, losses,
options, retreats, free moves and mode changes, and what the bot needs (awaiting, auto_resolves, JSON)."""

from __future__ import annotations

from typing import Any

import pytest

from rules.errors import IllegalOrderError, InvalidOrderError
from rules.ocs.model import READY, RETREAT, ext_of, find_combat
from rules.ocs.orders import FreeMove, Losses, OpenCombat, Retreats
from rules.ocs.queries import loss_allocations, questions, retreat_options
from rules.ruleset import DIRECTOR, OrderMode
from rules.serial import from_json, to_json
from rules.state import EncounterState
from tests.ocs_fixtures import OCS, board, director, give, of_type, order, resolve, unit

TWO_ON_TWO = [
    ("a1", "axis", "0505", 3, 3, 2),
    ("a2", "axis", "0506", 4, 4, 2),
    ("d1", "allies", "0605", 2, 2, 2),
    ("d2", "allies", "0605", 2, 3, 2),
]


def _refused(state: EncounterState, actor: str, raw: Any, code: str) -> IllegalOrderError:
    with pytest.raises(IllegalOrderError) as err:
        order(state, actor, raw)
    assert err.value.code == f"ocs.{code}", err.value
    assert err.value.rule and err.value.rule.startswith("OCS-")
    return err.value


def _open(state: EncounterState, attackers: list[str], at: str, **extra: Any) -> EncounterState:
    return director(state, {"combat": {"attackers": attackers, "defender": at, **extra}}).state


def test_an_idle_encounter_waits_for_the_director() -> None:
    state = board(TWO_ON_TWO)
    assert OCS.order_mode is OrderMode.DIRECTOR and state.phase == "combat"
    assert OCS.awaiting(state) == () and not OCS.auto_resolves(state)


def test_ocs2_a_resolution_with_no_order_is_idle_until_a_combat_is_ready_to_roll() -> None:
    """The director's resolve is refused when it would change nothing (``Ruleset.idle``): with no order given,
    only a combat ready to roll (or one to call off) makes a resolution do something."""
    state = board(TWO_ON_TWO)
    assert OCS.idle(state, {})
    move = order(state, DIRECTOR, {"move": {"unit": "a1", "to": "0404"}})
    assert not OCS.idle(state, {DIRECTOR: move}), "an order is something to resolve"
    asked = _open(state, ["a1", "a2"], "0605")
    assert OCS.awaiting(asked) == ("a1",) and OCS.idle(asked, {}), "a question waits for its answer"
    ready = give(give(asked, "a2", {"ar": "a2"}).state, "d1", {"ar": "d2"}).state
    assert OCS.auto_resolves(ready) and not OCS.idle(ready, {}), "a combat ready to roll"


def test_ocs2_the_attacker_chooses_its_ar_unit_first_then_the_defender() -> None:
    """Seed: «Cada jugador tendrá que seleccionar aquella unidad que desee utilizar para determinar el "Action
    Rating" de su bando (el atacante elige primero su unidad)». The roll waits for the next resolution."""
    state = _open(board(TWO_ON_TWO), ["a1", "a2"], "0605")
    assert OCS.awaiting(state) == ("a1",) and not OCS.auto_resolves(state)
    _refused(state, "d1", {"ar": "d2"}, "other_side")
    _refused(state, "a1", {"ar": "d1"}, "ar_not_involved")
    chosen = give(state, "a2", {"ar": "a2"})  # any unit of the side in the combat may answer
    assert [(e.role, e.unit, e.ar) for e in of_type(chosen, "OcsArChosen")] == [("attacker", "a2", 4)]
    assert OCS.awaiting(chosen.state) == ("d1",)
    both = give(chosen.state, "d1", {"ar": "d2"})
    assert not of_type(both, "RollMade"), "the roll comes in the next resolution"
    combat = find_combat(both.state, 1)
    assert (
        combat is not None
        and combat.stage == READY
        and (combat.ar_attacker, combat.ar_defender) == ("a2", "d2")
    )
    assert OCS.awaiting(both.state) == () and OCS.auto_resolves(both.state)
    rolled = resolve(both.state)
    assert [r.rule for r in of_type(rolled, "RollMade")][:1] == ["OCS-5"]
    assert of_type(rolled, "OcsActionRatings")[0].drm == 4 - 3


def test_ocs2_a_side_with_one_unit_names_it_without_being_asked() -> None:
    state = board([("a", "axis", "0505", 3, 3, 2), ("d", "allies", "0605", 2, 2, 2)])
    opened = director(state, {"combat": {"attackers": ["a"], "defender": "0605", "kind": "overrun"}})
    assert [(e.role, e.forced) for e in of_type(opened, "OcsArChosen")] == [
        ("attacker", True),
        ("defender", True),
    ]
    assert OCS.auto_resolves(opened.state) and OCS.awaiting(opened.state) == ()


def test_ocs2_ar_units_must_take_part_and_the_defender_never_chooses_first() -> None:
    state = board(TWO_ON_TWO)
    base = {"attackers": ["a1", "a2"], "defender": "0605"}
    _refused(state, DIRECTOR, {"combat": {**base, "ar_attacker": "d1"}}, "ar_not_attacking")
    _refused(state, DIRECTOR, {"combat": {**base, "ar_defender": "d1"}}, "ar_order")
    _refused(
        state, DIRECTOR, {"combat": {**base, "ar_attacker": "a1", "ar_defender": "a2"}}, "ar_not_defending"
    )
    opened = director(state, {"combat": {**base, "ar_attacker": "a1"}})
    assert OCS.awaiting(opened.state) == ("d1",)


@pytest.mark.parametrize(
    ("attackers", "at", "code"),
    [
        (["a1"], "0606", "no_defender"),
        (["a1"], "0505", "own_side"),
        (["far"], "0605", "not_adjacent"),
        (["strat"], "0605", "strategic"),
        (["zero"], "0605", "no_strength"),
        (["a1", "foe"], "0605", "own_side"),
        (["a1"], "9999", "off_board"),
    ],
)
def test_ocs2_who_may_attack(attackers: list[str], at: str, code: str) -> None:
    """DESIGN §7.2: attackers adjacent to the defender hex, not in strategic mode; a strength on both sides."""
    state = board(
        [
            *TWO_ON_TWO,
            ("far", "axis", "0303", 3, 3, 1),
            ("strat", "axis", "0604", 3, 3, 1, "strategic"),
            ("zero", "axis", "0705", 0, 3, 1),
            ("foe", "allies", "0706", 3, 3, 1),
        ]
    )
    _refused(state, DIRECTOR, {"combat": {"attackers": attackers, "defender": at}}, code)


def test_only_the_director_opens_and_cancels_combats() -> None:
    state = board(TWO_ON_TWO)
    _refused(state, "a1", {"combat": {"attackers": ["a1"], "defender": "0605"}}, "director_opens")
    opened = _open(state, ["a1", "a2"], "0605")
    _refused(opened, "a1", {"cancel": {"combat": 1}}, "director_cancels")
    cancelled = director(opened, {"cancel": {"combat": 1}})
    (event,) = of_type(cancelled, "OcsCombatCancelled")
    assert event.reason == "called_off" and ext_of(cancelled.state).combats == ()
    _refused(cancelled.state, DIRECTOR, {"cancel": {"combat": 1}}, "no_combat")


def test_several_combats_are_open_at_once_and_ask_one_unit_each() -> None:
    state = board(
        [
            *TWO_ON_TWO,
            ("b1", "axis", "0209", 2, 2, 1),
            ("b2", "axis", "0208", 2, 3, 1),
            ("e1", "allies", "0309", 1, 1, 1),
            ("e2", "allies", "0309", 1, 2, 1),
        ]
    )
    state = _open(state, ["a1", "a2"], "0605")
    state = _open(state, ["b1", "b2"], "0309")
    assert OCS.awaiting(state) == ("a1", "b1")
    assert [(q.combat, q.role, q.answer) for q in questions(state)] == [
        (1, "attacker", "ar"),
        (2, "attacker", "ar"),
    ]
    _refused(state, "a1", {"combat": {"attackers": ["a1"], "defender": "0605"}}, "director_opens")
    _refused(state, DIRECTOR, {"combat": {"attackers": ["a1"], "defender": "0605"}}, "hex_engaged")
    # the director answering must say which combat when two wait for the same answer
    _refused(state, DIRECTOR, {"ar": "a1"}, "no_combat")
    answers = {
        "a1": order(state, "a1", {"ar": "a1"}),
        DIRECTOR: order(state, DIRECTOR, {"ar": "b2", "combat": 2}),
    }
    state = resolve(state, answers).state
    assert OCS.awaiting(state) == ("d1", "e1")
    state = resolve(
        state, {"d1": order(state, "d1", {"ar": "d1"}), "e2": order(state, "e2", {"ar": "e2"})}
    ).state
    assert OCS.auto_resolves(state) and OCS.awaiting(state) == ()
    both = resolve(state, dice=(3, 4, 3, 4, 3, 4, 3, 4))
    assert [(r.purpose.split(", ")[-1], r.dice) for r in of_type(both, "RollMade")] == [
        ("combat 1 on 0605", (3, 4)),
        ("combat 1 on 0605", (3, 4)),
        ("combat 2 on 0309", (3, 4)),
        ("combat 2 on 0309", (3, 4)),
    ]


def _rolled(units: list[tuple[Any, ...]], dice: tuple[int, ...], **open_extra: Any) -> EncounterState:
    """a1 and a2 attack 0605 and the combat rolls with ``dice``."""
    state = _open(board(units), ["a1", "a2"], "0605", **open_extra)
    return resolve(state, dice=dice).state


def test_ocs6_losses_beyond_the_first_and_the_option_by_the_defenders_choice() -> None:
    """9 against 1 (9:1, column 10), DRM 3 − 4 = −1, combat 1+1 −1 = 1: AL1 DL2o2. The attacker's single step is
    its AR unit's; the defender's first is d1's, then one more of its choice and up to two option steps, each one
    hex less of retreat."""
    units = [
        ("a1", "axis", "0505", 5, 3, 2),
        ("a2", "axis", "0506", 4, 2, 2),
        ("d1", "allies", "0605", 0.5, 4, 2),
        ("d2", "allies", "0605", 0.5, 1, 2),
    ]
    state = _rolled(units, (3, 3, 1, 1), ar_attacker="a1", ar_defender="d1")
    assert unit(state, "a1").steps == 1 and unit(state, "d1").steps == 1
    combat = find_combat(state, 1)
    assert combat is not None and combat.stage == "defender_losses" and combat.result is not None
    assert combat.result.text == "AL1 DL2o2"
    assert OCS.awaiting(state) == ("d1",) and not OCS.auto_resolves(state)
    assert loss_allocations(state, 1) == (("d1",), ("d2",), ("d1", "d2"), ("d2", "d2"), ("d1", "d2", "d2"))
    _refused(state, "d1", {"losses": []}, "loss_count")
    _refused(state, "d1", {"losses": ["d1", "d1"]}, "loss_too_many")
    _refused(state, "d1", {"losses": ["a1"]}, "loss_not_involved")
    _refused(state, "a1", {"losses": ["d2"]}, "other_side")
    after = give(state, "d2", {"losses": ["d2"]})
    assert [(e.unit, e.cause) for e in of_type(after, "OcsStepLost")] == [("d2", "owner_choice")]
    (settled,) = of_type(after, "OcsOptionSettled")
    assert (settled.option, settled.steps, settled.retreat) == (2, 0, 2)
    combat = find_combat(after.state, 1)
    assert combat is not None and combat.stage == RETREAT and combat.retreat == 2
    options = retreat_options(after.state, 1)
    assert set(options) == {"d1", "d2"} and all(len(h) > 1 for h in options.values())
    assert all(h.distance(combat.at) == 2 for hexes in options.values() for h in hexes)
    _refused(after.state, "d1", {"retreats": {"d1": "0805"}}, "retreat_units")
    _refused(after.state, "d1", {"retreats": {"d1": "0705", "d2": "0805"}}, "retreat_hex")
    done = give(after.state, "d1", {"retreats": {"d1": "0805", "d2": "0804"}})
    assert [(e.unit, e.to.label, e.rule) for e in of_type(done, "UnitMoved")] == [
        ("d1", "0805", "OCS-6"),
        ("d2", "0804", "OCS-6"),
    ]
    assert of_type(done, "OcsCombatEnded") and ext_of(done.state).combats == ()
    assert OCS.awaiting(done.state) == () and not OCS.auto_resolves(done.state)


def test_ocs6_a_defender_that_cannot_retreat_takes_its_option_as_steps() -> None:
    """4 against 1 (4:1, column 5), combat 2+3 = 5: DL1o1. Enemy units all around: no retreat hex, so the option
    must be a step (an empty list is refused)."""
    ring = [(f"r{i}", "axis", h, 1, 1, 1) for i, h in enumerate(("0604", "0705", "0706", "0606"))]
    units = [("a1", "axis", "0505", 2, 2, 2), ("a2", "axis", "0506", 2, 2, 2), *ring]
    units += [("d1", "allies", "0605", 0.5, 2, 2), ("d2", "allies", "0605", 0.5, 2, 2)]
    state = _open(board(units), ["a1", "a2"], "0605", ar_attacker="a1", ar_defender="d1")
    state = resolve(state, dice=(3, 3, 2, 3)).state
    assert loss_allocations(state, 1) == (("d1",), ("d2",))
    err = _refused(state, "d1", {"losses": []}, "no_retreat")
    assert err.params["hexes"] == 1


def test_ocs6_a_single_legal_choice_is_applied_without_asking() -> None:
    """The same DL1o1 with one defender unit: its one legal answer (the option as a step) is taken at once."""
    ring = [(f"r{i}", "axis", h, 1, 1, 1) for i, h in enumerate(("0604", "0705", "0706", "0606"))]
    units = [
        ("a1", "axis", "0505", 2, 2, 2),
        ("a2", "axis", "0506", 1.5, 2, 2),
        *ring,
        ("d1", "allies", "0605", 1, 2, 3),
    ]
    state = _open(board(units), ["a1", "a2"], "0605", ar_attacker="a1")
    result = resolve(state, dice=(3, 3, 2, 3))
    assert [(e.unit, e.cause) for e in of_type(result, "OcsStepLost")] == [
        ("d1", "action_rating"),
        ("d1", "option_step"),
    ]
    assert unit(result.state, "d1").steps == 1 and of_type(result, "OcsCombatEnded")


def test_ocs6_a_loss_of_every_step_eliminates_the_side() -> None:
    """AL2 against an attacker with two steps in all: both gone, nothing to choose (first step rule moot)."""
    units = [
        ("a1", "axis", "0505", 1, 2, 1),
        ("a2", "axis", "0506", 1, 2, 1),
        ("d1", "allies", "0605", 4, 2, 2),
    ]
    result = resolve(_open(board(units), ["a1", "a2"], "0605", ar_attacker="a1"), dice=(3, 3, 1, 1))
    assert [e.unit for e in of_type(result, "UnitDestroyed")] == ["a1", "a2"]
    assert all(e.cause == "every_step" for e in of_type(result, "OcsStepLost"))
    assert unit(result.state, "a1").destroyed and ext_of(result.state).combats == ()


def test_free_moves_are_logged_and_kept_out_of_combats() -> None:
    """The seed gives no movement rules: owner or director move freely, every move an event."""
    state = board([*TWO_ON_TWO, ("c", "axis", "0303", 1, 1, 1), ("e", "allies", "0808", 1, 1, 1)])
    moved = director(state, {"move": {"unit": "c", "to": "0304"}})
    (event,) = of_type(moved, "UnitMoved")
    assert (event.unit, event.frm.label, event.to.label, event.rule) == ("c", "0303", "0304", "OCS-1")
    by_owner = give(moved.state, "c", {"move": {"to": "0305"}})
    assert unit(by_owner.state, "c").at is not None and unit(by_owner.state, "c").at.label == "0305"  # type: ignore[union-attr]
    _refused(state, "a1", {"move": {"unit": "c", "to": "0304"}}, "not_yours")
    _refused(state, DIRECTOR, {"move": {"unit": "c", "to": "0808"}}, "enemy_hex")
    _refused(state, DIRECTOR, {"move": {"unit": "c", "to": "0303"}}, "same_hex")
    _refused(state, DIRECTOR, {"move": {"unit": "c", "to": "1111"}}, "off_board")
    engaged = _open(state, ["a1", "a2"], "0605")
    _refused(engaged, DIRECTOR, {"move": {"unit": "a1", "to": "0404"}}, "engaged")
    _refused(engaged, DIRECTOR, {"move": {"unit": "d1", "to": "0404"}}, "engaged")
    _refused(engaged, DIRECTOR, {"move": {"unit": "c", "to": "0605"}}, "enemy_hex")


def test_ocs1_mode_changes_are_logged_and_dg_costs_one_ar() -> None:
    state = board([("a", "axis", "0505", 3, 3, 2), ("d", "allies", "0605", 2, 2, 2)])
    dg = director(state, {"mode": {"unit": "a", "to": "dg"}})
    (event,) = of_type(dg, "OcsModeChanged")
    assert (event.frm, event.to) == ("normal", "dg")
    _refused(dg.state, DIRECTOR, {"mode": {"unit": "a", "to": "dg"}}, "same_mode")
    rolled = resolve(_open(dg.state, ["a"], "0605"), dice=(3, 3, 3, 3))
    assert of_type(rolled, "OcsActionRatings")[0].attacker_ar == 2
    strategic = director(state, {"mode": {"unit": "a", "to": "strategic"}}).state
    _refused(strategic, DIRECTOR, {"combat": {"attackers": ["a"], "defender": "0605"}}, "strategic")


def test_a_combat_broken_outside_the_procedure_is_called_off_by_the_next_resolution() -> None:
    """A director override (``/director remove-unit``) can take a defender away: the combat cannot be fought, the
    bot resolves at once, and the combat ends with the reason."""
    state = _open(board(TWO_ON_TWO), ["a1", "a2"], "0605")
    broken = state.without_unit("d1").without_unit("d2")
    assert OCS.awaiting(broken) == () and OCS.auto_resolves(broken)
    result = resolve(broken)
    (event,) = of_type(result, "OcsCombatCancelled")
    assert event.reason == "defender_gone" and not OCS.auto_resolves(result.state)


def test_an_answer_overtaken_in_the_same_resolution_is_dropped_and_asked_again() -> None:
    """Orders are checked when given; one that another order of the same resolution made illegal (the director
    moved an enemy into the chosen retreat hex first) is dropped with a note, and the side is asked again."""
    units = [
        ("a1", "axis", "0505", 5, 3, 2),
        ("a2", "axis", "0506", 4, 2, 2),
        ("d1", "allies", "0605", 0.5, 4, 2),
        ("d2", "allies", "0605", 0.5, 1, 2),
        ("c", "axis", "0902", 1, 1, 1),
    ]
    state = _rolled(units, (3, 3, 1, 1), ar_attacker="a1", ar_defender="d1")
    state = give(state, "d1", {"losses": ["d2"]}).state
    answers = {
        "d1": order(state, "d1", {"retreats": {"d1": "0805", "d2": "0805"}}),
        DIRECTOR: order(state, DIRECTOR, {"move": {"unit": "c", "to": "0805"}}),
    }
    result = resolve(state, answers)
    (note,) = of_type(result, "Note")
    assert note.key == "ocs.order_dropped" and note.unit == "d1"
    assert OCS.awaiting(result.state) == ("d1",)
    assert "0805" not in {h.label for hexes in retreat_options(result.state, 1).values() for h in hexes}


@pytest.mark.parametrize(
    "raw",
    [
        "attack",
        {"attack": {}},
        {"ar": "a1", "losses": []},
        {"ar": ""},
        {"losses": "a1"},
        {"retreats": ["0805"]},
        {"retreats": {"d1": "zz"}},
        {"combat": {"attackers": [], "defender": "0605"}},
        {"combat": {"attackers": ["a1", "a1"], "defender": "0605"}},
        {"combat": {"attackers": ["a1"], "defender": "0605", "kind": "blitz"}},
        {"combat": {"attackers": ["a1"], "defender": 605}},
        {"combat": {"attackers": ["a1"], "defender": "0605", "odds": "3:1"}},
        {"combat": ["a1"]},
        {"move": {"unit": "a1"}},
        {"mode": {"unit": "a1", "to": "fast"}},
        {"cancel": {"combat": "one"}},
        {"ar": "a1", "combat": 0},
    ],
)
def test_bad_syntax_is_an_invalid_order_with_a_hint(raw: Any) -> None:
    with pytest.raises(InvalidOrderError) as err:
        OCS.parse_order(board(TWO_ON_TWO), DIRECTOR, raw)
    assert err.value.code == "ocs.syntax" and err.value.params["detail"]


def test_orders_and_open_combats_survive_json() -> None:
    state = _open(board(TWO_ON_TWO), ["a1", "a2"], "0605", kind="overrun")
    assert from_json(to_json(state)) == state
    for o in (
        order(state, "a1", {"ar": "a2"}),
        OpenCombat(unit=DIRECTOR, attackers=("a1",), at=state.units["d1"].at),  # type: ignore[arg-type]
        FreeMove(unit=DIRECTOR, who="a1", to=state.units["d1"].at),  # type: ignore[arg-type]
        Losses(unit="d1", combat=1, losses=("d1", "d1")),
        Retreats(unit="d1", combat=1, retreats=(("d1", state.units["a1"].at),)),  # type: ignore[arg-type]
    ):
        assert from_json(to_json(o)) == o
