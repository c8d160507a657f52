"""The application layer: encounters played through storage and the rules, with no Discord in sight.

Every public method takes plain ids, checks permissions against the encounter (never trusting an id it was
given), calls the ruleset and the storage, and returns a result object from :mod:`bot.results`. Refusals are
``Refused`` (a ``GameError``) with an i18n code; rule violations are the ruleset's own ``GameError``\\ s. Order
contents never leave this module except back to the player who wrote them.
"""

from __future__ import annotations

import asyncio
import dataclasses
import enum
import logging
import random
import tomllib
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from functools import cache, partial
from itertools import pairwise
from typing import Any, cast

from bot.dice_seal import (
    KEY_SETTING,
    SEAL_EVENT,
    Seal,
    epoch_of,
    key_of,
    new_key,
    rolls_public,
    seal_for,
    seal_from,
    seal_spec,
    seeded,
)
from bot.offloop import off_loop
from bot.opening import check_may_open_role, check_open_count
from bot.panels.model import phase_text
from bot.permissions import Actor, holder_of, player_of, units_of
from bot.public_view import public_units
from bot.results import (
    Created,
    HeldRolls,
    Missing,
    ProblemLines,
    Refused,
    Resolution,
    Seated,
    StatusView,
    StepReport,
    SubmitResult,
    refuse,
)
from bot.service.base import MAX_AUTO_STEPS, Reading, ServiceBase, orderable, utc_now
from bot.service.director import DirectorActions
from bot.service.panel_click import Opened, PanelRequest, let_in, not_awaited
from bot.service.records import RecordActions, parse_export
from bot.service.replay import rule_events
from bot.service.seating import SeatingActions
from bot.service.spectators import SpectatorActions
from bot.storage import (
    AlreadyResolved,
    ChannelBusyError,
    Encounter,
    EncounterEndedError,
    Participant,
    Resolved,
    StalePhaseError,
    UnitTakenError,
)
from bot.storage.base import PHASE_RESOLVED, HistoryStep
from data import SCENARIO_DIR
from data.i18n import language_of
from rules.engine import resolve_phase
from rules.errors import ScenarioError
from rules.events import Event, RollMade, ShotResolved
from rules.names import clean_name
from rules.order_modes import OrderPolicy, policy_for
from rules.registry import ruleset_for
from rules.ruleset import DIRECTOR, DiceFactory, Order, PhaseResult, Ruleset
from rules.scenario import Scenario, Texts, load_scenario, names_seed, text_in
from rules.serial import from_json, to_json
from rules.state import EncounterState, Unit

log = logging.getLogger(__name__)

OnStep = Callable[[StepReport], Awaitable[None]]


@dataclass(frozen=True, slots=True)
class _Committed:
    """A step committed: its report, the state after it and the phase that follows."""

    report: StepReport
    state: EncounterState
    phase_no: int
    deadline_set: bool  # the next phase's default deadline was written with it


class _Again(enum.Enum):
    """The orders changed while the step was resolved: read them again."""

    AGAIN = "again"


_AGAIN = _Again.AGAIN
#: resolutions of boards this small share the click worker (exo: 100 ships take < 20 ms); larger ones get a thread
SHARED_WORKER_UNITS = 30


def bundled_scenarios(ruleset: str | None = None, lang: str | None = None) -> list[tuple[str, str, str]]:
    """(id, name in ``lang``, ruleset) of the scenarios shipped in ``data/scenarios``."""
    return [
        (sid, text_in(names, lang) or sid, rid)
        for sid, names, rid in _bundled()
        if ruleset is None or rid == ruleset
    ]


@cache
def _bundled() -> tuple[tuple[str, Texts, str], ...]:
    # package data: read once per process
    out: list[tuple[str, Texts, str]] = []
    for path in sorted(SCENARIO_DIR.glob("*.toml")):
        try:
            raw = tomllib.loads(path.read_text(encoding="utf-8"))
        except (OSError, tomllib.TOMLDecodeError):
            continue
        name = raw.get("name", path.stem)
        names: Texts = (
            tuple((str(k), str(v)) for k, v in cast(dict[str, Any], name).items())
            if isinstance(name, dict)
            else (("", str(name)),)
        )
        out.append((path.stem, names, str(raw.get("ruleset", ""))))
    return tuple(out)


@cache
def _bundled_text(scenario_id: str) -> str:
    # package data, read once per process: a burst of 100 /encounter new would read the same file 100 times on
    # the event loop
    return (SCENARIO_DIR / f"{scenario_id}.toml").read_text(encoding="utf-8")


