"""Benchmark: one mech turn with 16 mechs (8 a side), every one walking and firing four weapons.

Run: ``.venv/bin/python bench/mech.py [--mechs 16] [--turns 40]``. Prints one JSON line with p50/p95 milliseconds
for the resolution step (movement, fire, physical attacks, heat: MECH-4), wall and CPU time, and for the whole
turn as the bot runs it (the initiative step, 16 declarations each validated and locked, then the resolution).
Target: a turn with 16 mechs resolves in ≤ 20 ms.

Also measured: the board the channel gets after such a turn (public view, the turn's events: firing lines,
heat gauges, damage dolls), its first render in the process and then p50/p95, and the declaration panel of the
first declarer (``bot/panels/mech.py``: every mode, pad step, shot and attack checked against the rules) built
cold, and built and pressed like a player would.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rules.engine import resolve_phase
from rules.events import Event
from rules.mech.state import DECLARE, RESOLVE
from rules.registry import get_ruleset
from rules.scenario import load_scenario
from rules.state import EncounterState

MECH = get_ruleset("mech")
WEAPONS = (
    '[{ type = "medium_laser", loc = "la" }, { type = "medium_laser", loc = "ra" }, '
    '{ type = "srm6", loc = "lt" }, { type = "ac10", loc = "rt" }]'
)


def battlefield(n: int) -> EncounterState:
    """Two lines facing each other across woods and rough ground, 6 hexes apart."""
    parts = [
        'ruleset = "mech"\nname = "bench"\nseed = 1\n[board]\nwidth = 30\nheight = 20\n'
        'terrain = { "0309" = "light_woods", "0709" = "heavy_woods", "1109" = "rough", "1509" = "light_woods" }\n'
        'elevation = { "0509" = 1, "1309" = 1 }\n'
        '[[sides]]\nid = "red"\n[[sides]]\nid = "blue"\n'
    ]
    for i in range(n):
        side, row, facing = ("red", 12, "N") if i % 2 == 0 else ("blue", 6, "S")
        col = 2 + 2 * (i // 2)
        parts.append(
            f'[[units]]\nid = "m{i}"\nside = "{side}"\nat = "{col:02d}{row:02d}"\nfacing = "{facing}"\n'
            f"tonnage = 55\nwalk = 5\nheat_sinks = 12\ninitiative = {i % 5}\ngunnery = 10\npiloting = 9\n"
            f"weapons = {WEAPONS}\n"
        )
    return load_scenario("".join(parts)).state


def declaration(state: EncounterState, uid: str) -> dict[str, object]:
    """Walk one hex ahead, then fire both lasers and the AC at the enemy across and the SRMs at its neighbour."""
    unit = state.units[uid]
    assert unit.at is not None
    i, n = int(uid[1:]), len(state.units)
    if i % 2 == 0:  # red: the enemy across is i + 1, the one in the next column i + 3 (or the previous one)
        across, beside = i + 1, i + 3 if i + 3 < n else i - 1
    else:
        across, beside = i - 1, i + 1 if i + 1 < n else i - 3
    across_id, beside_id = f"m{across}", f"m{beside if 0 <= beside < n else across}"
    ahead = unit.at.neighbor(unit.facing)
    fire = [
        {"weapon": 1, "target": across_id},
        {"weapon": 2, "target": across_id},
        {"weapon": 4, "target": across_id},
        {"weapon": 3, "target": beside_id},
    ]
    return {"mode": "walk", "path": [ahead.label], "fire": fire}


def one_turn(state: EncounterState) -> tuple[EncounterState, float, float, tuple[Event, ...]]:
    """A whole turn through ``resolve_phase``; returns the state and the wall and CPU milliseconds of the
    resolution step (CPU time is what the step itself costs when other processes share the machine)."""
    state = resolve_phase(MECH, state, {}).state  # initiative
    while state.phase == DECLARE:
        uid = MECH.awaiting(state)[0]
        order = MECH.parse_order(state, uid, declaration(state, uid))
        MECH.validate_order(state, uid, order)
        state = resolve_phase(MECH, state, {uid: order}).state
    assert state.phase == RESOLVE
    start, cpu = time.perf_counter(), time.process_time()
    result = resolve_phase(MECH, state, {})
    return (
        result.state,
        (time.perf_counter() - start) * 1000,
        (time.process_time() - cpu) * 1000,
        result.events,
    )


def board_times(state: EncounterState, events: tuple[Event, ...], repeats: int) -> tuple[float, list[float]]:
    """The public board after a turn: the first render (fonts, sprites, static layer cold) and the next ones."""
    from render import BoardSnapshot, RenderOptions, render_board

    def once() -> float:
        start = time.perf_counter()
        render_board(BoardSnapshot(state, events), viewer="public", options=RenderOptions(locale="es"))
        return (time.perf_counter() - start) * 1000

    first = once()
    return first, [once() for _ in range(repeats)]


def panel_times(state: EncounterState, repeats: int) -> tuple[list[float], list[float]]:
    """The first declarer's panel built (the first list), then a destination picked (the first the menu lists
    past standing still and turning in place, or its first direction's) and a shot chosen (each press rebuilds
    it; the second list)."""
    from bot.panels import panel_for, press
    from bot.panels.draft import Draft

    state = resolve_phase(MECH, state, {}).state  # initiative
    uid = MECH.awaiting(state)[0]
    plugin = panel_for("mech")
    built: list[float] = []
    out: list[float] = []
    for _ in range(repeats):
        fresh = state.replace(seed=state.seed)  # a new state object: nothing memoized from the last repeat
        start = time.perf_counter()
        model = plugin.build_panel(fresh, uid, draft=Draft(), owing=True)
        built.append((time.perf_counter() - start) * 1000)
        for _ in range(2):  # a direction first when the menu lists directions, then a hex
            dest = model.options("dest")
            if len(dest) > 2:
                model = press(plugin, fresh, model, "dest", (dest[2].value,))
        fire = model.options("w")
        if fire:
            model = press(plugin, fresh, model, "w", (fire[0].value,))
        out.append((time.perf_counter() - start) * 1000)
    return built, out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mechs", type=int, default=16)
    parser.add_argument("--turns", type=int, default=40)
    args = parser.parse_args()
    field = battlefield(args.mechs)
    after, *_, events = one_turn(field)  # warm the table and import caches
    resolutions: list[float] = []
    cpu: list[float] = []
    turns: list[float] = []
    shots = 0
    for i in range(args.turns):
        # every measured turn starts from the fresh field (a new seed each time) so damage never piles up
        start = time.perf_counter()
        after, resolution, resolution_cpu, events = one_turn(field.replace(seed=i))
        turns.append((time.perf_counter() - start) * 1000)
        resolutions.append(resolution)
        cpu.append(resolution_cpu)
        shots = sum(1 for u in after.units.values() if u.at is not None) * 4
    first_board, boards = board_times(after, events, max(5, args.turns // 4))
    built, panels = panel_times(field, max(5, args.turns // 4))
    print(
        json.dumps(
            {
                "bench": "mech_turn",
                "mechs": args.mechs,
                "shots_per_turn": shots,
                "turns": args.turns,
                "resolution_p50_ms": round(statistics.median(resolutions), 2),
                "resolution_p95_ms": round(_p95(resolutions), 2),
                "resolution_cpu_p50_ms": round(statistics.median(cpu), 2),
                "resolution_cpu_p95_ms": round(_p95(cpu), 2),
                "whole_turn_p50_ms": round(statistics.median(turns), 2),
                "whole_turn_p95_ms": round(_p95(turns), 2),
                "target_ms": 20,
                "board_first_render_ms": round(first_board, 1),
                "board_render_p50_ms": round(statistics.median(boards), 1),
                "board_render_p95_ms": round(_p95(boards), 1),
                "panel_build_p50_ms": round(statistics.median(built), 1),
                "panel_build_p95_ms": round(_p95(built), 1),
                "panel_build_and_3_presses_p50_ms": round(statistics.median(panels), 1),
                "panel_build_and_3_presses_p95_ms": round(_p95(panels), 1),
            }
        )
    )


def _p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]


if __name__ == "__main__":
    main()
