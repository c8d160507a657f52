"""What every part of the application layer shares: loading an encounter (with a decode cache), checking who
is acting, and what a unit owes. :class:`bot.service.EncounterService` is built on it."""

from __future__ import annotations

import asyncio
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from bot.bounded import Bounded
from bot.opening import Openings
from bot.panels.memo import per_state
from bot.permissions import Actor, holder_of, is_director, player_of, stand_ins, units_of
from bot.public_view import public_units
from bot.results import Missing, Refused, refuse
from bot.storage import Deadline, Encounter, EncounterNotFoundError, GuildSettings, Participant, Storage
from rules.order_modes import OrderPolicy, policy_for
from rules.registry import ruleset_for
from rules.ruleset import DIRECTOR
from rules.serial import from_json
from rules.state import EncounterState, Unit

NOT_ORDERABLE = frozenset({"debris", "asteroid", "marker"})
#: encounters whose last read is kept (each holds one decoded state). A player clicks 20 to 70 s after their panel
#: was sent, and a state read again is a new object, whose panels are built anew (bot/panels/memo.py): room for
#: every encounter one process plays at once (a thousand) and as many idle ones; an ended one is not kept
READ_CACHE_SIZE = 2048
#: encounters (or guilds) whose small cached rows (deadline, settings) are kept: idle ones fall out
SMALL_CACHE_SIZE = 4096
GUILD_SETTINGS_TTL = 30.0  # seconds a guild's settings are reused between reads
#: the same (and a phase's deadline) when other bot processes may change them (several shards, one database)
SHARED_TTL = 3.0
#: how far towards a deadline the players still missing get their reminder DM
REMIND_AT = 0.75
#: encounter setting: the players who asked for no reminder DMs
MUTED = "muted_reminders"
DEADLINE_TTL = 30.0
MAX_AUTO_STEPS = 12  # phases without orders resolved (or undone) in a row before we stop: a safety net


def not_running(status: str) -> Refused:
    """Why no unit takes orders in an encounter that is not running (``status``: ended, paused, open)."""
    if status == "ended":
        return refuse("encounter.ended", "This encounter has ended.")
    if status == "paused":
        return refuse("encounter.paused", "The director has paused this encounter.")
    return refuse("encounter.not_started", "The encounter has not started yet.")


@dataclass(frozen=True, slots=True)
class Reading:
    """One read of an encounter (meta, state, phase, participants), handed along so a click that checks,
    shows and submits does not read the same rows three times."""

    meta: Encounter
    state: EncounterState
    phase_no: int
    parts: list[Participant]


def utc_now() -> datetime:
    return datetime.now(UTC)


def orderable(unit: Unit) -> bool:
    return not unit.destroyed and unit.kind not in NOT_ORDERABLE


def _owing_now(state: EncounterState) -> tuple[str, ...]:
    ruleset = ruleset_for(state)
    waiting = list(ruleset.awaiting(state))
    if state.pending is not None and state.pending.unit and state.pending.unit not in waiting:
        waiting.append(state.pending.unit)
    return tuple(u for u in waiting if u in state.units)


#: who owes an answer, once per state: every click, Submit and status asks, and a ruleset may search the board
#: to say (pbw: whoever may still change its intention, PBW-2)
_owing = per_state(_owing_now)


