"""Benchmark: one exo round (all five phases, many shots) for 100 ships, resolved through ``resolve_phase``.

Run: ``.venv/bin/python bench/exo.py [--rounds N]``. Prints JSON lines with p50/p95 milliseconds per round.
Target: under 20 ms per round on the 2-core CI machine.
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
from rules.exo.model import Ship
from rules.exo.orders import FireOrder, ShipOrders
from rules.registry import get_ruleset
from rules.ruleset import Order
from rules.scenario import load_scenario
from rules.state import EncounterState

CREW = (
    'crew = [{ name = "P", station = "pilot", skills = { piloting = 15, gunnery = 13 } },'
    ' { name = "G1", station = "gunner", skills = { gunnery = 15 } },'
    ' { name = "G2", station = "gunner", skills = { gunnery = 14 } }]'
)


def fleet(n: int) -> EncounterState:
    """Two lines of ships facing each other, 6 hexes apart, all with turrets and bow guns."""
    parts = ['ruleset = "exo"\nname = "bench"\nseed = 1\n[[sides]]\nid = "red"\n[[sides]]\nid = "blue"\n']
    for i in range(n):
        side, row, facing = ("red", 20, "N") if i % 2 == 0 else ("blue", 14, "S")
        col = 1 + i // 2
        parts.append(
            f'[[units]]\nid = "s{i}"\nside = "{side}"\nat = "{col},{row}"\nfacing = "{facing}"\n'
            f"maneuverability = 3\nengines = 3\narmor = 20\nstructure = 40\ncabin = 3\ncargo = 1\nspeed = 0\n"
            f'weapons = ["APtx2", "Lx2"]\n{CREW}\n'
        )
    return load_scenario("".join(parts)).state


def round_orders(state: EncounterState) -> dict[str, Order]:
    ships = [u for u in state.units.values() if isinstance(u, Ship) and u.active]
    orders: dict[str, Order] = {}
    for s in ships:
        enemies = [e for e in ships if e.side != s.side]
        assert s.at is not None
        near = sorted(enemies, key=lambda e: (s.at.distance(e.at) if e.at else 99, e.id))[:2]  # type: ignore[union-attr]
        fire = (
            FireOrder(by="G1", weapon=1, target=near[0].id),
            FireOrder(by="G2", weapon=2, target=near[-1].id),
            FireOrder(by="P", weapon=3, target=near[-1].id),
        )
        orders[s.id] = ShipOrders(unit=s.id, move="D" if int(s.id[1:]) % 3 else "I", fire=fire)
    return orders


def one_round(state: EncounterState, orders: dict[str, Order]) -> EncounterState:
    exo = get_ruleset("exo")
    state = resolve_phase(exo, state, {}).state  # phase 1, crew step (no rolls)
    state = resolve_phase(exo, state, orders).state  # phase 1, secret orders
    for _ in range(4):  # phases 2-5
        result = resolve_phase(exo, state, {})
        state = result.state
        while result.pending is not None:
            result = resolve_phase(exo, state, {})
            state = result.state
    return state


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--ships", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=30)
    args = parser.parse_args()
    state = fleet(args.ships)
    times: list[float] = []
    shots = 0
    orders = round_orders(state)  # the players' part, not timed
    shots = len(orders) * 3
    for i in range(args.rounds):
        # every measured round starts from the fresh fleet (a new seed each time) so damage never piles up
        start_state = state.replace(seed=i)
        start = time.perf_counter()
        one_round(start_state, orders)
        times.append((time.perf_counter() - start) * 1000)
    times.sort()
    p95 = times[min(len(times) - 1, int(len(times) * 0.95))]
    print(
        json.dumps(
            {
                "bench": "exo_round",
                "ships": args.ships,
                "shots_per_round": shots,
                "rounds": args.rounds,
                "p50_ms": round(statistics.median(times), 2),
                "p95_ms": round(p95, 2),
                "target_ms": 20,
            }
        )
    )


if __name__ == "__main__":
    main()
