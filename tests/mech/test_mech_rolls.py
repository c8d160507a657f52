"""MECH-2.1a: one Gunnery roll and one Piloting roll per declaration, rolled as it locks (DESIGN §7.1 "Rolls").

Seed (pbw-tactical-mech.es.txt): "Siempre se incluirá una tirada de la habilidad de Pilotar apropiada y una tirada
de Artillería apropiada, con las que el director calculará los impactos, caídas o accidentes, etc. de todos los
participantes." The [HOUSE] variant ``rolls = "weapon"`` keeps a roll per shot and per physical attack.
"""

from __future__ import annotations

from typing import Any

import pytest

from bot.transforms import overrides
from rules.errors import ScenarioError
from rules.events import Event, RollMade
from rules.mech.state import DECLARE, ROLLS_PER_WEAPON, ext_of, per_weapon
from rules.scenario import load_scenario
from rules.state import EncounterState
from tests.mech_fixtures import MECH, build, mech, of_type, play_turn, scenario_text, step, unit


def _declare(
    state: EncounterState, uid: str, raw: dict[str, Any]
) -> tuple[EncounterState, tuple[Event, ...]]:
    order = MECH.parse_order(state, uid, raw)
    MECH.validate_order(state, uid, order)
    return step(state, {uid: order})


def _duel(**keys: Any) -> EncounterState:
    """a (gunnery 7, a medium laser and a PPC) declares first; b stands four hexes ahead, facing it."""
    return build(
        unit(
            "a",
            "red",
            "0810",
            gunnery=7,
            piloting=5,
            initiative=0,
            weapons=[{"type": "medium_laser", "loc": "ct"}, {"type": "ppc", "loc": "ct"}],
        ),
        unit("b", "blue", "0806", facing="S", initiative=9),
        **keys,
    )


def test_mech_2_1a_one_gunnery_roll_meets_each_weapons_own_difficulty() -> None:
    """Seed: "una tirada de Artillería apropiada, con las que el director calculará los impactos". At 4 hexes the
    Medium Laser is at medium range (15 + 3 = 18), the PPC at short range (15): Gunnery 2d6 (6, 4) + 7 = 17
    misses with the laser and hits with the PPC — the same roll, two answers."""
    state = _duel()
    raw = {"a": {"fire": [{"weapon": 1, "target": "b"}, {"weapon": 2, "target": "b"}]}}
    # initiative a (1,1), b (6,6); a locks: Gunnery (6,4), Piloting (1,2); b locks: Gunnery (3,3), Piloting (3,3);
    # the PPC's hit: location (3,4) = 7, centre torso
    dice = (1, 1, 6, 6, 6, 4, 1, 2, 3, 3, 3, 3, 3, 4)
    state, events = play_turn(state, raw, dice=dice)
    (rolled, _b) = of_type(events, "DeclarationRolled")
    assert (rolled.unit, rolled.gunnery_roll, rolled.gunnery_total) == ("a", 10, 17)
    assert (rolled.piloting_roll, rolled.piloting_total) == (3, 8)
    laser, ppc = of_type(events, "WeaponFired")
    assert (laser.target_number, laser.roll, laser.total, laser.hit) == (18, 10, 17, False)
    assert (ppc.target_number, ppc.roll, ppc.total, ppc.hit) == (15, 10, 17, True)
    assert laser.dice == ppc.dice == (6, 4)
    # no shot rolled a die of its own: the only rolls are initiative, the declarations' and the PPC's location
    assert [e.rule for e in of_type(events, "RollMade")] == ["MECH-1.1"] * 2 + ["MECH-2.1a"] * 4 + [
        "MECH-2.3"
    ]
    assert state.dice_script == ()
    assert mech(state, "b").armor["ct"] < mech(_duel(), "b").armor["ct"]


