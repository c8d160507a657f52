"""The benchmarks in bench/ still run against today's code: each script's smallest configuration exits 0 and
prints its JSON figures with the keys its docstring promises. No figure's value is checked: performance is
measured in bench/, on a quiet machine, not here.

The two whose smallest run takes longer than a smoke test may (the 51-step replay, the renderer's side by side
on boards up to 80x60) are imported here, so that a name they use going away still fails, and their measures run
on a few small boards; run them whole by hand (``.venv/bin/python bench/<name>.py --help``)."""

from __future__ import annotations

import asyncio
import importlib
import json
import subprocess
import sys
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from tests.paths import ROOT
from tests.storage_fixtures import database_url

pytestmark = pytest.mark.slow

#: script (the quickest first), its smallest arguments, and the keys of each of its figure lines (by
#: :func:`name_of`)
RUNS: list[tuple[str, list[str], dict[str, set[str]]]] = [
    ("exo", ["--ships", "2", "--rounds", "1"], {"exo_round": {"ships", "rounds", "p50_ms", "p95_ms"}}),
    (
        "mech",
        ["--mechs", "2", "--turns", "1"],
        {
            "mech_turn": {
                "mechs",
                "resolution_p50_ms",
                "whole_turn_p50_ms",
                "board_render_p50_ms",
                "panel_build_and_3_presses_p50_ms",
            }
        },
    ),
    (
        "panels",
        ["--repeats", "1", "--scenario", "pbw-brawl", "--scenario", "skirmish-night"],
        {"panels": {"scenario", "first_panel_p50_ms", "first_panel_p95_ms", "table_panels_p50_ms"}},
    ),
    (
        "verify",
        ["--rounds", "1", "--repeat", "1"],
        {"verify": {"rounds", "steps", "rolls", "verified", "seconds", "runs"}},
    ),
    (
        "storage",
        [],
        {
            "backend": {"storage"},
            "submit_order": {"runs", "p50_ms", "p95_ms"},
            "append_batch": {"events_per_phase", "p50_ms", "events_per_s"},
            "load": {"encounter", "p50_ms", "p95_ms"},
        },
    ),
    (
        "floor",
        ["--burst", "2", "--waves", "1", "--spread", "0.1"],
        {"ack_floor": {"mode", "interactions", "ack_p50_ms", "ack_p99_ms"}},
    ),
    (
        "idle",
        ["--encounters", "1"],
        {"ready": {"encounters", "seconds"}, "resumed": {"seconds_after_ready"}, "rss": {"mb"}},
    ),
    (  # the bot in its own process, two rounds: the second round's clicks come right after the first's, as the
        # click limiter (bot/click_limit.py) must take them, and the DM panels are driven as today's players do
        "e2e",
        ["--encounters", "1", "--rounds", "2"],
        {
            "ack": {"samples", "p50_ms", "p99_ms"},
            "image": {"samples", "p50_ms", "p95_ms"},
            "ack_by_kind": {"kind", "samples", "p50_ms", "p99_ms"},
            "bot_answer": {"samples", "p50_ms", "p99_ms"},
            "requests_per_encounter": {"total"},
            "wall": {"process", "seconds", "mean_ack_ms", "bot_cpu_s"},
        },
    ),
    (
        "faults",
        ["--encounters", "1", "--seconds", "1", "--seed", "1"],
        {
            "faults": {"seed", "requests", "rest_refused_total"},
            "ack": {"samples", "p50_ms", "p99_ms"},
            "wall": {"played_s", "seconds", "all_shown"},
            "verdict": {"orders_lost", "phases_resolved", "stuck"},
        },
    ),
    (
        "heavy",
        ["--ships", "2"],
        {
            case: {"ships", "heavy_ms", "acks", "ack_p50_ms", "ack_max_ms", "bot_loop_held_max_ms"}
            for case in ("resolve", "replay", "export", "import")
        },
    ),
    (
        "dm_reopen",
        ["--people", "2"],
        {"dm_reopen": {"bot", "sitting", "people", "dm_open", "user", "refused_429", "seconds", "delivered"}},
    ),
    (
        "pace",
        ["--encounters", "1", "--minutes", "0.1", "--known-players"],
        {
            "pace": {
                "encounters",
                "ack_p99_ms",
                "bot_answer_p99_ms",
                "board_p95_ms",
                "bot_cpu_pct",
                "rss_mb",
                "requests_per_s",
                "compress",
                "acks",
                "boards",
                "failures",
            }
        },
    ),
]

#: too slow to run whole here (see the module docstring): imported, and a small part of each run in process
IMPORTED_ONLY = ["render", "replay", "proxy"]


def figures(stdout: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stdout.splitlines() if line.startswith("{")]


def name_of(line: dict[str, Any]) -> str:
    """What a figure line measures: its "figure", "bench" or (bench/heavy.py) "heavy" key."""
    return str(line.get("figure", line.get("bench", line.get("heavy"))))


