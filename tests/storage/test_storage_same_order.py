"""A burst of Submits of one order (100 simultaneous Submits once stored 100 rows): the same order as the one
stored, by the same player, writes nothing, under the database's write lock, so the rows grow with orders and not
with clicks; a different order still amends. Same on both backends."""

from __future__ import annotations

import asyncio

from bot.storage import Storage
from bot.storage.base import ORDER_ACCEPTED

GUILD, CHANNEL, DIRECTOR, ANA = 10, 20, 30, 40


async def test_a_hundred_identical_submits_at_once_store_one_row(storage: Storage) -> None:
    enc = await storage.create_encounter(GUILD, CHANNEL, "exo", "Burst", DIRECTOR, {"phase": 1})
    await storage.set_encounter_status(enc, "running")
    order = {"raw": {"move": "A", "fire": []}, "order": {"move": "A"}}
    acks = await asyncio.gather(*(storage.submit_order(enc, 1, "halcon", ANA, order) for _ in range(100)))
    assert len(await storage.events(enc, types=[ORDER_ACCEPTED])) == 1
    assert len({ack.seq for ack in acks}) == 1, "every click is told of the one stored order"
    assert sum(not ack.unchanged for ack in acks) == 1

    changed = await storage.submit_order(
        enc, 1, "halcon", ANA, {"raw": {"move": "D"}, "order": {"move": "D"}}
    )
    assert changed.amended and not changed.unchanged
    assert len(await storage.events(enc, types=[ORDER_ACCEPTED])) == 2
    (pending,) = await storage.orders_of(enc, 1, ANA)
    assert pending.order["raw"] == {"move": "D"}
