"""Boards that tell the step's story at 550 px: mech elevation and fire, the acting unit ringed, damage marked,
stacked counters fanned out. Pixel probes at the places that matter, on the fast (palette) path."""

from __future__ import annotations

import math
from dataclasses import replace

from PIL import Image

from bot.rulesets.sheets.mech import record_sheet
from render import BoardSnapshot, RenderOptions, render_board
from render.board import BoardTrace, trace_board, viewport_for
from render.colours import HIT, theme_for
from render.counters import ACTING
from render.rulesets.mech import HILL, hill_shade
from render.rulesets.mech import OVERLAY as MECH_OVERLAY
from rules.engine import resolve_phase
from rules.events import UnitMoved
from rules.registry import ruleset_for
from rules.ruleset import DiceFactory
from rules.scenario import load_scenario
from rules.state import EncounterState
from tests.mech_fixtures import build, laser_at_locust, step, unit, with_unit
from tests.ocs_fixtures import TWO_COMBATS, board, director
from tests.paths import ROOT
from tests.render_fixtures import H, decode, share_of

EN = RenderOptions(locale="en")


def _hits(img: Image.Image, centre: tuple[float, float], half: int, colour: tuple[int, int, int]) -> int:
    return round(share_of(img, centre, half, colour) * (2 * half + 1) ** 2)


def _ringed(img: Image.Image, trace: BoardTrace, uid: str) -> bool:
    """Whether the acting ring's colour lies just outside ``uid``'s counter."""
    (cx, cy), r = trace.counters[uid]
    around = [
        (cx + (r + 4) * math.cos(a * math.pi / 8), cy + (r + 4) * math.sin(a * math.pi / 8))
        for a in range(16)
    ]
    return sum(_hits(img, p, 1, ACTING) for p in around) > 0


def _duel(**kw: object) -> EncounterState:
    return build(unit("atlas", "red", "0405", "SE"), unit("locust", "blue", "0408", "N"), **kw)  # type: ignore[arg-type]


_fired = laser_at_locust


def test_mech_2_1_a_level_2_hex_is_shaded_and_numbered() -> None:
    """Line of sight reads elevation (MECH-2.1): a level-2 hex takes the level-2 shade and a tag with its level."""
    state = _duel(elevation={"0606": 2, "0607": 1})
    snap = BoardSnapshot(state)
    img = decode(render_board(snap, viewer="director", options=EN))
    vp = viewport_for(snap, viewer="director", options=EN)
    x, y = vp.center(H("0606"))
    shade = hill_shade(theme_for(state).hex_fill, 2)
    probe = (x - vp.size * 0.35, y)  # left of the middle: clear of the label above and the tag below
    assert share_of(img, probe, 2, shade) == 1.0
    assert _hits(img, (x, y + vp.size * 0.6), round(vp.size * 0.2), HILL) > 0, (
        "the level tag at the hex's foot"
    )
    flat = vp.center(H("0706"))
    assert share_of(img, (flat[0] - vp.size * 0.35, flat[1]), 2, shade) == 0.0


def test_mech_2_1_every_shot_is_a_firing_line_hit_in_the_hit_colour() -> None:
    """MECH-2.1: a mech's shot is drawn as exo's and pbw's are: a solid line in the hit colour, a damage badge."""
    state = _duel()
    snap = BoardSnapshot(state, _fired(True, damage=5))
    trace = trace_board(snap, viewer="director", options=EN)
    assert [(m.shooter, m.target, m.hit, m.damage) for m in trace.shots] == [("atlas", "locust", True, 5)]
    assert [b.text for b in trace.badges] == ["5"]
    img = decode(render_board(snap, viewer="director", options=EN))
    mark = trace.shots[0]
    middle = ((mark.tail[0] + mark.tip[0]) / 2, (mark.tip[1] + mark.tail[1]) / 2)
    assert _hits(img, middle, 2, HIT) > 0
    missed = trace_board(BoardSnapshot(state, _fired(False)), viewer="director", options=EN)
    assert [(m.hit, m.spent) for m in missed.shots] == [(False, False)]


def test_mech_2_1_no_firing_line_without_a_shot() -> None:
    trace = trace_board(BoardSnapshot(_duel()), viewer="director", options=EN)
    assert trace.shots == []


def test_mech_1_2_the_unit_declaring_is_ringed_and_no_other() -> None:
    """MECH-1.2: declarations go one unit at a time; the board shows whose turn it is."""
    state, _ = step(_duel())  # initiative rolled: the first declarer is awaited
    (declarer,) = ruleset_for(state).awaiting(state)
    other = "locust" if declarer == "atlas" else "atlas"
    snap = BoardSnapshot(state)
    img = decode(render_board(snap, viewer="director", options=EN))
    trace = trace_board(snap, viewer="director", options=EN)
    assert _ringed(img, trace, declarer)
    assert not _ringed(img, trace, other)
    assert "whose turn it is" in trace.legend


def test_mech_2_3_a_unit_damaged_this_step_is_marked_on_its_counter() -> None:
    """MECH-2.3: the damaged mech carries a red crack on its counter; the shooter does not."""
    state = _duel()
    snap = BoardSnapshot(state, _fired(True, damage=5))
    img = decode(render_board(snap, viewer="director", options=EN))
    trace = trace_board(snap, viewer="director", options=EN)
    (cx, cy), r = trace.counters["locust"]
    assert _hits(img, (cx, cy), round(r * 0.5), HIT) > 0
    (ax, ay), ar = trace.counters["atlas"]
    assert _hits(img, (ax, ay), round(ar * 0.5), HIT) == 0
    assert "damaged this step" in trace.legend