def run_script(script: str, args: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(ROOT / "bench" / f"{script}.py"), *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )


@pytest.fixture(scope="module")
def bench_runs() -> Iterator[dict[str, Future[subprocess.CompletedProcess[str]]]]:
    """Every script started at once, three at a time, the longest first: most of a run is a bot starting or the
    local Discord waiting on it, so side by side they take about half the time one after the other does."""
    with ThreadPoolExecutor(max_workers=3) as pool:
        runs = {script: pool.submit(run_script, script, args) for script, args, _ in reversed(RUNS)}
        yield runs
        for run in runs.values():
            run.cancel()


@pytest.mark.parametrize(("script", "args", "expected"), RUNS, ids=[r[0] for r in RUNS])
def test_bench_script_runs_and_prints_its_figures(
    bench_runs: dict[str, Future[subprocess.CompletedProcess[str]]],
    script: str,
    args: list[str],
    expected: dict[str, set[str]],
) -> None:
    check_figures(script, bench_runs[script].result(), expected)


def check_figures(
    script: str, done: subprocess.CompletedProcess[str], expected: dict[str, set[str]]
) -> list[dict[str, Any]]:
    """The run exited 0 and printed every expected figure line, each with its keys; returns the lines."""
    assert done.returncode == 0, done.stderr[-3000:]
    printed = figures(done.stdout)
    names = {name_of(line) for line in printed}
    assert set(expected) <= names, f"{script} printed {sorted(names)}: {done.stdout[-2000:]}"
    for line in printed:
        name = name_of(line)
        missing = expected.get(name, set()) - set(line)
        assert not missing, f"{script}'s {name} line lacks {sorted(missing)}: {line}"
    return printed


async def test_storage_bench_measures_postgresql(tmp_path: Path) -> None:
    """``bench/storage.py --url`` on a throwaway PostgreSQL database (HEXDIRECTOR_TEST_POSTGRES_URL; skipped,
    saying why, when no server answers there, as tests/storage is)."""
    expected = next(keys for script, _, keys in RUNS if script == "storage")
    async with database_url("postgresql", tmp_path) as url:
        done = await asyncio.to_thread(run_script, "storage", ["--url", url])
    printed = check_figures("storage", done, expected)
    assert {"bench": "backend", "storage": "PostgresStorage"} in printed


async def test_shards_bench_measures_both_processes(tmp_path: Path) -> None:
    """``bench/shards.py`` (two shard processes, every order by DM) on a throwaway PostgreSQL database; skipped,
    saying why, when no server answers (HEXDIRECTOR_TEST_POSTGRES_URL)."""
    keys = {"encounters", "ack_p99_ms", "board_p95_ms", "requests_per_s", "acks", "failures"} | {
        f"shard{shard}_{key}"
        for shard in (0, 1)
        for key in ("cpu_pct", "workers_cpu_pct", "answered", "dm_interactions", "rss_mb")
    }
    async with database_url("postgresql", tmp_path) as url:
        args = ["--database", url, "--encounters", "2", "--minutes", "0.1"]
        done = await asyncio.to_thread(run_script, "shards", args)
    check_figures("shards", done, {"dm_shard": keys})


@pytest.mark.parametrize("script", IMPORTED_ONLY)
def test_slow_bench_script_imports(script: str) -> None:
    module = importlib.import_module(f"bench.{script}")
    assert callable(getattr(module, "main", None)), f"bench/{script}.py has no main"


def test_render_bench_measures_both_paths_on_a_small_board() -> None:
    from bench import render as bench_render
    from render import RenderOptions, render_board
    from render.board import render_board_uncached

    snap = bench_render.snapshot(8, 6, 2)
    fast, naive = bench_render.measure_pair(
        lambda: render_board(snap, viewer="director"),
        lambda: render_board_uncached(snap, viewer="director", options=RenderOptions(palette=False)),
        1,
    )
    assert fast[2] > 0 and naive[2] > 0  # each path drew a PNG


def test_replay_bench_animates_the_golden_duel_and_squeezes_it() -> None:
    from bench import replay

    frames = replay.golden_frames()[:3]
    whole = replay.measure(frames, fmt="gif", viewer="public", repeat=1)
    squeezed = replay.measure(frames, fmt="gif", viewer="public", repeat=1, max_bytes=48 * 1024)
    assert whole["steps"] == 3 and not whole["scaled"]
    assert squeezed["scaled"] and set(squeezed) == set(whole)  # the reduction path was taken


def test_heavy_bench_fleet_has_both_sides_at_its_smallest() -> None:
    """A fleet of one side ends as it starts, and then every heavy command after the first is refused."""
    from bench import heavy
    from rules.scenario import load_scenario

    state = load_scenario(heavy.big_scenario(2)).state
    assert {u.side for u in state.units.values()} == {"red", "blue"}
