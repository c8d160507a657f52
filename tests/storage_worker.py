"""A separate process that writes to a storage database, for the crash and race tests (not collected by pytest).

Modes:

``crash DB SEED WRITERS``
    Accept orders and resolve phases with a toy resolver, forever, from several tasks at once, printing ``ACK
    <phase> <unit> <seq> <value>`` after each committed order and ``RESOLVED <phase>`` after each committed
    resolution. The parent kills it. ``WRITERS`` tasks write at once.
``writers``
    A fork server for the crash test, the storage code imported once: for each line ``CRASH DB SEED WRITERS
    ERRORS`` read from stdin, a forked child prints ``WRITER <pid>`` (whom to kill), then runs ``crash`` with its
    errors written to the file ERRORS; once the child is gone the server prints ``GONE <pid> <status>`` (the
    negative signal number for a killed child, as ``Popen.returncode``), after every line the child wrote.
``race DB ENCOUNTER``
    For each line ``GO <phase>`` read from stdin, read that phase's orders and try to resolve it, then print
    ``RESULT <phase> <Resolved|AlreadyResolved|InputsChanged|StalePhaseError>``.

The toy resolver is the replay reference of the crash test: state = {"phase": n, "total": sum of every
consumed order's value}.
"""

from __future__ import annotations

import asyncio
import os
import random
import sys
import traceback
from collections.abc import Mapping
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot.storage import (
    OrdersForResolution,
    StalePhaseError,
    Storage,
    open_storage,
)

GUILD_ID = 1
CHANNEL_ID = 10
UNITS = ("alpha", "bravo", "charlie", "delta")


def toy_resolve(state: Mapping[str, Any], order_values: list[int]) -> dict[str, Any]:
    return {"phase": int(state["phase"]) + 1, "total": int(state["total"]) + sum(order_values)}


def emit(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


async def resolve_once(storage: Storage, encounter_id: int, phase_no: int) -> str:
    """Read the phase's orders, resolve them with the toy resolver and try to commit; returns the outcome."""
    try:
        orders: OrdersForResolution = await storage.orders_for_resolution(encounter_id, phase_no)
    except StalePhaseError:
        return "StalePhaseError"
    values = [int(order.order["value"]) for order in orders.orders.values()]
    new_state = toy_resolve(orders.state, values)
    result = await storage.commit_resolution(
        encounter_id,
        phase_no,
        [("ToyResolved", {"phase_no": phase_no, "total": new_state["total"]})],
        new_state,
        based_on=orders,
    )
    return type(result).__name__


async def crash_writer(db: str, seed: int, writers: int) -> None:
    storage = await open_storage(db)
    encounter = await storage.active_encounter_in_channel(GUILD_ID, CHANNEL_ID)
    if encounter is None:
        encounter_id = await storage.create_encounter(
            GUILD_ID, CHANNEL_ID, "toy", "crash test", 1, {"phase": 1, "total": 0}
        )
    else:
        encounter_id = encounter.id
    emit(f"READY {encounter_id}")
    # several writers at once, as the bot's tasks are: SQLite then commits their writes in shared batches (group
    # commit), and a kill lands inside one; an acknowledgement must still mean "synced"
    await asyncio.gather(
        *(crash_loop(storage, encounter_id, random.Random(seed * writers + i)) for i in range(writers))
    )


async def crash_loop(storage: Storage, encounter_id: int, rng: random.Random) -> None:
    while True:
        phase_no = (await storage.get_encounter(encounter_id)).phase_no
        if rng.random() < 0.75:
            unit = rng.choice(UNITS)
            value = rng.randint(1, 100)
            try:
                ack = await storage.submit_order(
                    encounter_id, phase_no, unit, 100 + UNITS.index(unit), {"value": value}
                )
            except StalePhaseError:  # another writer resolved the phase meanwhile
                continue
            emit(f"ACK {phase_no} {unit} {ack.seq} {value}")
        else:
            outcome = await resolve_once(storage, encounter_id, phase_no)
            if outcome == "Resolved":
                emit(f"RESOLVED {phase_no}")
            elif outcome not in ("AlreadyResolved", "InputsChanged", "StalePhaseError"):
                raise SystemExit(f"phase {phase_no} could not be resolved: {outcome}")


def serve_writers() -> None:
    """The ``writers`` mode. Forked from a process that has imported the storage code, a writer starts at opening
    the database: a kill "during start-up" lands in the open, the migration or the encounter's creation rather
    than in Python's imports, and hundreds of kills cost no imports."""
    while line := sys.stdin.readline():
        db, seed, writers, errors = line.split()[1:]
        pid = os.fork()
        if pid == 0:
            code = 0
            try:
                os.dup2(os.open(errors, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644), 2)
                emit(f"WRITER {os.getpid()}")
                asyncio.run(crash_writer(db, int(seed), int(writers)))
            except BaseException:
                traceback.print_exc()
                code = 1
            finally:
                sys.stderr.flush()
                os._exit(code)
        _, status = os.waitpid(pid, 0)
        emit(f"GONE {pid} {os.waitstatus_to_exitcode(status)}")


async def race_contender(db: str, encounter_id: int) -> None:
    storage = await open_storage(db)
    emit("READY")
    loop = asyncio.get_running_loop()
    while True:
        line = await loop.run_in_executor(None, sys.stdin.readline)
        if not line.startswith("GO "):
            break
        phase_no = int(line.split()[1])
        emit(f"RESULT {phase_no} {await resolve_once(storage, encounter_id, phase_no)}")
    await storage.close()


def main(argv: list[str]) -> None:
    if argv[1:] == ["writers"]:
        serve_writers()
        return
    mode, db, number = argv[1], argv[2], int(argv[3])
    if mode == "crash":
        asyncio.run(crash_writer(db, number, int(argv[4])))
    elif mode == "race":
        asyncio.run(race_contender(db, number))
    else:
        raise SystemExit(f"unknown mode {mode!r}")


if __name__ == "__main__":
    main(sys.argv)
