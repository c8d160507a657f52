"""The encounter's records: the public account (``/encounter log``), export and import."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from bot.permissions import Actor
from bot.results import refuse
from bot.service_base import ServiceBase
from bot.storage import ChannelBusyError, InvalidExportError
from rules.engine import visibility
from rules.events import Event
from rules.registry import ruleset_for
from rules.ruleset import PUBLIC
from rules.serial import from_json


class RecordActions(ServiceBase):
    # --- log, export, import -------------------------------------------------------------------------------
    async def history(self, encounter_id: int, round_no: int | None = None) -> list[tuple[int, str, Event]]:
        """Public events of the encounter (round, phase, event), optionally of one round."""
        _, state, _ = await self.load(encounter_id)
        ruleset = ruleset_for(state)
        seen = visibility(ruleset, state, PUBLIC).units
        out: list[tuple[int, str, Event]] = []
        for row in await self.storage.events(encounter_id):
            body = row.payload.get("event")
            if not isinstance(body, dict):
                continue
            try:
                event = from_json(body)
            except TypeError:
                continue
            if not isinstance(event, Event):
                continue
            rnd = int(row.payload.get("round", 0))
            if round_no is not None and rnd != round_no:
                continue
            if any(u in state.units and u not in seen for u in event.involved()):
                continue
            out.append((rnd, str(row.payload.get("phase", "")), event))
        return out

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
