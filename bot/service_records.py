"""The encounter's records: the public account (``/encounter log``), export and import."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping, Sequence
from typing import Any

from bot.permissions import Actor
from bot.results import refuse
from bot.service_base import ServiceBase
from bot.service_replay import rule_events
from bot.storage import ChannelBusyError, InvalidExportError
from bot.storage.base import HistoryStep
from rules.engine import visibility
from rules.events import Event
from rules.registry import ruleset_for
from rules.ruleset import PUBLIC
from rules.serial import from_json
from rules.state import EncounterState


class RecordActions(ServiceBase):
    # --- log, export, import -------------------------------------------------------------------------------
    async def history(self, encounter_id: int, round_no: int | None = None) -> list[tuple[int, str, Event]]:
        """Public events of the encounter (round, phase, event), optionally of one round. Each event is judged
        by what the public could see when it happened (the states before and after its step), so a hidden
        unit's history stays hidden after the unit leaves the board. Decoded off the event loop."""
        chain = await self.storage.snapshot_chain(encounter_id)
        return await asyncio.to_thread(public_history, chain, round_no)

    async def export(self, encounter_id: int, actor: Actor) -> dict[str, Any]:
        meta = await self.storage.get_encounter(encounter_id)
        await self.require_director(meta, actor)
        return await self.storage.export_encounter(encounter_id)

    async def import_(self, data: Mapping[str, Any], guild_id: int, channel_id: int, user_id: int) -> int:

        try:
            enc_id = await self.storage.import_encounter(data, guild_id, channel_id)
        except InvalidExportError as exc:
            raise refuse(
                "import.invalid", f"That file cannot be imported: {exc}", reason=str(exc)[:300]
            ) from None
        except ChannelBusyError:
            raise refuse("encounter.exists", "This channel already has an encounter; end it first.") from None
        await self.storage.add_participant(enc_id, user_id, "director")
        return enc_id


def parse_export(blob: bytes) -> dict[str, Any]:

    try:
        data = json.loads(blob.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise refuse("import.invalid", f"That file is not JSON: {exc}", reason=str(exc)[:200]) from None
    if not isinstance(data, dict):
        raise refuse("import.invalid", "That file is not an encounter export.", reason="not an object")
    return data  # type: ignore[return-value]


def public_history(chain: Sequence[HistoryStep], round_no: int | None = None) -> list[tuple[int, str, Event]]:
    """The events of the snapshot chain that the public saw happen (FOG-1): every unit an event names was
    public before or after its step (the same rule as the channel's account of a step)."""
    out: list[tuple[int, str, Event]] = []
    before: EncounterState | None = None
    for step in chain:
        after = from_json(step.state)
        if not isinstance(after, EncounterState):
            continue
        seen = set(visibility(ruleset_for(after), after, PUBLIC).units)
        known = set(after.units)
        if before is not None:
            seen |= visibility(ruleset_for(before), before, PUBLIC).units
            known |= set(before.units)
        for row in step.events:
            rnd = int(row.payload.get("round", 0) or 0)
            if round_no is not None and rnd != round_no:
                continue
            for event in rule_events((row,)):
                if all(u in seen or u not in known for u in event.involved()):
                    out.append((rnd, str(row.payload.get("phase", "")), event))
        before = after
    return out
