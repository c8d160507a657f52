"""The replay animation (render/replay.py, DESIGN §5): frames, one fixed viewport, fog in every frame, the upload
cap, determinism. Frames come from the golden exo duel resolved offline, and from hand-made states with a hidden
ship (the renderer tests' fixture)."""

from __future__ import annotations

import io
from functools import cache

import pytest
from PIL import Image

from render import BoardSnapshot, RenderOptions, render_replay
from render.board import interest_hexes, viewport_for
from render.colours import NEUTRAL
from render.replay import FRAME_MS, LAST_FRAME_MS, ReplayTooLargeError
from rules.events import ShotResolved, UnitMoved
from rules.registry import ruleset_for
from rules.ruleset import DiceFactory
from rules.scenario import load_scenario
from rules.state import replace_unit
from tests.paths import GOLDEN
from tests.render_fixtures import H, exo_state

GOLDEN = GOLDEN / "exo-golden.toml"


@cache
def golden_frames(rounds: int) -> tuple[BoardSnapshot, ...]:
    """The starting positions, then the board after every engine step of the first ``rounds`` rounds."""
    scenario = load_scenario(GOLDEN)
    ruleset = ruleset_for(scenario.state)
    state = scenario.state
    frames = [BoardSnapshot(state)]
    for spec in scenario.rounds[:rounds]:
        for step in ruleset.simulate_round(state, spec, DiceFactory()):
            frames.append(BoardSnapshot(step.state, step.events))
            state = step.state
    return tuple(frames)


def decoded(data: bytes) -> list[tuple[Image.Image, int]]:
    """Every frame of an animation as RGB, with its duration in ms."""
    img = Image.open(io.BytesIO(data))
    out: list[tuple[Image.Image, int]] = []
    for i in range(getattr(img, "n_frames", 1)):
        img.seek(i)
        out.append((img.convert("RGB"), int(img.info.get("duration", 0))))
    return out


@pytest.mark.parametrize("fmt", ["gif", "webp"])
def test_one_frame_per_step_of_one_size_and_the_last_one_lingers(fmt: str) -> None:
    frames = golden_frames(2)
    replay = render_replay(frames, viewer="public", fmt=fmt)  # type: ignore[arg-type]
    assert replay.frames == replay.steps == len(frames) and not replay.reduced
    assert replay.filename == f"replay.{fmt}"
    shown = decoded(replay.data)
    assert len(shown) == len(frames)
    assert {im.size for im, _ in shown} == {(replay.width, replay.height)}
    assert replay.width == RenderOptions().width
    assert [ms for _, ms in shown] == [FRAME_MS] * (len(frames) - 1) + [LAST_FRAME_MS]


def test_the_viewport_is_fixed_for_the_whole_replay() -> None:
    """Each step alone would be framed differently (the ships fly apart); the replay frames them all alike, so
    the asteroid, which never moves, sits on the same pixels in every frame."""
    frames = golden_frames(10)
    alone = {viewport_for(f, viewer="public") for f in frames}
    assert len(alone) > 1, "the fixture must make single-step viewports differ"
    union = sorted({h for f in frames for h in interest_hexes(f, viewer="public")}, key=lambda h: (h.q, h.r))
    vp = viewport_for(frames[0], viewer="public", preview_hexes=union)
    assert all(viewport_for(f, viewer="public", preview_hexes=union) == vp for f in frames)
    x, y = vp.center(H("0708"))  # Roca, the asteroid
    grey = NEUTRAL["asteroid"]
    for im, _ in decoded(render_replay(frames, viewer="public").data):
        r, g, b = im.getpixel((round(x), round(y)))  # type: ignore[misc]
        assert max(abs(r - grey[0]), abs(g - grey[1]), abs(b - grey[2])) <= 12


