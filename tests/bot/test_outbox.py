"""The outbox (bot/outbox) without Discord: a fake sender stands for the announcements cog, a real service on a
temporary SQLite database for the bot. What must go out once is claimed, recorded, retried after a refusal,
resumed after a crash, and taken back from a process that died mid-send, on the toy ruleset's simultaneous moves.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Literal

from bot.orders_reply import Pick
from bot.outbox import ANNOUNCED, APART, CLAIM_STALE, Claims, Outbox, Retries, Sent, player_key
from bot.permissions import Actor
from bot.results import HeldRolls, Resolution, StatusView, StepReport
from bot.service import EncounterService, Reading
from bot.storage import Encounter, MessageRef
from tests import toy_ruleset  # noqa: F401  (registers toy-sim)
from tests.bot_fixtures import Clock
from tests.toy_service_fixtures import TOY

GUILD, CHANNEL = 10, 20
DIRECTOR, ANA, BEA = 1, 2, 3


class Refused(Exception):
    """What the fake sender raises for "Discord refused it" (a 429, a 5xx)."""


@dataclass
class FakeSender:
    """Records what the outbox asked to show; refuses the next ``refuse`` sends of the kinds in ``refusing``."""

    shared: bool = False
    closed_dms: set[int] = field(default_factory=set[int])
    refusing: set[str] = field(default_factory=set[str])
    refuse: int = 0
    steps: list[int] = field(default_factory=list[int])
    panels: list[tuple[int, str]] = field(default_factory=list[tuple[int, str]])
    #: one message for several units: (player, units)
    grouped: list[tuple[int, tuple[str, ...]]] = field(default_factory=list[tuple[int, tuple[str, ...]]])
    apart: bool = False  # a panel leaves no row for the unit picker: a message per unit
    befores: list[int | None] = field(
        default_factory=list[int | None]
    )  # the message each was to be edited into
    notices: list[int] = field(default_factory=list[int])
    statuses: list[int] = field(default_factory=list[int])
    ends: int = 0
    openings: int = 0
    next_id: int = 1000
    sent: asyncio.Event = field(default_factory=asyncio.Event)

    @property
    def refused(self) -> tuple[type[BaseException], ...]:
        return (Refused,)

    def _send(self, kind: str) -> Sent:
        if kind in self.refusing and self.refuse > 0:
            self.refuse -= 1
            raise Refused(kind)
        self.next_id += 1
        self.sent.set()
        return Sent(CHANNEL, self.next_id)

    async def post_step(self, meta: Encounter, step: StepReport) -> int | None:
        sent = self._send("step")
        self.steps.append(step.snapshot_seq)
        return sent.message_id

    async def post_steps(
        self, meta: Encounter, steps: list[StepReport], shown: Callable[[int], Awaitable[None]]
    ) -> None:
        for step in steps:
            await self.post_step(meta, step)
            await shown(step.snapshot_seq)

    async def post_opening(self, reading: Reading, *, private: bool) -> None:
        self._send("opening")
        self.openings += 1

    async def send_end(self, meta: Encounter) -> Sent:
        self.ends += 1
        return self._send("end")

    async def refresh_status(self, encounter_id: int, *, status: StatusView | None = None) -> None:
        self._send("status")
        self.statuses.append(encounter_id)

    async def send_held(self, meta: Encounter, held: HeldRolls) -> None:
        self._send("held")

    async def send_panel(
        self, meta: Encounter, reading: Reading, user_id: int, unit_id: str, before: MessageRef | None
    ) -> Sent | None:
        if user_id in self.closed_dms:
            return None
        sent = self._send("panel")
        self.panels.append((user_id, unit_id))
        return self._edited(sent, before)

    async def send_panels(
        self,
        meta: Encounter,
        reading: Reading,
        user_id: int,
        picks: tuple[Pick, ...],
        before: MessageRef | None,
    ) -> Sent | Literal["apart"] | None:
        if user_id in self.closed_dms:
            return None
        if self.apart:
            return APART
        sent = self._send("panel")
        self.grouped.append((user_id, tuple(p.unit_id for p in picks)))
        return self._edited(sent, before)

    def _edited(self, sent: Sent, before: MessageRef | None) -> Sent:
        """The message a panel went to: ``before`` when it was to be edited (a DM is always editable here)."""
        self.befores.append(before.message_id if before is not None else None)
        return sent if before is None else Sent(before.channel_id, before.message_id)

    async def send_dms_closed(self, meta: Encounter, user_id: int) -> Sent | None:
        sent = self._send("notice")
        self.notices.append(user_id)
        return sent

    def close_post(self, encounter_id: int) -> None:
        return None


@dataclass
class Process:
    """One bot process as the outbox sees it: the service, its claimant id, every guild its own."""

    service: EncounterService
    claimant: int = 1

    def owns_guild(self, guild_id: int) -> bool:
        return True


def outbox_of(service: EncounterService, sender: FakeSender, claimant: int = 1) -> Outbox:
    return Outbox(Process(service, claimant), sender)


async def running(service: EncounterService) -> int:
    created = await service.create(GUILD, CHANNEL, DIRECTOR, ruleset="toy-sim", toml_text=TOY)
    await service.join(created.encounter_id, ANA)
    await service.join(created.encounter_id, BEA)
    await service.start(created.encounter_id, Actor(DIRECTOR))
    return created.encounter_id


async def resolve_a_phase(service: EncounterService, outbox: Outbox, enc: int) -> list[StepReport]:
    """Both units move; the phase resolves (its steps handed to ``outbox`` as they commit) and the result too."""
    await service.submit(enc, ANA, "a", "move 0203")
    last = await service.submit(enc, BEA, "b", "move 0504")
    steps: list[StepReport] = []

    async def committed(step: StepReport) -> None:
        steps.append(step)
        await outbox.step_done(step)

    result = await service.resolve(enc, expected_phase_no=last.phase_no, on_step=committed)
    await outbox.after_resolution(result)
    await outbox.queue.drain()
    return steps


async def test_a_message_claimed_by_this_process_goes_out_once_and_once_recorded_never_again(
    service: EncounterService,
) -> None:
    enc = await running(service)
    claims = Claims(lambda: service.storage, service.clock, lambda: 1, lambda: False, lambda _: None)
    assert await claims.claim(enc, "panel", "1:a")
    assert not await claims.claim(enc, "panel", "1:a"), "being sent now: not twice"
    await claims.record(enc, "panel", "1:a", CHANNEL, 555)
    restarted = Claims(lambda: service.storage, service.clock, lambda: 1, lambda: False, lambda _: None)
    assert not await restarted.claim(enc, "panel", "1:a"), "recorded as sent: never again"
    assert await restarted.claim(enc, "panel", "2:a")
    await restarted.release(enc, "panel", "2:a")  # the send failed: it may go out again
    assert await restarted.claim(enc, "panel", "2:a")


async def test_a_claim_held_by_another_process_is_retried_and_taken_once_stale(
    service: EncounterService,
) -> None:
    enc = await running(service)
    clock = service.clock
    assert isinstance(clock, Clock)  # moved by hand (tests/bot_fixtures.py)
    taken: list[int] = []
    mine = Claims(lambda: service.storage, service.clock, lambda: 7, lambda: True, taken.append)
    other = Claims(lambda: service.storage, service.clock, lambda: 9, lambda: True, taken.append)
    assert await other.claim(enc, "over", "")  # the other process dies before recording it
    assert not await mine.claim(enc, "over", "")
    assert taken == [enc], "held unsent by another process: this encounter is looked at again later"
    clock.now += timedelta(seconds=CLAIM_STALE - 1)
    assert not await mine.claim(enc, "over", "")
    clock.now += timedelta(seconds=2)
    assert await mine.claim(enc, "over", ""), "a claim left longer than CLAIM_STALE is of a process that died"


async def test_a_restarted_process_takes_back_its_own_claims_at_once(service: EncounterService) -> None:
    enc = await running(service)
    before = Claims(lambda: service.storage, service.clock, lambda: 7, lambda: True, lambda _: None)
    assert await before.claim(enc, "step", "3")  # then the process dies mid-send
    after = Claims(lambda: service.storage, service.clock, lambda: 7, lambda: True, lambda _: None)
    assert await after.claim(enc, "step", "3"), "same shards, same claimant: its claim is its own"


async def test_each_step_is_posted_once_recorded_and_the_next_phase_opened(service: EncounterService) -> None:
    enc = await running(service)
    sender = FakeSender()
    outbox = outbox_of(service, sender)
    steps = await resolve_a_phase(service, outbox, enc)
    assert steps and sender.steps == [s.snapshot_seq for s in steps]
    settings = (await service.storage.get_encounter(enc)).settings
    assert settings[ANNOUNCED] == steps[-1].snapshot_seq
    assert sorted(sender.panels) == [(ANA, "a"), (BEA, "b")], "the next phase's panels"
    restarted = outbox_of(service, FakeSender())
    assert await restarted.catch_up(enc) == 0, "a restart repeats nothing that was shown"


async def test_a_step_committed_but_never_shown_is_posted_when_the_process_resumes(
    service: EncounterService,
) -> None:
    enc = await running(service)
    crashed = FakeSender(refusing={"step", "panel", "status"}, refuse=99)
    outbox = outbox_of(service, crashed)
    steps = await resolve_a_phase(service, outbox, enc)
    outbox.retries.cancel()  # the process dies before any retry
    assert crashed.steps == [] and crashed.panels == []
    sender = FakeSender()
    restarted = outbox_of(service, sender)
    await restarted.resume(enc)
    await restarted.queue.drain()
    assert sender.steps == [s.snapshot_seq for s in steps]
    assert sorted(sender.panels) == [(ANA, "a"), (BEA, "b")]
    assert sender.statuses, "the open phase's status went out"


async def test_a_refused_step_is_retried_from_storage_until_it_goes_out(service: EncounterService) -> None:
    enc = await running(service)
    sender = FakeSender(refusing={"step"}, refuse=2)
    outbox = outbox_of(service, sender)
    outbox.retries.backoff = (0.0,)
    steps = await resolve_a_phase(service, outbox, enc)
    while sender.steps != [s.snapshot_seq for s in steps]:  # each retry is queued once its delay is over
        sender.sent.clear()
        await sender.sent.wait()
        await outbox.queue.drain()
    assert not outbox.retries.failing(enc), "the retry that posted everything owed ends the failures"
    assert (await service.storage.get_encounter(enc)).settings[ANNOUNCED] == steps[-1].snapshot_seq


async def test_a_step_claimed_by_another_process_is_not_posted_here(service: EncounterService) -> None:
    enc = await running(service)
    sender = FakeSender(shared=True)
    outbox = outbox_of(service, sender, claimant=7)
    outbox.retries.cancel()
    await service.submit(enc, ANA, "a", "move 0203")
    last = await service.submit(enc, BEA, "b", "move 0504")
    result = await service.resolve(enc, expected_phase_no=last.phase_no)
    seq = result.steps[0].snapshot_seq
    other = Claims(lambda: service.storage, service.clock, lambda: 9, lambda: True, lambda _: None)
    assert await other.claim(enc, "step", str(seq))  # another process is posting it
    await outbox.after_resolution(result)
    await outbox.queue.drain()
    assert sender.steps == [] and outbox.retries.waiting() == {enc}, "checked again later, not posted twice"
    await other.record(enc, "step", str(seq), CHANNEL, 777)
    outbox.retries.cancel()
    assert await outbox.catch_up(enc) == 1 and sender.steps == [], "posted there: only marked as shown here"
    assert (await service.storage.get_encounter(enc)).settings[ANNOUNCED] == seq


async def test_closed_dms_give_one_channel_notice_and_the_panel_goes_out_once_they_open(
    service: EncounterService,
) -> None:
    enc = await running(service)
    sender = FakeSender(closed_dms={ANA})
    outbox = outbox_of(service, sender)
    meta = await service.storage.get_encounter(enc)
    assert not await outbox.send_panel(meta, ANA, "a")
    assert not await outbox.send_panel(meta, ANA, "a")
    assert sender.notices == [ANA], "one notice per player and encounter"
    sender.closed_dms.clear()
    assert await outbox.send_panel(meta, ANA, "a")
    assert await outbox.send_panel(meta, ANA, "a")
    assert sender.panels == [(ANA, "a")], "the panel goes out once"


async def both_units_anas(service: EncounterService) -> int:
    """The toy duel with Ana holding both units: both owe orders in each phase (simultaneous moves)."""
    created = await service.create(GUILD, CHANNEL, DIRECTOR, ruleset="toy-sim", toml_text=TOY)
    await service.join(created.encounter_id, ANA, unit="a")
    await service.join(created.encounter_id, ANA, unit="b")
    await service.start(created.encounter_id, Actor(DIRECTOR))
    return created.encounter_id


async def test_a_players_units_acting_at_once_get_one_message_recorded_under_each_unit(
    service: EncounterService,
) -> None:
    enc = await both_units_anas(service)
    sender = FakeSender()
    outbox = outbox_of(service, sender)
    await outbox.open_phase(enc)
    await outbox.open_phase(enc)
    assert sender.grouped == [(ANA, ("a", "b"))] and sender.panels == [], "one message, once"
    phase = (await service.read(enc)).phase_no
    refs = [
        await service.storage.get_message_ref(enc, "panel", k) for k in (player_key(phase, ANA), f"{phase}:a")
    ]
    assert all(r is not None for r in refs) and len({r.message_id for r in refs if r is not None}) == 1
    # the next phase's message is the same one edited: the message its units had in the step just before
    await resolve_both(service, outbox, enc)
    assert [u for _, u in sender.grouped] == [("a", "b"), ("a", "b")]
    assert sender.befores == [None, refs[0].message_id if refs[0] is not None else -1]


async def resolve_both(service: EncounterService, outbox: Outbox, enc: int) -> None:
    await service.submit(enc, ANA, "a", "move 0203")
    last = await service.submit(enc, ANA, "b", "move 0504")
    result = await service.resolve(enc, expected_phase_no=last.phase_no, on_step=outbox.step_done)
    await outbox.after_resolution(result)
    await outbox.queue.drain()


async def test_another_unit_of_the_player_acting_right_after_edits_their_panel_of_the_step_just_before(
    service: EncounterService,
) -> None:
    """A step that follows one where the player had a panel (another of their units acts at once: mech
    declarations, pbw segments) edits that panel rather than sending a new DM; a step after one where they had
    none (others acted) is a new DM, which notifies them."""
    enc = await both_units_anas(service)
    sender = FakeSender()
    outbox = outbox_of(service, sender)
    meta = await service.storage.get_encounter(enc)
    assert await outbox.send_panel(meta, ANA, "a")  # only Alfa's panel in this step
    await service.submit(enc, ANA, "a", "move 0203")
    last = await service.submit(enc, ANA, "b", "move 0504")
    await service.resolve(enc, expected_phase_no=last.phase_no)
    assert await outbox.send_panel(meta, ANA, "b")  # Bravo's in the next
    assert sender.befores == [None, sender.next_id - 1], "Alfa's message, edited into Bravo's panel"
    await service.submit(enc, ANA, "a", "move 0204")
    last = await service.submit(enc, ANA, "b", "move 0505")
    await service.resolve(enc, expected_phase_no=last.phase_no)
    await service.submit(enc, ANA, "a", "move 0205")
    last = await service.submit(enc, ANA, "b", "move 0506")
    await service.resolve(enc, expected_phase_no=last.phase_no)
    assert await outbox.send_panel(meta, ANA, "a")  # a step with no panel of hers came between
    assert sender.befores[-1] is None


async def test_a_crash_between_the_players_claim_and_the_send_resumes_to_exactly_one_message(
    service: EncounterService,
) -> None:
    """Processes sharing the database: the one that claimed the player's message died before sending it; the
    restarted process (the same shards) sends it once, and a second resume sends nothing."""
    enc = await both_units_anas(service)
    phase = (await service.read(enc)).phase_no
    died = Claims(lambda: service.storage, service.clock, lambda: 7, lambda: True, lambda _: None)
    assert await died.claim(enc, "panel", player_key(phase, ANA))  # then the process dies mid-send
    sender = FakeSender(shared=True)
    restarted = outbox_of(service, sender, claimant=7)
    await restarted.resume(enc)
    await restarted.queue.drain()
    assert sender.grouped == [(ANA, ("a", "b"))] and sender.panels == []
    again = FakeSender(shared=True)
    await outbox_of(service, again, claimant=7).resume(enc)
    assert again.grouped == [] and again.panels == [], "recorded: never sent twice"


async def test_a_crash_after_the_players_message_was_recorded_sends_no_unit_its_own(
    service: EncounterService,
) -> None:
    """The player's key is recorded first: a process that died before recording the units' keys leaves a
    message that is never sent again, neither whole nor per unit."""
    enc = await both_units_anas(service)
    phase = (await service.read(enc)).phase_no
    await service.storage.set_message_ref(enc, "panel", player_key(phase, ANA), CHANNEL, 555)
    sender = FakeSender()
    await outbox_of(service, sender).resume(enc)
    assert sender.grouped == [] and sender.panels == []


async def test_units_whose_panel_leaves_no_row_for_the_picker_get_a_message_each(
    service: EncounterService,
) -> None:
    enc = await both_units_anas(service)
    sender = FakeSender(apart=True)
    outbox = outbox_of(service, sender)
    await outbox.open_phase(enc)
    await outbox.open_phase(enc)
    assert sender.grouped == [] and sorted(sender.panels) == [(ANA, "a"), (ANA, "b")]


async def test_a_message_of_the_step_before_is_edited_into_one_panel_of_the_next_only(
    service: EncounterService,
) -> None:
    """Ana's one message for both units, then a step where each unit gets its own (no room for the picker): the
    first is that message edited, the second a new one (edited too, it would take the first one's place)."""
    enc = await both_units_anas(service)
    sender = FakeSender()
    outbox = outbox_of(service, sender)
    await outbox.open_phase(enc)
    grouped = sender.next_id
    sender.apart = True
    await resolve_both(service, outbox, enc)
    assert sorted(sender.panels) == [(ANA, "a"), (ANA, "b")]
    assert sender.befores == [None, grouped, None], sender.befores


async def test_closed_dms_name_a_player_with_several_units_once(service: EncounterService) -> None:
    enc = await both_units_anas(service)
    sender = FakeSender(closed_dms={ANA})
    outbox = outbox_of(service, sender)
    await outbox.open_phase(enc)
    await outbox.open_phase(enc)
    meta = await service.storage.get_encounter(enc)
    assert not await outbox.send_panel(meta, ANA, "a")
    assert sender.notices == [ANA], "the channel is told once per player, not once per unit"


async def test_the_winner_is_announced_once(service: EncounterService) -> None:
    enc = await running(service)
    sender = FakeSender()
    outbox = outbox_of(service, sender)
    await outbox.announce_end(enc)
    await outbox_of(service, sender).announce_end(enc)  # another resolution, or a restart, reports the end
    assert sender.ends == 1


async def test_a_refused_opening_board_is_posted_again_while_the_phase_is_the_same(
    service: EncounterService,
) -> None:
    enc = await running(service)
    sender = FakeSender(refusing={"opening"}, refuse=1)
    outbox = outbox_of(service, sender)
    outbox.retries.backoff = (0.0,)
    outbox.post_opening_board(enc)
    while not sender.openings:
        sender.sent.clear()
        await sender.sent.wait()
        await outbox.queue.drain()
    assert sender.openings == 1


async def test_steps_queued_behind_a_busy_post_go_out_together_in_order(service: EncounterService) -> None:
    """One process alone: the steps committed while an earlier post was going out are posted in one call (one
    message or edit for them all, not one each), in the order they were committed."""
    enc = await running(service)
    sender = FakeSender()
    calls = recording_post_steps(sender)
    outbox = outbox_of(service, sender)
    # no conclusion is queued here: the steps wait for nothing
    outbox.queue.cap = functools.partial(asyncio.sleep, 0)
    busy = asyncio.Event()
    outbox.enqueue(enc, busy.wait)  # a post still going out
    await service.submit(enc, ANA, "a", "move 0203")
    last = await service.submit(enc, BEA, "b", "move 0504")
    first = await service.resolve(enc, expected_phase_no=last.phase_no)
    await service.submit(enc, ANA, "a", "move 0204")
    last = await service.submit(enc, BEA, "b", "move 0503")
    second = await service.resolve(enc, expected_phase_no=last.phase_no)
    for step in (*first.steps, *second.steps):
        await outbox.step_done(step)
    busy.set()
    await outbox.queue.drain()
    seqs = [s.snapshot_seq for s in (*first.steps, *second.steps)]
    assert calls == [seqs] and sender.steps == seqs
    assert (await service.storage.get_encounter(enc)).settings[ANNOUNCED] == seqs[-1]
    assert outbox.queue.idle(), "an encounter with nothing left to post keeps no queue"


async def two_resolutions_in_one(service: EncounterService, enc: int) -> tuple[Resolution, list[StepReport]]:
    """Two phases resolved, their steps standing for the steps of one resolution of several (the toy ruleset
    resolves one step a phase); the second resolution stands for its result."""
    steps: list[StepReport] = []
    for a, b in (("move 0203", "move 0504"), ("move 0204", "move 0503")):
        await service.submit(enc, ANA, "a", a)
        last = await service.submit(enc, BEA, "b", b)
        result = await service.resolve(enc, expected_phase_no=last.phase_no)
        steps.extend(result.steps)
    return result, steps


def recording_post_steps(sender: FakeSender) -> list[list[int]]:
    """The snapshots of each call the outbox makes to post steps (one call: one message or edit)."""
    calls: list[list[int]] = []
    post_steps = sender.post_steps

    async def recorded(
        meta: Encounter, steps: list[StepReport], shown: Callable[[int], Awaitable[None]]
    ) -> None:
        calls.append([s.snapshot_seq for s in steps])
        await post_steps(meta, steps, shown)

    sender.post_steps = recorded  # type: ignore[method-assign]
    return calls


def held_cap(outbox: Outbox) -> tuple[asyncio.Event, asyncio.Event]:
    """The queue's cap on waiting for a resolution's conclusion, held until the test lets it pass: (set once a
    step waits on it, set by the test to let it pass)."""
    waiting, passed = asyncio.Event(), asyncio.Event()

    async def cap() -> None:
        waiting.set()
        await passed.wait()

    outbox.queue.cap = cap
    return waiting, passed


async def steps_waiting(
    service: EncounterService,
) -> tuple[int, FakeSender, list[list[int]], Outbox, asyncio.Event, Resolution, list[StepReport]]:
    """A resolution's steps queued, the first waiting at the head of the queue for the rest (the cap held): the
    encounter, the sender, its calls to post steps, the outbox, the cap's release, the resolution and its steps."""
    enc = await running(service)
    sender = FakeSender()
    calls = recording_post_steps(sender)
    outbox = outbox_of(service, sender)
    waiting, passed = held_cap(outbox)
    result, steps = await two_resolutions_in_one(service, enc)
    for step in steps:
        await outbox.step_done(step)
    await asyncio.wait_for(waiting.wait(), timeout=10)
    return enc, sender, calls, outbox, passed, result, steps


async def test_a_resolutions_steps_wait_for_its_conclusion_and_go_out_in_one_post(
    service: EncounterService,
) -> None:
    """An idle queue: the first step committed does not go out alone, with an edit for each later one; the
    resolution's steps go out in one call once its conclusion is queued behind them."""
    enc, sender, calls, outbox, _, result, steps = await steps_waiting(service)
    assert calls == [] and sender.steps == []
    await outbox.after_resolution(result)
    await outbox.queue.drain()
    assert calls == [[s.snapshot_seq for s in steps]]
    assert sender.statuses == [enc], "the conclusion came after the steps"


async def test_steps_whose_conclusion_does_not_come_go_out_once_the_cap_has_passed(
    service: EncounterService,
) -> None:
    """A resolution that failed halfway (its conclusion never queued) or runs long: its steps are not held past
    the cap."""
    enc, sender, calls, outbox, passed, _, steps = await steps_waiting(service)
    assert sender.steps == []
    passed.set()
    await outbox.queue.drain()
    assert calls == [[s.snapshot_seq for s in steps]]
    assert (await service.storage.get_encounter(enc)).settings[ANNOUNCED] == steps[-1].snapshot_seq
    assert outbox.queue.idle()


async def test_status_refreshes_queued_behind_a_busy_post_make_one_and_a_phase_opening_replaces_them(
    service: EncounterService,
) -> None:
    """Orders coming in while an earlier post goes out: their status refreshes, queued one behind the other, make
    one refresh (it reads the status as it is then); refreshes queued before a resolution that opens the next
    phase make none, the phase's own status shows what they would have."""
    enc = await running(service)
    sender = FakeSender()
    outbox = outbox_of(service, sender)
    busy = asyncio.Event()

    async def posting() -> None:  # a post still going out
        await busy.wait()

    outbox.enqueue(enc, posting)
    for _ in range(3):
        outbox.status_changed(enc)
    busy.set()
    await outbox.queue.drain()
    assert sender.statuses == [enc], "three refreshes queued: one status edit"
    sender.statuses.clear()
    busy.clear()
    outbox.enqueue(enc, posting)
    await service.submit(enc, ANA, "a", "move 0203")
    outbox.status_changed(enc)
    last = await service.submit(enc, BEA, "b", "move 0504")
    outbox.status_changed(enc)
    result = await service.resolve(enc, expected_phase_no=last.phase_no, on_step=outbox.step_done)
    await outbox.after_resolution(result)
    busy.set()
    await outbox.queue.drain()
    assert sender.statuses == [enc], "only the new phase's status goes out"
    assert sender.panels == [(ANA, "a"), (BEA, "b")], "the new phase's panels went out"


async def test_one_retry_waits_at_a_time_and_the_last_delay_repeats() -> None:
    queued: list[int] = []
    retries = Retries(queued.append)
    retries.backoff = (0.0, 0.0)
    retries.later(5)
    retries.later(5)  # already waiting: it will post everything owed
    assert retries.waiting() == {5} and retries.failing(5)
    while not queued:
        await asyncio.sleep(0)
    assert queued == [5] and retries.waiting() == set()
    for _ in range(3):  # refused again and again: retried every last delay, never given up
        retries.later(5)
        while len(queued) < 2:
            await asyncio.sleep(0)
        queued.pop()
    retries.succeeded(5)
    assert not retries.failing(5)
