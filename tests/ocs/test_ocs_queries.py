"""The panel queries agree exactly with ``validate_order``: every option they offer validates, and every choice
they leave out is refused ("a panel never offers what the rules will refuse")."""

from __future__ import annotations

from collections import Counter
from itertools import combinations_with_replacement
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules.errors import IllegalOrderError
from rules.hexgrid import Hex, hexes_within
from rules.ocs.model import (
    AR_ATTACKER,
    AR_DEFENDER,
    ATTACKER_LOSSES,
    DEFENDER_LOSSES,
    READY,
    RETREAT,
    ext_of,
    find_combat,
)
from rules.ocs.queries import (
    ar_candidates,
    combat_targets,
    eligible_attackers,
    loss_allocations,
    move_destinations,
    preview,
    retreat_options,
)
from rules.ruleset import DIRECTOR
from rules.state import EncounterState
from tests.ocs_fixtures import OCS, board, director, order, resolve

TARGET = Hex.parse("0605")


def _valid(state: EncounterState, actor: str, raw: Any) -> bool:
    try:
        OCS.validate_order(state, actor, OCS.parse_order(state, actor, raw))
    except IllegalOrderError:
        return False
    return True


def _check_every_question(state: EncounterState, cid: int) -> None:
    """At whatever stage combat ``cid`` is, the query for it matches validation exactly."""
    combat = find_combat(state, cid)
    assert combat is not None
    everyone = sorted(state.units)
    candidates = ar_candidates(state, cid)
    if combat.stage in (AR_ATTACKER, AR_DEFENDER):
        assert candidates, "an AR question always has an answer"
        for uid in everyone:
            assert _valid(state, DIRECTOR, {"ar": uid, "combat": cid}) == (uid in candidates), uid
    else:
        assert candidates == ()
    allocations = loss_allocations(state, cid)
    if combat.stage in (ATTACKER_LOSSES, DEFENDER_LOSSES):
        assert allocations, "a loss question always has an answer"
        pool = sorted({uid for a in allocations for uid in a} | {everyone[0]})
        for size in range(5):
            for picked in combinations_with_replacement(pool, size):
                offered = Counter(picked) in [Counter(a) for a in allocations]
                assert _valid(state, DIRECTOR, {"losses": list(picked), "combat": cid}) == offered, picked
    else:
        assert allocations == ()
    options = retreat_options(state, cid)
    if combat.stage == RETREAT:
        assert options and all(options.values())
        first = {uid: hexes[0].label for uid, hexes in options.items()}
        for uid, hexes in options.items():
            for h in hexes_within(combat.at, combat.retreat + 1):
                answer = {**first, uid: h.label}
                valid = _valid(state, DIRECTOR, {"retreats": answer, "combat": cid})
                assert valid == (h in hexes), (uid, h.label)
    else:
        assert options == {}


def test_eligible_attackers_and_targets_match_validation() -> None:
    state = board(
        [
            ("a", "axis", "0505", 3, 3, 2),
            ("s", "axis", "0506", 3, 3, 2, "strategic"),
            ("z", "axis", "0604", 0, 3, 2),
            ("far", "axis", "0303", 3, 3, 2),
            ("own", "allies", "0606", 3, 3, 2),
            ("d", "allies", "0605", 2, 2, 2),
        ]
    )
    eligible = eligible_attackers(state, TARGET)
    assert eligible == ("a",)
    for uid in state.units:
        assert _valid(state, DIRECTOR, {"combat": {"attackers": [uid], "defender": "0605"}}) == (
            uid in eligible
        )
    targets = combat_targets(state)
    assert TARGET in targets
    for h in state.board.hexes():
        assert (h in targets) == any(
            _valid(state, DIRECTOR, {"combat": {"attackers": [u], "defender": h.label}}) for u in state.units
        )
    engaged = director(state, {"combat": {"attackers": ["a"], "defender": "0605"}}).state
    assert eligible_attackers(engaged, TARGET) == () and TARGET not in combat_targets(engaged)