def hidden_ship_frames(*, without_sombra: bool) -> list[BoardSnapshot]:
    """Three steps in which the hidden blue Sombra moves and fires; or the same steps as if it were not there."""
    start = exo_state(round=1, phase="1")
    first = exo_state(round=1, phase="3")
    first = first.with_units(
        [replace_unit(first.units["sombra"], at=H("1108")), replace_unit(first.units["halcon"], at=H("0604"))]
    )
    second = first.with_units([replace_unit(first.units["sombra"], at=H("1407"))])
    second = second.replace(round=2, phase="1")
    events_1 = (
        UnitMoved(rule="EXO-4.3", unit="sombra", frm=H("1209"), to=H("1108"), facing_from=5, facing_to=5),
        UnitMoved(rule="EXO-4.3", unit="halcon", frm=H("0505"), to=H("0604"), facing_from=1, facing_to=1),
    )
    events_2 = (
        ShotResolved(rule="EXO-3.4", shooter="sombra", target="halcon", hit=True, damage=3),
        UnitMoved(rule="EXO-4.3", unit="sombra", frm=H("1108"), to=H("1407"), facing_from=5, facing_to=5),
    )
    states = [start, first, second]
    if without_sombra:
        states = [s.without_unit("sombra") for s in states]
    return [BoardSnapshot(states[0]), BoardSnapshot(states[1], events_1), BoardSnapshot(states[2], events_2)]


@pytest.mark.parametrize("viewer", ["public", "red"])
def test_a_hidden_unit_is_in_no_frame_nor_in_the_framing(viewer: str) -> None:
    """FOG-1 in every frame: the replay is byte-identical to the replay of the same steps without the unit
    (no counter, trail, firing line or panel row, and the viewport is not widened toward it)."""
    fogged = render_replay(hidden_ship_frames(without_sombra=False), viewer=viewer)
    absent = render_replay(hidden_ship_frames(without_sombra=True), viewer=viewer)
    assert fogged.data == absent.data
    # the director and its own side do see it, so for them the replays differ
    for sees in ("director", "blue"):
        assert (
            render_replay(hidden_ship_frames(without_sombra=False), viewer=sees).data
            != render_replay(hidden_ship_frames(without_sombra=True), viewer=sees).data
        )


def test_a_replay_over_the_cap_is_reduced_in_order_and_says_so() -> None:
    frames = golden_frames(3)
    full = render_replay(frames, viewer="public")
    seen_scaled = seen_dropped = False
    last_frames = full.frames
    for share in (0.7, 0.45, 0.3, 0.24):  # measured: 0.75 scale; 0.5; 0.5 and 4 frames; 0.5 and 2 frames
        cap = int(len(full.data) * share)
        small = render_replay(frames, viewer="public", max_bytes=cap)
        assert len(small.data) <= cap and small.reduced
        assert small.steps == len(frames) and small.frames == len(frames) - small.dropped
        assert small.frames <= last_frames  # smaller caps never give more frames
        last_frames = small.frames
        shown = decoded(small.data)
        assert len(shown) == small.frames and shown[0][0].size == (small.width, small.height)
        seen_scaled |= small.scaled
        seen_dropped |= small.dropped > 0
    assert seen_scaled and seen_dropped, "both ways of shrinking should have been used"
    with pytest.raises(ReplayTooLargeError):
        render_replay(frames, viewer="public", max_bytes=200)


@pytest.mark.parametrize("fmt", ["gif", "webp"])
def test_same_steps_same_bytes(fmt: str) -> None:
    frames = golden_frames(1)
    one = render_replay(frames, viewer="red", fmt=fmt)  # type: ignore[arg-type]
    two = render_replay(frames, viewer="red", fmt=fmt)  # type: ignore[arg-type]
    assert one.data == two.data


def test_captions_follow_the_language() -> None:
    frames = golden_frames(1)
    en = decoded(render_replay(frames, viewer="public", options=RenderOptions(locale="en")).data)
    es = decoded(render_replay(frames, viewer="public", options=RenderOptions(locale="es")).data)
    assert len(en) == len(es)
    width, height = en[0][0].size
    strip = (0, height - 34, width, height)
    assert en[1][0].crop(strip).tobytes() != es[1][0].crop(strip).tobytes()


def test_no_frames_is_an_error() -> None:
    with pytest.raises(ValueError):
        render_replay([], viewer="public")
