"""The replay's application side (DESIGN §4 ``/encounter replay``): which encounter, whose view, which frames.

No discord here; the cog asks, ``bot.imaging.replay_file`` draws. The frames are the snapshots on the chain that
leads to the current state (``Storage.snapshot_chain``), so a step a director undid never shows, and each frame
carries the rule events its step produced (moves become trails, shots firing lines).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal

from bot.permissions import Actor
from bot.results import refuse
from bot.service.base import ServiceBase
from bot.storage import Encounter
from bot.storage.base import StoredEvent
from rules.events import Event
from rules.ruleset import DIRECTOR, PUBLIC
from rules.serial import from_json

View = Literal["public", "mine", "director"]


@dataclass(frozen=True, slots=True)
class ReplayStep:
    """The board after one step and the events of that step (the first step: the starting positions). The state
    is the stored JSON text: the replay worker decodes it (:func:`decode_state`), so the snapshots of a large
    encounter are never decoded, nor pickled to the worker, in the bot's own process: see
    ``bot.imaging.replay_file``."""

    state_json: str
    events: tuple[Event, ...]


async def encounter_to_replay(service: ServiceBase, guild_id: int, channel_id: int) -> Encounter:
    """The channel's live encounter or, once it has ended, the latest one played there."""
    storage = service.storage
    live = await storage.active_encounter_in_channel(guild_id, channel_id)
    if live is not None:
        return live
    here = [e for e in await storage.list_encounters(guild_id) if e.channel_id == channel_id]
    if not here:
        raise refuse("replay.none", "This channel has no encounter to replay.")
    return max(here, key=lambda e: e.id)


async def viewer_for(
    service: ServiceBase, meta: Encounter, actor: Actor, view: str, *, replay: bool = False
) -> str:
    """The renderer's viewer for a view a user asked for: public for anyone, the director's view for directors,
    "mine" for someone holding a unit (FOG-1). Refuses otherwise, as ``/encounter board`` does. A replay of an
    ended encounter whose director turned on "reveal at the end" shows everything to anyone (NGT-9)."""
    if replay and meta.status == "ended" and meta.settings.get("reveal_at_end"):
        return DIRECTOR
    if view == "director":
        await service.require_director(meta, actor)
        return DIRECTOR
    if view == "mine":
        mine = await service.my_units(meta.id, actor.user_id)
        if not mine:
            raise refuse(
                "encounter.not_playing_board", "You have no units here; showing your side needs one."
            )
        _, state, _ = await service.load(meta.id)
        return state.units[mine[0]].side
    return PUBLIC


#: the most frames a replay decodes: a longer encounter keeps its first and last steps and an even sample between
MAX_REPLAY_STEPS = 240


async def check_replayable(service: ServiceBase, encounter_id: int) -> None:
    """Refuses, cheaply (before the command is acknowledged), an encounter with nothing resolved yet."""
    if (await service.read(encounter_id)).phase_no <= 1:
        raise refuse("replay.empty", "Nothing has been resolved yet, so there is nothing to replay.")


async def replay_steps(service: ServiceBase, encounter_id: int) -> list[ReplayStep]:
    """Every step from the starting positions to now (at most :data:`MAX_REPLAY_STEPS`, evenly sampled), states
    still as stored text, events decoded in a worker thread (they are small). Refuses when nothing was resolved."""
    chain = await service.storage.snapshot_chain(encounter_id)
    if len(chain) > MAX_REPLAY_STEPS:
        last = len(chain) - 1
        picks = sorted({round(i * last / (MAX_REPLAY_STEPS - 1)) for i in range(MAX_REPLAY_STEPS)})
        chain = [chain[i] for i in picks]
    steps = await asyncio.to_thread(
        lambda: [ReplayStep(step.state_json, tuple(rule_events(step.events))) for step in chain]
    )
    if len(steps) < 2:
        raise refuse("replay.empty", "Nothing has been resolved yet, so there is nothing to replay.")
    return steps


def rule_events(rows: Iterable[StoredEvent]) -> list[Event]:
    """The rule events stored with a step (a resolution's, an override's with its extras); storage's own
    bookkeeping events carry none."""
    out: list[Event] = []
    for row in rows:
        bodies: list[Any] = [row.payload.get("event"), *row.payload.get("extra", ())]
        for body in bodies:
            if not isinstance(body, dict):
                continue
            try:
                event = from_json(body)
            except (TypeError, KeyError, ValueError):
                continue
            if isinstance(event, Event):
                out.append(event)
    return out
