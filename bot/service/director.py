"""The director's side of the application layer: overrides (recorded, shown, undoable), undo, pause and
resume, deadlines, assignments, co-directors and "director reviews rolls" (DESIGN §4)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import datetime
from typing import Any, cast

from bot.dice_seal import EPOCH_SETTING, epoch_of, key_of
from bot.permissions import Actor
from bot.results import Joined, OverrideDone, UndoDone, refuse
from bot.service.base import MAX_AUTO_STEPS, ServiceBase, orderable
from bot.service.records import undone_public
from bot.spectators import end_watch
from bot.storage import EncounterEndedError, NothingToUndoError, StalePhaseError
from bot.storage.base import UNDONE
from rules.events import Event
from rules.serial import from_json, to_json
from rules.state import EncounterState

OVERRIDE_EVENT = "DirectorOverride"
OVERRIDE_ATTEMPTS = 3  # builds of an override on a state another process keeps moving on, before it gives up


class DirectorActions(ServiceBase):
    # --- director ------------------------------------------------------------------------------------------
    async def override(
        self,
        encounter_id: int,
        actor: Actor,
        action: str,
        unit: str,
        build: Callable[[EncounterState], tuple[EncounterState, Any]],
    ) -> OverrideDone:
        # under the encounter's lock, an override waits for a resolution in this process to finish its steps
        # (phases that run by themselves included) and then applies to the state it left; another process's
        # resolution shows up as a stale phase, and the override is built again on the newer state
        async with self._lock(encounter_id):
            attempt = 1
            while True:
                meta, state, phase_no = await self.load(encounter_id)
                await self.require_director(meta, actor)
                if meta.status == "ended":
                    raise refuse("encounter.ended", "This encounter has ended.")
                new_state, produced = build(state)
                if new_state == state:
                    # recorded, it would be a step for /director undo to take back, and the director's next undo
                    # would seem to do nothing (or, once this step were gone, revert a real one)
                    raise refuse("director.no_change", "That changes nothing; nothing was recorded.")
                events: tuple[Event, ...] = (
                    cast(tuple[Event, ...], produced) if isinstance(produced, tuple) else (produced,)
                )
                first = events[0]
                # the channel hears of it only if every unit it touches is public afterwards (removed: was
                # public); a hidden unit moved, damaged, removed or assigned is told to the director alone (FOG-1)
                touched = {u for e in events for u in e.involved()} | {unit}
                public = self._all_public(state, new_state, touched)
                payload = {
                    "round": state.round,
                    "phase": state.phase,
                    "event": to_json(first),
                    "extra": [to_json(e) for e in events[1:]],
                    "by": actor.user_id,
                    "public": public,  # so an undo of it is told to those who were told of it (FOG-1)
                }
                try:
                    await self.storage.record_override(
                        encounter_id, phase_no, (OVERRIDE_EVENT, payload), to_json(new_state)
                    )
                except StalePhaseError:
                    if attempt == OVERRIDE_ATTEMPTS:
                        raise refuse(
                            "phase.changed", "The game moved on while I applied that; give it again."
                        ) from None
                    attempt += 1
                    continue
                break
        return OverrideDone(
            encounter_id,
            action,
            unit,
            first,
            new_state,
            public=public,
            before=state,
            events=events,
        )

    def _all_public(self, state: EncounterState, new_state: EncounterState, touched: set[str]) -> bool:
        """Every unit of ``touched`` is one the public sees in ``new_state`` (or, gone from it, in ``state``)."""
        return all(
            self.is_public(new_state, u) if u in new_state.units else self.is_public(state, u)
            for u in touched
            if u in state.units or u in new_state.units
        )

    async def _override_at_head(self, encounter_id: int) -> tuple[Event, bool] | None:
        """The director's override that wrote the current snapshot, if that is what wrote it (an undo's copy
        stands for the snapshot it restored), and whether the channel was told of it; None for a resolution or
        the encounter's start."""
        seq = (await self.storage.load(encounter_id)).snapshot_seq
        for _ in range(MAX_AUTO_STEPS):
            found = await self.storage.events(encounter_id, since_seq=seq - 1, types=(OVERRIDE_EVENT, UNDONE))
            event = next((e for e in found if e.seq == seq), None)
            if event is None:
                return None
            if event.type == OVERRIDE_EVENT:
                # an override recorded without the flag was told to the channel, as every override then was
                return cast(Event, from_json(event.payload["event"])), bool(event.payload.get("public", True))
            seq = int(event.payload["restored_snapshot_seq"])
        return None

    async def check_undo(self, encounter_id: int, actor: Actor) -> bool:
        """The undo's refusals, made before anything is answered in the channel (see :meth:`undo`). Returns
        whether the channel saw the step an undo would take back now: an override told to the director alone
        was not, and neither is its undoing (FOG-1)."""
        meta = await self.storage.get_encounter(encounter_id)
        await self.require_director(meta, actor)
        if meta.status == "ended":  # the store takes nothing more for it (as an override)
            raise refuse("encounter.ended", "This encounter has ended.")
        if not await self.storage.can_undo(encounter_id):
            raise refuse("undo.nothing", "There is nothing to undo.")
        head = await self._override_at_head(encounter_id)
        return head is None or head[1]

    async def undo(self, encounter_id: int, actor: Actor) -> tuple[int, EncounterState]:
        """Undo the last override, or the last resolution and back to the previous state that waited for orders
        (or the first one). Returns (phase_no, state)."""
        done = await self.undo_step(encounter_id, actor)
        return done.phase_no, done.state

    async def undo_step(self, encounter_id: int, actor: Actor, *, seen: bool | None = None) -> UndoDone:
        """:meth:`undo`, saying what it undid: the director's override when that was the last thing done.
        ``seen``: what :meth:`check_undo` said of the step; when the step at the head is no longer one the channel
        saw (or not saw) alike, nothing is undone, as the answer was already begun in public (or in private)."""
        meta = await self.storage.get_encounter(encounter_id)
        await self.require_director(meta, actor)
        async with self._lock(encounter_id):
            before = await self.read(encounter_id)
            phase_before = before.phase_no
            head = await self._override_at_head(encounter_id)
            told = head is None or head[1]
            if seen is not None and seen != told:
                raise refuse("phase.changed", "The game moved on while I applied that; give it again.")
            override = head[0] if head is not None else None
            if override is None and key_of(meta.settings) is not None:
                # a resolution taken back: its step opens again with fresh dice, never the seed it revealed
                # (DICE-1); a private override undone leaves the commitment alone (FOG-1)
                await self.storage.note_settings(encounter_id, **{EPOCH_SETTING: epoch_of(meta.settings) + 1})
            try:
                restored = await self.storage.undo(encounter_id, by=actor.user_id)
            except NothingToUndoError:
                raise refuse("undo.nothing", "There is nothing to undo.") from None
            except EncounterEndedError:  # ended since the check
                raise refuse("encounter.ended", "This encounter has ended.") from None
            # an override is undone alone (same phase); phases that ran by themselves after a resolution go too
            for _ in range(MAX_AUTO_STEPS if restored != phase_before else 0):
                _, state, phase_no = await self.load(encounter_id)
                if self.owing(state) or state.over:
                    break
                try:
                    await self.storage.undo(encounter_id, by=actor.user_id)
                except NothingToUndoError:
                    break
            meta, state, phase_no = await self.load(encounter_id)
            if meta.status == "ended" and not state.over:
                await self.storage.set_encounter_status(encounter_id, "running")
            if override is None or restored != phase_before:
                gone = [
                    g
                    for g in await self.storage.undone_steps(encounter_id)
                    if g.undo.seq > before.meta.last_seq
                ]
                events, made = await asyncio.to_thread(undone_public, gone)
                return UndoDone(phase_no, state, undone_events=events, undone_state=made)
            touched = set(override.involved())
            public = self._all_public(before.state, state, touched) and self._all_public(
                state, before.state, touched
            )
            return UndoDone(phase_no, state, override, before.state, public=public, seen=told)

    async def set_status(
        self, encounter_id: int, actor: Actor, status: str, *, expected_phase_no: int | None = None
    ) -> None:
        """``expected_phase_no``: the phase the director saw (bot/phase_gate.py); a later one is not paused."""
        async with self._lock(encounter_id):  # not while a resolution in progress is closing the phase
            meta = await self.storage.get_encounter(encounter_id)
            await self.require_director(meta, actor)
            if meta.status == "ended":
                raise refuse("encounter.ended", "This encounter has ended.")
            if status == "paused" and meta.status != "running":
                raise refuse("encounter.not_running", "Only a running encounter can be paused.")
            if status == "running" and meta.status != "paused":
                raise refuse("encounter.not_paused", "The encounter is not paused.")
            self._require_phase(meta.phase_no, expected_phase_no)
            await self.storage.set_encounter_status(encounter_id, status)  # type: ignore[arg-type]

    @staticmethod
    def _require_phase(phase_no: int, expected_phase_no: int | None) -> None:
        """A director's command meant for phase ``expected_phase_no`` does nothing to a later one."""
        if expected_phase_no is not None and phase_no != expected_phase_no:
            raise refuse("phase.changed", "The game moved on while I applied that; give it again.")

    async def director_deadline(
        self, encounter_id: int, actor: Actor, minutes: float | None, *, expected_phase_no: int | None = None
    ) -> datetime | None:
        async with self._lock(
            encounter_id
        ):  # not on a phase a resolution in progress is closing (as override)
            meta, _, phase_no = await self.load(encounter_id)
            await self.require_director(meta, actor)
            self._require_running(meta)
            self._require_phase(phase_no, expected_phase_no)
            return await self.set_deadline(encounter_id, phase_no, minutes)

    async def assign(self, encounter_id: int, actor: Actor, unit_id: str, user_id: int) -> Joined:
        meta, state, _ = await self.load(encounter_id)
        await self.require_director(meta, actor)
        if unit_id not in state.units or not orderable(state.units[unit_id]):
            raise refuse("unit.unknown", f"There is no unit called {unit_id!r}.", unit=unit_id[:40])
        u = state.units[unit_id]
        await self.storage.add_participant(encounter_id, user_id, "player", u.side, u.id, reassign=True)
        await end_watch(self.storage, encounter_id, user_id)  # a seat ends a spectator's view
        return Joined(
            encounter_id, user_id, u.id, u.name, u.side, state.side(u.side).name, state.side(u.side).names
        )

    async def kick(self, encounter_id: int, actor: Actor, user_id: int) -> int:
        meta = await self.storage.get_encounter(encounter_id)
        await self.require_director(meta, actor)
        if user_id == meta.created_by:
            raise refuse("director.kick_creator", "The encounter's creator cannot be removed.")
        return await self.storage.remove_participant(encounter_id, user_id)

    async def cohost(self, encounter_id: int, actor: Actor, user_id: int) -> None:
        meta = await self.storage.get_encounter(encounter_id)
        await self.require_director(meta, actor)
        await self.storage.add_participant(encounter_id, user_id, "codirector")
        await end_watch(self.storage, encounter_id, user_id)

    async def set_review_rolls(
        self, encounter_id: int, actor: Actor, on: bool, *, expected_phase_no: int | None = None
    ) -> None:
        async with self._lock(encounter_id):  # the resolution in progress reads the setting once
            meta = await self.storage.get_encounter(encounter_id)
            await self.require_director(meta, actor)
            self._require_phase(meta.phase_no, expected_phase_no)
            await self.storage.update_settings(encounter_id, review_rolls=on)

    async def set_reveal_at_end(self, encounter_id: int, actor: Actor, on: bool) -> None:
        """NGT-9: once the encounter has ended, ``/encounter replay`` shows everything to anyone (off by
        default: a replay stays fogged for its viewer)."""
        meta = await self.storage.get_encounter(encounter_id)
        await self.require_director(meta, actor)
        await self.storage.update_settings(encounter_id, reveal_at_end=on)

    async def override_roll(
        self,
        encounter_id: int,
        actor: Actor,
        index: int,
        dice: tuple[int, ...],
        *,
        expected_phase_no: int | None = None,
    ) -> int:
        """Replace roll ``index`` of the held resolution of the current phase ("director reviews rolls"). Under the
        encounter's lock: not lost to a resolution reading the table meanwhile, nor to another director's change
        of the same table (each reads it and writes it whole)."""
        async with self._lock(encounter_id):
            meta, _, phase_no = await self.load(encounter_id)
            await self.require_director(meta, actor)
            self._require_phase(phase_no, expected_phase_no)
            if not meta.settings.get("review_rolls"):
                raise refuse(
                    "director.review_off", "Turn on 'director reviews rolls' first (/director review)."
                )
            if not dice or any(not 1 <= d <= 100 for d in dice) or not 0 <= index < 1000:
                raise refuse(
                    "director.bad_value",
                    "Give the roll number and its dice, e.g. 3 and 6,6,6.",
                    stat="dice",
                    value="",
                )
            table: dict[str, Any] = dict(meta.settings.get("roll_overrides", {}))
            phase_table = dict(table.get(str(phase_no), {}))
            phase_table[str(index)] = list(dice)
            table[str(phase_no)] = phase_table
            await self.storage.update_settings(encounter_id, roll_overrides=table)
            return phase_no