def test_ocs_1_two_counters_in_one_hex_fan_out_readable_and_apart() -> None:
    """OCS-1 stacks: each counter of a two-unit stack is at least 0.45 hex sizes across and none covers the
    other (at most 1 px, antialiasing)."""
    state = board(
        [("u1", "axis", "0505", 4, 3, 2), ("u2", "axis", "0505", 2, 2, 1), ("e1", "allies", "0707", 3, 3, 2)]
    )
    snap = BoardSnapshot(state)
    trace = trace_board(snap, viewer="director", options=EN)
    size = viewport_for(snap, viewer="director", options=EN).size
    (c1, r1), (c2, r2) = trace.counters["u1"], trace.counters["u2"]
    assert min(r1, r2) >= 0.45 * size
    assert math.dist(c1, c2) >= r1 + r2 - 1
    lone = trace.counters["e1"][1]
    assert r1 < lone  # a stack's counters are smaller than a lone one, but not by much


def test_mech_3_1_heat_and_the_doll_go_to_unit_info_not_onto_the_board() -> None:
    """At 550 px a heat gauge beside a counter is a pixel wide and the panel's doll has no legible figure: the
    board keeps heat, armour and structure as numbers in the panel, and ``/unit info`` sends the doll with every
    location's figures (MECH-2.3, MECH-3.1)."""
    state = with_unit(_duel(), "atlas", heat=12)
    atlas = state.units["atlas"]
    assert tuple(MECH_OVERLAY.doll(atlas)) == ()
    assert [b.label for b in MECH_OVERLAY.stat_bars(atlas)][:1] == ["render.stat.heat"]
    assert record_sheet(state, "atlas", "director").doll, "the sheet's doll image has every location"


def test_pbw_2_a_move_leaves_its_trail_on_the_board() -> None:
    state = load_scenario(ROOT / "data" / "scenarios" / "pbw-brawl.toml").state
    uid, ch = sorted(state.units.items())[0]
    assert ch.at is not None
    to = ch.at.neighbor(3)
    moved = state.with_units([replace(ch, at=to)])
    move = UnitMoved(rule="PBW-2", unit=uid, frm=ch.at, to=to, facing_from=ch.facing, facing_to=ch.facing)
    still = trace_board(BoardSnapshot(moved), viewer="director", options=EN)
    trail = trace_board(BoardSnapshot(moved, (move,)), viewer="director", options=EN)
    assert "last move" not in still.legend
    assert "last move" in trail.legend


def test_ocs_1_each_counter_carries_its_strength_and_ar() -> None:
    """OCS-1: strength and Action Rating on the counter, "4-3" in a white tag at its lower left, named in the
    legend."""
    state = board([("u1", "axis", "0505", 4, 3, 2), ("e1", "allies", "0707", 3, 2, 1)])
    snap = BoardSnapshot(state)
    trace = trace_board(snap, viewer="director", options=EN)
    img = decode(render_board(snap, viewer="director", options=EN))
    (cx, cy), r = trace.counters["u1"]
    assert share_of(img, (cx - r * 0.2, cy + r * 0.92), 2, (255, 255, 255)) > 0.3
    assert any(text.startswith("4-3: strength and AR") for text in trace.legend)


def test_ocs_2_the_stack_whose_answer_a_combat_waits_for_is_ringed() -> None:
    """OCS-2: once a combat is opened, the attacker chooses its AR unit: both attacking units are ringed, the
    defender is not; once the attacker has answered, the defender's stack is."""
    state = load_scenario(TWO_COMBATS).state
    state = director(state, {"combat": {"attackers": ["a1", "a2"], "defender": "0403"}}).state
    snap = BoardSnapshot(state)
    img = decode(render_board(snap, viewer="director", options=EN))
    trace = trace_board(snap, viewer="director", options=EN)
    assert _ringed(img, trace, "a1") and _ringed(img, trace, "a2")
    assert not _ringed(img, trace, "d1")
    state = director(state, {"ar": "a1", "combat": 1}).state
    snap = BoardSnapshot(state)
    img = decode(render_board(snap, viewer="director", options=EN))
    trace = trace_board(snap, viewer="director", options=EN)
    assert _ringed(img, trace, "d1") and not _ringed(img, trace, "a1")


def test_sk_1_1_every_character_of_the_drawn_chit_is_ringed() -> None:
    """SK-1.1: once a chit is drawn, any of its characters may act (its player picks one): all are ringed, though
    they stand apart; nobody else is."""
    state = load_scenario(ROOT / "data" / "scenarios" / "skirmish-corridor.toml").state
    rules = ruleset_for(state)
    state = resolve_phase(rules, state, {}, dice_for=DiceFactory()).state  # the draw
    awaited = set(rules.awaiting(state))
    assert len(awaited) > 1 and len({state.units[u].at for u in awaited}) > 1
    snap = BoardSnapshot(state)
    img = decode(render_board(snap, viewer="director", options=EN))
    trace = trace_board(snap, viewer="director", options=EN)
    for uid, piece in state.units.items():
        if piece.on_board:
            assert _ringed(img, trace, uid) is (uid in awaited), uid
