"""Benchmark: the order panels a table's players get, built cold, for every bundled scenario with movement menus.

Run: ``.venv/bin/python bench/panels.py [--repeats 30] [--scenario NAME …]``. For each bundled scenario of mech,
skirmish (with and without the night layer) and pbw, played with its seeded dice to the first step that awaits an
order, prints one JSON line: the first acting unit's panel built cold (a new state object each time, so nothing
is memoized from the last build), p50/p95 ms, and the whole table's panels of that step (every unit's panel, its
owner owing an order or not) p50/p95 ms, each in wall time and in the process's CPU time. The panel builder lists only what the rules accept (MECH-1.2
destinations, SK-2.x moves), so these are the movement searches the bot runs on its event loop at every click.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot.panels import panel_for
from bot.panels.draft import Draft
from data import SCENARIO_DIR
from rules.engine import resolve_phase
from rules.registry import ruleset_for
from rules.ruleset import DiceFactory
from rules.scenario import load_scenario
from rules.state import EncounterState

SCENARIOS = (
    *("mech-duel", "mech-mixed", "mech-air", "mech-night"),
    *("skirmish-corridor", "skirmish-night", "pbw-brawl", "pbw-street"),
)


def first_awaiting(name: str) -> tuple[EncounterState, tuple[str, ...]]:
    """The scenario played with its seeded dice through the steps that await nobody (initiative, the chit draw)."""
    state = load_scenario((SCENARIO_DIR / f"{name}.toml").read_text(encoding="utf-8")).state
    ruleset = ruleset_for(state)
    dice = DiceFactory()
    for _ in range(20):
        waiting = tuple(ruleset.awaiting(state))
        if waiting or state.over:
            return state, waiting
        state = resolve_phase(ruleset, state, {}, dice_for=dice).state
    raise RuntimeError(f"{name}: nobody is awaited after 20 steps")


def timed(
    state: EncounterState, units: tuple[str, ...], waiting: tuple[str, ...], repeats: int
) -> tuple[list[float], list[float]]:
    """Wall and CPU milliseconds to build the panels of ``units`` on a fresh copy of ``state``, ``repeats`` times
    (CPU time is what the build costs when other processes share the machine)."""
    plugin = panel_for(state.ruleset)
    wall: list[float] = []
    cpu: list[float] = []
    for _ in range(repeats):
        fresh = state.replace(seed=state.seed)  # a new state object: nothing memoized from the last repeat
        start, cpu_start = time.perf_counter(), time.process_time()
        for uid in units:
            plugin.build_panel(fresh, uid, draft=Draft(), owing=uid in waiting)
        wall.append((time.perf_counter() - start) * 1000)
        cpu.append((time.process_time() - cpu_start) * 1000)
    return wall, cpu


def measure(name: str, repeats: int) -> dict[str, object]:
    state, waiting = first_awaiting(name)
    first, first_cpu = timed(state, waiting[:1], waiting, repeats)
    table, table_cpu = timed(state, tuple(state.units), waiting, repeats)
    return {
        "bench": "panels",
        "scenario": name,
        "unit": waiting[0] if waiting else "",
        "units": len(state.units),
        "repeats": repeats,
        "first_panel_p50_ms": round(statistics.median(first), 2),
        "first_panel_p95_ms": round(_p95(first), 2),
        "table_panels_p50_ms": round(statistics.median(table), 2),
        "table_panels_p95_ms": round(_p95(table), 2),
        "first_panel_cpu_p50_ms": round(statistics.median(first_cpu), 2),
        "first_panel_cpu_p95_ms": round(_p95(first_cpu), 2),
        "table_panels_cpu_p50_ms": round(statistics.median(table_cpu), 2),
        "table_panels_cpu_p95_ms": round(_p95(table_cpu), 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=30)
    parser.add_argument("--scenario", action="append", choices=SCENARIOS)
    args = parser.parse_args()
    for name in args.scenario or SCENARIOS:
        print(json.dumps(measure(name, args.repeats)), flush=True)


def _p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]


if __name__ == "__main__":
    main()
