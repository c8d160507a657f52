"""SK-2.5 half hexes, the seed's optional rule (scenario option ``half_hexes``): "Un personaje activo puede ocupar dos
medios hexágonos de dos hexágonos adyacentes"."""

from __future__ import annotations

import dataclasses
import re
from typing import Any

import pytest

from data.i18n import problem_text
from rules.errors import IllegalOrderError, ScenarioError
from rules.events import ShotResolved, UnitMoved
from rules.hexgrid import Hex, Vertex
from rules.scenario import load_scenario
from rules.serial import from_json, to_json
from rules.skirmish.events import SkApSpent, SkWounded
from rules.skirmish.geometry import can_see
from rules.skirmish.halfhex import astride_facings, position
from tests.skirmish_fixtures import RS, act, ch, char, draw, make, scenario_text

H = Hex.parse
HALF = {"half_hexes": True}


def board(*units: dict[str, Any], dice: list[int] | None = None, terrain: dict[str, str] | None = None):  # type: ignore[no-untyped-def]
    return draw(make(list(units), options=HALF, dice=dice or [], terrain=terrain), "alpha")


def spent(result) -> int:  # type: ignore[no-untyped-def]
    return sum(e.cost for e in result.events if isinstance(e, SkApSpent))


def english(err: ScenarioError) -> str:
    """A scenario's problems as ``validate`` prints them in English (rules/ keeps keys, the catalogs words)."""
    return "\n".join(problem_text(p) for p in err.problems)


def test_sk_2_5_a_forward_move_ends_astride_the_two_hexes_of_the_facing_vertex() -> None:
    """0505 facing NE-SE: the hexes of the facing vertex are 0604 and 0605; astride them costs a forward move."""
    state = board(char("a", "rfp", "alpha", "0505", "NE-SE"), char("z", "tyr", "zulu", "1509"))
    result = act(state, "a", "move 0604/0605")
    a = ch(result.state, "a")
    assert (a.at, a.astride, Vertex(a.facing).label) == (H("0604"), H("0605"), "NE-SE")
    assert spent(result) == 1
    assert set(astride_facings(H("0604"), H("0605"))) == {1, 4}, "along the shared side, either end"
    turned = act(state, "a", "move 0605/0604 facing SW-NW")  # 3 vertices on the way: +1 AP (SK-2.2)
    assert spent(turned) == 2 and ch(turned.state, "a").astride == H("0604")
    with pytest.raises(IllegalOrderError) as err:
        act(state, "a", "move 0604/0605 facing SE-S")
    assert (err.value.code, err.value.rule) == ("skirmish.astride_facing", "SK-2.5")
    back = act(state, "a", "back 0405/0404")  # the two hexes of the opposite vertex, a backward move
    assert spent(back) == 2 and ch(back.state, "a").astride in (H("0404"), H("0405"))


def test_sk_2_5_half_hexes_need_the_scenario_switch() -> None:
    state = draw(make([char("a", "rfp", "alpha", "0505"), char("z", "tyr", "zulu", "1509")]), "alpha")
    with pytest.raises(IllegalOrderError) as err:
        act(state, "a", "move 0604/0605")
    assert (err.value.code, err.value.rule) == ("skirmish.half_off", "SK-2.5")
    with pytest.raises(ScenarioError) as problems:
        make([char("a", "rfp", "alpha", "0604", astride="0605"), char("z", "tyr", "zulu", "1509")])
    assert re.search("half_hexes = true", english(problems.value)), english(problems.value)


def test_sk_2_5_from_astride_forward_and_back_go_on_along_the_side() -> None:
    state = board(
        char("a", "rfp", "alpha", "0604", "NE-SE", astride="0605"), char("z", "tyr", "zulu", "1509")
    )
    forward = act(state, "a", "move 0705")
    assert ch(forward.state, "a").at == H("0705") and ch(forward.state, "a").astride is None
    assert spent(forward) == 1
    back = act(state, "a", "back 0505")
    assert ch(back.state, "a").at == H("0505") and spent(back) == 2
    with pytest.raises(IllegalOrderError) as err:
        act(state, "a", "move 0704")
    assert err.value.code == "skirmish.not_ahead" and "0705" in err.value.message
    with pytest.raises(IllegalOrderError) as err:
        act(state, "a", "turn SE-S")  # astride, only along the side
    assert err.value.code == "skirmish.astride_facing"
    assert spent(act(state, "a", "turn SW-NW")) == 2  # the other end: 3 vertices


