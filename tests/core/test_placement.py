"""The director's hand cannot break the board: ``Ruleset.check_placement`` in every ruleset and through the night
layer, as ``/director move`` and ``/director add-unit`` meet it (bot/transforms/overrides.py). A refusal names the reason and
the rule id, and nothing is changed."""

from __future__ import annotations

import dataclasses

import pytest

from bot.process.client import error_text
from bot.service import bundled_scenarios
from bot.transforms import overrides
from data import SCENARIO_DIR
from rules.errors import IllegalOrderError
from rules.hexgrid import Hex
from rules.layer import LayeredRuleset
from rules.registry import get_ruleset, public_ruleset_ids, ruleset_for
from rules.scenario import load_scenario
from rules.skirmish.model import Character
from rules.state import EncounterState, Marker, replace_unit


def _bounded() -> dict[str, tuple[str, str]]:
    """Per public ruleset, its first bundled scenario with a bounded board (HEX-1) and that scenario's first unit;
    read from the bundled scenarios, so a new ruleset is covered by shipping one."""
    found: dict[str, tuple[str, str]] = {}
    for sid, _, rid in sorted(bundled_scenarios()):
        if rid in found or rid not in public_ruleset_ids():
            continue
        state = load_scenario(SCENARIO_DIR / f"{sid}.toml").state
        if state.board.width is not None:
            found[rid] = (sid, next(iter(state.units)))
    return found


BOUNDED = _bounded()


def scenario(name: str) -> EncounterState:
    return load_scenario(SCENARIO_DIR / f"{name}.toml").state


def refused(state: EncounterState, unit: str, to: str) -> IllegalOrderError:
    """The refusal of moving ``unit`` to ``to`` by hand, after checking that the state it was given is intact."""
    before = state
    with pytest.raises(IllegalOrderError) as caught:
        overrides.move(state, unit, Hex.parse(to))
    assert state == before
    return caught.value


def test_every_public_ruleset_has_a_bounded_scenario_or_an_unbounded_board() -> None:
    """HEX-1 is checked wherever a board has an edge: a ruleset without a bounded bundled scenario is one whose
    boards have none by default (EXO-4.4: space)."""
    for rid in public_ruleset_ids():
        assert rid in BOUNDED or get_ruleset(rid).unbounded_by_default, rid


@pytest.mark.parametrize("rid", sorted(BOUNDED))
def test_hex_1_a_hex_off_the_board_is_refused_in_every_ruleset(rid: str) -> None:
    name, unit = BOUNDED[rid]
    state = scenario(name)
    error = refused(state, unit, "9999")
    assert error.code == "place.off_board" and error.rule == "HEX-1"
    text = error_text(error, "en")
    assert "9999" in text and "[HEX-1]" in text, text
    assert "fuera del tablero" in error_text(error, "es")
    with pytest.raises(IllegalOrderError):
        overrides.add_unit(state, "extra", state.units[unit].side, Hex.parse("9999"), like=unit)


def test_exo_4_4_space_has_no_edge_and_exo_4_5_ships_may_share_a_hex() -> None:
    state = scenario("exo-duel")
    far, _ = overrides.move(state, "halcon", Hex.parse("9999"))
    assert far.units["halcon"].at == Hex.parse("9999")
    pirata = state.units["pirata"].at
    assert pirata is not None
    shared, _ = overrides.move(state, "halcon", pirata)  # a collision the director then rules (EXO-4.5)
    assert shared.units["halcon"].at == pirata


def test_exo_a_bounded_board_still_has_an_edge_hex_1() -> None:
    state = scenario("exo-duel")
    bounded = state.replace(board=dataclasses.replace(state.board, width=20, height=20))
    assert refused(bounded, "halcon", "9999").rule == "HEX-1"


def test_sk_2_4_no_character_on_an_obstacle_an_obstruction_or_another_character() -> None:
    state = scenario("skirmish-corridor")
    for to, terrain in (("0703", "obstacle"), ("0506", "obstruction")):
        error = refused(state, "veddio", to)
        assert (error.code, error.rule) == ("place.impassable", "SK-2.4"), to
        assert terrain in error_text(error, "en")
    error = refused(state, "veddio", "0206")  # Lana's hex
    assert (error.code, error.rule) == ("place.occupied", "SK-2.4") and "Lana" in error_text(error, "en")
    moved, _ = overrides.move(state, "veddio", Hex.parse("0706"))  # difficult ground only costs more
    assert moved.units["veddio"].at == Hex.parse("0706")
    same, _ = overrides.move(state, "veddio", Hex.parse("0204"))  # where it already stands
    assert same.units["veddio"].at == Hex.parse("0204")


def test_sk_6_2_no_character_into_a_fire() -> None:
    state = scenario("skirmish-corridor")
    burning = state.replace(
        markers=(*state.markers, Marker(kind="fire", at=Hex.parse("0305"), expires_round=3))
    )
    error = refused(burning, "veddio", "0305")
    assert (error.code, error.rule) == ("place.impassable", "SK-6.2")