def test_mech_2_1a_dice_order_initiative_then_each_declaration_gunnery_then_piloting() -> None:
    """DESIGN §7.1, rolls = "declaration": initiative per unit in file order; then per declaration in declaration
    order Gunnery 2d6 then Piloting 2d6 (also for one that stands and fires nothing); then per hit its location."""
    state = _duel()
    _, events = play_turn(
        state,
        {"a": {"fire": [{"weapon": 2, "target": "b"}]}},
        dice=(1, 1, 6, 6, 6, 6, 1, 2, 2, 3, 4, 5, 3, 4),
    )
    purposes = [(e.rule, e.actor, e.dice) for e in of_type(events, "RollMade")]
    assert purposes == [
        ("MECH-1.1", "a", (1, 1)),
        ("MECH-1.1", "b", (6, 6)),
        ("MECH-2.1a", "a", (6, 6)),  # a's Gunnery
        ("MECH-2.1a", "a", (1, 2)),  # a's Piloting
        ("MECH-2.1a", "b", (2, 3)),  # b stands and fires nothing: "siempre", both rolls all the same
        ("MECH-2.1a", "b", (4, 5)),
        ("MECH-2.3", "b", (3, 4)),  # the PPC's hit location
    ]


def test_mech_2_1a_the_piloting_roll_serves_every_physical_attack_of_the_turn() -> None:
    """Seed: "una tirada de la habilidad de Pilotar apropiada, con las que el director calculará los impactos,
    caídas o accidentes"; "Para los ataques físicos se usa la habilidad de Pilotaje en lugar de Artillería". Two
    punches, one Piloting roll: both read its total, and neither rolls a die of its own."""
    state = build(
        unit("a", "red", "0810", piloting=5, initiative=0),
        unit("b", "blue", "0809", facing="S", initiative=9),
    )
    raw = {
        "a": {
            "physical": [
                {"kind": "punch", "limb": "la", "target": "b"},
                {"kind": "punch", "limb": "ra", "target": "b"},
            ]
        }
    }
    # initiative; a: Gunnery (1,2), Piloting (5,5) → 15 ≥ 15; b: (1,1), (1,1); two punch locations (1d6 each)
    state, events = play_turn(state, raw, dice=(1, 1, 6, 6, 1, 2, 5, 5, 1, 1, 1, 1, 3, 4))
    punches = of_type(events, "PhysicalAttackMade")
    assert [(p.roll, p.total, p.hit) for p in punches] == [(10, 15, True), (10, 15, True)]
    assert not [
        e for e in of_type(events, "RollMade") if e.rule == "MECH-2.2" and e.sides == 6 and len(e.dice) == 2
    ]
    assert state.dice_script == ()


def test_mech_2_1a_the_piloting_roll_serves_the_fall_check_of_a_death_from_above_that_missed() -> None:
    """Seed: "... con las que el director calculará los impactos, caídas o accidentes": the missed death from
    above and the [HOUSE] roll to stay up read the same Piloting total; only the fall's location is rolled."""
    state = build(
        unit("a", "red", "0810", piloting=0, initiative=0, jump=4),
        unit("b", "blue", "0807", facing="S", initiative=9),
    )
    raw = {"a": {"mode": "jump", "path": ["0809", "0808"], "physical": [{"kind": "dfa", "target": "b"}]}}
    # initiative; a: Gunnery (1,1), Piloting (1,2): 3 misses the dfa and fails to stay up; b: (1,1), (1,1);
    # then a's fall location (3,4)
    state, events = play_turn(state, raw, dice=(1, 1, 6, 6, 1, 1, 1, 2, 1, 1, 1, 1, 3, 4))
    (dfa,) = of_type(events, "PhysicalAttackMade")
    (up,) = of_type(events, "PilotingRolled")
    assert dfa.roll == up.roll == 3 and not dfa.hit and up.fell
    assert mech(state, "a").prone
    assert state.dice_script == ()


def test_mech_2_1a_secret_declarations_keep_their_rolls_sealed_until_the_reveal() -> None:
    """MECH-2.1a with MECH-1.1 secret declarations: the rolls are made as the declaration locks (nobody picks
    weapons after seeing them), but nobody except the director reads them before the reveal shows them."""
    state = _duel(options={"secret_declarations": True})
    state, _ = step(state.replace(dice_script=(1, 1, 6, 6)))
    state, events = _declare(state, "a", {"fire": [{"weapon": 2, "target": "b"}]})
    rolls = of_type(events, "RollMade")
    assert [r.rule for r in rolls] == ["MECH-2.1a", "MECH-2.1a"] and not of_type(events, "DeclarationRolled")
    known = frozenset(state.units)
    assert [e for e in events if MECH.public_event(e, known, known) is not None] == [events[0]]  # the lock
    assert ext_of(state).rolls["a"].gunnery == rolls[0].dice
    state, _ = _declare(state, "b", {})
    state, resolved = step(state)
    revealed = of_type(resolved, "DeclarationRolled")
    assert [e.unit for e in revealed] == ["a", "b"]
    assert revealed[0].gunnery_roll == sum(rolls[0].dice)