def test_sk_2_5_a_half_hex_is_passed_at_double_cost_never_stopped_in() -> None:
    """Seed: "Un personaje puede pasar por un medio hexágono a un coste del doble … Sin embargo no puede permanecer
    en dicho hexágono." x holds half of 0604 (astride 0604/0603); b moves from 0504 across 0604 to 0704."""
    state = board(
        char("b", "rfp", "alpha", "0504", "NE-SE"),
        char("x", "rfp", "bravo", "0604", "NE-SE", astride="0603"),
        char("z", "tyr", "zulu", "1509"),
    )
    with pytest.raises(IllegalOrderError) as err:
        act(state, "b", "move 0604")
    assert (err.value.code, err.value.rule) == ("skirmish.half_hex", "SK-2.5")
    passed = act(state, "b", "move 0704 via 0604")
    assert spent(passed) == 2 + 1 and ch(passed.state, "b").at == H("0704")
    moved = next(e for e in passed.events if isinstance(e, UnitMoved))
    assert moved.path == (H("0504"), H("0604"), H("0704"))
    with pytest.raises(IllegalOrderError) as err:
        act(state.with_units([dataclasses.replace(ch(state, "b"), ap_left=2)]), "b", "move 0704 via 0604")
    assert err.value.code == "skirmish.ap", "no AP to reach the next whole hex: it cannot pass"
    with pytest.raises(IllegalOrderError) as err:
        act(
            board(char("b", "rfp", "alpha", "0504", "NE-SE"), char("z", "tyr", "zulu", "1509")),
            "b",
            "move 0704 via 0604",
        )
    assert err.value.code == "skirmish.not_half_hex", "a free hex is simply entered"


def test_sk_2_5_two_characters_share_a_hex_across_its_opposite_sides() -> None:
    """x holds the half of 0604 toward 0603; the other half (toward 0605) is free for someone astride 0604/0605."""
    state = board(
        char("a", "rfp", "alpha", "0505", "NE-SE", melee=20),
        char("x", "tyr", "zulu", "0604", "NE-SE", astride="0603"),
    )
    result = act(state, "a", "move 0604/0605")
    assert ch(result.state, "a").astride == H("0605")
    with pytest.raises(ScenarioError) as problems:
        make(
            [
                char("a", "rfp", "alpha", "0604", "SE-S", astride="0704"),
                char("x", "tyr", "zulu", "0604", "NE-SE", astride="0603"),
            ],
            options=HALF,
        )  # their halves of 0604 overlap: 0704 (NE) and 0603 (N) are not across opposite sides
    assert re.search("already taken", english(problems.value)), english(problems.value)
    # side by side in one hex they can fight hand to hand (distance 0)
    melee = act(result.state, "a", "melee x")
    assert any(isinstance(e, ShotResolved) and e.weapon == "melee" for e in melee.events)


def test_sk_2_5_sight_is_traced_from_the_midpoint_of_the_side() -> None:
    """Astride 0604/0605 facing NE-SE, the line to 0904 starts on the shared side: it touches 0705, not 0704 (the
    centre of 0604 would touch 0704 instead)."""

    def sees(obstacle: str) -> bool:
        state = board(
            char("a", "rfp", "alpha", "0604", "NE-SE", astride="0605"),
            char("z", "tyr", "zulu", "0904", "SW-NW"),
            terrain={obstacle: "obstacle"},
        )
        a = ch(state, "a")
        return can_see(state, a, position(ch(state, "z")))

    assert not sees("0705")
    assert sees("0704")


def test_sk_2_5_grenade_hits_a_character_astride_once_by_the_worse_hex() -> None:
    state = board(
        char("a", "rfp", "alpha", "0305", "NE-SE", action=12),
        char("y", "tyr", "zulu", "0705", "SW-NW", astride="0704", resistance=5, wounds=5),
        dice=[3, 4, 2],
    )
    result = act(state, "a", "grenade 0705")  # 0705 centre (12), 0704 a neighbour (6)
    hurt = [e for e in result.events if isinstance(e, SkWounded)]
    assert [(e.unit, e.damage) for e in hurt] == [("y", 12)]


def test_sk_2_5_positions_round_trip_and_show_in_the_account() -> None:
    state = board(
        char("a", "rfp", "alpha", "0604", "NE-SE", astride="0605"), char("z", "tyr", "zulu", "1509")
    )
    assert from_json(to_json(state)) == state
    assert RS.unit_summary(ch(state, "a"))["astride"] == "0605"
    assert RS.unit_summary(ch(state, "z"))["astride"] is None


def test_sk_2_5_scenario_checks() -> None:
    with pytest.raises(ScenarioError) as problems:
        make(
            [char("a", "rfp", "alpha", "0604", astride="0606"), char("z", "tyr", "zulu", "1509")],
            options=HALF,
        )
    assert re.search("not next to", english(problems.value)), english(problems.value)
    with pytest.raises(ScenarioError) as problems:
        make(
            [char("a", "rfp", "alpha", "0604", "SE-S", astride="0605"), char("z", "tyr", "zulu", "1509")],
            options=HALF,
        )
    assert re.search("faces along", english(problems.value)), english(problems.value)
    text = scenario_text(
        [char("a", "rfp", "alpha", "0604"), char("z", "tyr", "zulu", "1509")], options={"half_hexes": 3}
    )
    with pytest.raises(ScenarioError) as problems:
        load_scenario(text)
    assert re.search("true or false", english(problems.value)), english(problems.value)
