"""Dice as data (DICE-1), the Sombra roll (DICE-2) and 2d6 rolls (DICE-3)."""

from __future__ import annotations

import itertools
import os
import subprocess
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules.dice import Check2d6, Dice, Difficulty, Quality, Roll, SombraRoll, phase_seed
from tests.paths import ROOT


def d6s(dice: Dice, n: int) -> list[int]:
    return [dice.d6(rule="TEST", purpose=f"d6 #{i}").dice[0] for i in range(n)]


# --- DICE-1 determinism, script, generator ------------------------------------------------------------------


@pytest.mark.parametrize("seed", [0, 12345, "encounter-7", "Halcón"])
def test_dice1_same_seed_same_sequence(seed: int | str) -> None:
    a, b = Dice(seed), Dice(seed)
    assert d6s(a, 50) == d6s(b, 50)
    assert [r.dice for r in a.rolls] == [r.dice for r in b.rolls]
    assert all(1 <= v <= 6 for v in d6s(a, 200))


def test_dice1_different_seeds_differ() -> None:
    assert d6s(Dice("a"), 40) != d6s(Dice("b"), 40)


def test_dice1_string_seed_does_not_depend_on_hash_randomisation() -> None:
    code = "from rules.dice import Dice; d = Dice('enc-1'); print([d.d10(rule='T', purpose='x').dice[0] for _ in range(20)])"
    outputs = set()
    for hash_seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        done = subprocess.run(
            [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, check=True
        )
        outputs.add(done.stdout)
    local = Dice("enc-1")
    assert outputs == {f"{[local.d10(rule='T', purpose='x').dice[0] for _ in range(20)]}\n"}


def test_dice1_script_first_then_generator_continues_identically() -> None:
    seed = 99
    plain = d6s(Dice(seed), 6)
    scripted = Dice(seed, [3, 4, 1])
    assert d6s(scripted, 9) == [3, 4, 1, *plain]
    assert scripted.script_left == ()
    assert [r.source for r in scripted.rolls] == ["script"] * 3 + ["seeded"] * 6


def test_dice1_script_is_consumed_one_value_per_die() -> None:
    dice = Dice(1, [2, 6, 4, 5, 3, 1])
    first = dice.sombra(15, rule="EXO-3.4", purpose="hit")
    assert first.roll.dice == (2, 6, 4)
    assert dice.script_left == (5, 3, 1)
    pair = dice.two_d6(rule="DICE-3", purpose="2d6")
    assert pair.dice == (5, 3)  # first die, then second
    assert dice.script_left == (1,)


def test_dice1_roll_that_outruns_the_script_takes_the_generator() -> None:
    seed = "mix"
    plain = Dice(seed).roll(2, 6, rule="T", purpose="x").dice
    mixed = Dice(seed, [4]).roll(3, 6, rule="T", purpose="x")
    assert mixed.dice == (4, *plain)
    assert mixed.source == "script"


@given(
    st.lists(st.integers(min_value=1, max_value=10), max_size=30), st.integers(min_value=0, max_value=2**32)
)
def test_dice1_any_script_is_consumed_in_order(script: list[int], seed: int) -> None:
    dice = Dice(seed, script)
    rolled = [dice.d10(rule="T", purpose="x").dice[0] for _ in range(len(script) + 5)]
    assert rolled[: len(script)] == script
    fresh = Dice(seed)
    assert rolled[len(script) :] == [fresh.d10(rule="T", purpose="x").dice[0] for _ in range(5)]


@pytest.mark.parametrize(
    ("script", "sides", "bad"), [([7], 6, "7"), ([0], 10, "0"), ([11], 10, "11"), ([3, 12], 10, "12")]
)
def test_dice1_scripted_value_out_of_range_names_it(script: list[int], sides: int, bad: str) -> None:
    dice = Dice(0, script)
    with pytest.raises(ValueError, match=rf"scripted die #\d+ is {bad}, outside 1\.\.{sides}"):
        dice.roll(len(script), sides, rule="EXO-3.4", purpose="hit")


def test_dice1_rolls_are_recorded_with_index_rule_and_purpose() -> None:
    dice = Dice(5)
    dice.d6(rule="SK-1.1", purpose="first")
    dice.sombra(12, rule="EXO-3.4", purpose="EXO-3.4 hit roll, Halcón L1 → Pirata")
    assert [r.index for r in dice.rolls] == [0, 1]
    last = dice.rolls[-1]
    assert (last.rule, last.purpose, last.sides, len(last.dice)) == (
        "EXO-3.4",
        "EXO-3.4 hit roll, Halcón L1 → Pirata",
        10,
        3,
    )
    assert last.total == sum(last.dice)


def test_dice1_bad_roll_shape_rejected() -> None:
    with pytest.raises(ValueError):
        Dice(0).roll(0, 6, rule="T", purpose="x")
    with pytest.raises(ValueError):
        Dice(0).roll(1, 1, rule="T", purpose="x")


def test_dice1_shuffle_and_choice_never_touch_the_script_and_are_not_rolls() -> None:
    seed = "chits"
    items = list(range(10))
    scripted = Dice(seed, [6, 6, 6])
    plain = Dice(seed)
    assert scripted.shuffle(items) == plain.shuffle(items)
    assert scripted.choice(items) == plain.choice(items)
    assert scripted.script_left == (6, 6, 6)
    assert scripted.rolls == []
    assert d6s(scripted, 3) == [6, 6, 6]
    assert items == list(range(10))  # shuffle returns a copy


def test_dice1_shuffle_is_seeded() -> None:
    items = [f"chit{i}" for i in range(12)]
    assert Dice(3).shuffle(items) == Dice(3).shuffle(items)
    assert sorted(Dice(3).shuffle(items)) == sorted(items)
    with pytest.raises(ValueError):
        Dice(3).choice([])


def test_dice1_overrides_replace_without_shifting_later_rolls() -> None:
    seed = 2024
    plain = d6s(Dice(seed), 4)
    director = Dice(seed, overrides={1: [6], 2: (1,)})
    assert d6s(director, 4) == [plain[0], 6, 1, plain[3]]
    assert [r.source for r in director.rolls] == ["seeded", "override", "override", "seeded"]


def test_dice1_override_of_a_scripted_roll_still_consumes_the_script() -> None:
    director = Dice(0, [2, 6, 4, 5, 5, 5], overrides={0: [1, 1, 1]})
    first = director.sombra(10, rule="EXO-3.4", purpose="hit")
    assert first.roll.dice == (1, 1, 1)
    assert first.roll.source == "override"
    assert director.sombra(10, rule="EXO-3.4", purpose="hit").roll.dice == (5, 5, 5)


@pytest.mark.parametrize("replacement", [[1, 2], [7], [0], [True]])
def test_dice1_override_is_validated(replacement: list[int]) -> None:
    with pytest.raises(ValueError, match="roll 0"):
        Dice(0, overrides={0: replacement}).d6(rule="T", purpose="x")


def test_dice1_hook_can_replace_a_roll() -> None:
    seen: list[Roll] = []

    def director(roll: Roll) -> tuple[int, ...] | None:
        seen.append(roll)
        return (10, 10, 10) if roll.rule == "EXO-3.4" else None

    seed = 8
    plain = Dice(seed)
    expected_d6 = plain.d6(rule="T", purpose="x").dice
    plain.sombra(10, rule="T", purpose="x")
    expected_last = plain.d6(rule="T", purpose="x").dice

    dice = Dice(seed, hook=director)
    assert dice.d6(rule="T", purpose="x").dice == expected_d6
    hit = dice.sombra(10, rule="EXO-3.4", purpose="hit")
    assert hit.roll.dice == (10, 10, 10) and hit.roll.source == "override"
    assert hit.quality is Quality.FUMBLE
    assert dice.d6(rule="T", purpose="x").dice == expected_last
    assert [r.index for r in seen] == [0, 1, 2]
    assert seen[1].source == "seeded"  # the hook sees the original dice


def test_dice1_hook_replacement_is_validated() -> None:
    with pytest.raises(ValueError, match=r"outside 1\.\.6"):
        Dice(0, hook=lambda roll: (9,)).d6(rule="T", purpose="x")


def test_dice1_phase_seed_is_deterministic_and_distinct() -> None:
    assert phase_seed("enc", 1, "combat") == phase_seed("enc", 1, "combat")
    seeds = {
        phase_seed("enc", 1, "combat"),
        phase_seed("enc", 2, "combat"),
        phase_seed("enc", 1, "movement"),
        phase_seed("enc2", 1, "combat"),
        phase_seed(5, 1, "combat"),
        phase_seed("5", 1, "combat"),
        phase_seed("a:1", 2, "x"),
        phase_seed("a", 1, "2:x"),
    }
    assert len(seeds) == 8
    assert d6s(Dice(phase_seed("enc", 1, "combat")), 10) == d6s(Dice(phase_seed("enc", 1, "combat")), 10)


# --- DICE-2 the Sombra roll ---------------------------------------------------------------------------------


def expected_quality(de: int, a: int, b: int, skill: int, modifier: int) -> Quality:
    """DICE-2 written out independently of rules.dice."""
    ok = de + a + b + modifier <= skill
    if de == a and a == b:
        return Quality.CRITICAL if ok else Quality.FUMBLE
    if a + b <= 4:
        return Quality.LOW_SUCCESS if ok else Quality.LOW_FAILURE
    return Quality.SUCCESS if ok else Quality.FAILURE


@pytest.mark.parametrize(
    ("skill", "modifier"), [(3, 0), (10, 0), (15, 0), (17, 3), (22, -2), (30, 0), (12, 6)]
)
def test_dice2_quality_over_all_1000_outcomes(skill: int, modifier: int) -> None:
    outcomes = list(itertools.product(range(1, 11), repeat=3))
    script = [v for triple in outcomes for v in triple]
    dice = Dice(0, script)
    counts: dict[Quality, int] = dict.fromkeys(Quality, 0)
    for de, a, b in outcomes:
        roll = dice.sombra(skill, modifier, rule="DICE-2", purpose="all outcomes")
        assert roll.roll.dice == (de, a, b)
        assert (roll.de, roll.high, roll.low) == (de, max(a, b), min(a, b))
        assert roll.total == de + a + b + modifier
        assert roll.success is (de + a + b + modifier <= skill)
        assert roll.quality is expected_quality(de, a, b, skill, modifier)
        assert roll.quality.success is roll.success
        counts[roll.quality] += 1
    assert sum(counts.values()) == 1000
    # Triples: 10 in all, critical when 3x + modifier <= skill.
    crits = sum(1 for x in range(1, 11) if 3 * x + modifier <= skill)
    assert (counts[Quality.CRITICAL], counts[Quality.FUMBLE]) == (crits, 10 - crits)
    # Low rolls: damage pairs summing <= 4 (6 ordered pairs), any dE, minus the triples (1,1,1) and (2,2,2).
    assert counts[Quality.LOW_SUCCESS] + counts[Quality.LOW_FAILURE] == 6 * 10 - 2


def test_dice2_worked_roll_text_and_order() -> None:
    roll = Dice(0, [2, 4, 6]).sombra(12, rule="DICE-2", purpose="worked")
    assert roll.text == "2, 6, 4"
    assert (roll.high, roll.low, roll.damage, roll.total) == (6, 4, 10, 12)
    assert roll.success and roll.quality is Quality.SUCCESS
    assert (
        Quality.FUMBLE
        < Quality.FAILURE
        < Quality.LOW_FAILURE
        < Quality.LOW_SUCCESS
        < Quality.SUCCESS
        < Quality.CRITICAL
    )
    assert [q.success for q in Quality] == [False, False, False, True, True, True]


def test_dice2_positive_modifier_makes_success_harder() -> None:
    assert Dice(0, [3, 3, 4]).sombra(10, rule="DICE-2", purpose="x").success
    assert not Dice(0, [3, 3, 4]).sombra(10, 1, rule="DICE-2", purpose="x").success


@pytest.mark.parametrize(
    ("dice", "success", "damage"),
    [((4, 5, 2), True, 7), ((3, 9, 1), True, 10), ((1, 9, 7), True, 16), ((9, 9, 1), False, 10)],
)
def test_sk8_worked_example_rolls(dice: tuple[int, int, int], success: bool, damage: int) -> None:
    roll = Dice(0, dice).sombra(17, rule="SK-3.3", purpose="ranged")
    assert isinstance(roll, SombraRoll)
    assert roll.success is success
    assert roll.damage == damage


# --- DICE-3 2d6 ---------------------------------------------------------------------------------------------


def test_dice3_difficulty_grades() -> None:
    assert [int(d) for d in Difficulty] == [10, 15, 20, 25, 30]


@pytest.mark.parametrize(
    ("dice", "bonus", "difficulty", "skill_level", "effective", "success"),
    [
        ((3, 4), 8, Difficulty.AVERAGE, 2, 15, True),  # 15 >= 15
        ((3, 3), 8, Difficulty.AVERAGE, 2, 15, False),  # 14
        ((3, 4), 8, Difficulty.AVERAGE, 0, 20, False),  # skill 0: one grade harder
        ((6, 5), 9, Difficulty.AVERAGE, 0, 20, True),  # 20 >= 20
        ((2, 2), 6, Difficulty.ROUTINE, None, 10, True),
        ((5, 5), 20, Difficulty.NEARLY_IMPOSSIBLE, 3, 30, True),
    ],
)
def test_dice3_check_2d6_grades(
    dice: tuple[int, int], bonus: int, difficulty: int, skill_level: int | None, effective: int, success: bool
) -> None:
    check = Dice(0, dice).check_2d6(bonus, difficulty, skill_level=skill_level, rule="DICE-3", purpose="x")
    assert check.difficulty == effective
    assert check.total == sum(dice) + bonus
    assert check.success is success
    assert not check.critical and not check.fumble


def test_dice3_snake_eyes_always_fail() -> None:
    check = Dice(0, [1, 1]).check_2d6(50, Difficulty.ROUTINE, rule="DICE-3", purpose="x")
    assert check.total == 52
    assert check.fumble and not check.success and not check.critical


def test_dice3_boxcars_always_succeed_critically() -> None:
    check = Dice(0, [6, 6]).check_2d6(
        0, Difficulty.NEARLY_IMPOSSIBLE, skill_level=0, rule="DICE-3", purpose="x"
    )
    assert check.difficulty == 35
    assert check.critical and check.success and not check.fumble


@pytest.mark.parametrize(
    ("dice", "target", "success"),
    [((4, 4), 8, True), ((3, 4), 8, False), ((1, 1), 2, True), ((6, 6), 13, False)],
)
def test_dice3_avoid_is_plain_2d6_at_least_n(dice: tuple[int, int], target: int, success: bool) -> None:
    check = Dice(0, dice).avoid(target, rule="DICE-3", purpose="avoid")
    assert isinstance(check, Check2d6)
    assert check.success is success
    assert not check.critical and not check.fumble


@pytest.mark.parametrize(
    ("script", "bonus_a", "bonus_b", "winner"),
    [
        ([3, 4, 2, 2], 0, 0, "a"),
        ([3, 4, 2, 2], 0, 3, None),
        ([3, 4, 2, 2], 0, 4, "b"),
        ([1, 1, 6, 6], 12, 0, "a"),  # only totals count: 14 beats 12
    ],
)
def test_dice3_opposed_higher_total_wins(
    script: list[int], bonus_a: int, bonus_b: int, winner: str | None
) -> None:
    dice = Dice(0, script)
    result = dice.opposed_2d6(bonus_a, bonus_b, rule="DICE-3", purpose="opposed")
    assert result.roll_a.dice == tuple(script[:2]) and result.roll_b.dice == tuple(script[2:])
    assert result.total_a == sum(script[:2]) + bonus_a
    assert result.winner == winner
    assert len(dice.rolls) == 2


@given(
    st.integers(min_value=0, max_value=10**9),
    st.integers(min_value=-5, max_value=20),
    st.sampled_from(list(Difficulty)),
)
def test_dice3_check_success_rule_holds_for_seeded_rolls(
    seed: int, bonus: int, difficulty: Difficulty
) -> None:
    check = Dice(seed).check_2d6(bonus, difficulty, rule="DICE-3", purpose="x")
    d1, d2 = check.roll.dice
    expected = (d1, d2) != (1, 1) and ((d1, d2) == (6, 6) or d1 + d2 + bonus >= difficulty)
    assert check.success is expected
