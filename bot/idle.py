"""A game never waits forever: a phase with no deadline where nobody has acted for the server's idle-reminder
interval (``/settings``; :data:`IDLE_REMINDER_HOURS` by default) brings the director one private reminder, with a
button to resolve it with default orders, and each player still missing the usual reminder DM. Nothing resolves
by itself: without a deadline only the director moves the game on.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from bot.service import EncounterService
from bot.storage import Encounter

#: hours a phase without a deadline may wait, nobody acting, before the director is reminded
IDLE_REMINDER_HOURS = 12
#: message ref kind of the idle reminder, keyed by the phase it was sent for (sent once per phase)
IDLE_REMINDER = "idle_reminder"


async def idle_hours(service: EncounterService, guild_id: int) -> int:
    return (await service.guild_settings(guild_id)).idle_reminder_hours or IDLE_REMINDER_HOURS


async def idle_encounters(service: EncounterService, now: datetime) -> list[Encounter]:
    """Running encounters whose open phase has no deadline and saw nothing happen (no order, no step, no
    override: the encounter's last change) for their server's idle interval, not yet reminded for that phase."""
    out: list[Encounter] = []
    for meta in await service.storage.running_encounters():
        if now - meta.updated_at < timedelta(hours=await idle_hours(service, meta.guild_id)):
            continue
        if await service.deadline_of(meta.id, meta.phase_no) is not None:
            continue  # the deadline moves it on, and its own reminder goes out
        ref = await service.storage.get_message_ref(meta.id, IDLE_REMINDER, str(meta.phase_no))
        if ref is None:
            out.append(meta)
    return out
