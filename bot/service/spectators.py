"""``/encounter watch|unwatch`` and the director's delay (bot/spectators.py says what each view shows): every guard
of a spectator's request and of a side's answer to it, once, here.

A spectator never holds a participant row, so nothing that counts players (the status, the panels, deadlines and
reminders, stand-ins) ever sees them.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from itertools import pairwise

from bot.permissions import Actor
from bot.results import refuse
from bot.service.base import ServiceBase
from bot.service.replay import rule_events
from bot.spectators import (
    DELAY,
    DELAYED,
    MAX_DELAY,
    OPEN,
    Standing,
    Watch,
    answer_key,
    delay_of,
    end_watch,
    hidden_sides,
    seated,
    standing,
    watch_cleanup,
    watch_key,
    watch_of,
    watch_setting,
)
from bot.storage import Encounter
from bot.storage.model import HistoryStep
from rules.events import Event
from rules.serial import from_json
from rules.state import EncounterState


@dataclass(frozen=True, slots=True)
class WatchOffer:
    """What a would-be spectator may choose: nothing (``sides`` empty: the channel shows everything, and they now
    watch it), a side's view (its players approve), or the director's view ``delay`` rounds late (0: not
    offered). ``state``: to name the sides in the reader's language."""

    encounter_id: int
    sides: tuple[str, ...]
    delay: int
    state: EncounterState


@dataclass(frozen=True, slots=True)
class Answered:
    """An approver's answer recorded: the request as it stands now, and whether this answer decided it."""

    watch: Watch
    standing: Standing
    decided: bool


@dataclass(frozen=True, slots=True)
class RoundView:
    """A round as the director saw it once it was over: the board after it, its events, and its last step (the
    round and the phase it resolved, as a board's subtitle names them)."""

    state: EncounterState
    events: tuple[Event, ...]
    step: tuple[int, str]


