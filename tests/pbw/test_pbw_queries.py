"""The pure queries an order panel uses (rules/pbw/queries.py) agree exactly with ``validate_order``: every option
they produce validates, and what they leave out is refused ("a panel never offers what the rules will refuse")."""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Sequence

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules.errors import IllegalOrderError
from rules.hexgrid import Hex
from rules.pbw.events import PbwAttack
from rules.pbw.legality import ext_of
from rules.pbw.model import Change, Character, Declaration, SegmentAction
from rules.pbw.queries import (
    ActionOption,
    aimable_locations,
    attack_options,
    can_disengage,
    change_options,
    draw_options,
    legal_actions,
    move_options,
    path_cost,
    to_hit_for,
)
from rules.pbw.tables import LOCATIONS
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

H = Hex.parse


def kinds(options: Sequence[ActionOption]) -> list[str]:
    return [o.action for o in options]


def test_legal_actions_of_a_fresh_gunman() -> None:
    state = make([person("ana", "a", "0303", initiative=6), person("bob", "b", "0307", initiative=2)])
    assert kinds(legal_actions(state, "bob")) == ["defend", "move", "shoot", "stow", "rest"]
    after_stow = kinds(legal_actions(state, "bob", [act("stow")]))
    assert after_stow == ["defend", "move", "draw"]
    assert draw_options(state, "bob", [act("stow")]) == (1, 2)
    assert kinds(legal_actions(state, "bob", [act("rest")])) == ["rest"]


def test_legal_actions_follow_fatigue_pbw_3() -> None:
    state = make([person("ana", "a", "0303", initiative=6), person("bob", "b", "0307", initiative=2)])
    tired = state.with_units([dataclasses.replace(ch(state, "bob"), fatigue=4)])
    assert kinds(legal_actions(tired, "bob", [act("stow")])) == ["defend"]
    exhausted = state.with_units([dataclasses.replace(ch(state, "bob"), fatigue=8)])
    assert kinds(legal_actions(exhausted, "bob")) == ["rest"]


def test_a_second_move_is_flagged_as_needing_athletics() -> None:
    state = make([person("ana", "a", "0303"), person("bob", "b", "0310")])
    first = legal_actions(state, "ana")
    second = legal_actions(state, "ana", [act("move", path=["0304"])])
    assert [o.athletics for o in first if o.action == "move"] == [False]
    assert [o.athletics for o in second if o.action == "move"] == [True]


def test_melee_is_offered_within_a_metre_and_disengage_only_in_melee() -> None:
    state = make([person("ana", "a", "0303", initiative=6), person("bob", "b", "0304", initiative=2)])
    assert kinds(legal_actions(state, "bob")) == ["defend", "shoot", "melee", "stow", "rest"]
    assert kinds(legal_actions(state, "bob", disengage=True)) == ["defend", "stow", "rest"]
    assert can_disengage(state, "bob")
    apart = make([person("ana", "a", "0303"), person("bob", "b", "0306")])
    assert not can_disengage(apart, "bob")


def all_paths(start: Hex, length: int) -> list[tuple[Hex, ...]]:
    out: list[tuple[Hex, ...]] = []
    for n in range(1, length + 1):
        for sides in itertools.product(range(6), repeat=n):
            path: list[Hex] = []
            h = start
            for side in sides:
                h = h.neighbor(side)
                path.append(h)
            out.append(tuple(path))
    return out


def test_move_options_are_exactly_the_ends_of_legal_paths() -> None:
    """Every path of up to Movement hexes is tried: the legal ones end exactly in ``move_options``."""
    state = make(
        [
            person("ana", "a", "0505", initiative=6, movement=3),
            person("bob", "b", "0508", initiative=2),
            person("cid", "a", "0405", initiative=1),
        ],
        terrain={"0604": "wall", "0605": "wall", "0404": "cover"},
    )
    options = move_options(state, "ana")
    legal_ends: set[Hex] = set()
    for path in all_paths(H("0505"), 3):
        try:
            used, left = path_cost(state, "ana", path)
        except IllegalOrderError:
            continue
        assert used + left == 3
        legal_ends.add(path[-1])
    assert set(options) == legal_ends
    for end, path in options.items():
        assert path[-1] == end and path_cost(state, "ana", path)[0] == len(path)
    assert H("0604") not in options and H("0405") not in options, "walls and friends are not entered"
    assert H("0507") in options and H("0508") not in options


def test_attack_options_carry_the_numbers_the_resolution_uses() -> None:
    state = make(
        [
            person("ana", "a", "0303", initiative=6, weapons=[{"type": "revolver"}]),
            person("bob", "b", "0310", initiative=2),
        ],
        terrain={"0309": "cover"},
    )
    earlier = [act("move", path=["0304"])]
    (option,) = attack_options(state, "ana", "shoot", earlier, aim="torso")
    th = option.to_hit
    assert (option.target, option.weapon) == ("bob", 1)
    assert dict(th.parts) == {"short": 10, "cover": 5}
    assert dict(th.modifiers) == {"attacker_moved": -1, "aim": -5, "accuracy": -1}
    assert (th.difficulty, th.bonus, th.needed) == (15, 3 + 3 - 7, 12)
    assert aimable_locations(state, "ana", "bob") == LOCATIONS
    plans = {"ana": [*earlier, act("shoot", target="bob", weapon=1, aim="torso")]}
    _, events = play_turn(state.replace(dice_script=(6, 6, 1, 1)), plans)
    attack = of_type(events, PbwAttack)[0]
    assert (attack.difficulty, attack.bonus) == (th.difficulty, th.bonus)