class EncounterService(DirectorActions, RecordActions, SeatingActions, SpectatorActions):
    """Encounters end to end: create, join, start, orders, resolution; director tools, records and the seating
    of units nobody plays come from the mixins (bot/service/director.py, bot/service/records.py,
    bot/service/seating.py)."""

    # --- encounters ----------------------------------------------------------------------------------------
    async def check_create(
        self,
        guild_id: int,
        channel_id: int,
        *,
        ruleset: str,
        scenario: str | None,
        channel_free: bool = True,
        actor: Actor | None = None,
    ) -> None:
        """The refusals of :meth:`create` that need no scenario reading (a busy channel, an unknown bundled
        scenario or one for another ruleset), checked at once so the command can refuse before it answers in
        public; :meth:`create` checks them again. ``channel_free=False``: the encounter gets a thread of its own,
        so this channel may already have one. With ``actor``: whether they may open one here at all (the
        director role, their open encounters: ``bot/opening.py``)."""
        if actor is not None:
            await self.check_may_open(guild_id, actor)
        if channel_free and await self.storage.active_encounter_in_channel(guild_id, channel_id) is not None:
            raise refuse("encounter.exists", "This channel already has an encounter; end it first.")
        if scenario is None:
            return
        known = {sid: rid for sid, _, rid in bundled_scenarios()}
        if scenario not in known:
            raise refuse(
                "scenario.unknown", f"There is no bundled scenario {scenario!r}.", scenario=str(scenario)[:40]
            )
        if known[scenario] != ruleset:
            raise refuse(
                "scenario.ruleset_mismatch",
                f"That scenario is for {known[scenario]}, not {ruleset}.",
                scenario_ruleset=known[scenario],
                ruleset=ruleset,
            )

    async def create(
        self,
        guild_id: int,
        channel_id: int,
        user_id: int,
        *,
        ruleset: str,
        scenario: str | None = None,
        toml_text: str | None = None,
        name: str | None = None,
        seed: int | None = None,
        channel_lang: str | None = None,
        place: Callable[[str], Awaitable[int]] | None = None,
        actor: Actor | None = None,
    ) -> Created:
        """A new encounter in ``channel_id`` or, with ``place``, in the channel ``place`` returns given the
        encounter's name once the scenario has been read (a thread of its own: nothing is created for a scenario
        that is refused). With ``actor`` (a member asking): checked and counted one at a time per member, so a
        burst never opens more than the member may keep open."""
        if actor is not None:
            async with self.openings.one_at_a_time(guild_id, actor.user_id):
                await self.check_may_open(guild_id, actor)
                return await self.create(
                    guild_id,
                    channel_id,
                    user_id,
                    ruleset=ruleset,
                    scenario=scenario,
                    toml_text=toml_text,
                    name=name,
                    seed=seed,
                    channel_lang=channel_lang,
                    place=place,
                )
        if toml_text is None:
            known = {sid: rid for sid, _, rid in bundled_scenarios()}
            if scenario not in known:
                raise refuse(
                    "scenario.unknown",
                    f"There is no bundled scenario {scenario!r}.",
                    scenario=str(scenario)[:40],
                )
            toml_text = _bundled_text(scenario)
        # a scenario that names itself in several languages is named in the channel's: the server's setting,
        # else the language fixed for the channel (the director's)
        server_lang = (await self.guild_settings(guild_id)).language
        name_lang = language_of(server_lang or channel_lang)
        try:  # reading a scenario is CPU work (TOML twice: the seed, then the scenario): off the event loop
            loaded = await asyncio.to_thread(_load_seeded, toml_text, seed, name_lang)
        except ScenarioError as exc:
            lines = ProblemLines(tuple(exc.problems))
            raise refuse("scenario.invalid", f"The scenario has problems:\n{lines}", problems=lines) from None
        state = loaded.state
        if state.ruleset != ruleset:
            raise refuse(
                "scenario.ruleset_mismatch",
                f"That scenario is for {state.ruleset}, not {ruleset}.",
                scenario_ruleset=state.ruleset,
                ruleset=ruleset,
            )
        if name and clean_name(name):  # a name given in the command is read as a file's (rules/names.py)
            state = state.replace(name=clean_name(name)[:100])
        if place is not None:
            channel_id = await place(state.name)
        try:
            enc_id = await self.storage.create_encounter(
                guild_id,
                channel_id,
                state.ruleset,
                state.name,
                user_id,
                to_json(state),
                # announced_seq: nothing shown yet (the announcer records each step it posts)
                {
                    "review_rolls": False,
                    "announced_seq": 0,
                    **({"channel_lang": channel_lang} if channel_lang else {}),
                },
            )
        except ChannelBusyError:
            raise refuse("encounter.exists", "This channel already has an encounter; end it first.") from None
        if (
            self.seal_dice
        ):  # the key of the sealed dice (DICE-1) stays out of the log, which repeats the settings
            await self.storage.note_settings(enc_id, **{KEY_SETTING: new_key()})
        await self.storage.add_participant(enc_id, user_id, "director")
        units = tuple((u.id, u.name, u.side) for u in state.units.values() if orderable(u) and not u.hidden)
        return Created(enc_id, state.name, state.ruleset, units, state.sides)

    async def check_may_open(self, guild_id: int, actor: Actor) -> None:
        """The director role where one is set, and the member's open encounters (``bot/opening.py``)."""
        settings = await self.guild_settings(guild_id)
        check_may_open_role(actor, settings, self.director_role_name)
        await check_open_count(self.storage, actor, settings, self.director_role_name)

    async def free_units(self, encounter_id: int, user_id: int | None = None) -> list[Unit]:
        """Units nobody plays that ``user_id`` may take: never a hidden one, except of a side they already play
        (a side sees its own units, FOG-1), so typing a name reveals nothing."""
        reading = await self.read(encounter_id)
        state, parts = reading.state, reading.parts
        taken = {p.unit for p in parts if p.unit}
        sides = self._sides_of(state, units_of(user_id, parts)) if user_id is not None else set[str]()
        return [
            u
            for u in state.units.values()
            if orderable(u) and (not u.hidden or u.side in sides) and u.id not in taken
        ]

    @staticmethod
    def _sides_of(state: EncounterState, units: list[str]) -> set[str]:
        return {state.units[u].side for u in units if u in state.units}

    async def join(
        self, encounter_id: int, user_id: int, side: str | None = None, unit: str | None = None
    ) -> Seated:
        """Seat a player. ``side``: every unit of that side nobody plays, hidden ones included (a side sees its
        own units); ``unit``: that unit, hidden only when they already play its side; neither: the first free unit
        anyone may see. A join that would take nothing new is refused privately (``unit.already_yours``)."""
        reading = await self.read(encounter_id)
        meta, state, parts = reading.meta, reading.state, reading.parts
        if meta.status == "ended":
            raise refuse("encounter.ended", "This encounter has ended.")
        if side is not None and side not in state.side_ids():
            raise refuse("side.unknown", f"There is no side called {side!r}.", side=side[:40])
        mine = units_of(user_id, parts)
        sides = self._sides_of(state, mine)
        taken = {p.unit for p in parts if p.unit}
        units = [u for u in state.units.values() if orderable(u)]
        if unit is not None:
            match = [
                u
                for u in units
                if (u.id == unit or u.name.lower() == unit.lower()) and (not u.hidden or u.side in sides)
            ]
            if not match:
                raise refuse(
                    "unit.unknown", f"There is no unit called {unit!r} you can take.", unit=unit[:40]
                )
            if match[0].id in mine:
                raise _already(state, [match[0].id])
            chosen = match[:1]
        elif side is not None:
            chosen = [u for u in units if u.side == side and u.id not in taken]
            if not chosen:
                if ours := [u for u in mine if u in state.units and state.units[u].side == side]:
                    raise _already(state, ours)
                raise refuse("unit.none_free", "Every unit is taken; ask the director to assign you one.")
        else:
            if mine:
                raise _already(state, mine)
            chosen = [u for u in units if not u.hidden and u.id not in taken][:1]
            if not chosen:
                raise refuse("unit.none_free", "Every unit is taken; ask the director to assign you one.")
        seated: list[Unit] = []
        for u in chosen:
            try:
                await self.storage.add_participant(encounter_id, user_id, "player", u.side, u.id)
            except UnitTakenError:  # taken meanwhile by someone else: the others of the side still go
                continue
            seated.append(u)
        if not seated:
            raise refuse("unit.taken", f"{chosen[0].name} is already taken.", unit=chosen[0].name)
        await self.stop_watching(encounter_id, user_id)  # a seat of one's own ends any spectator's view
        first = seated[0].side
        return Seated(
            encounter_id,
            user_id,
            first,
            state.side(first).name,
            tuple((u.id, u.name, self.is_public(state, u.id)) for u in seated),
            state.side(first).names,
        )

    async def leave(self, encounter_id: int, user_id: int) -> int:
        return await self.storage.remove_participant(encounter_id, user_id, role="player")

    async def check_start(self, encounter_id: int, actor: Actor) -> tuple[str, ...]:
        """The start's preconditions (refused privately, before anything is posted), and the names of the units
        nobody plays: they give no orders, and where they are awaited the director moves on with /director
        resolve (the start message and the status say so, so the table never waits on nobody)."""
        reading = await self.read(encounter_id)
        await self.require_director(reading.meta, actor)
        if reading.meta.status != "open":
            raise refuse("encounter.already_started", "The encounter has already started.")
        orderable_units = [u for u in reading.state.units.values() if orderable(u)]
        held = {p.unit for p in reading.parts if p.role == "player" and p.unit}
        return tuple(
            u.name for u in orderable_units if u.id not in held and self.is_public(reading.state, u.id)
        )

    async def start(
        self,
        encounter_id: int,
        actor: Actor,
        *,
        on_step: OnStep | None = None,
        on_started: Callable[[Reading], Awaitable[None]] | None = None,
    ) -> Resolution:
        """Start the game: ``on_started`` is given the encounter as it starts (its opening board), before any
        step that follows by itself is resolved."""
        # checked again and claimed under the encounter's lock: of two starts given at once (a double tap, two
        # co-directors) one starts the game and the other is refused, instead of both announcing it
        async with self._lock(encounter_id):
            await self.check_start(encounter_id, actor)
            meta, _, phase_no = await self.load(encounter_id)
            await self.storage.set_encounter_status(encounter_id, "running")
            if on_started is not None:
                await on_started(await self.read(encounter_id))
        settings = await self.storage.get_guild_settings(meta.guild_id)
        if settings.default_deadline_minutes:
            await self.set_deadline(encounter_id, phase_no, settings.default_deadline_minutes)
        return await self.advance(encounter_id, on_step=on_step)

    async def end(self, encounter_id: int, actor: Actor) -> None:
        meta = await self.storage.get_encounter(encounter_id)
        await self.require_director(meta, actor)
        await self.storage.set_encounter_status(encounter_id, "ended")

    async def status(self, encounter_id: int, *, reading: Reading | None = None) -> StatusView:
        reading = (
            reading
            if reading is not None and reading.meta.id == encounter_id
            else await self.read(encounter_id)
        )
        meta, state, phase_no, parts = reading.meta, reading.state, reading.phase_no, reading.parts
        missing: tuple[Missing, ...] = ()
        acting: list[Missing] = []
        # the status goes to the channel: a unit hidden from the public is never named (FOG-1), only its player
        public = public_units(state, ruleset_for(state))
        shown = {uid: (u.name if uid in public else "") for uid, u in state.units.items()}
        if meta.status == "running" and not state.over:
            missing = tuple(
                dataclasses.replace(m, unit_name=shown[m.unit])
                for m in await self._missing(meta, state, phase_no, parts)
            )
            for uid in self.owing(state):
                player = player_of(uid, parts, meta)
                if player is not None:
                    by_director = holder_of(uid, parts) is None
                    acting.append(Missing(player, uid, shown[uid], director=by_director))
        players = tuple(
            (p.user_id, p.unit, shown[p.unit])
            for p in parts
            if p.role == "player" and p.unit is not None and p.unit in state.units
        )
        directors = tuple(
            sorted({meta.created_by, *(p.user_id for p in parts if p.role in ("director", "codirector"))})
        )
        return StatusView(
            meta.id,
            meta.name,
            meta.ruleset,
            meta.status,
            state.round,
            state.phase,
            phase_no,
            missing,
            players,
            directors,
            state.over,
            state.winner,
            deadline=await self._deadline_text(encounter_id, phase_no, meta.status),
            acting=tuple(acting),
            when=phase_text(state, state.round, state.phase),
            dice=self._commitment(reading),
        )

    @staticmethod
    def _commitment(reading: Reading) -> str:
        """The open step's dice commitment (DICE-1), what the status shows until the step's account reveals it."""
        key = key_of(reading.meta.settings)
        if key is None or reading.meta.status != "running" or reading.state.over:
            return ""
        return seal_for(key, reading.phase_no, epoch_of(reading.meta.settings)).commitment

    async def _deadline_text(self, encounter_id: int, phase_no: int, status: str) -> str | None:
        """The current phase's deadline as an ISO time (the cogs show it as a Discord timestamp)."""
        if status != "running":
            return None
        due = await self.deadline_of(encounter_id, phase_no)
        return due.isoformat() if due is not None else None

    # --- orders --------------------------------------------------------------------------------------------
    async def submit(
        self,
        encounter_id: int,
        user_id: int,
        unit_id: str,
        raw: Any,
        *,
        phase_no: int | None = None,
        reading: Reading | None = None,
        actor: Actor | None = None,
    ) -> SubmitResult:
        """Parse, validate and store one order (durable when this returns); ``all_in`` says whether it was the last.
        The order passes the same guards as a panel's click (bot/service/panel_click.py), from the encounter's own
        server; a panel's Submit goes through :meth:`submit_opened`, whose guards ran when the click was let in."""
        reading = (
            reading
            if reading is not None and reading.meta.id == encounter_id
            else await self.read(encounter_id)
        )
        request = PanelRequest(
            encounter_id, unit_id, actor or Actor(user_id), guild_id=reading.meta.guild_id, phase_no=phase_no
        )
        refused = await let_in(self, reading, request)
        if refused is not None:
            raise refused.error
        waits = not_awaited(self, reading, unit_id)
        if waits is not None:
            raise waits
        return await self._store_order(reading, user_id, unit_id, raw)

    async def submit_opened(self, opened: Opened, raw: Any) -> SubmitResult:
        """The Submit of a panel :func:`bot.service.panel_click.open_panel` let through: its guards (holder, phase, turn)
        ran on ``opened.reading``, the read this stores on, so they are not run again; a phase resolved since is
        still refused by the store."""
        return await self._store_order(opened.reading, opened.user_id, opened.panel.model.unit_id, raw)

    async def _store_order(self, reading: Reading, user_id: int, unit_id: str, raw: Any) -> SubmitResult:
        meta, state, current, parts = reading.meta, reading.state, reading.phase_no, reading.parts
        encounter_id = meta.id
        ruleset = ruleset_for(state)
        policy = policy_for(ruleset, state)
        order = await off_loop(checked_order, ruleset, state, unit_id, raw)
        try:
            ack = await self.storage.submit_order(
                encounter_id, current, unit_id, user_id, {"raw": raw, "order": to_json(order)}
            )
        except StalePhaseError:
            raise refuse("phase.stale", "The phase was resolved meanwhile; open /orders again.") from None
        missing = await self._missing(meta, state, current, parts)
        log.info("order accepted: encounter %s phase %s unit %s", encounter_id, current, unit_id)
        # one-order-per-step modes (SK-1.1 activation, declarations): one order is the whole step
        all_in = policy.one_order_per_step or not missing
        # the same order again (a double click) is told "received", as the first time; nothing was written
        return SubmitResult(
            encounter_id,
            current,
            unit_id,
            ack.amended and not ack.unchanged,
            all_in=all_in,
            mode=policy.mode,
            reviewed=bool(meta.settings.get("review_rolls")),
        )

    async def my_order(self, encounter_id: int, user_id: int, unit_id: str) -> Any | None:
        """The raw order this player gave for this unit in the current phase (theirs only), or None."""
        reading = await self.read(encounter_id)
        request = PanelRequest(encounter_id, unit_id, Actor(user_id), guild_id=reading.meta.guild_id)
        refused = await let_in(self, reading, request)
        if refused is not None:
            raise refused.error
        for pending in await self.storage.orders_of(encounter_id, reading.phase_no, user_id):
            if pending.unit_id == unit_id:
                return pending.order.get("raw")
        return None

    # --- resolution ----------------------------------------------------------------------------------------
    async def advance(self, encounter_id: int, *, on_step: OnStep | None = None) -> Resolution:
        """Resolve the phases that take no orders, up to the next one that does (or the end)."""
        return await self._resolve(
            encounter_id, expected_phase_no=None, forced=False, approved=False, on_step=on_step
        )

    async def resolve(
        self,
        encounter_id: int,
        *,
        expected_phase_no: int | None = None,
        forced: bool = False,
        approved: bool = False,
        on_step: OnStep | None = None,
        reading: Reading | None = None,
        all_in: bool = False,
        refuse_idle: bool = False,
    ) -> Resolution:
        """Resolve the current phase (all orders in, deadline, or the director: ``forced``) and what follows.

        Idempotent: with ``expected_phase_no`` a phase resolved meanwhile returns ``already=True``. ``on_step`` is
        awaited after each committed step, so the channel can see a phase before the next one is resolved.
        ``reading``/``all_in`` come from the submission that gave the last order, saving the reads it just made
        (the storage still checks the phase and the orders when the resolution is committed). ``refuse_idle``
        (the director's own resolve): a first step that would change nothing (``Ruleset.idle``) is refused with
        what to do instead, and nothing is resolved.
        """
        return await self._resolve(
            encounter_id,
            expected_phase_no=expected_phase_no,
            forced=forced or all_in,
            approved=approved,
            on_step=on_step,
            reading=reading,
            refuse_idle=refuse_idle,
        )

    async def _resolve(
        self,
        encounter_id: int,
        *,
        expected_phase_no: int | None,
        forced: bool,
        approved: bool,
        on_step: OnStep | None = None,
        reading: Reading | None = None,
        refuse_idle: bool = False,
    ) -> Resolution:
        """Step after step, up to the next phase that waits for orders: each step is held for the director's
        review of its rolls or committed (:meth:`_step`)."""
        steps: list[StepReport] = []
        async with self._lock(encounter_id):
            opened = await self._resolvable(encounter_id, expected_phase_no, reading)
            if isinstance(opened, Resolution):
                return opened
            meta, state, phase_no = opened
            deadline_minutes = (await self.guild_settings(meta.guild_id)).default_deadline_minutes
            review = bool(meta.settings.get("review_rolls"))
            parts: list[Participant] | None = None
            first = True
            for _ in range(MAX_AUTO_STEPS):
                ruleset = ruleset_for(state)
                policy = policy_for(ruleset, state)
                stand_in: bool | None = first and forced
                if not stand_in:
                    stand_in, parts = await self._goes_on(meta, state, phase_no, policy, parts)
                    if stand_in is None:
                        break
                hold = review and not (first and approved)
                step = await self._step(
                    meta, phase_no, ruleset, policy, stand_in, hold, deadline_minutes, refuse_idle and first
                )
                if step is _AGAIN:
                    continue  # orders changed while resolving: read them again
                if isinstance(step, HeldRolls):  # the director reviews the rolls first
                    return Resolution(encounter_id, tuple(steps), held=step)
                if step is None:  # resolved meanwhile
                    return Resolution(encounter_id, tuple(steps), already=not steps)
                await self._told(step.report, steps, on_step)
                first = False
                state, phase_no = step.state, step.phase_no
                if state.over:
                    await self.storage.set_encounter_status(encounter_id, "ended")
                    return Resolution(encounter_id, tuple(steps), over=True, winner=state.winner)
                if step.deadline_set:
                    self.forget_deadline(encounter_id)
            parts = parts if parts is not None else await self.storage.participants(encounter_id)
            return self._stopped(meta, steps, state, phase_no, parts)

    @staticmethod
    async def _told(report: StepReport, steps: list[StepReport], on_step: OnStep | None) -> None:
        """A committed step joins the pass's reports; ``on_step`` shows it before the next step is resolved."""
        steps.append(report)
        if on_step is not None:
            await on_step(report)

    async def _goes_on(
        self,
        meta: Encounter,
        state: EncounterState,
        phase_no: int,
        policy: OrderPolicy,
        parts: list[Participant] | None,
    ) -> tuple[bool | None, list[Participant] | None]:
        """Whether the step goes on with stand-in orders (True) or the orders given (False), or waits (None);
        with the participants, read once per pass as the orders come in."""
        if self.owing(state) and parts is None:
            parts = await self.storage.participants(meta.id)
        # units the director left to their stand-in order go on by themselves when awaited
        stand_in = self.stand_in_due(meta, state, policy, parts or [])
        if not stand_in and await self._waits(meta, state, phase_no, policy, parts or []):
            return None, parts
        return stand_in, parts

    async def _resolvable(
        self, encounter_id: int, expected_phase_no: int | None, reading: Reading | None
    ) -> tuple[Encounter, EncounterState, int] | Resolution:
        """The encounter to resolve, or the answer when there is nothing to resolve: the phase expected is over,
        or the encounter does not run."""
        if reading is not None and reading.meta.id == encounter_id:
            meta, state, phase_no = reading.meta, reading.state, reading.phase_no
        else:
            meta, state, phase_no = await self.load(encounter_id)
        if expected_phase_no is not None and phase_no != expected_phase_no:
            return Resolution(encounter_id, already=True)
        if meta.status == "running" and state.over:  # a crash between the last commit and the status
            await self.storage.set_encounter_status(encounter_id, "ended")
        if meta.status != "running" or state.over:
            return Resolution(encounter_id, over=state.over, winner=state.winner)
        return meta, state, phase_no

    async def _step(
        self,
        meta: Encounter,
        phase_no: int,
        ruleset: Ruleset,
        policy: OrderPolicy,
        stand_in: bool,
        hold: bool,
        deadline_minutes: float | None,
        refuse_idle: bool = False,
    ) -> _Committed | HeldRolls | _Again | None:
        """One step of phase ``phase_no`` on the orders stored now: its rolls held for the director's review
        (``hold``, when it rolled), or committed with its report. None: the phase was resolved meanwhile.
        ``refuse_idle``: a step that would change nothing is refused (``Ruleset.idle``)."""
        encounter_id = meta.id
        try:
            batch = await self.storage.orders_for_resolution(encounter_id, phase_no)
        except (StalePhaseError, EncounterEndedError):  # resolved, or ended by the director, meanwhile
            return None
        # resolve exactly the snapshot the orders were read with (commit checks it is still current)
        state = self._decode(encounter_id, batch.snapshot_seq, batch.state)
        orders = {
            u: from_json(p.order["order"])
            for u, p in batch.orders.items()
            if u in state.units or u == DIRECTOR
        }
        orders = policy.pick(ruleset, state, orders, stand_in=stand_in)
        if refuse_idle and ruleset.idle(state, orders):
            raise refuse(
                "resolve.nothing_due",
                "Nothing to resolve: no combat is ready to roll and no order is waiting. Open a combat, answer for "
                "an absent player or end the turn from your procedure panel (/orders).",
            )
        dice_for = DiceFactory(self._roll_overrides(meta, phase_no))
        key = await self._dice_key(meta)
        seal = None
        if key is not None:  # DICE-1: the step's dice come from its sealed seed
            seal = seal_for(key, phase_no, epoch_of(meta.settings), batch.snapshot_seq)
            seal = dataclasses.replace(seal, stand_in=stand_in)
        # a step's CPU work never runs on the event loop, where it would hold every other table's clicks: a small
        # board's in the click worker, in turn with the clicks' own work; a large one's in a thread of its own, so
        # its tenths of a second hold no click (bench/heavy.py)
        big = len(state.units) > SHARED_WORKER_UNITS
        aside = asyncio.to_thread if big else off_loop
        work = partial(self._compute, ruleset, state, orders, dice_for, seal)
        result, new_state, specs, encoded, seal = await aside(work)
        rolls = [e for e in result.events if isinstance(e, RollMade)]
        if hold and rolls:
            return HeldRolls(
                encounter_id,
                phase_no,
                tuple((e.index, e.rule, e.purpose, e.dice) for e in rolls),
                events=tuple(rolls),
                state=state,
            )
        # the next phase's default deadline is written with the step: a crash in between would leave the table
        # waiting on nobody, with no deadline to move it on
        next_deadline = (
            self.deadline_times(deadline_minutes)
            if deadline_minutes and not new_state.over and self.owing(new_state)
            else None
        )
        try:
            outcome = await self.storage.commit_resolution(
                encounter_id, phase_no, specs, encoded, based_on=batch, next_deadline=next_deadline
            )
        except EncounterEndedError:  # the director ended it while this step was resolving: nothing to show
            return None
        if isinstance(outcome, AlreadyResolved):
            return None
        if not isinstance(outcome, Resolved):
            return _AGAIN
        # the new snapshot is this state: keep it decoded (its seq is the commit's last event)
        self._states[encounter_id] = (outcome.last_seq, new_state)
        report = partial(
            self._report, encounter_id, phase_no, state, new_state, result.events, ruleset, outcome.last_seq
        )
        done = dataclasses.replace(await aside(report), seal=seal)
        return _Committed(done, new_state, outcome.next_phase_no, next_deadline is not None)

    async def steps_after(self, encounter_id: int, seq: int) -> list[StepReport]:
        """The resolutions committed after snapshot ``seq`` on the way to the current state, rebuilt from storage
        as the reports they were (what a restart still owes the channel). Undone steps and directors' overrides
        are not resolutions; an undo's copy of a snapshot is not one either."""
        if (await self.storage.load(encounter_id)).snapshot_seq <= seq:
            return []  # the usual case, answered without reading the history
        chain = await self.storage.snapshot_chain(encounter_id)
        reports: list[StepReport] = []
        for before, after in pairwise(chain):
            committed = next((e for e in after.events if e.seq == after.snapshot_seq), None)
            if after.snapshot_seq <= seq or committed is None or committed.type != PHASE_RESOLVED:
                continue
            old, new = self._decode_step(before), self._decode_step(after)
            events = tuple(rule_events(after.events))
            report = self._report(
                encounter_id, committed.phase_no, old, new, events, ruleset_for(old), after.snapshot_seq
            )
            seals = (seal_from(e.payload) for e in after.events if e.type == SEAL_EVENT)
            reports.append(dataclasses.replace(report, seal=next((s for s in seals if s is not None), None)))
        return reports

    @staticmethod
    def _decode_step(step: HistoryStep) -> EncounterState:
        state = from_json(step.state)
        if not isinstance(state, EncounterState):
            raise TypeError(f"snapshot {step.snapshot_seq} holds {type(state).__name__}")
        return state

    async def _waits(
        self,
        meta: Encounter,
        state: EncounterState,
        phase_no: int,
        policy: OrderPolicy,
        parts: list[Participant],
    ) -> bool:
        """Whether the current step waits for orders (the order mode's policy decides, DESIGN §2). A unit nobody
        plays is the director's to play, so it is held like a player's."""
        owing = self.owing(state)
        if not owing:
            return policy.waits(ruleset_for(state), state, owing, missing=frozenset(), held=frozenset())
        missing = frozenset(m.unit for m in await self._missing(meta, state, phase_no, parts))
        held = frozenset(u for u in owing if player_of(u, parts, meta) is not None)
        if policy.director_orders and await self.storage.submitted_units(meta.id, phase_no):
            return False  # the director gave an order (or answered for a player)
        return policy.waits(ruleset_for(state), state, owing, missing=missing, held=held)

    def _stopped(
        self,
        meta: Encounter,
        steps: list[StepReport],
        state: EncounterState,
        phase_no: int,
        parts: list[Participant],
    ) -> Resolution:
        decision_unit = state.pending.unit if state.pending is not None else None
        # a director-run mode (ocs) opens every step for the director's own orders, even when no unit owes one
        opens = bool(self.owing(state)) or policy_for(ruleset_for(state)).director_orders
        return Resolution(
            meta.id,
            tuple(steps),
            decision_unit=decision_unit,
            decision_user=player_of(decision_unit, parts, meta) if decision_unit else None,
            opened_phase_no=phase_no if opens and not state.over else None,
            over=state.over,
            winner=state.winner,
        )

    @classmethod
    def _compute(
        cls,
        ruleset: Ruleset,
        state: EncounterState,
        orders: Mapping[str, Any],
        dice_for: DiceFactory,
        seal: Seal | None,
    ) -> tuple[PhaseResult, EncounterState, list[tuple[str, dict[str, Any]]], dict[str, Any], Seal | None]:
        """One step's CPU work: the rules' resolution, the state to commit, the encoded events and snapshot, and
        the seal with the step's public rolls. The dice are the seal's (DICE-1); the stored state keeps the
        scenario's own seed."""
        drawn_from = state if seal is None else seeded(state, seal)
        result = resolve_phase(ruleset, drawn_from, orders, dice_for=dice_for)
        new_state = result.state.replace(seed=state.seed)
        if result.pending is not None and new_state.pending is None:
            new_state = new_state.replace(pending=result.pending)
        specs = [cls._event_spec(state, e) for e in result.events]
        if seal is not None:
            seal = dataclasses.replace(seal, public=rolls_public(ruleset, state, new_state, result.events))
            specs.append(seal_spec(seal, state))
        return result, new_state, specs, to_json(new_state), seal

    async def _dice_key(self, meta: Encounter) -> str | None:
        """The key the encounter's sealed dice come from (DICE-1). Where the bot seals dice, an encounter stored
        without one (from before dice were sealed, or imported) gets one now: every step from here on is sealed."""
        key = key_of(meta.settings)
        if key is None and self.seal_dice:
            key = key_of((await self.storage.get_encounter(meta.id)).settings)
            if key is None:
                key = new_key()
                await self.storage.note_settings(meta.id, **{KEY_SETTING: key})
        return key

    @staticmethod
    def _roll_overrides(meta: Encounter, phase_no: int) -> dict[int, tuple[int, ...]]:
        table: Mapping[str, Any] = meta.settings.get("roll_overrides", {}).get(str(phase_no), {})
        return {int(k): tuple(int(d) for d in v) for k, v in table.items()}

    @staticmethod
    def _event_spec(before: EncounterState, event: Event) -> tuple[str, dict[str, Any]]:
        return event.type, {"round": before.round, "phase": before.phase, "event": to_json(event)}

    @staticmethod
    def _report(
        encounter_id: int,
        phase_no: int,
        before: EncounterState,
        after: EncounterState,
        events: tuple[Event, ...],
        ruleset: Ruleset,
        snapshot_seq: int = 0,
    ) -> StepReport:
        visible = public_units(after, ruleset) | public_units(before, ruleset)
        known = set(before.units) | set(after.units)
        # FOG-1, NGT-9: the ruleset says what the public may read of each event (a shot from the dark...)
        shown = (ruleset.public_event(e, frozenset(visible), frozenset(known)) for e in events)
        public = tuple(e for e in shown if e is not None)
        # what the board image shows, as the overlays say; imported here, as it loads Pillow
        from render.rulesets import board_signature

        changed = board_signature(before) != board_signature(after) or any(
            isinstance(e, ShotResolved) for e in public
        )
        return StepReport(
            encounter_id,
            phase_no,
            before.round,
            before.phase,
            events,
            after,
            public,
            changed,
            snapshot_seq,
            ruleset.turn_of_play(before, events),
        )


