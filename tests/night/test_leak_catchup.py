"""The leak matrix of the catch-up (bot/catchup.py; FOG-1, NGT-9, MECH-1.1): at night (the night layer over
skirmish) and in mech's secret declarations with a hidden mech, a side's catch-up — its text in both languages,
its picture (ghosts, firing lines, hurt marks) and the picture's alt text — is byte for byte the same whether or
not the units that side cannot see moved, fired and were hit meanwhile. Two worlds share every step the side
sees; one adds what it must not learn. The count of surfaces that differ is the figure: 0."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import pytest

from bot import catchup as news
from bot.catchup import Step, build
from render import BoardSnapshot, RenderOptions, render_board
from rules.events import Event, ShotResolved, UnitMoved
from rules.mech.events import DamageDealt, WeaponFired
from rules.state import EncounterState
from tests.mech_fixtures import build as mech_state
from tests.mech_fixtures import unit as mech_unit
from tests.night_fixtures import H, scene

Change = tuple[str, str]  # (unit, hex it moves to)
Plan = list[tuple[list[Change], tuple[Event, ...]]]  # each step: its moves and its other events


def steps_of(start: EncounterState, plan: Plan) -> list[Step]:
    """The steps of ``plan``: each moves units (with their ``UnitMoved``) and adds events."""
    out: list[Step] = []
    state = start
    for changes, events in plan:
        after = state
        moves: list[Event] = []
        for uid, to in changes:
            unit = after.units[uid]
            moves.append(
                UnitMoved(
                    rule="SK-2.2",
                    unit=uid,
                    frm=unit.at,
                    to=H(to),
                    facing_from=unit.facing,
                    facing_to=unit.facing,
                )
            )
            after = after.with_units([replace(unit, at=H(to))])
        out.append(Step(state, after, (*moves, *events)))
        state = after
    return out


def shot(shooter: str, target: str, damage: int) -> ShotResolved:
    return ShotResolved(rule="SK-3.3", shooter=shooter, target=target, hit=True, damage=damage)


def night_worlds(viewer: str) -> tuple[list[Step], list[Step]]:
    """Blue (a) and Red (b) see Bruno step aside and Alba hit him. Only in the second world: for Blue, Dune
    walks in the dark, shoots hidden Bex and concealed Cora; for Red, hidden Ash moves and Alba hits Ash."""
    start = scene()
    seen: Plan = [
        ([("bruno", "0506")], (shot("alba", "bruno", 2),)),
        ([], ()),
    ]
    hidden: dict[str, Plan] = {
        "a": [
            ([("bruno", "0506"), ("dune", "1208")], (shot("alba", "bruno", 2), shot("dune", "bex", 3))),
            ([("dune", "1108"), ("bex", "0403")], (shot("dune", "cora", 1),)),
        ],
        "b": [
            ([("bruno", "0506"), ("ash", "0310")], (shot("alba", "bruno", 2), shot("alba", "ash", 1))),
            ([("ash", "0210")], ()),
        ],
    }
    return steps_of(start, seen), steps_of(start, hidden[viewer])


def laser(shooter: str, target: str, hit: bool) -> WeaponFired:
    return WeaponFired(
        rule="MECH-2.1",
        unit=shooter,
        weapon=1,
        weapon_type="medium_laser",
        target=target,
        target_number=8,
        roll=9,
        total=9,
        hit=hit,
        distance=3,
    )


def dealt(target: str, by: str, amount: int) -> DamageDealt:
    return DamageDealt(
        rule="MECH-2.3", unit=target, by=by, location="ct", amount=amount, armor=1, structure=5
    )


def mech_worlds(viewer: str) -> tuple[list[Step], list[Step]]:
    """Red sees Hunter walk and Wolf's laser hit it; only in the second world, the hidden Spook walks, and Wolf
    and Spook trade fire (MECH-1.1 secret declarations: red never learns a hidden mech's moves or hits)."""
    assert viewer == "red"
    start = mech_state(
        mech_unit("hunter", "red", "0810"),
        mech_unit("wolf", "blue", "0805", "S"),
        mech_unit("spook", "blue", "1203", "S", hidden=True),
        options={"secret_declarations": True},
    )
    seen: Plan = [
        ([("hunter", "0809")], (laser("wolf", "hunter", True), dealt("hunter", "wolf", 5))),
        ([], ()),
    ]
    hidden: Plan = [
        (
            [("hunter", "0809"), ("spook", "1303")],
            (
                laser("wolf", "hunter", True),
                dealt("hunter", "wolf", 5),
                laser("spook", "wolf", True),
                dealt("wolf", "spook", 0),
            ),
        ),
        ([("spook", "1304")], (laser("wolf", "spook", True), dealt("spook", "wolf", 5))),
    ]
    return steps_of(start, seen), steps_of(start, hidden)


def surfaces(steps: list[Step], viewer: str) -> dict[str, object]:
    """Everything the viewer's catch-up shows: its text in both languages, its picture, its alt text."""
    found = build(steps[0].before, steps, viewer)
    options = RenderOptions(locale="en", whole_board=True)
    png = render_board(
        BoardSnapshot(found.state, found.marks, ghosts=found.ghosts), viewer=viewer, options=options
    )
    return {
        "text en": news.lines(found, "en"),
        "text es": news.lines(found, "es"),
        "alt en": news.alt(found, "en"),
        "alt es": news.alt(found, "es"),
        "picture": png,
    }


CASES: tuple[tuple[str, str, Callable[[str], tuple[list[Step], list[Step]]]], ...] = (
    ("night skirmish, blue", "a", night_worlds),
    ("night skirmish, red", "b", night_worlds),
    ("mech secret declarations, red", "red", mech_worlds),
)


@pytest.mark.parametrize(("name", "viewer", "worlds"), CASES, ids=[c[0] for c in CASES])
def test_a_sides_catch_up_is_byte_identical_whatever_it_could_not_see_did_fog1_ngt9(
    name: str, viewer: str, worlds: Callable[[str], tuple[list[Step], list[Step]]]
) -> None:
    plain, busy = worlds(viewer)
    base, seen = surfaces(plain, viewer), surfaces(busy, viewer)
    leaks = [surface for surface in base if seen[surface] != base[surface]]
    assert leaks == [], f"{name}: the catch-up tells what the side could not see through {leaks}"
    # the worlds are not trivially empty: the side does read what it saw
    assert any("0506" in line or "0809" in line for line in base["text en"]), base["text en"]  # type: ignore[attr-defined]


def test_the_hidden_activity_really_happened_in_the_busy_world() -> None:
    """The other side (or the director) does read it: the matrix compares worlds that truly differ."""
    _, busy = night_worlds("a")
    assert "Dune moved 1209 → 1108" in news.items(build(busy[0].before, busy, "b"), "en")
    _, busy = mech_worlds("red")
    assert any(
        "Spook" in line or "spook" in line for line in news.items(build(busy[0].before, busy, "blue"), "en")
    )
