"""A load test with faults, shared by ``bench/faults.py`` (50 encounters for 5 minutes, the bot in its
own process) and ``tests/e2e/test_e2e_faults.py`` (a few encounters, a bounded number of phases, the bot
in-process).

Exo duels are played through the local Discord (tests/fakediscord) by people acting as people do, on their DM
panels, while a fault task driven by a seeded RNG makes Discord refuse the bot's requests (429 with and without
``Via``, global or not; 500, 502, 503, 504: ``fd.fail_randomly``) and drops its gateway (``force_reconnect``,
``invalidate_session``). A click that gets no answer is clicked again, a Submit whose "received" never comes is
submitted again, a game that ends is followed by a new one in a new channel.

The verdict is read from what the players were told and from the bot's database (SQLite, read-only):

* every order a player was told was received is stored, as the panel showed it (0 lost);
* no step's account and board is posted twice in a channel, no status message twice for a phase, no DM panel twice
  for a unit and phase (0 double posts);
* every phase in which a player was told their order was received is resolved, and every committed step was shown
  in the channel (its ``announced_seq`` caught up);
* no table waited in vain (a panel, a board, the end of a game that never came: stuck).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import sqlite3
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from data.i18n import t
from tests.e2e_helpers import draft_in, picked_in, step_of
from tests.fakediscord import Channel, FakeDiscord, Guild, Message, NoResponse, Person
from tests.fakediscord.errors import RandomFaults

SCENARIO = {"ruleset": "exo", "scenario": "exo-duel"}
ENCOUNTER_NAME = "Duel in the Kessel belt"  # data/scenarios/exo-duel.toml, as an English server names it
LANG = "en"  # the guild's and every person's language

GATEWAY_FAULTS = ("reconnect", "invalidate")


class Stuck(Exception):
    """A table waited in vain for what the bot owed it."""


class FaultInjector:
    """Makes every request of the bot fail with probability ``rest_rate`` (a 429 with or without Via, global or
    not, or a 500, 502, 503 or 504: ``fd.fail_randomly``) and drops its gateway every ``gateway_every`` seconds on
    average (RECONNECT or INVALID_SESSION, exponential gaps). Both streams are drawn from RNGs seeded from ``seed``:
    the same seed gives the same sequence of draws (which request or moment each lands on depends on the run)."""

    def __init__(self, fd: FakeDiscord, seed: int, *, rest_rate: float, gateway_every: float) -> None:
        self.fd = fd
        self.seed = seed
        self.rest_rate = rest_rate
        self.gateway_every = gateway_every
        self.gateway: Counter[str] = Counter()
        self.served: Counter[str] = Counter()
        self._stop = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._random: RandomFaults | None = None
        self._log_start = len(fd.requests)
        self._identify, self._resume = fd.gateway.identify_count, fd.gateway.resume_count

    def start(self) -> None:
        self._random = self.fd.fail_randomly(self.rest_rate, seed=f"{self.seed}:rest")
        rng = random.Random(f"{self.seed}:gateway")
        self._task = asyncio.create_task(self._gateway(rng), name="faults-gateway")

    async def stop(self) -> None:
        """No more faults."""
        self._stop.set()
        if self._task is not None:
            await asyncio.gather(self._task, return_exceptions=True)
        if self._random is not None:
            self.served.update(self._random.served)
            self._random = None
        self.fd.fail_randomly(0)

    async def _gateway(self, rng: random.Random) -> None:
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stop.wait(), rng.expovariate(1 / self.gateway_every))
            if self._stop.is_set():
                return
            kind = rng.choice(GATEWAY_FAULTS)
            if kind == "reconnect":
                self.fd.force_reconnect()
            else:
                self.fd.invalidate_session()
            self.gateway[kind] += 1

    def figures(self) -> dict[str, Any]:
        requests = self.fd.requests[self._log_start :]
        late = sum(1 for r in requests if r.status == 404 and r.path.startswith("/interactions/"))
        return {
            "requests": len(requests),
            "rest_refused": dict(sorted(self.served.items())),
            "rest_refused_total": sum(self.served.values()),
            "gateway": dict(sorted(self.gateway.items())),
            "identify": self.fd.gateway.identify_count - self._identify,
            "resume": self.fd.gateway.resume_count - self._resume,
            "acks_too_late": late,  # interactions the bot answered after Discord's 3 s (404 / 10062)
        }


@dataclass(frozen=True)
class Ack:
    """A Submit the player was told was received."""

    encounter: int
    phase: int
    unit: str
    step: str
    move: str | None  # the orders step: the move as the panel showed it when Submit was clicked


@dataclass
class Seat:
    """One table: a guild channel per game, its director and two players."""

    index: int
    guild: Guild
    director: Person
    players: tuple[Person, Person]
    rng: random.Random
    channels: list[Channel] = field(default_factory=lambda: list[Channel]())
    encounters: list[int] = field(default_factory=lambda: list[int]())
    phases_acked: int = 0


@dataclass
class FaultRun:
    """What the people did and were told, for the verdict."""

    fd: FakeDiscord
    max_phases: int | None = None  # per table; None: until ``stop`` is set
    wait: float = 90.0  # seconds a person waits for what the bot owes before calling it stuck
    answer_wait: float = 10.0  # seconds before clicking again when a click changed nothing
    attempts: int = 12
    stop: asyncio.Event = field(default_factory=asyncio.Event)
    ack_ms: list[float] = field(default_factory=lambda: list[float]())
    acks: list[Ack] = field(default_factory=lambda: list[Ack]())
    retries: Counter[str] = field(default_factory=lambda: Counter[str]())
    refused: Counter[str] = field(default_factory=lambda: Counter[str]())
    stuck: list[str] = field(default_factory=lambda: list[str]())
    games: int = 0
    games_over: int = 0
    phases_acked: dict[int, set[int]] = field(default_factory=lambda: dict[int, set[int]]())

    def stopping(self, seat: Seat) -> bool:
        return self.stop.is_set() or (self.max_phases is not None and seat.phases_acked >= self.max_phases)


def seats(fd: FakeDiscord, count: int, seed: int) -> list[Seat]:
    guild = fd.create_guild("Faults", locale="en-US")
    out: list[Seat] = []
    for i in range(count):
        people = [fd.create_user(f"{role}{i}", locale="en-US") for role in ("dir", "ana", "bea")]
        for p in people:
            guild.add_member(p.user)
        out.append(Seat(i, guild, people[0], (people[1], people[2]), random.Random(f"{seed}:table:{i}")))
    return out


# --- acting as people ------------------------------------------------------------------------------------


def _received(text: str) -> bool:
    """Whether a follow-up is the "orders received" (or "updated") answer, for any unit."""
    for key in ("orders.received", "orders.amended"):
        head, _, tail = t(key, LANG, unit="\x00").partition("\x00")
        if text.startswith(head) and text.endswith(tail):
            return True
    return False


def _went_wrong(text: str) -> bool:
    """The bot says it failed, or that Discord did not take its answer: what a person does then is try again."""
    head, _, _ = t("errors.internal", LANG, trace="\x00").partition("\x00")
    return text.startswith(head) or text == t("errors.discord_busy", LANG)


async def command(
    run: FaultRun, person: Person, channel: Channel, name: str, options: dict[str, Any]
) -> Message:
    """Run a command until it gets an answer (any answer: a retry of one that did its work is refused)."""
    for _ in range(run.attempts):
        start = time.perf_counter()
        handle = await person.run_command(channel, name, options)
        try:
            await handle.acknowledged()
        except NoResponse:
            run.retries["command: no answer"] += 1
            continue
        run.ack_ms.append((time.perf_counter() - start) * 1000)
        try:
            answer = await handle.final_response(timeout=run.answer_wait)
        except TimeoutError:
            run.retries["command: no reply"] += 1
            continue
        if _went_wrong(answer.content):  # what a person does then: try again
            run.retries["command: something went wrong"] += 1
            continue
        if (
            answer.ephemeral
        ):  # a refusal: a retry of one that did its work, or a real one (then no game starts)
            run.refused[f"/{name}: {answer.content[:60]}"] += 1
        return answer
    raise Stuck(f"/{name} by {person.name} never answered")


def _control(panel: Message, unit: str, action: str) -> str | None:
    """The enabled control ``action`` of ``unit`` on ``panel``."""
    for cid, component in panel.custom_ids().items():
        if cid.endswith(f":unit:{unit}:{action}") and not component.get("disabled"):
            return cid
    return None


def _panel_ref(message: Message) -> tuple[int, int, str] | None:
    """(encounter, phase, unit) of a DM panel, from its controls' custom ids."""
    found = draft_in(message)
    if found is None:
        return None
    for cid in message.custom_ids():
        parts = cid.split(":")
        if len(parts) >= 7 and parts[:2] == ["hexd", "enc"] and parts[3] == "phase" and parts[5] == "unit":
            return int(parts[2]), found[0], parts[6]
    return None