class ServiceBase:
    def __init__(
        self,
        storage: Storage,
        *,
        clock: Callable[[], datetime] = utc_now,
        director_role_name: str | None = None,
        shared: bool = False,
        seal_dice: bool = False,
    ) -> None:
        self.storage = storage
        self.clock = clock
        self.director_role_name = director_role_name
        # the bot seals each step's dice (DICE-1, bot/dice_seal.py); off, dice come from the scenario's seed, as
        # the CLI's sim draws them (the application layer's tests replay a scenario's own dice)
        self.seal_dice = seal_dice
        # other processes change guild settings and deadlines unseen: their reads are kept shortly
        self.settings_ttl = SHARED_TTL if shared else GUILD_SETTINGS_TTL
        self.deadline_ttl = SHARED_TTL if shared else DEADLINE_TTL
        self._locks: dict[int, asyncio.Lock] = {}
        self._states: Bounded[int, tuple[int, EncounterState]] = Bounded(READ_CACHE_SIZE)
        self._reads: OrderedDict[int, Reading] = OrderedDict()  # newest read per encounter, LRU-bounded
        # (read at, the phase it was read for, pending deadline)
        self._deadlines: Bounded[int, tuple[float, int, Deadline | None]] = Bounded(SMALL_CACHE_SIZE)
        self._guilds: Bounded[int, tuple[float, GuildSettings]] = Bounded(SMALL_CACHE_SIZE)
        self.openings = Openings()  # one /encounter new at a time per member, counted against the limit

    # --- loading and checks --------------------------------------------------------------------------------
    def _lock(self, encounter_id: int) -> asyncio.Lock:
        return self._locks.setdefault(encounter_id, asyncio.Lock())

    async def load(self, encounter_id: int) -> tuple[Encounter, EncounterState, int]:
        reading = await self.read(encounter_id)
        return reading.meta, reading.state, reading.phase_no

    async def read(self, encounter_id: int) -> Reading:
        """The encounter as stored now. A click reads it several times a second: the last read is kept and
        reused while the stored ``last_seq`` is unchanged (one indexed read instead of the snapshot, events and
        participants; the database, not this process, says whether it changed)."""
        try:
            cached = self._reads.get(encounter_id)
            if cached is not None and await self.storage.last_seq(encounter_id) == cached.meta.last_seq:
                self._reads.move_to_end(encounter_id)
                return cached
            loaded = await self.storage.load(encounter_id)
        except EncounterNotFoundError:
            raise refuse(
                "encounter.gone", "That encounter no longer exists, or you no longer play in it."
            ) from None
        state = self._decode(encounter_id, loaded.snapshot_seq, loaded.state)
        reading = Reading(loaded.meta, state, loaded.phase_no, list(loaded.participants))
        if loaded.meta.status == "ended":
            # nothing more is played there: its room goes to the encounters under way
            self._reads.pop(encounter_id, None)
            self._states.pop(encounter_id, None)
            return reading
        self._reads[encounter_id] = reading
        self._reads.move_to_end(encounter_id)
        while len(self._reads) > READ_CACHE_SIZE:
            self._reads.popitem(last=False)
        return reading

    async def guild_settings(self, guild_id: int) -> GuildSettings:
        now = time.monotonic()
        cached = self._guilds.get(guild_id)
        if cached is not None and now - cached[0] < self.settings_ttl:
            return cached[1]
        settings = await self.storage.get_guild_settings(guild_id)
        self._guilds[guild_id] = (now, settings)
        return settings

    async def change_guild_settings(self, guild_id: int, **changes: Any) -> GuildSettings:
        """Write some of a guild's settings (``storage.set_guild_settings`` keywords) and replace the cached copy,
        so the next read (announcer language, director role, deadlines) sees them at once, not after the TTL."""
        settings = await self.storage.set_guild_settings(guild_id, **changes)
        self._guilds[guild_id] = (time.monotonic(), settings)
        return settings

    def _decode(self, encounter_id: int, snapshot_seq: int, data: Mapping[str, Any]) -> EncounterState:
        """A snapshot never changes once written, so its decoded state is cached by (encounter, seq)."""
        cached = self._states.get(encounter_id)
        if cached is not None and cached[0] == snapshot_seq:
            # kept by use, not by when it was decoded: an encounter waiting on a slow player keeps its state
            self._states.move_to_end(encounter_id)
            return cached[1]
        state = from_json(data)
        assert isinstance(state, EncounterState)
        self._states[encounter_id] = (snapshot_seq, state)
        return state

    async def in_channel(self, guild_id: int, channel_id: int) -> Encounter:
        meta = await self.storage.active_encounter_in_channel(guild_id, channel_id)
        if meta is None:
            raise refuse(
                "encounter.none",
                "There is no encounter in this channel. A director starts one with /encounter new.",
            )
        return meta

    async def checked(self, encounter_id: int, guild_id: int | None) -> Encounter:
        """The encounter ``encounter_id`` if it belongs to ``guild_id`` (ids from custom ids are never trusted)."""
        try:
            meta = await self.storage.get_encounter(encounter_id)
        except EncounterNotFoundError:
            raise refuse(
                "encounter.gone", "That encounter no longer exists, or you no longer play in it."
            ) from None
        if guild_id is not None and meta.guild_id != guild_id:
            raise refuse("encounter.gone", "That encounter no longer exists, or you no longer play in it.")
        return meta

    async def is_director(
        self, meta: Encounter, actor: Actor, parts: list[Participant] | None = None
    ) -> bool:
        if parts is None:
            try:
                parts = (await self.read(meta.id)).parts
            except (TypeError, ValueError, KeyError, RecursionError):
                # a state that no longer decodes: the director can still act on it (end it, above all)
                parts = await self.storage.participants(meta.id)
        settings = await self.guild_settings(meta.guild_id)
        return is_director(
            actor,
            meta,
            parts,
            director_role_id=settings.director_role_id,
            director_role_name=self.director_role_name,
        )

    async def require_director(self, meta: Encounter, actor: Actor) -> None:
        if not await self.is_director(meta, actor):
            raise refuse("director.only", "Only the encounter's directors can do that.")

    @staticmethod
    def _require_running(meta: Encounter) -> None:
        if meta.status != "running":
            raise not_running(meta.status)

    @staticmethod
    def is_public(state: EncounterState, unit_id: str) -> bool:
        """Whether every side (and so the channel) may see the unit now (FOG-1, NGT-9)."""
        return unit_id in public_units(state, ruleset_for(state))

    @classmethod
    def public_name(cls, state: EncounterState, unit_id: str) -> str:
        """The unit's name if everyone may see the unit, else "" (channel text names no hidden unit)."""
        return state.units[unit_id].name if cls.is_public(state, unit_id) else ""

    def owing(self, state: EncounterState) -> tuple[str, ...]:
        """Units that owe an answer now: the ruleset's awaited units, or the unit of a pending decision."""
        return _owing(state)

    async def _missing(
        self, meta: Encounter, state: EncounterState, phase_no: int, parts: list[Participant]
    ) -> list[Missing]:
        """Who still owes an answer: each awaited unit's player, or the director for a unit nobody plays. A unit
        left to its stand-in order owes nothing; neither does a unit nobody plays in a step whose answers may be
        left out (no answer there means nothing changes, so the director is not made to answer for it)."""
        submitted = set(await self.storage.submitted_units(meta.id, phase_no))
        optional = ruleset_for(state).optional_orders(state)
        out: list[Missing] = []
        for uid in self.owing(state):
            if uid in submitted:
                continue
            holder = holder_of(uid, parts)
            if holder is not None:
                out.append(Missing(holder, uid, state.units[uid].name))
                continue
            player = player_of(uid, parts, meta)
            if player is not None and not optional:
                out.append(Missing(player, uid, state.units[uid].name, director=True))
        return out

    def stand_in_due(
        self, meta: Encounter, state: EncounterState, policy: OrderPolicy, parts: list[Participant]
    ) -> bool:
        """Whether the current step goes on with stand-in orders, as the director chose for units nobody plays:
        one-at-a-time modes when the unit acting now is one of them (SK-1.1: its activation ends), simultaneous
        ones when only such units are awaited."""
        owing = self.owing(state)
        ins = {u for u in owing if u in stand_ins(meta.settings) and holder_of(u, parts) is None}
        if not ins:
            return False
        if policy.one_order_per_step:
            return owing[0] in ins
        return set(owing) <= ins

    async def my_units(self, encounter_id: int, user_id: int) -> list[str]:
        return units_of(user_id, (await self.read(encounter_id)).parts)

    async def panel_units(self, encounter_id: int, actor: Actor) -> list[str]:
        """The panels ``/orders`` shows this person: in a director-run mode (ocs) a director's own procedure
        panel first (the pseudo-unit :data:`DIRECTOR`), then the units they play; a director also gets the
        panels of the units nobody plays that are awaited now."""
        reading = await self.read(encounter_id)
        mine = units_of(actor.user_id, reading.parts)
        if not await self.is_director(reading.meta, actor, reading.parts):
            return mine
        unplayed = [
            u
            for u in self.owing(reading.state)
            if holder_of(u, reading.parts) is None and player_of(u, reading.parts, reading.meta) is not None
        ]
        head = [DIRECTOR] if await self.may_use_panel(reading, DIRECTOR, actor) else []
        return [*head, *mine, *unplayed]

    async def may_use_panel(self, reading: Reading, unit_id: str, actor: Actor) -> bool:
        """Whether ``actor`` may see and use the panel of ``unit_id``: the unit's holder; for a unit nobody plays
        (and not left to its stand-in order) or the director's pseudo-unit in a director-run mode, a director of
        the encounter (checked on every click)."""
        if unit_id == DIRECTOR:
            if not policy_for(ruleset_for(reading.state)).director_orders:
                return False
            return await self.is_director(reading.meta, actor, reading.parts)
        holder = holder_of(unit_id, reading.parts)
        if holder is not None:
            return holder == actor.user_id
        if player_of(unit_id, reading.parts, reading.meta) is None or unit_id not in reading.state.units:
            return False
        return await self.is_director(reading.meta, actor, reading.parts)

    def deadline_times(self, minutes: float) -> tuple[datetime, datetime]:
        """(due, remind at) of a deadline ``minutes`` from now: the players still missing are reminded by DM
        once, :data:`REMIND_AT` of the way there."""
        now = self.clock()
        return now + timedelta(minutes=minutes), now + timedelta(minutes=minutes * REMIND_AT)

    async def set_deadline(self, encounter_id: int, phase_no: int, minutes: float | None) -> datetime | None:
        """The phase resolves ``minutes`` from now (None: no deadline); see :meth:`deadline_times`."""
        when, remind = (None, None) if minutes is None else self.deadline_times(minutes)
        await self.storage.set_deadline(encounter_id, phase_no, when, remind_at=remind)
        self.forget_deadline(encounter_id)
        return when

    def forget_deadline(self, encounter_id: int) -> None:
        """The cached deadline of the encounter is read again next time (it was changed or removed here)."""
        self._deadlines.pop(encounter_id, None)

    async def deadline_of(self, encounter_id: int, phase_no: int) -> datetime | None:
        """When phase ``phase_no`` resolves by itself, if it has a deadline: read through a short cache, as every
        panel and status shows it. A read made for another phase is never reused (the process that opened this
        phase, maybe another one, set its deadline); a director's change within a phase made in another process
        shows within :data:`DEADLINE_TTL` seconds (:data:`SHARED_TTL` with several processes)."""
        cached = self._deadlines.get(encounter_id)
        now = time.monotonic()
        if cached is None or cached[1] != phase_no or now - cached[0] > self.deadline_ttl:
            cached = (now, phase_no, await self.storage.deadline_of(encounter_id))
            self._deadlines[encounter_id] = cached
        pending = cached[2]
        return pending.due_at if pending is not None and pending.phase_no == phase_no else None

    async def mute_reminders(self, encounter_id: int, user_id: int, muted: bool) -> None:
        """A player's choice for this encounter: no reminder DMs (or them again)."""
        meta = await self.storage.get_encounter(encounter_id)
        if not await self.my_units(encounter_id, user_id):
            raise refuse("encounter.not_playing", "You have no units in this encounter.")
        current = {int(u) for u in meta.settings.get(MUTED, [])}
        wanted = current | {user_id} if muted else current - {user_id}
        if wanted != current:
            await self.storage.update_settings(encounter_id, **{MUTED: sorted(wanted)})
