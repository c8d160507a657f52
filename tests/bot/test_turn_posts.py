"""One post per turn of play (bot/turn_posts.py): which steps share a channel message, as the ruleset names
their turn, without Discord."""

from __future__ import annotations

from bot.turn_posts import MAX_EMBEDS, OpenPost, OpenPosts, continues, pack, runs
from rules.events import Event, UnitMoved
from rules.hexgrid import Hex
from rules.ocs.events import OcsArChosen, OcsCombatEnded, OcsCombatOpened, OcsStepLost, OcsTurnEnded
from rules.registry import get_ruleset
from rules.skirmish.events import SkChitDrawn
from tests.skirmish_fixtures import act, char, draw, make

SKIRMISH = get_ruleset("skirmish")


def test_a_step_naming_no_turn_follows_the_open_post_and_a_new_turn_starts_a_new_one() -> None:
    assert continues("1:lana", "1:lana") and continues("1:lana", None)
    assert not continues("1:lana", "1:kira") and not continues("", "1:kira")
    turns = ["1:lana", "1:lana", None, "1:kira", None, "2:kira"]
    assert [(turn, steps) for turn, steps in runs(range(6), lambda i: turns[i])] == [
        ("1:lana", [0, 1, 2]),
        ("1:kira", [3, 4]),
        ("2:kira", [5]),
    ]


def test_steps_posted_together_split_at_a_new_turn_and_at_discords_limits() -> None:
    turns = ["a", "a", "a", "b"]
    packed = pack(range(4), lambda i: turns[i], lambda i: ([10] * (MAX_EMBEDS // 2), 1))
    assert packed == [("a", [0, 1]), ("a", [2]), ("b", [3])]
    nothing = pack(range(3), lambda i: "a", lambda i: ([], 0))  # steps the channel may not see: one group
    assert nothing == [("a", [0, 1, 2])]


def test_a_keyed_turn_outlives_its_resolution_and_a_resolutions_post_does_not() -> None:
    posts: OpenPosts[str, str] = OpenPosts(8)
    posts[1] = OpenPost("m1", ["e"], "1:lana")
    posts[2] = OpenPost("m2", ["e"], "")
    posts.end_resolution(1)
    posts.end_resolution(2)
    assert 1 in posts and 2 not in posts
    assert posts.for_turn(1, None) is not None and posts.for_turn(1, "1:lana") is not None
    assert posts.for_turn(1, "1:kira") is None and 1 not in posts


def test_sk_1_1_an_activation_is_one_turn_of_play_and_the_draw_goes_with_the_one_before() -> None:
    state = make(
        [
            char("lana", "rfp", "alpha", "0304", "NE-SE", ap=6),
            char("kira", "rfp", "alpha", "0305", "NE-SE", ap=6),
            char("zug", "tyr", "zulu", "1509", "SW-NW"),
        ]
    )
    state = draw(state, "alpha")
    turns: list[str | None] = []
    for unit, text in (("lana", "turn SE-S"), ("lana", "turn S-SW"), ("lana", "end"), ("kira", "end")):
        result = act(state, unit, text)
        turns.append(SKIRMISH.turn_of_play(state, result.events))
        state = result.state
    assert turns == ["1:lana", "1:lana", "1:lana", "1:kira"]
    drawn = (SkChitDrawn(rule="SK-1.1", chit="zulu", side="tyr"),)
    assert SKIRMISH.turn_of_play(state, drawn) is None


def test_pbw_1_and_mech_1_1_a_turn_is_one_turn_of_play_and_exo_keeps_one_post_per_resolution() -> None:
    state = make([char("lana", "rfp", "alpha", "0304")]).replace(round=3)
    assert get_ruleset("pbw").turn_of_play(state, ()) == "3"
    assert get_ruleset("mech").turn_of_play(state, ()) == "3"
    assert get_ruleset("exo").turn_of_play(state, ()) == ""


def test_ocs_2_to_ocs_6_a_combat_is_one_turn_of_play_from_its_opening_to_its_last_loss() -> None:
    ocs = get_ruleset("ocs")
    state = make([char("lana", "rfp", "alpha", "0304")])
    at = Hex.parse("0605")
    opened = OcsCombatOpened(rule="OCS-2", combat=4, kind="attack", at=at, attackers=("pz21",), defenders=())
    chosen = OcsArChosen(rule="OCS-2", combat=4, role="attacker", unit="pz21", ar=5, mode="normal")
    lost = OcsStepLost(rule="OCS-6", combat=4, unit="rtr7", cause="owner_choice", steps=1)
    ended = OcsCombatEnded(rule="OCS-6", combat=4, at=at)
    steps: list[tuple[Event, ...]] = [(opened,), (chosen,), (lost, ended)]
    assert [ocs.turn_of_play(state, events) for events in steps] == ["combat:4"] * 3
    # a step that answers combat 4 and opens combat 5 goes with the combat it carried furthest
    five = OcsCombatOpened(rule="OCS-2", combat=5, kind="attack", at=at, attackers=("pz15",), defenders=())
    assert ocs.turn_of_play(state, (five, lost)) == "combat:4"
    # free moves and the end of the combat phase belong to no combat: a post of their own
    moved = UnitMoved(rule="OCS-1", unit="pz21", frm=at, to=Hex.parse("0606"), facing_from=0, facing_to=0)
    assert ocs.turn_of_play(state, (moved,)) == ""
    assert ocs.turn_of_play(state, (OcsTurnEnded(rule="OCS-1", turn=2),)) == ""