def test_mech_2_1a_house_rolls_weapon_keeps_a_roll_per_shot() -> None:
    """[HOUSE] ``rolls = "weapon"`` (a scenario key): no declaration rolls; each shot rolls its own to-hit."""
    state = load_scenario(scenario_text(*_units(), rolls="weapon")).state
    assert state.option(ROLLS_PER_WEAPON) is True
    raw = {"a": {"fire": [{"weapon": 1, "target": "b"}, {"weapon": 2, "target": "b"}]}}
    _, events = play_turn(state, raw, dice=(1, 1, 6, 6, 6, 4, 1, 1))
    assert not of_type(events, "DeclarationRolled")
    assert [e.dice for e in of_type(events, "WeaponFired")] == [(6, 4), (1, 1)]


def _units() -> tuple[str, str]:
    return (
        unit(
            "a",
            "red",
            "0810",
            gunnery=7,
            initiative=0,
            weapons=[{"type": "medium_laser", "loc": "ct"}, {"type": "ppc", "loc": "ct"}],
        ),
        unit("b", "blue", "0806", facing="S", initiative=9),
    )


def test_mech_2_1a_the_rolls_key_is_declaration_or_weapon() -> None:
    assert (
        load_scenario(scenario_text(*_units(), rolls="declaration")).state.option(ROLLS_PER_WEAPON) is False
    )
    with pytest.raises(ScenarioError) as err:
        load_scenario(scenario_text(*_units(), rolls="shot"))
    assert any(p.key == "problem.mech.rolls" for p in err.value.problems)


def test_mech_2_1a_the_directors_switch_takes_effect_from_the_next_initiative() -> None:
    """/director option rolls_per_weapon: a turn already rolled one way is not finished the other way."""
    state = _duel()
    state, _ = step(state.replace(dice_script=(1, 1, 6, 6)))
    assert state.phase == DECLARE
    state, _ = overrides.set_option(state, ROLLS_PER_WEAPON, True)
    assert not per_weapon(state)  # this turn still rolls per declaration
    state, events = _declare(state, "a", {})
    assert of_type(events, "DeclarationRolled")
    state, _ = play_turn(state, {})
    state, _ = step(state)  # the next initiative
    assert per_weapon(state)
    _, events = _declare(state, MECH.awaiting(state)[0], {})
    assert not any(isinstance(e, RollMade) for e in events)


@pytest.mark.parametrize(
    ("locale", "title"), [("es", "Una tirada de Artillería"), ("en", "One Gunnery roll")]
)
def test_mech_2_1a_rule_answers_in_both_languages(locale: str, title: str) -> None:
    from bot.text.rules_reference import lookup

    rule = lookup("MECH-2.1a", locale)
    assert rule is not None and rule.title.startswith(title) and "Siempre se incluirá" in rule.text


def test_mech_2_1a_a_turn_locked_before_the_rule_still_resolves_rolling_per_shot() -> None:
    """An export written before MECH-2.1a may stop mid-turn with declarations that carry no rolls: its shots roll
    their own 2d6 when the turn resolves, so the encounter goes on."""
    import dataclasses

    state = _duel()
    state, _ = step(state.replace(dice_script=(1, 1, 6, 6)))
    state, _ = _declare(state, "a", {"fire": [{"weapon": 2, "target": "b"}]})
    state, _ = _declare(state, "b", {})
    old = state.replace(ext=dataclasses.replace(ext_of(state), rolls={}, per_weapon=None))
    _, events = step(old.replace(dice_script=(6, 5, 3, 4)))
    (shot,) = of_type(events, "WeaponFired")
    assert shot.dice == (6, 5) and shot.hit
    assert [e.rule for e in of_type(events, "RollMade")][:1] == ["MECH-2.1"]
