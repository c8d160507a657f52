"""Dice check benchmark (DICE-1): the time ``hexdirector verify`` takes on an exo export of many rounds.

An exo duel (data/scenarios/exo-duel.toml, the ships made tough enough to last) is played through the
application layer on a temporary SQLite database with sealed dice, both pilots giving their panel's orders
(moving and firing every weapon) each round; its export is then checked with ``bot.verify.verify_document``,
the same check the CLI and ``/encounter verify`` run.

Prints one JSON line: rounds and steps played, rolls in the export, the export's size and the check's time
(the best of ``--repeat`` runs, and every run).

Run: ``.venv/bin/python bench/verify.py [--rounds 100] [--repeat 3] [--keep FILE]``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot.permissions import Actor
from bot.service import EncounterService
from bot.verify import verify_document
from tests.bot_fixtures import sqlite_service
from tests.exo.test_bot_exo import ANA, BEA, DIRECTOR, DUEL, give, start_duel

#: the duel's ships, tough enough that a hundred rounds of fire do not end it
TOUGH = DUEL.replace("armor = 4\nstructure = 3", "armor = 60\nstructure = 40")


async def played(service: EncounterService, rounds: int) -> int:
    enc = await start_duel(service, TOUGH)
    for _ in range(rounds * 10):
        status = await service.status(enc)
        _, state, phase_no = await service.load(enc)
        if status.over or state.round > rounds:
            break
        for missing in status.missing:
            await give(service, enc, missing.unit, ANA if missing.user_id == ANA else BEA, moves="D")
        await service.resolve(enc, expected_phase_no=phase_no, all_in=True)
    return enc


async def export_of(rounds: int, folder: Path) -> dict[str, Any]:
    async with sqlite_service(folder / "bench.sqlite3") as service:
        service.seal_dice = True
        enc = await played(service, rounds)
        return await service.export(enc, Actor(DIRECTOR))


def main() -> None:
    parser = argparse.ArgumentParser(description="Time the dice check of a many-round exo export (DICE-1).")
    parser.add_argument("--rounds", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--keep", type=Path, default=None, help="write the export here")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        document = asyncio.run(export_of(args.rounds, Path(tmp)))
    text = json.dumps(document, ensure_ascii=False)
    if args.keep is not None:
        args.keep.write_text(text, encoding="utf-8")
    runs: list[float] = []
    report = None
    for _ in range(args.repeat):
        start = time.perf_counter()
        report = verify_document(json.loads(text))
        runs.append(time.perf_counter() - start)
    assert report is not None
    rounds = max(e["payload"]["round"] for e in document["events"] if e["type"] == "DiceSeal")
    rolls = sum(1 for e in document["events"] if e["type"] == "RollMade")
    print(
        json.dumps(
            {
                "figure": "verify",
                "rounds": rounds,
                "steps": report.checked,
                "rolls": rolls,
                "verified": report.ok,
                "export_kb": round(len(text.encode()) / 1024),
                "seconds": round(min(runs), 3),
                "runs": [round(r, 3) for r in runs],
            }
        )
    )


if __name__ == "__main__":
    main()