async def _press(
    run: FaultRun,
    person: Person,
    panel: Message,
    cid: str,
    changed: Callable[[], bool],
    values: list[str] | None = None,
) -> bool:
    """Click (or pick ``values`` on) ``cid`` until the panel shows the change; False when the bot refused it."""
    for _ in range(run.attempts):
        if cid not in panel.custom_ids() or panel.custom_ids()[cid].get("disabled"):
            return False
        start = time.perf_counter()
        if values is None:
            handle = await person.click(panel, cid)
        else:
            handle = await person.select(panel, cid, values)
        try:
            await handle.acknowledged()
        except NoResponse:
            run.retries["click: no answer"] += 1
            continue
        run.ack_ms.append((time.perf_counter() - start) * 1000)
        try:
            await run.fd.wait_for(lambda h=handle: changed() or h.replies(), timeout=run.answer_wait)
        except TimeoutError:
            run.retries["click: panel unchanged"] += 1
            continue
        if changed():
            return True
        run.refused[handle.replies()[0].content[:60]] += 1
        return False
    raise Stuck(f"{person.name}'s clicks never changed the panel")


async def act(run: FaultRun, seat: Seat, person: Person, panel: Message, ref: tuple[int, int, str]) -> bool:
    """Give ``panel``'s order as a player would; True when the player was told it was received."""
    encounter, phase, unit = ref
    step = step_of(panel)
    rng = seat.rng
    if step == "wait":
        return False
    if step == "orders":
        for _ in range(rng.choice((0, 1, 1, 2))):
            letter = rng.choice(("I", "D"))
            cid = _control(panel, unit, letter)
            if cid is None:
                break
            before = draft_in(panel)
            if not await _press(run, person, panel, cid, lambda b=before: draft_in(panel) != b):
                return False
        fire = _control(panel, unit, "fire")
        if fire is not None and rng.random() < 0.7:
            options = [o["value"] for o in panel.custom_ids()[fire]["options"]]
            picked = rng.sample(options, k=min(len(options), rng.choice((1, 2))))

            def fired(p: list[str] = picked) -> bool:
                # the panel keeps what the rules take together (EXO-3.3: one ship per weapon)
                shown = picked_in(panel, "fire")
                return bool(shown) and set(shown) <= set(p)

            if not fired() and not await _press(run, person, panel, fire, fired, picked):
                return False
    elif step == "decision":
        cid = _control(panel, unit, "decide")
        if cid is not None:
            value = panel.custom_ids()[cid]["options"][0]["value"]

            def chosen(v: str = value) -> bool:
                d = draft_in(panel)
                return d is not None and d[1].text("choice") == v

            if not chosen() and not await _press(run, person, panel, cid, chosen, [value]):
                return False
    submit = _control(panel, unit, "submit")
    if submit is None:
        return False
    for _ in range(run.attempts):
        found = draft_in(panel)  # what the Submit carries: read and clicked with no await between
        start = time.perf_counter()
        handle = await person.click(panel, submit)
        move = (found[1].text("move") or "-") if found is not None and step == "orders" else None
        try:
            await handle.acknowledged()
        except NoResponse:
            run.retries["submit: no answer"] += 1
            continue
        run.ack_ms.append((time.perf_counter() - start) * 1000)
        try:
            answer = (await handle.wait_for_replies(1, timeout=run.answer_wait))[0]
        except TimeoutError:
            run.retries["submit: no follow-up"] += 1
            continue
        if _received(answer.content):
            run.acks.append(Ack(encounter, phase, unit, step, move))
            run.phases_acked.setdefault(encounter, set()).add(phase)
            return True
        run.refused[answer.content[:60]] += 1
        return False
    raise Stuck(f"{person.name}'s Submit never got an answer")