def test_sk_2_4_a_new_character_is_placed_by_the_same_rules() -> None:
    state = scenario("skirmish-corridor")
    with pytest.raises(IllegalOrderError) as caught:
        overrides.add_unit(state, "nova", "rfp", Hex.parse("0206"), like="veddio", name="Nova")
    assert caught.value.rule == "SK-2.4"
    with pytest.raises(IllegalOrderError):
        overrides.add_unit(state, "nova", "rfp", Hex.parse("0506"), like="veddio", name="Nova")
    added, _ = overrides.add_unit(state, "nova", "rfp", Hex.parse("0305"), like="veddio", name="Nova")
    assert added.units["nova"].at == Hex.parse("0305")


def test_mech_1_2_no_unit_in_a_held_hex_and_no_vehicle_in_water() -> None:
    state = scenario("mech-mixed")
    bulldog = state.units["bulldog"].at
    assert bulldog is not None
    error = refused(state, "phawk", bulldog.label)
    assert (error.code, error.rule) == ("place.occupied", "MECH-1.2")
    error = refused(state, "bulldog", "0608")  # water: vehicles cannot enter [HOUSE data/mech/terrain.toml]
    assert (error.code, error.rule) == ("place.impassable", "MECH-1.2")
    assert "water" in error_text(error, "en")
    waded, _ = overrides.move(state, "phawk", Hex.parse("0608"))  # a mech may stand in water
    assert waded.units["phawk"].at == Hex.parse("0608")


def test_pbw_2_no_character_in_a_wall_or_another_characters_hex() -> None:
    state = scenario("pbw-street")
    error = refused(state, "ana", "0303")
    assert (error.code, error.rule) == ("place.impassable", "PBW-2") and "wall" in error_text(error, "en")
    error = refused(state, "ana", "0208")  # Bruno's hex
    assert (error.code, error.rule) == ("place.occupied", "PBW-2")
    covered, _ = overrides.move(state, "ana", Hex.parse("0906"))
    assert covered.units["ana"].at == Hex.parse("0906")


def test_ocs_1_a_side_stacks_but_never_in_the_other_sides_hex() -> None:
    state = scenario("ocs-gazala")
    error = refused(state, "pz21", "0605")  # 7th RTR, allied
    assert (error.code, error.rule) == ("place.occupied", "OCS-1")
    stacked, _ = overrides.move(state, "pz21", Hex.parse("0506"))  # 15th Panzer, same side
    assert stacked.units["pz21"].at == stacked.units["pz15"].at


@pytest.mark.parametrize("name", ["skirmish-night", "mech-night"])
def test_ngt_the_night_layer_places_by_its_ground_rulesets_rules(name: str) -> None:
    state = scenario(name)
    assert isinstance(ruleset_for(state), LayeredRuleset)
    unit = next(iter(state.units))
    assert refused(state, unit, "9999").rule == "HEX-1"
    if name == "skirmish-night":  # the depot's crates at night (SK-2.4 under NGT)
        error = refused(state, "veddio", "0604")
        assert (error.code, error.rule) == ("place.impassable", "SK-2.4")
        assert "obstrucción" in error_text(error, "es")


def test_sk_2_5_a_character_put_down_by_hand_stands_in_its_hex_whole() -> None:
    state = scenario("skirmish-corridor")
    veddio = state.units["veddio"]
    assert veddio.at is not None
    astride = state.with_units([replace_unit(veddio, astride=veddio.at.neighbor(1))])
    moved, _ = overrides.move(astride, "veddio", Hex.parse("0305"))
    placed = moved.units["veddio"]
    assert isinstance(placed, Character) and placed.at == Hex.parse("0305") and placed.astride is None


def test_sk_2_5_no_character_is_put_down_in_a_half_hex() -> None:
    state = scenario("skirmish-corridor")
    lana = state.units["lana"]
    assert lana.at is not None
    half = lana.at.neighbor(0)
    astride = state.with_units([replace_unit(lana, astride=half)])
    error = refused(astride, "veddio", half.label)
    assert (error.code, error.rule) == ("place.occupied", "SK-2.5") and "Lana" in error_text(error, "en")


def test_sk_2_4_pbw_2_mech_1_2_no_terrain_is_painted_under_a_unit_that_could_not_stand_on_it() -> None:
    for name, unit, kind, rule in (
        ("skirmish-corridor", "veddio", "obstruction", "SK-2.4"),
        ("pbw-street", "ana", "wall", "PBW-2"),
        ("mech-mixed", "bulldog", "water", "MECH-1.2"),
    ):
        state = scenario(name)
        at = state.units[unit].at
        assert at is not None
        with pytest.raises(IllegalOrderError) as caught:
            overrides.set_terrain(state, at, kind)
        assert (caught.value.code, caught.value.rule) == ("place.impassable", rule), name
    state = scenario("skirmish-corridor")
    at = state.units["veddio"].at
    assert at is not None
    painted, _ = overrides.set_terrain(state, at, "difficult")  # harder going, but it may stand there
    assert painted.board.terrain_at(at) == "difficult"