def test_preview_gives_the_figures_of_a_legal_attack_only() -> None:
    state = board(
        [
            ("a", "axis", "0505", 6, 5, 2),
            ("b", "axis", "0506", 3.5, 4, 2),
            ("d", "allies", "0605", 3.5, 4, 2),
        ],
        terrain={"0605": "close"},
        hedgehog={"0605": 1},
    )
    seen = preview(state, ("a", "b"), TARGET)
    assert seen is not None
    assert (seen.attack, seen.defense, seen.ratio, seen.odds, seen.terrain, seen.column, seen.hedgehog) == (
        9.5,
        3.5,
        2.71,
        "3:1",
        "close",
        3,
        1,
    )
    assert preview(state, ("d",), TARGET) is None


def test_move_destinations_match_validation() -> None:
    state = board(
        [("a", "axis", "0505", 3, 3, 2), ("d", "allies", "0605", 2, 2, 2), ("f", "axis", "0404", 1, 1, 1)]
    )
    shown = tuple(hexes_within(Hex.parse("0505"), 2))
    offered = move_destinations(state, "a", shown)
    for h in shown:
        assert _valid(state, DIRECTOR, {"move": {"unit": "a", "to": h.label}}) == (h in offered)
    assert Hex.parse("0605") not in offered and Hex.parse("0404") in offered


UNIT = st.tuples(
    st.sampled_from([0.5, 1, 2, 3.5, 6]),  # strength
    st.integers(min_value=0, max_value=5),  # AR
    st.integers(min_value=1, max_value=3),  # steps
)
AROUND = ("0505", "0506", "0604", "0705", "0706", "0606")


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    attackers=st.lists(UNIT, min_size=1, max_size=3),
    defenders=st.lists(UNIT, min_size=1, max_size=3),
    blockers=st.integers(min_value=0, max_value=3),
    dice=st.lists(st.integers(min_value=1, max_value=6), min_size=5, max_size=5),
    data=st.data(),
)
def test_every_offered_choice_validates_through_a_whole_combat(
    attackers: list[tuple[float, int, int]],
    defenders: list[tuple[float, int, int]],
    blockers: int,
    dice: list[int],
    data: st.DataObject,
) -> None:
    """Random combats played to the end by picking among the offered options only, checking every query against
    validation at every stage (AR choices, losses with options, retreats with some hexes blocked)."""
    units: list[tuple[Any, ...]] = [(f"a{i}", "axis", AROUND[i], *spec) for i, spec in enumerate(attackers)]
    units += [(f"b{i}", "axis", AROUND[3 + i], 1, 1, 1) for i in range(blockers)]
    units += [(f"d{i}", "allies", "0605", *spec) for i, spec in enumerate(defenders)]
    state = board(units, hedgehog={"0605": data.draw(st.integers(0, 4))})
    state = director(
        state, {"combat": {"attackers": [f"a{i}" for i in range(len(attackers))], "defender": "0605"}}
    ).state
    state = state.replace(dice_script=tuple(dice))
    for _ in range(12):
        combat = find_combat(state, 1)
        if combat is None:
            break
        _check_every_question(state, 1)
        if combat.stage == READY:
            state = resolve(state).state
            continue
        assert OCS.awaiting(state), "an open combat waits for someone or rolls"
        asked = OCS.awaiting(state)[0]
        if combat.stage in (AR_ATTACKER, AR_DEFENDER):
            raw: dict[str, Any] = {"ar": data.draw(st.sampled_from(ar_candidates(state, 1)))}
        elif combat.stage == RETREAT:
            options = retreat_options(state, 1)
            raw = {"retreats": {uid: data.draw(st.sampled_from(h)).label for uid, h in options.items()}}
        else:
            raw = {"losses": list(data.draw(st.sampled_from(loss_allocations(state, 1))))}
        state = resolve(state, {asked: order(state, asked, raw)}).state
    assert ext_of(state).combats == (), "every combat ends"
    assert OCS.awaiting(state) == () and not OCS.auto_resolves(state)
