"""The catch-up (bot/catchup.py): what a side may know changed since its player last acted, built from the side's
own view of each step (FOG-1, NGT-9), worded in the reader's language, and its picture with ghosts where units
were (render/ghosts.py)."""

from __future__ import annotations

from dataclasses import replace

from bot import catchup as news
from bot.catchup import Step, build
from render import BoardSnapshot, RenderOptions, render_board
from rules.engine import visibility
from rules.events import DirectorOverride, Event, ShotResolved, UnitMoved
from rules.state import EncounterState
from tests.night_fixtures import NIGHT_SKIRMISH, H, scene


def moved(state: EncounterState, uid: str, to: str) -> EncounterState:
    return state.with_units([replace(state.units[uid], at=H(to))])


def move_event(state: EncounterState, uid: str, to: str) -> UnitMoved:
    unit = state.units[uid]
    return UnitMoved(
        rule="SK-2.2", unit=uid, frm=unit.at, to=H(to), facing_from=unit.facing, facing_to=unit.facing
    )


def shot(shooter: str, target: str, damage: int) -> ShotResolved:
    return ShotResolved(rule="SK-3.3", shooter=shooter, target=target, hit=True, damage=damage)


def step(before: EncounterState, *changes: tuple[str, str], events: tuple[Event, ...] = ()) -> Step:
    after = before
    moves: list[Event] = []
    for uid, to in changes:
        moves.append(move_event(after, uid, to))
        after = moved(after, uid, to)
    return Step(before, after, (*moves, *events))


def sees(state: EncounterState, side: str, uid: str) -> bool:
    return uid in visibility(NIGHT_SKIRMISH, state, side).units


def two_rounds_away() -> tuple[EncounterState, list[Step]]:
    """Blue (a) is away for two steps: Bruno, in Alba's sight, steps aside and Alba hits him; Dune moves far in
    the dark; hidden Bex shoots Alba; then Dune moves again, still in the dark."""
    start = scene()
    first = step(
        start,
        ("bruno", "0506"),
        ("dune", "1208"),
        events=(shot("alba", "bruno", 2), shot("bex", "alba", 1)),
    )
    second = step(first.after, ("dune", "1108"))
    assert sees(first.after, "a", "bruno") and not sees(second.after, "a", "dune")
    return start, [first, second]


def test_a_player_away_for_two_steps_reads_the_moves_and_damage_their_side_saw_ngt9_in_english() -> None:
    start, steps = two_rounds_away()
    found = build(start, steps, "a")
    text = "\n".join(news.lines(found, "en"))
    assert found.moved == (("bruno", H("0505"), H("0506")),)
    assert "Bruno moved 0505 → 0506" in text
    assert "Alba hit Bruno (2 damage)" in text
    assert "Alba was hit from the dark (1 damage)" in text
    assert "Dune" not in text and "Bex" not in text and "1208" not in text and "1108" not in text


def test_the_same_catch_up_reads_in_spanish() -> None:
    start, steps = two_rounds_away()
    text = "\n".join(news.lines(build(start, steps, "a"), "es"))
    assert "Bruno se movió de 0505 a 0506" in text
    assert "Alba impactó a Bruno (2 de daño)" in text
    assert "Alba recibió un disparo desde la oscuridad (1 de daño)" in text
    assert "Desde tu última orden" in text


def test_the_other_side_reads_its_own_losses_first_and_sees_its_hidden_shooter_by_name() -> None:
    start, steps = two_rounds_away()
    found = build(start, steps, "b")
    items = news.items(found, "en")
    assert items[0] == "Bruno took 2 damage from Alba", items
    assert "Bex hit Alba (1 damage)" in items
    assert "Dune moved 1209 → 1108" in items


def test_a_unit_that_walked_into_the_dark_is_lost_from_view_at_its_last_known_hex_ngt2() -> None:
    start = scene()
    gone = step(start, ("bruno", "0910"))
    assert not sees(gone.after, "a", "bruno")
    found = build(start, [gone], "a")
    assert found.lost == (("bruno", H("0505")),) and not found.moved
    text = "\n".join(news.lines(found, "en"))
    assert "Bruno went out of view (last seen at 0505)" in text
    assert "0910" not in text


def test_a_unit_that_came_out_of_the_dark_is_newly_seen_where_it_stands_ngt2() -> None:
    start = scene()
    came = step(start, ("dune", "0406"))
    assert sees(came.after, "a", "dune")
    found = build(start, [came], "a")
    assert found.seen == (("dune", H("0406")),) and not found.moved
    text = "\n".join(news.lines(found, "en"))
    assert "Dune came into view at 0406" in text and "1209" not in text


def test_the_directors_hand_on_units_the_reader_saw_is_named_own_units_first_and_on_a_hidden_unit_not_fog1() -> (
    None
):
    start = scene()
    seen = DirectorOverride(rule="DIR", action="damage", unit="bruno", args=(("amount", 1),))
    mine = DirectorOverride(rule="DIR", action="damage", unit="alba", args=(("amount", 1),))
    hidden = DirectorOverride(rule="DIR", action="damage", unit="bex", args=(("amount", 1),))
    found = build(start, [Step(start, start, (seen, mine, hidden))], "a")
    assert found.director == (seen, mine)
    listed = news.items(found, "en")
    assert listed[0].startswith("Director: ") and "Alba" in listed[0], listed
    assert "Bruno" in listed[1], listed
    assert "Bex" not in "\n".join(news.lines(found, "en"))


def test_a_long_absence_is_phone_sized_the_rest_counted() -> None:
    start = scene()
    hits = tuple(shot("alba", "bruno", n) for n in range(1, 4)) + tuple(
        shot("bruno", "alba", n) for n in range(1, 4)
    )
    steps = [step(start, ("bruno", "0506"), events=hits)]
    steps.append(step(steps[-1].after, ("alba", "0306")))
    steps.append(step(steps[-1].after, ("bruno", "0406")))
    found = build(start, steps, "a", undone=2)
    listed = news.items(found, "en")
    shown = news.lines(found, "en", limit=2)
    assert len(listed) > 3
    assert shown[-1] == f"… and {len(listed) - 2} more"
    assert len(shown) == 4  # since when, two items, the count


def test_nothing_new_says_so() -> None:
    start = scene()
    found = build(start, [], "a", acted=False)
    assert found.empty
    assert news.lines(found, "es") == ["Desde el comienzo:", "Nada nuevo a la vista."]


def test_the_ghost_picture_differs_from_the_plain_board_where_a_unit_moved() -> None:
    start, steps = two_rounds_away()
    found = build(start, steps, "a")
    options = RenderOptions(locale="en", whole_board=True)
    plain = render_board(BoardSnapshot(found.state, found.marks), viewer="a", options=options)
    ghosted = render_board(
        BoardSnapshot(found.state, found.marks, ghosts=found.ghosts), viewer="a", options=options
    )
    assert plain != ghosted
    alt = news.alt(found, "en")
    assert alt.startswith("Catch-up board") and "Bruno 0505 → 0506" in alt


def test_a_ghost_of_a_unit_the_viewer_cannot_see_is_never_drawn_fog1() -> None:
    state = scene()
    options = RenderOptions(locale="en", whole_board=True)
    plain = render_board(BoardSnapshot(state), viewer="a", options=options)
    ghosted = render_board(BoardSnapshot(state, ghosts=(("dune", H("1208")),)), viewer="a", options=options)
    assert plain == ghosted
