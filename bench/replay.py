"""Replay benchmark (DESIGN §5): the ten-round golden exo duel, resolved offline, animated as one file.

Prints one JSON line per (format, viewer), ``{"case": "exo-golden-10", "fmt": "gif", "viewer": "public",
"frames": 51, "p50_ms": …, "min_ms": …, "kb": …, "width": 1280, "height": 1068, "reduced": false}``, then one
line for a replay squeezed under a small cap (the reduction path: scale down, drop unchanged steps).

    .venv/bin/python bench/replay.py [--repeat N]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from render import BoardSnapshot, render_replay
from render.replay import ReplayFormat
from rules.registry import ruleset_for
from rules.ruleset import DiceFactory
from rules.scenario import load_scenario

GOLDEN = Path(__file__).resolve().parent.parent / "tests" / "golden" / "exo-golden.toml"


def golden_frames() -> list[BoardSnapshot]:
    """The starting positions, then the board after every engine step of the ten scripted rounds."""
    scenario = load_scenario(GOLDEN)
    ruleset = ruleset_for(scenario.state)
    state = scenario.state
    frames = [BoardSnapshot(state)]
    for spec in scenario.rounds:
        for step in ruleset.simulate_round(state, spec, DiceFactory()):
            frames.append(BoardSnapshot(step.state, step.events))
            state = step.state
    return frames


def measure(
    frames: list[BoardSnapshot], *, fmt: ReplayFormat, viewer: str, repeat: int, max_bytes: int | None = None
) -> dict[str, object]:
    times: list[float] = []
    kwargs = {} if max_bytes is None else {"max_bytes": max_bytes}
    replay = None
    for _ in range(repeat):
        start = time.perf_counter()
        replay = render_replay(frames, viewer=viewer, fmt=fmt, **kwargs)
        times.append((time.perf_counter() - start) * 1000)
    assert replay is not None
    return {
        "case": "exo-golden-10",
        "fmt": fmt,
        "viewer": viewer,
        "max_kb": None if max_bytes is None else round(max_bytes / 1024),
        "steps": replay.steps,
        "frames": replay.frames,
        "p50_ms": round(statistics.median(times), 1),
        "min_ms": round(min(times), 1),
        "kb": round(len(replay.data) / 1024, 1),
        "width": replay.width,
        "height": replay.height,
        "scaled": replay.scaled,
        "dropped": replay.dropped,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    frames = golden_frames()
    for fmt, viewer in (("gif", "public"), ("gif", "director"), ("webp", "public")):
        print(json.dumps(measure(frames, fmt=fmt, viewer=viewer, repeat=args.repeat)), flush=True)
    print(json.dumps(measure(frames, fmt="gif", viewer="public", repeat=1, max_bytes=150 * 1024)), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
