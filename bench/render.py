"""Board renderer benchmark: fast path vs a naive full redraw, measured side by side.

Prints one JSON line per case, ``{"board": "40x30", "units": 50, "naive": false, "p50_ms": …, "p95_ms": …,
"png_kb": …}``, for 20×15/10, 40×30/50 and 80×60/200 units, then the naive rows (static layer rebuilt every time,
RGB, default PNG level 6), then a line with the naive/fast ratio per case, then the bundled exo duel's boards
(unbounded: the camera follows the action) with a cached and a rebuilt static layer. The two paths are timed
interleaved, case by case, so the ratio holds up when other processes load the machine.

    .venv/bin/python bench/render.py [--repeat N]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from render import BoardSnapshot, RenderOptions, render_board
from render.board import render_board_uncached
from rules.events import Event, ShotResolved, UnitMoved
from rules.exo import Ship
from rules.hexgrid import Hex
from rules.state import Board, EncounterState, Side, Unit

CASES = ((20, 15, 10), (40, 30, 50), (80, 60, 200))
TERRAIN = ("woods", "water", "obstacle", "hill", "road")


def snapshot(width: int, height: int, count: int, seed: int = 4) -> BoardSnapshot:
    rng = random.Random(seed)
    cells = [Hex.from_offset(c, r) for c in range(1, width + 1) for r in range(1, height + 1)]
    spots = rng.sample(cells, count)
    units: list[Unit] = []
    for i, at in enumerate(spots):
        units.append(  # exo ships: the exo overlay gives them stat bars, so rows are as busy as a real game's
            Ship(
                id=f"u{i:03d}",
                side=("red", "blue")[i % 2],
                name=f"Unit {i}",
                label=f"U{i}",
                at=at,
                facing=i % 6,
                armor=rng.randint(2, 8),
                max_armor=8,
                structure=rng.randint(1, 6),
                max_structure=6,
                engines=3,
                max_engines=3,
            )
        )
    terrain = {h: rng.choice(TERRAIN) for h in rng.sample(cells, len(cells) // 8)}
    state = EncounterState(
        ruleset="exo",
        name=f"Bench {width}x{height}",
        board=Board(width=width, height=height, terrain=terrain),
        sides=(Side("red", "Red"), Side("blue", "Blue")),
        units={u.id: u for u in units},
        round=3,
        phase="2",
    )
    events: list[Event] = []
    for u in units[: max(1, count // 10)]:
        assert u.at is not None
        frm = u.at.neighbor(3).neighbor(3)
        events.append(
            UnitMoved(
                rule="BENCH",
                unit=u.id,
                frm=frm,
                to=u.at,
                facing_from=0,
                facing_to=u.facing,
                path=(u.at.neighbor(3),),
            )
        )
    for a, b in zip(units[::7], units[1::7], strict=False):
        events.append(ShotResolved(rule="BENCH", shooter=a.id, target=b.id, hit=a.facing % 2 == 0, damage=3))
    return BoardSnapshot(state=state, events=tuple(events))


def _timed(fn: Callable[[], bytes]) -> tuple[float, int]:
    t0 = time.perf_counter()
    data = fn()
    return (time.perf_counter() - t0) * 1000, len(data)


def _summary(times: list[float]) -> tuple[float, float]:
    times = sorted(times)
    return statistics.median(times), times[min(len(times) - 1, round(0.95 * (len(times) - 1)))]


def measure_pair(
    fast: Callable[[], bytes], naive: Callable[[], bytes], repeat: int
) -> tuple[tuple[float, float, int], tuple[float, float, int]]:
    """Time both paths interleaved (one naive call after every third fast one), so load from other processes
    drifting during the run hits both sides of the ratio alike. Both are warmed up first (fonts, static layer)."""
    fast()
    naive()
    fast_times: list[float] = []
    naive_times: list[float] = []
    fast_size = naive_size = 0
    for i in range(repeat):
        ms, fast_size = _timed(fast)
        fast_times.append(ms)
        if i % 3 == 2 or (i == repeat - 1 and len(naive_times) < 5):
            ms, naive_size = _timed(naive)
            naive_times.append(ms)
    while len(naive_times) < 5:
        ms, naive_size = _timed(naive)
        naive_times.append(ms)
    return (*_summary(fast_times), fast_size), (*_summary(naive_times), naive_size)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--repeat", type=int, default=30)
    args = parser.parse_args()
    naive_opts = RenderOptions(palette=False, png_level=6)
    results: dict[bool, list[dict[str, object]]] = {False: [], True: []}
    p50s: dict[tuple[str, bool], float] = {}
    for w, h, n in CASES:
        snap = snapshot(w, h, n)
        pair = measure_pair(
            lambda snap=snap: render_board(snap, viewer="director"),
            lambda snap=snap: render_board_uncached(snap, viewer="director", options=naive_opts),
            args.repeat,
        )
        for naive, (p50, p95, size) in zip((False, True), pair, strict=True):
            p50s[f"{w}x{h}", naive] = round(p50, 2)
            results[naive].append(
                {
                    "board": f"{w}x{h}",
                    "units": n,
                    "naive": naive,
                    "p50_ms": round(p50, 2),
                    "p95_ms": round(p95, 2),
                    "png_kb": round(size / 1024, 1),
                }
            )
    for row in results[False] + results[True]:
        print(json.dumps(row), flush=True)
    ratios = {board: round(ms / p50s[board, False], 1) for (board, naive), ms in p50s.items() if naive}
    print(json.dumps({"ratio_naive_over_fast": ratios, "min_ratio": min(ratios.values())}))
    print(json.dumps(duel_boards(max(2, args.repeat // 10))))


def duel_boards(repeat: int) -> dict[str, object]:
    """Every board of the bundled exo duel (unbounded, the camera on the action), public and director views:
    the time per board once the static layer is cached (the same view again) and after clearing it."""
    from render import static_layer
    from rules.registry import ruleset_for
    from rules.ruleset import DiceFactory
    from rules.scenario import load_scenario

    scenario = load_scenario(Path(__file__).resolve().parent.parent / "data" / "scenarios" / "exo-duel.toml")
    ruleset, state = ruleset_for(scenario.state), scenario.state
    snaps = [BoardSnapshot(state)]
    for spec in scenario.rounds:
        for step in ruleset.simulate_round(state, spec, DiceFactory()):
            snaps.append(BoardSnapshot(step.state, step.events))
            state = step.state
        if state.over:
            break
    warm: list[float] = []
    cold: list[float] = []
    for _ in range(repeat):
        for snap in snaps:
            for viewer in ("public", "director"):
                warm.append(_timed(lambda snap=snap, viewer=viewer: render_board(snap, viewer=viewer))[0])
                static_layer.clear_cache()
                cold.append(_timed(lambda snap=snap, viewer=viewer: render_board(snap, viewer=viewer))[0])
    return {
        "exo_duel_boards": len(snaps) * 2,
        "warm_p50_ms": round(statistics.median(warm), 2),
        "cold_p50_ms": round(statistics.median(cold), 2),
    }


if __name__ == "__main__":
    main()