class SpectatorActions(ServiceBase):
    async def offer_watch(self, encounter_id: int, user_id: int) -> WatchOffer:
        """The choices of ``/encounter watch``; an encounter that hides nothing makes them a spectator at once."""
        reading = await self.read(encounter_id)
        meta, state = reading.meta, reading.state
        self._may_watch(meta, seated(reading.parts, meta.created_by), user_id)
        sides = hidden_sides(state)
        if not sides:
            await self.storage.update_settings(
                encounter_id,
                **{**watch_cleanup(meta.settings, user_id), watch_key(user_id): watch_setting(OPEN)},
            )
        return WatchOffer(encounter_id, sides, delay_of(meta.settings), state)

    async def offer_watch_sides(self, encounter_id: int) -> WatchOffer:
        """The views as they stand, to name them (no guard, nothing stored)."""
        reading = await self.read(encounter_id)
        meta, state = reading.meta, reading.state
        return WatchOffer(encounter_id, hidden_sides(state), delay_of(meta.settings), state)

    async def ask_side(self, encounter_id: int, user_id: int, side: str) -> Watch:
        """A request for ``side``'s view, pending until its players answer (a side with no player: the director).
        Asking again replaces an earlier request and its answers."""
        reading = await self.read(encounter_id)
        meta, state = reading.meta, reading.state
        self._may_watch(meta, seated(reading.parts, meta.created_by), user_id)
        if side not in hidden_sides(state):
            raise refuse("spectator.no_side", "There is no side view to watch by that name.")
        players = {
            p.user_id
            for p in reading.parts
            if p.role == "player"
            and p.user_id != meta.created_by
            and (p.side or (state.units[p.unit].side if p.unit and p.unit in state.units else None)) == side
        }
        watch = Watch(user_id, side, tuple(sorted(players or {meta.created_by})))
        changes = {
            **watch_cleanup(meta.settings, user_id),
            watch_key(user_id): watch_setting(side, watch.approvers),
        }
        await self.storage.update_settings(encounter_id, **changes)
        return watch

    async def watch_delayed(self, encounter_id: int, user_id: int) -> int:
        """The director's full view, late by the director's delay (returned); refused while the delay is 0."""
        reading = await self.read(encounter_id)
        meta = reading.meta
        self._may_watch(meta, seated(reading.parts, meta.created_by), user_id)
        delay = delay_of(meta.settings)
        if delay < 1 or not hidden_sides(reading.state):
            raise refuse(
                "spectator.no_delay",
                "The director allows no delayed view here; ask for a side's view instead.",
            )
        changes = {**watch_cleanup(meta.settings, user_id), watch_key(user_id): watch_setting(DELAYED)}
        await self.storage.update_settings(encounter_id, **changes)
        return delay

    async def answer_watch(
        self, encounter_id: int, approver: int, spectator: int, side: str, yes: bool
    ) -> Answered:
        """One approver's answer to a request for ``side``'s view. Only those the request named answer it (an id
        in a button is never trusted); a request withdrawn or replaced meanwhile is refused."""
        meta = await self.storage.get_encounter(encounter_id)
        watch = watch_of(meta.settings, spectator)
        if watch is None or watch.side != side:
            raise refuse("spectator.no_request", "That request is no longer open.")
        if approver not in watch.approvers:
            raise refuse("spectator.not_yours", "Only the players of that side answer this request.")
        # both as this very answer was written: of two answers at once, only the second decides
        settings, written = await self.storage.swap_settings(
            encounter_id, **{answer_key(spectator, approver): yes}
        )
        now = watch_of(written, spectator)
        if now is None or now != watch:  # withdrawn or asked again while this answer was written
            raise refuse("spectator.no_request", "That request is no longer open.")
        before, after = standing(settings, now), standing(written, now)
        return Answered(now, after, before == "pending" and after != "pending")

    async def unwatch(self, encounter_id: int, user_id: int) -> None:
        meta = await self.storage.get_encounter(encounter_id)
        if watch_of(meta.settings, user_id) is None:
            raise refuse("spectator.not_watching", "You are not watching this encounter.")
        await self.storage.update_settings(encounter_id, **watch_cleanup(meta.settings, user_id))

    async def stop_watching(self, encounter_id: int, user_id: int) -> None:
        """A spectator took a seat: they stop watching (they would read another side's view as well as theirs)."""
        await end_watch(self.storage, encounter_id, user_id)

    async def set_spectator_delay(self, encounter_id: int, actor: Actor, rounds: int) -> None:
        """The director's delay for the full view, in rounds; 0 forbids it (its spectators get nothing more)."""
        meta = await self.storage.get_encounter(encounter_id)
        await self.require_director(meta, actor)
        if not 0 <= rounds <= MAX_DELAY:
            raise refuse("spectator.bad_delay", f"The delay is 0 to {MAX_DELAY} rounds.", limit=MAX_DELAY)
        await self.storage.update_settings(encounter_id, **{DELAY: rounds or None})

    async def round_view(self, encounter_id: int, round_no: int) -> RoundView | None:
        """The board after round ``round_no`` and every event of that round, as the director saw them, rebuilt
        from the stored steps leading to now (None: the log has no such round)."""
        chain = await self.storage.snapshot_chain(encounter_id)
        return await asyncio.to_thread(_round_of, chain, round_no)

    @staticmethod
    def _may_watch(meta: Encounter, taken: set[int], user_id: int) -> None:
        if meta.status == "ended":
            raise refuse("encounter.ended", "This encounter has ended.")
        if user_id in taken:
            raise refuse(
                "spectator.seated",
                "You have a seat at this table: your own view is yours, not a spectator's.",
            )


def _round_of(chain: list[HistoryStep], round_no: int) -> RoundView | None:
    """The last state of the steps played in ``round_no`` (a step belongs to the round it started in), their
    events, and the phase the last of them resolved."""
    decoded = [from_json(step.state) for step in chain]
    states = [s if isinstance(s, EncounterState) else None for s in decoded]
    found: RoundView | None = None
    events: list[Event] = []
    for (start, end), step in zip(pairwise(states), chain[1:], strict=True):
        if start is None or end is None or start.round != round_no:
            continue
        events.extend(rule_events(step.events))
        found = RoundView(end, tuple(events), (round_no, start.phase))
    return found