def test_to_hit_counts_the_declared_moves_of_a_target_that_already_declared() -> None:
    """PBW-5 'the defender moved': a lower-Initiative target declared first, so its moves are known."""
    state = make([person("ana", "a", "0303", initiative=6), person("bob", "b", "0309", initiative=2)])
    state = step(
        state, {"bob": Declaration(unit="bob", segments=(act("move", path=["0310"]), DEFEND, DEFEND))}
    ).state
    th = to_hit_for(state, "ana", "bob", "shoot", earlier=[DEFEND])
    assert dict(th.modifiers) == {"target_moved": -1}


# --- random boards: every option validates ---------------------------------------------------------------------

WEAPONS = ["pistol", "knife", "shotgun", "baton", "bow", "assault_rifle", "light_pistol"]


@st.composite
def boards(draw: st.DrawFn) -> EncounterState:
    cells = [f"{c:02d}{r:02d}" for c in range(2, 8) for r in range(2, 8)]
    spots = draw(st.lists(st.sampled_from(cells), min_size=4, max_size=7, unique=True))
    units = []
    for i, at in enumerate(spots[:4]):
        kit = draw(st.lists(st.sampled_from(WEAPONS), min_size=0, max_size=2, unique=True))
        units.append(
            person(
                f"u{i}",
                "ab"[i % 2],
                at,
                initiative=draw(st.integers(0, 6)),
                movement=draw(st.integers(1, 4)),
                fatigue=4,
                weapons=[{"type": w} for w in kit],
            )
        )
    terrain = {at: draw(st.sampled_from(["wall", "cover"])) for at in spots[4:]}
    state = make(units, terrain=terrain, width=9, height=9)
    hurt = draw(st.sampled_from([None, "ra", "rl", "torso"]))
    if hurt is not None:
        victim = ch(state, "u0")
        res = {**victim.resistance, hurt: 0}
        condition = {"ra": "ok", "rl": "prone", "torso": "incapacitated"}[hurt]
        state = state.with_units([dataclasses.replace(victim, resistance=res, condition=condition)])
    return state


def instance(
    data: st.DataObject,
    state: EncounterState,
    uid: str,
    option: ActionOption,
    earlier: list[SegmentAction],
) -> SegmentAction:
    """A concrete action for a panel option, chosen among what the queries offer."""
    if option.action == "move":
        paths = move_options(state, uid, earlier)
        return SegmentAction(action="move", path=data.draw(st.sampled_from(sorted(paths.values()))))
    if option.action in ("shoot", "melee"):
        aim = data.draw(st.sampled_from(["", *LOCATIONS]))
        choices = attack_options(state, uid, option.action, earlier, aim=aim)
        pick = data.draw(st.sampled_from(choices))
        return SegmentAction(action=option.action, target=pick.target, weapon=pick.weapon, aim=aim)
    if option.action == "draw":
        return SegmentAction(
            action="draw", weapon=data.draw(st.sampled_from(draw_options(state, uid, earlier)))
        )
    return SegmentAction(action=option.action)


def random_declaration(data: st.DataObject, state: EncounterState, uid: str) -> Declaration:
    disengage = can_disengage(state, uid) and data.draw(st.booleans())
    chosen: list[SegmentAction] = []
    for _ in range(3):
        options = legal_actions(state, uid, chosen, disengage=disengage)
        assert options, "a character that may declare always has something to put in a segment"
        chosen.append(instance(data, state, uid, data.draw(st.sampled_from(options)), chosen))
    return Declaration(unit=uid, segments=tuple(chosen), disengage=disengage)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(state=boards(), data=st.data())
def test_every_declaration_built_from_the_queries_validates(
    state: EncounterState, data: st.DataObject
) -> None:
    while state.phase == "declare" and not state.over:
        waiting = RS.awaiting(state)
        orders = {waiting[0]: random_declaration(data, state, waiting[0])} if waiting else {}
        state = step(state, orders).state  # validates every order first
    for _ in range(3):
        if state.over:
            break
        asked = RS.awaiting(state)
        changes: dict[str, Change] = {}
        for uid in [c.id for c in state.units_of(Character)]:
            options = change_options(state, uid)
            assert (uid in asked) == bool(options)
            for option in options:
                new = instance(data, state, uid, option, [])
                change = Change(unit=uid, segment=int(state.phase[-1]), action=new)
                RS.validate_order(state, uid, change)
                changes[uid] = change
        k = int(state.phase[-1])
        for uid, rec in ext_of(state).records.items():
            if uid in asked:
                continue
            for candidate in (DEFEND, act("stow"), act("reload")):
                if candidate == rec.plan[k - 1] or (rec.plan[k - 1].action == "rest" and candidate == DEFEND):
                    continue  # the declared action itself is a keep, never refused
                with pytest.raises(IllegalOrderError):
                    RS.validate_order(state, uid, Change(unit=uid, segment=k, action=candidate))
        state = segment(state, data.draw(st.sampled_from([{}, changes]))).state


def test_change_options_name_what_the_change_gives_up() -> None:
    state = make([person("ana", "a", "0303", initiative=6), person("bob", "b", "0310", initiative=2)])
    state, _ = declare_all(state, {"ana": [act("shoot", target="bob")] * 3})
    options = {o.action: o.forfeit for o in change_options(state, "ana")}
    assert options == {"defend": 0, "move": 3, "shoot": 3, "stow": 3}
