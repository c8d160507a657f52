"""Board renderer benchmark (issue 4): fast path vs a naive full redraw, measured side by side.

Prints one JSON line per case, ``{"board": "40x30", "units": 50, "naive": false, "p50_ms": …, "p95_ms": …,
"png_kb": …}``, for 20×15/10, 40×30/50 and 80×60/200 units, then the naive rows (static layer rebuilt every time,
RGB, default PNG level 6), then a final line with the naive/fast ratio per case.

    .venv/bin/python bench/render.py [--repeat N]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from render import BoardSnapshot, RenderOptions, render_board
from render.board import render_board_uncached
from rules.events import Event, ShotResolved, UnitMoved
from rules.hexgrid import Hex
from rules.state import Board, EncounterState, Side, Unit

CASES = ((20, 15, 10), (40, 30, 50), (80, 60, 200))
TERRAIN = ("woods", "water", "obstacle", "hill", "road")


@dataclass(frozen=True, slots=True, kw_only=True)
class BenchShip(Unit):
    """Carries the stat fields the panel reads (exo-like), so rows are as busy as a real game's."""

    armor: int = 8
    max_armor: int = 8
    structure: int = 6
    max_structure: int = 6
    engines: int = 3
    max_engines: int = 3


def snapshot(width: int, height: int, count: int, seed: int = 4) -> BoardSnapshot:
    rng = random.Random(seed)
    cells = [Hex.from_offset(c, r) for c in range(1, width + 1) for r in range(1, height + 1)]
    spots = rng.sample(cells, count)
    units: list[Unit] = []
    for i, at in enumerate(spots):
        units.append(
            BenchShip(
                id=f"u{i:03d}",
                side=("red", "blue")[i % 2],
                name=f"Unit {i}",
                label=f"U{i}",
                at=at,
                facing=i % 6,
                armor=rng.randint(2, 8),
                structure=rng.randint(1, 6),
            )
        )
    terrain = {h: rng.choice(TERRAIN) for h in rng.sample(cells, len(cells) // 8)}
    state = EncounterState(
        ruleset="bench",
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


def measure(fn, repeat: int) -> tuple[float, float, int]:  # type: ignore[no-untyped-def]
    data = fn()  # warm-up: fonts, static layer, palette
    times: list[float] = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        data = fn()
        times.append((time.perf_counter() - t0) * 1000)
    times.sort()
    p95 = times[min(len(times) - 1, round(0.95 * (len(times) - 1)))]
    return statistics.median(times), p95, len(data)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=30)
    args = parser.parse_args()
    naive_opts = RenderOptions(palette=False, png_level=6)
    fast: dict[str, float] = {}
    rows: list[dict[str, object]] = []
    for naive in (False, True):
        for w, h, n in CASES:
            snap = snapshot(w, h, n)
            if naive:
                p50, p95, size = measure(
                    lambda snap=snap: render_board_uncached(snap, viewer="director", options=naive_opts),
                    max(5, args.repeat // 3),
                )
            else:
                p50, p95, size = measure(lambda snap=snap: render_board(snap, viewer="director"), args.repeat)
                fast[f"{w}x{h}"] = p50
            row: dict[str, object] = {
                "board": f"{w}x{h}",
                "units": n,
                "naive": naive,
                "p50_ms": round(p50, 2),
                "p95_ms": round(p95, 2),
                "png_kb": round(size / 1024, 1),
            }
            rows.append(row)
            print(json.dumps(row), flush=True)
    ratios = {
        str(r["board"]): round(float(r["p50_ms"]) / fast[str(r["board"])], 1) for r in rows if r["naive"]
    }
    print(json.dumps({"ratio_naive_over_fast": ratios, "min_ratio": min(ratios.values())}))


if __name__ == "__main__":
    main()