async def new_game(run: FaultRun, seat: Seat) -> Channel:
    channel = seat.guild.create_text_channel(f"t{seat.index}-g{len(seat.channels)}")
    seat.channels.append(channel)
    ana, bea = seat.players
    # one after the other: the first to join gets the first ship
    await command(run, seat.director, channel, "encounter new", SCENARIO)
    await command(run, ana, channel, "encounter join", {})
    await command(run, bea, channel, "encounter join", {})
    await command(run, seat.director, channel, "encounter start", {})
    run.games += 1
    return channel


def _over(channel: Channel) -> bool:
    return any(m.content.startswith("🏁") for m in channel.messages())


async def play_game(run: FaultRun, seat: Seat, channel: Channel) -> bool:
    """Play the game in ``channel`` until it ends (True) or the table stops (False). When stopping, a phase in
    which a player was already told "received" is finished, and its resolution waited for; no new one is begun."""
    last: dict[int, int] = {p.id: 0 for p in seat.players}
    encounter: int | None = None
    acked: set[int] = set()
    newest = 0  # the newest phase a panel was seen for: every phase before it is resolved

    def next_move() -> tuple[str, Person | None, Message | None, tuple[int, int, str] | None] | None:
        nonlocal newest
        if _over(channel):
            return "over", None, None, None
        for person in seat.players:
            for m in reversed(person.dms()):
                ref = _panel_ref(m)
                if ref is None or ref[0] != (encounter or ref[0]) or ref[0] in seat.encounters:
                    continue  # not a panel, or one of an earlier game
                newest = max(newest, ref[1])
                if ref[1] > last[person.id]:
                    return "panel", person, m, ref
                break
        # stopping: once this game's first panel came (it started), and no phase a player acted on is unresolved
        if run.stopping(seat) and newest and (not acked or max(acked) < newest):
            return "done", None, None, None
        return None

    while True:
        try:
            what, person, panel, ref = await run.fd.wait_for(
                next_move, timeout=run.wait, what=f"table {seat.index}'s next panel"
            )
        except TimeoutError:
            phase = max(acked) if acked else 0
            raise Stuck(
                f"table {seat.index} encounter {encounter} waited {run.wait} s after phase {phase}"
            ) from None
        if what == "over":
            run.games_over += 1
            if encounter is not None:
                seat.encounters.append(encounter)
            return True
        if what == "done":
            if encounter is not None:
                seat.encounters.append(encounter)
            return False
        assert person is not None and panel is not None and ref is not None
        if encounter is None:
            encounter = ref[0]
        if run.stopping(seat) and ref[1] not in acked:
            last[person.id] = ref[1]  # a phase nobody acted on: left alone
            continue
        if await act(run, seat, person, panel, ref) and ref[1] not in acked:
            acked.add(ref[1])
            seat.phases_acked += 1
        last[person.id] = ref[1]