__all__ = [
    "EncounterService",
    "OnStep",
    "Reading",
    "ServiceBase",
    "bundled_scenarios",
    "parse_export",
    "utc_now",
]


def checked_order(ruleset: Ruleset, state: EncounterState, unit_id: str, raw: Any) -> Order:
    """``raw`` as the order ``unit_id`` gives now, parsed and checked by the rules (their refusal raised): a
    Submit's check, run in the click worker (bot/offloop.py) since legality may trace every path of the board."""
    order = ruleset.parse_order(state, unit_id, raw)
    ruleset.validate_order(state, unit_id, order)
    return order


def _already(state: EncounterState, units: list[str]) -> Refused:
    """A join that takes nothing new: the person is told, privately, what they already play."""
    names = ", ".join(state.units[u].name for u in units if u in state.units)
    return refuse("unit.already_yours", f"You already play {names}.", units=names)


def _load_seeded(toml_text: str, seed: int | None, lang: str | None = None) -> Scenario:
    """The scenario, named in ``lang``; a file that names no seed (and no seed given) gets a fresh random one."""
    if seed is None and not names_seed(toml_text):  # a file that does not parse: load_scenario says why
        seed = random.SystemRandom().randrange(1, 2**31)
    return load_scenario(toml_text, seed=seed, lang=lang)