async def play_table(run: FaultRun, seat: Seat) -> None:
    try:
        while not run.stopping(seat):
            channel = await new_game(run, seat)
            if not await play_game(run, seat, channel):
                return
    except Stuck as stuck:
        run.stuck.append(str(stuck))


# --- the verdict -----------------------------------------------------------------------------------------


def _database(path: str) -> sqlite3.Connection:
    return sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=30)


def all_announced(path: str) -> bool:
    """Every running or ended encounter has shown its newest committed step in its channel."""
    with contextlib.closing(_database(path)) as db:
        rows = db.execute("SELECT snapshot_seq, settings FROM encounters WHERE status != 'open'").fetchall()
    return all(json.loads(settings).get("announced_seq") == seq for seq, settings in rows)


async def wait_announced(path: str, *, ceiling: float = 120.0) -> bool:
    """Poll the database until every committed step was shown (the bot may be retrying a refused post)."""
    for _ in range(int(ceiling / 0.2)):
        if await asyncio.to_thread(all_announced, path):
            return True
        await asyncio.sleep(0.2)
    return False


def verdict(run: FaultRun, tables: list[Seat], path: str) -> dict[str, Any]:
    """The invariants, from what the players were told, what the channels and DMs show, and the database."""
    with contextlib.closing(_database(path)) as db:
        stored: dict[tuple[int, int, str], list[dict[str, Any]]] = {}
        for enc, phase, unit, body in db.execute("SELECT encounter_id, phase_no, unit_id, body FROM orders"):
            stored.setdefault((enc, phase, unit), []).append(json.loads(body).get("raw") or {})
        status_refs: Counter[int] = Counter(
            channel for (channel,) in db.execute("SELECT channel_id FROM message_refs WHERE kind = 'status'")
        )
        encounters = {
            enc: (status, phase, seq, json.loads(settings).get("announced_seq"))
            for enc, status, phase, seq, settings in db.execute(
                "SELECT id, status, phase_no, snapshot_seq, settings FROM encounters"
            )
        }
    lost = [
        a
        for a in run.acks
        if not any(
            a.move is None or (isinstance(raw, dict) and raw.get("move") == a.move)
            for raw in stored.get((a.encounter, a.phase, a.unit), [])
        )
    ]
    expected = sorted((enc, p) for enc, phases in run.phases_acked.items() for p in phases)
    resolved = [
        (enc, p)
        for enc, p in expected
        if enc in encounters and (encounters[enc][0] == "ended" or p < encounters[enc][1])
    ]
    unannounced = sorted(
        enc for enc, (status, _, seq, shown) in encounters.items() if status != "open" and shown != seq
    )
    double_steps: list[str] = []
    double_status: list[str] = []
    double_winner: list[str] = []
    status_head = f"**{ENCOUNTER_NAME}** · "
    for seat in tables:
        for channel in seat.channels:
            own = [m for m in channel.messages() if m.author.bot and m.interaction_metadata is None]
            # each step is an embed (one message may carry several): a step posted twice is posted the same, its
            # account and its board (named after the step); two steps of one phase share a title, not those
            steps = Counter(
                json.dumps(e, sort_keys=True)
                for m in own
                for e in m.embeds
                if str(e.get("title", "")).startswith(f"{ENCOUNTER_NAME} · ")
            )
            double_steps += [
                f"#{channel.name}: {json.loads(k).get('title')} ×{n}" for k, n in steps.items() if n > 1
            ]
            # two phases may share a title (a crew-roll step): a status message the bot did not record as its
            # phase's is one too many
            heads = [m for m in own if m.content.startswith(status_head)]
            extra = len(heads) - status_refs.get(channel.id, 0)
            if extra > 0:
                double_status.append(
                    f"#{channel.name}: {len(heads)} status messages for {extra} fewer phases"
                )
            winners = sum(1 for m in own if m.content.startswith("🏁"))
            if winners > 1:
                double_winner.append(f"#{channel.name} ×{winners}")
    panels: Counter[tuple[int, int, str]] = Counter()
    for seat in tables:
        for person in seat.players:
            for m in person.dms():
                ref = _panel_ref(m)
                if ref is not None:
                    panels[ref] += 1
    double_panels = [f"{k} ×{n}" for k, n in panels.items() if n > 1]
    return {
        "orders_acknowledged": len(run.acks),
        "orders_lost": len(lost),
        "lost": [a.__dict__ for a in lost[:10]],
        "phases_expected": len(expected),
        "phases_resolved": len(resolved),
        "unresolved": [x for x in expected if x not in resolved][:10],
        "encounters": len(encounters),
        "encounters_unannounced": unannounced[:10],
        "double_posts": len(double_steps),
        "double_status": len(double_status),
        "double_winner": len(double_winner),
        "double_panels": len(double_panels),
        "doubles": double_steps[:5] + double_status[:5] + double_winner[:5] + double_panels[:5],
        "stuck": run.stuck[:10],
        "games": run.games,
        "games_over": run.games_over,
        "retries": dict(sorted(run.retries.items())),
        "refused": dict(run.refused.most_common(5)),
    }


def failures(found: dict[str, Any]) -> list[str]:
    """The invariants that failed in ``found`` (a :func:`verdict`)."""
    bad: list[str] = []
    if found["orders_lost"]:
        bad.append(f"{found['orders_lost']} acknowledged orders not stored: {found['lost']}")
    if found["phases_resolved"] != found["phases_expected"]:
        bad.append(f"phases not resolved: {found['unresolved']}")
    if found["encounters_unannounced"]:
        bad.append(f"steps never shown: encounters {found['encounters_unannounced']}")
    for key in ("double_posts", "double_status", "double_winner", "double_panels"):
        if found[key]:
            bad.append(f"{key}: {found['doubles']}")
    if found["stuck"]:
        bad.append(f"stuck: {found['stuck']}")
    return bad
