"""Capacity at human pace: N encounters played the way people play them, through the local Discord
(tests/fakediscord) by the production bot in its own process (tests/bot_process.py), as bench/e2e.py does.

Each table is a director and one player per side. A player's next click comes after a think time drawn from a
log-normal distribution (median 20 s, sigma 1: a long tail, one click in ten after more than 70 s), divided by
``--compress K`` so a run fits in minutes (every figure line states K). The tables are seated spread over a
warm-up (``--warmup MIN``, by default a quarter of ``--minutes``) and each session ends after a drawn length (the
director's ``/encounter end``); the table then opens the next scenario, so encounters start and end all through
the run while about N are in play. Every figure (acknowledgements, answers, boards, CPU, requests, failures) counts
only what starts after the warm-up, during the ``--minutes`` that follow it: seating N tables is a set-up burst
(at human pace, with sessions of ~20 min, about one table in 1,200 starts each second), not the pace measured.
The scenarios rotate through every bundled ruleset and the night layer: exo-duel, skirmish-corridor, mech-duel,
pbw-brawl, ocs-gazala, skirmish-night. Everything goes through the paths players use:
``/encounter new|join|start|end``, and on each DM panel a select (the first option of its first menu, as a player picks an order) and Submit; when no panel is
offered for a while (an ocs step waits for the director's own procedure, or a Submit was refused), the director
gives ``/director resolve`` and confirms it if asked.

Prints one JSON line per figure:

* ``pace``: ``encounters``, ``ack_p99_ms`` (a click to its acknowledgement), ``bot_answer_p99_ms`` (a click to
  the bot starting its answer, without the local Discord's handling, which shares the cores), ``board_p95_ms``
  (the action that closed a step to the board image in the channel), ``bot_cpu_pct`` (the bot's main process;
  ``workers_cpu_pct`` its render workers), ``rss_mb`` (at the end; ``rss_peak_mb``), ``requests_per_s`` (every
  REST request the bot made, interaction answers included), ``bench_cpu_pct`` (this process: the people and
  the local Discord, which share the machine with the bot; ``bench_lag_p99_ms`` how late its event loop runs:
  when it lags, the bot is answered late and the figures are the bench's), plus ``compress``, ``warmup``
  (minutes, not measured), sample counts and what failed; ``board_p95_by_ruleset_ms`` and ``board_max_ms`` say
  which tables the slowest boards came from;
* ``requests_per_round`` (``--by-route``): the bot's requests per step played (a Submit, or a director's resolve),
  per ruleset and route class (``interaction`` answers, ``post``, ``edit`` and ``status_edit`` (the text alone)
  in the channel, ``dm_post`` and ``dm_edit``, ``dm_open``, the ``member`` and ``user`` lookups); ``…_unchanged``
  counts the edits that left the message as people see it (bench/requests.py: the same per round, ruleset by
  ruleset);
* ``capacity`` (``--find``): the largest N tried whose ``ack_p99_ms`` <= 100 and ``board_p95_ms`` <= 1000, with
  its figures; N doubles from ``--encounters`` until a bar breaks, then the gap is halved ``--steps`` times.

``--rate-limits`` runs the local Discord with Discord's REST limits (tests/fakediscord/ratelimits.py) and adds
``refused_429`` and ``invalid_requests`` to the figures. ``plan_longest_wait_s`` is the longest a request of each
kind waited for its turn in the bot's request plan (bot/request_plan.py; ``post``: a board), ``plan_granted`` how
many of each it let go.

``--known-players`` starts the bot knowing every person's DM channel, as a bot in service knows its regular
players. A fresh bot opens each one in the run, and Discord lets a bot token open five DM channels per five seconds
(``--rate-limits``): seating 200 tables' 600 people within a minute's warm-up then queues their openings for ten
minutes, and the DMs and the posts behind them wait (a cold start, not the steady state).

``--baseline REV --repeat R`` runs the bot of git revision REV beside this tree's, alternately, R times each (each
figure line then names its ``bot``): a before and after in one sitting.

Every wait of the people here is keyed (tests/fakediscord ``World.wait_for(on=…)``): a table's board watcher
wakes only on its channel's changes, its players' panel watcher only on their DM channels', an answer only on its
interaction's, so the bench's own work grows with the changes, not with the changes times the tables.

Run: ``.venv/bin/python bench/pace.py --encounters 10 --minutes 1 [--warmup 0.5] [--compress 20] [--find]
[--rate-limits] [--known-players]``.
This is a measurement, not a test: the figures depend on the machine and its load at the time.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import json
import logging
import math
import os
import random
import re
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import cast

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.e2e import Timings, baseline_tree, pct
from bot.storage import open_storage
from rules.ruleset import DIRECTOR
from rules.scenario import load_scenario
from tests.bot_process import ROOT, BotProcess, spawn_bot
from tests.e2e_helpers import draft_in
from tests.fakediscord import Channel, FakeDiscord, InvocationError, Message, NoResponse, Person
from tests.fakediscord.people import InteractionHandle

#: (ruleset, scenario) in the order the tables take them: every bundled ruleset, and the night layer
MIX: tuple[tuple[str, str], ...] = (
    ("exo", "exo-duel"),
    ("skirmish", "skirmish-corridor"),
    ("mech", "mech-duel"),
    ("pbw", "pbw-brawl"),
    ("ocs", "ocs-gazala"),
    ("night", "skirmish-night"),
)
THINK_MEDIAN_S = 20.0
THINK_SIGMA = 1.0
#: a second click on the same panel (Submit after picking) comes sooner than a decision
SECOND_CLICK_MEDIAN_S = 3.0
#: the most menus a player picks from on one panel before giving up on Submit
MAX_PICKS = 4
#: session length, in uncompressed minutes (log-normal around this median)
SESSION_MEDIAN_MIN = 20.0
ACK_BAR_MS = 100.0
BOARD_BAR_MS = 1000.0
#: how often the bench's own event loop is probed for lag
LAG_PROBE_S = 0.1
SUBMIT = re.compile(r":unit:([^:]+):submit$")
SELECT_TYPES = {3, 5, 6, 7, 8}


def sides_of(scenario: str) -> tuple[str, ...]:
    text = (ROOT / "data" / "scenarios" / f"{scenario}.toml").read_text()
    return load_scenario(text).state.side_ids()


@dataclass
class Run:
    """One run's shared state: the measures, the pace and the dice of the people."""

    fd: FakeDiscord
    compress: float
    until: float  # perf_counter time the run stops starting new actions
    rng: random.Random
    tm: Timings = field(default_factory=Timings)
    by_ruleset: dict[str, list[float]] = field(default_factory=dict[str, list[float]])
    boards: list[float] = field(default_factory=list[float])
    boards_by_ruleset: dict[str, list[float]] = field(default_factory=dict[str, list[float]])
    failures: dict[str, int] = field(default_factory=dict[str, int])
    sessions: int = 0
    resolves: int = 0  # the director's /director resolve, when no panel was offered
    steps: dict[str, int] = field(default_factory=dict[str, int])
    interaction_ruleset: dict[int, str] = field(default_factory=dict[int, str])
    token_ruleset: dict[str, str] = field(default_factory=dict[str, str])
    #: perf_counter time the warm-up ends: only what starts from then on is counted (0: everything)
    measure_from: float = 0.0
    acks: list[float] = field(default_factory=list[float])  # ms, the counted clicks'
    #: (interaction id, clicked at) of the counted clicks
    started: list[tuple[int, float]] = field(default_factory=list[tuple[int, float]])

    def think(self, median: float = THINK_MEDIAN_S) -> float:
        return self.rng.lognormvariate(math.log(median), THINK_SIGMA) / self.compress

    def counting(self, at: float | None = None) -> bool:
        """Whether something starting at ``at`` (now by default) falls after the warm-up."""
        return (time.perf_counter() if at is None else at) >= self.measure_from

    def failed(self, what: str) -> None:
        if self.counting():
            self.failures[what] = self.failures.get(what, 0) + 1

    def stepped(self, ruleset: str) -> None:
        if self.counting():
            self.steps[ruleset] = self.steps.get(ruleset, 0) + 1


async def click(
    run: Run, ruleset: str, kind: str, start: float, handle: InteractionHandle
) -> InteractionHandle:
    """Times one interaction to its acknowledgement (bench/e2e.py's measure), noted under its ruleset."""
    await run.tm.timed(start, handle, kind)
    if run.counting(start):
        ms = (time.perf_counter() - start) * 1000
        run.acks.append(ms)
        run.started.append((handle.interaction.id, start))
        run.by_ruleset.setdefault(ruleset, []).append(ms)
    run.interaction_ruleset[handle.interaction.id] = ruleset
    run.token_ruleset[handle.interaction.token] = ruleset
    return handle


def board_signature(channel: Channel) -> tuple[int, int]:
    """Changes when a board image is posted: a new message, or an account edited with one more image."""
    history = channel.history
    return len(history), sum(len(m.attachments) for m in history[-3:])


#: a player's DM panels with a Submit, decoded: (unit, message, step), newest first
Panels = list[tuple[str, Message, int]]


@dataclass
class Table:
    channel: Channel
    director: Person
    players: list[Person]
    index: int
    last_action: float = 0.0
    ruleset: str = ""
    acted: dict[str, int] = field(default_factory=dict[str, int])  # unit → newest step acted on
    #: (index in the local Discord's request log when a session began, its ruleset)
    sessions: list[tuple[int, str]] = field(default_factory=list[tuple[int, str]])
    #: each player's decoded panels (by user id) and the version of their DM channel they were decoded at
    panels: dict[int, tuple[int, Panels]] = field(default_factory=dict[int, tuple[int, Panels]])

    def ruleset_at(self, request_index: int) -> str:
        return next((r for i, r in reversed(self.sessions) if i <= request_index), "setup")

    @property
    def people(self) -> list[Person]:
        return [self.director, *self.players]

    @functools.cached_property
    def dm_channels(self) -> tuple[int, ...]:
        """The players' DM channels, where their panels arrive (what the table's panel watcher waits on)."""
        return tuple(p.dm_channel.id for p in self.players)


async def watch_boards(run: Run, table: Table) -> None:
    """Samples "board posted": from the table's latest action to each new board in its channel."""
    world, channel = run.fd.world, table.channel
    seen = board_signature(channel)
    while time.perf_counter() < run.until:
        version = world.version(channel.id)
        try:
            await run.fd.wait_for(
                lambda version=version: world.version(channel.id) != version,
                timeout=max(0.1, run.until - time.perf_counter()),
                on=(channel.id,),
            )
        except TimeoutError:
            return
        now = time.perf_counter()
        new = board_signature(channel)
        board = new[1] > seen[1] or (new[0] > seen[0] and channel.history[-1].attachments)
        if board and table.last_action:
            if run.counting(table.last_action):
                run.boards.append((now - table.last_action) * 1000)
                run.boards_by_ruleset.setdefault(table.ruleset, []).append((now - table.last_action) * 1000)
            table.last_action = 0.0
        seen = new


async def play_tables(
    run: Run, tables: list[Table], minutes: float, began: float, warmup: float | None = None
) -> float:
    """Seat the tables spread over the warm-up (``warmup`` minutes; by default the run's first quarter) and play
    them until the run ends, ``minutes`` after ``began`` (a crash is a failure of the run); the wall seconds since
    ``began``."""
    ramp = (minutes / 4 if warmup is None else warmup) * 60
    tasks = [asyncio.create_task(seat(run, t, run.rng.uniform(0, ramp))) for t in tables]
    tasks += [asyncio.create_task(watch_boards(run, t)) for t in tables]
    done, pending = await asyncio.wait(tasks, timeout=minutes * 60 + 60)
    for task in pending:
        task.cancel()
    for task in done:
        if task.exception() is not None:
            run.failed(f"crash: {task.exception()!r}"[:120])
    return time.perf_counter() - began


def panels_of(table: Table, person: Person) -> Panels:
    """The panels among ``person``'s last 6 DMs, decoded again only after a change to their DM channel."""
    channel = person.dm_channel
    version = channel.world.version(channel.id)
    cached = table.panels.get(person.id)
    if cached is not None and cached[0] == version:
        return cached[1]
    panels: Panels = []
    for message in reversed(person.dms()[-6:]):
        unit = next((m.group(1) for cid in message.custom_ids() if (m := SUBMIT.search(cid))), None)
        found = draft_in(message) if unit is not None else None
        if unit is not None and found is not None:
            panels.append((unit, message, found[0]))
    table.panels[person.id] = (version, panels)
    return panels


def fresh_panel(table: Table) -> tuple[Person, str, Message, int] | None:
    """A DM panel with a Submit for a step the player has not acted on yet (newest first); else the director's
    own procedure panel (ocs: the director opens the combats the sides then answer, OCS-2)."""
    for person in table.players:
        for unit, message, step in panels_of(table, person):
            if not message.deleted and step > table.acted.get(unit, 0):
                return person, unit, message, step
    for unit, message, step in panels_of(table, table.director):
        if unit == DIRECTOR and not message.deleted and step > table.acted.get(unit, 0):
            return table.director, unit, message, step
    return None


async def command(
    run: Run, table: Table, who: Person, name: str, options: dict[str, object]
) -> Message | None:
    start = time.perf_counter()
    try:
        handle = await click(
            run, table.ruleset, name, start, await who.run_command(table.channel, name, options)
        )
        return await handle.final_response(timeout=30)
    except (NoResponse, TimeoutError):
        run.failed(f"no answer: {name}")
        return None
    except InvocationError as error:  # the command's form refused before sending (never expected here)
        run.failed(f"{name}: {error}"[:80])
        return None


def submit_of(panel: Message, unit: str) -> str | None:
    """The panel's Submit when it is offered (enabled)."""
    return next(
        (
            cid
            for cid, comp in panel.custom_ids().items()
            if cid.endswith(f":unit:{unit}:submit") and not comp.get("disabled")
        ),
        None,
    )


def next_menu(panel: Message, unit: str, used: set[str]) -> tuple[str, str] | None:
    """The first menu of the panel not picked from yet, and its first option."""
    for cid, comp in panel.custom_ids().items():
        name = cid.rsplit(":", 1)[-1]
        if (
            comp.get("type") in SELECT_TYPES
            and comp.get("options")
            and f":unit:{unit}:" in cid
            and name not in used
        ):
            used.add(name)
            return cid, str(comp["options"][0]["value"])
    return None


async def act_on_panel(run: Run, table: Table, person: Person, unit: str, panel: Message) -> None:
    """What a player does with an orders panel: pick the first option of its first menu, and of the next ones
    while Submit is not offered yet (at most :data:`MAX_PICKS`), then Submit."""
    used: set[str] = set()
    try:
        for picks in range(MAX_PICKS):
            if picks and submit_of(panel, unit) is not None:
                break
            menu = next_menu(panel, unit, used)
            if menu is None:
                break
            cid, value = menu
            before = draft_in(panel)
            start = time.perf_counter()
            await click(run, table.ruleset, "select", start, await person.select(panel, cid, [value]))
            with contextlib.suppress(TimeoutError):
                await run.fd.wait_for(
                    lambda b=before: draft_in(panel) != b, timeout=10, on=(panel.channel.id,)
                )
            await asyncio.sleep(run.think(SECOND_CLICK_MEDIAN_S))
        submit = submit_of(panel, unit)
        if submit is None:  # the orders need what a first pick per menu does not give: the director resolves
            run.failed("panel: submit not offered")
            return
        start = time.perf_counter()
        table.last_action = start
        before = (panel.edited_timestamp, panel.content)
        handle = await click(run, table.ruleset, "submit", start, await person.click(panel, submit))
        # the order's acknowledgement: a private reply, or, on one message for several units, its own text
        await run.fd.wait_for(
            lambda: handle.replies() or (panel.content and (panel.edited_timestamp, panel.content) != before),
            timeout=30,
            what="the order's acknowledgement",
            on=(handle.interaction.id, panel.channel.id),
        )
    except (NoResponse, TimeoutError):
        run.failed("no answer: panel")
    except InvocationError as error:  # the panel changed under the player (a step closed meanwhile)
        run.failed(f"panel: {str(error).split(chr(39))[0].strip()}")


async def director_resolves(run: Run, table: Table) -> bool:
    """``/director resolve``, confirmed when the bot asks (a resolve within 3 s of the step being shown)."""
    table.last_action = time.perf_counter()
    answer = await command(run, table, table.director, "director resolve", {})
    if answer is None:
        return False
    confirm = next((cid for cid in answer.custom_ids() if cid.endswith(":resolve")), None)
    if confirm is not None:
        await asyncio.sleep(run.think(SECOND_CLICK_MEDIAN_S))
        start = time.perf_counter()
        table.last_action = start
        try:
            handle = await click(
                run, table.ruleset, "confirm", start, await table.director.click(answer, confirm)
            )
            answer = await handle.final_response(timeout=30)
        except (NoResponse, TimeoutError):
            run.failed("no answer: confirm")
            return False
    return answer.content.startswith("Resolved")


async def session(run: Run, table: Table, ruleset: str, scenario: str) -> None:
    """One encounter from ``/encounter new`` to ``/encounter end`` (or the end of the run)."""
    table.ruleset, table.acted = ruleset, {}
    table.last_action = 0.0  # a new encounter's preview is no step's board
    table.sessions.append((len(run.fd.rest.log), ruleset))
    real = "skirmish" if ruleset == "night" else ruleset
    ends = time.perf_counter() + run.rng.lognormvariate(math.log(SESSION_MEDIAN_MIN * 60), 0.5) / run.compress
    if (
        await command(run, table, table.director, "encounter new", {"ruleset": real, "scenario": scenario})
        is None
    ):
        return
    if run.counting():
        run.sessions += 1
    for person, side in zip(table.players, sides_of(scenario), strict=False):
        await asyncio.sleep(run.think(SECOND_CLICK_MEDIAN_S))
        await command(run, table, person, "encounter join", {"side": side})
    await asyncio.sleep(run.think(SECOND_CLICK_MEDIAN_S))
    table.last_action = time.perf_counter()
    await command(run, table, table.director, "encounter start", {})
    stuck = 0
    while time.perf_counter() < min(ends, run.until) and stuck < 3:
        waiting = max(0.5, 3 * THINK_MEDIAN_S / run.compress)
        try:
            person, unit, panel, step = await run.fd.wait_for(
                lambda: fresh_panel(table), timeout=waiting, what="a panel", on=table.dm_channels
            )
        except TimeoutError:
            # nothing for the players to do: the director's own procedure, or a step a Submit could not close
            stuck = 0 if await director_resolves(run, table) else stuck + 1
            run.stepped(ruleset)
            if run.counting():
                run.resolves += 1
            continue
        await asyncio.sleep(run.think())
        table.acted[unit] = step
        await act_on_panel(run, table, person, unit, panel)
        run.stepped(ruleset)
    if time.perf_counter() < run.until:
        await command(run, table, table.director, "encounter end", {})


async def seat(run: Run, table: Table, start_after: float) -> None:
    """The table's sessions one after another, the scenarios in turn from the table's place in the mix."""
    await asyncio.sleep(start_after)
    turn = table.index
    while time.perf_counter() < run.until:
        ruleset, scenario = MIX[turn % len(MIX)]
        try:
            await session(run, table, ruleset, scenario)
        except Exception as error:  # counted and reported: the table plays on
            run.failed(f"crash: {error!r}"[:120])
        turn += 1
        await asyncio.sleep(run.think())


def proc_cpu_s(pid: int) -> float:
    """utime + stime of a process (Linux /proc), 0 when it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def children_of(pid: int) -> list[int]:
    try:
        return [int(p) for p in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def rss_mb(pid: int, key: str = "VmRSS") -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(f"{key}:"):
                return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        pass
    return 0.0


def route_class(method: str, path: str, fields: tuple[str, ...] = ()) -> str:
    """The kind of a REST request, as the rate limits group them (an interaction answer is never limited); an
    edit of the text alone (``fields``: the JSON body's) is ``status_edit``."""
    if path.startswith(("/interactions/", "/webhooks/")):
        return "interaction"
    if method == "POST" and path == "/users/@me/channels":
        return "dm_open"
    if re.fullmatch(r"/channels/\d+/messages", path):
        return {"POST": "post", "GET": "history"}.get(method, "other")
    if re.fullmatch(r"/channels/\d+/messages/\d+", path):
        if method == "PATCH" and fields and set(fields) <= {"content", "allowed_mentions", "tts"}:
            return "status_edit"
        return {"PATCH": "edit", "DELETE": "delete", "GET": "fetch"}.get(method, "other")
    if path.startswith("/applications/"):
        return "commands"
    if re.fullmatch(r"/guilds/\d+/members/\d+", path):
        return "member"
    if re.fullmatch(r"/users/\d+", path):
        return "user"
    return f"{method} {re.sub(r'/[0-9]+', '/:id', path)}"


def requests_by_ruleset(run: Run, tables: list[Table], start_index: int) -> dict[str, dict[str, float]]:
    """The bot's requests per step played (a Submit or a director's resolve), per ruleset and route class: a
    channel's posts and edits, a player's DMs and DM channel opening by the session their table was playing, the
    interaction answers (callbacks and follow-ups) by the interaction's."""
    owner: dict[int, Table] = {}
    for table in tables:
        owner[table.channel.id] = table
        for person in table.people:
            owner[person.dm_channel.id] = table
    counts: dict[str, dict[str, int]] = {}
    unchanged = set(run.fd.unchanged_edits)
    for index, record in enumerate(run.fd.requests[start_index:], start_index):
        kind = route_class(record.method, record.path, record.fields)
        if index in unchanged:  # an edit that left the message as people see it
            kind = f"{kind}_unchanged"
        ruleset = "setup"
        if match := re.match(r"/interactions/(\d+)/", record.path):
            ruleset = run.interaction_ruleset.get(int(match.group(1)), "setup")
        elif match := re.match(r"/webhooks/\d+/([^/]+)", record.path):
            ruleset = run.token_ruleset.get(match.group(1), "setup")
        elif match := re.match(r"/channels/(\d+)/", record.path):
            table = owner.get(int(match.group(1)))
            if table is not None:
                ruleset = table.ruleset_at(index)
                kind = kind if table.channel.id == int(match.group(1)) else f"dm_{kind}"
        by = counts.setdefault(ruleset, {})
        by[kind] = by.get(kind, 0) + 1
    return {
        ruleset: {k: round(v / max(1, run.steps.get(ruleset, 0)), 2) for k, v in sorted(by.items())}
        for ruleset, by in sorted(counts.items())
    }


@dataclass
class Window:
    """The measured window, from the end of the warm-up to the run's end (the tables' last actions finishing
    after it are not counted): its wall seconds, the CPU seconds of the bot, its render workers and this process
    (the people and the local Discord), and the requests it served (indices in the request log); ``lags``: how
    late this process's event loop woke a 100 ms sleep, in ms (when it lags, the local Discord answers the bot
    late and the figures measure the bench, not the bot)."""

    pid: int
    wall: float = 0.0
    bot_cpu: float = 0.0
    workers_cpu: float = 0.0
    bench_cpu: float = 0.0
    requests: tuple[int, int] = (0, 0)
    lags: list[float] = field(default_factory=list[float])

    async def measure(self, fd: FakeDiscord, opens: float, closes: float) -> None:
        await asyncio.sleep(max(0.0, opens - time.perf_counter()))
        began = time.perf_counter()
        bot, bench, logged = proc_cpu_s(self.pid), proc_cpu_s(os.getpid()), len(fd.requests)
        workers = {w: proc_cpu_s(w) for w in children_of(self.pid)}
        while (now := time.perf_counter()) < closes:
            await asyncio.sleep(min(LAG_PROBE_S, closes - now))
            self.lags.append(max(0.0, (time.perf_counter() - now - min(LAG_PROBE_S, closes - now)) * 1000))
        self.wall = time.perf_counter() - began
        self.bot_cpu = proc_cpu_s(self.pid) - bot
        self.bench_cpu = proc_cpu_s(os.getpid()) - bench
        self.workers_cpu = sum(proc_cpu_s(w) - workers.get(w, 0.0) for w in children_of(self.pid))
        self.requests = (logged, len(fd.requests))


async def play(
    encounters: int,
    minutes: float,
    compress: float,
    seed: int,
    rate_limits: bool,
    by_route: bool,
    code: Path = ROOT,
    label: str | None = None,
    warmup: float | None = None,
    known: bool = False,
) -> dict[str, object]:
    """One run of ``encounters`` tables by the bot of the source tree ``code`` (``label``: which revision it is,
    printed as ``bot``): seated over ``warmup`` minutes (by default ``minutes`` / 4), then measured for
    ``minutes``; returns (and prints) its ``pace`` figure. ``known``: every person's DM channel is in the bot's
    database before it starts, as for people it has DMed before."""
    warmup = minutes / 4 if warmup is None else warmup
    with tempfile.TemporaryDirectory() as tmp:
        async with FakeDiscord(rate_limits=rate_limits) as fd:
            # every wait here is on the local Discord's own state and names what it waits on (a channel, an
            # interaction): a change wakes it, the poll is only a safety net, and 2,000 watchers polling each
            # second would cost more than the changes
            fd.world.poll_interval = 5.0
            guild = fd.create_guild("Pace")
            tables: list[Table] = []
            for i in range(encounters):
                people = [fd.create_user(f"{role}{i}") for role in ("dir", "ana", "bea")]
                for p in people:
                    guild.add_member(p.user)
                tables.append(Table(guild.create_text_channel(f"table-{i}"), people[0], people[1:], i))
            if known:
                await know_players(f"sqlite:///{tmp}/pace.sqlite3", tables)
            answers_file = Path(tmp) / "answers.json"
            plan_file = Path(tmp) / "plan.json"
            child: BotProcess = await spawn_bot(
                fd,
                f"sqlite:///{tmp}/pace.sqlite3",
                guild_id=guild.id,
                code=code,
                extra={"HEXD_BENCH_ANSWERS": str(answers_file), "HEXD_BENCH_PLAN": str(plan_file)},
            )
            assert child.proc is not None
            pid = child.proc.pid
            began = time.perf_counter()
            run = Run(fd, compress, began + (warmup + minutes) * 60, random.Random(seed))
            run.measure_from = began + warmup * 60
            window = Window(pid)
            measuring = asyncio.create_task(window.measure(fd, run.measure_from, run.until))
            try:
                await play_tables(run, tables, warmup + minutes, began, warmup=warmup)
                await measuring
                wall, cpu, workers, bench_cpu = (
                    window.wall,
                    window.bot_cpu,
                    window.workers_cpu,
                    window.bench_cpu,
                )
                rss, rss_peak = rss_mb(pid), rss_mb(pid, "VmHWM")
                logged, closed = window.requests
                served = fd.requests[logged:closed]
            finally:
                measuring.cancel()
                await child.stop()
            answered: dict[str, float] = json.loads(answers_file.read_text()) if answers_file.exists() else {}
            # the bot's request plan (bot/request_plan.py): the longest a request of each kind waited for its turn
            plan: dict[str, object] = json.loads(plan_file.read_text()) if plan_file.exists() else {}
            answer_ms = [
                (answered[str(iid)] - start) * 1000 for iid, start in run.started if str(iid) in answered
            ]
            limits = fd.rate_limits
            figure: dict[str, object] = {
                "figure": "pace",
                **({"bot": label} if label else {}),
                "encounters": encounters,
                "ack_p99_ms": pct(run.acks, 0.99) if run.acks else None,
                "bot_answer_p99_ms": pct(answer_ms, 0.99) if answer_ms else None,
                "board_p95_ms": pct(run.boards, 0.95) if run.boards else None,
                "bot_cpu_pct": round(100 * cpu / wall, 1),
                "workers_cpu_pct": round(100 * workers / wall, 1),
                "bench_cpu_pct": round(100 * bench_cpu / wall, 1),
                "bench_lag_p99_ms": pct(window.lags, 0.99) if window.lags else None,
                "rss_mb": rss,
                "rss_peak_mb": rss_peak,
                "requests_per_s": round(len(served) / wall, 1),
                # what counts against Discord's global limit (50/s per token): all but the interaction answers
                "limited_requests_per_s": round(
                    sum(1 for r in served if route_class(r.method, r.path) != "interaction") / wall, 1
                ),
                "compress": compress,
                "warmup": warmup,
                "minutes": minutes,
                "wall_s": round(wall, 1),
                "acks": len(run.acks),
                "boards": len(run.boards),
                "sessions": run.sessions,
                "director_resolves": run.resolves,
                "ack_p99_by_ruleset_ms": {k: pct(v, 0.99) for k, v in sorted(run.by_ruleset.items())},
                # which tables the slow boards came from (a p95 over ~100 boards is its few slowest)
                "board_p95_by_ruleset_ms": {
                    k: pct(v, 0.95) for k, v in sorted(run.boards_by_ruleset.items())
                },
                "board_max_ms": max(run.boards) if run.boards else None,
                "failures": run.failures,
                "invalid_requests": fd.invalid_requests,
                **({"refused_429": dict(limits.refused)} if limits is not None else {}),
                "plan_longest_wait_s": plan.get("longest_wait_s"),
                "plan_granted": plan.get("granted"),
            }
            print(json.dumps(figure), flush=True)
            if by_route:
                print(
                    json.dumps(
                        {
                            "figure": "requests_per_round",
                            "encounters": encounters,
                            "rate_limits": rate_limits,
                            "steps": run.steps,
                            "per_step": requests_by_ruleset(run, tables, logged),
                        }
                    ),
                    flush=True,
                )
            return figure


def holds(figure: dict[str, object]) -> bool:
    """Both bars held, and every interaction was answered (a missing acknowledgement fails any bar)."""
    ack, board = figure["ack_p99_ms"], figure["board_p95_ms"]
    failures = cast(dict[str, int], figure["failures"])
    lost = any(what.startswith(("no answer", "crash")) for what in failures)
    return (
        isinstance(ack, float)
        and isinstance(board, float)
        and ack <= ACK_BAR_MS
        and board <= BOARD_BAR_MS
        and not lost
    )


async def know_players(url: str, tables: list[Table]) -> None:
    """The bot's database made to know every person's DM channel (bot/dm_channels.py), as for a bot in service
    whose players have played before: no channel is opened in the run."""
    storage = await open_storage(url)
    try:
        for table in tables:
            for person in table.people:
                await storage.set_dm_channel(person.id, person.dm_channel.id)
    finally:
        await storage.close()


async def find(
    start: int,
    minutes: float,
    compress: float,
    seed: int,
    rate_limits: bool,
    steps: int,
    warmup: float | None = None,
    known: bool = False,
) -> None:
    """The largest N that holds both bars: doubling from ``start``, then halving the gap ``steps`` times."""
    good: dict[str, object] | None = None
    bad_n: int | None = None
    n = start
    while bad_n is None:
        figure = await play(n, minutes, compress, seed, rate_limits, False, warmup=warmup, known=known)
        if holds(figure):
            good, n = figure, n * 2
        else:
            bad_n = n
    low = int(good["encounters"]) if good is not None else 0  # type: ignore[call-overload]
    for _ in range(steps):
        if bad_n - low <= 1:
            break
        n = (low + bad_n) // 2
        figure = await play(n, minutes, compress, seed, rate_limits, False, warmup=warmup, known=known)
        if holds(figure):
            good, low = figure, n
        else:
            bad_n = n
    capacity = {k: v for k, v in (good or {"encounters": 0}).items() if k != "figure"}
    print(json.dumps({"figure": "capacity", **capacity, "first_failing": bad_n}), flush=True)


async def compare(args: argparse.Namespace) -> None:
    """This tree's bot and ``--baseline``'s, alternately, ``--repeat`` times each, on the same workload."""
    with baseline_tree(args.baseline) as (tree, head):
        for _ in range(args.repeat):
            await play(*workload(args), label=head, warmup=args.warmup, known=args.known_players)
            await play(
                *workload(args), code=tree, label=args.baseline, warmup=args.warmup, known=args.known_players
            )


def workload(args: argparse.Namespace) -> tuple[int, float, float, int, bool, bool]:
    """``play``'s first arguments, from the command line."""
    return (args.encounters, args.minutes, args.compress, args.seed, args.rate_limits, args.by_route)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument(
        "--encounters", type=int, default=10, help="tables in play (with --find: the first N)"
    )
    parser.add_argument(
        "--minutes", type=float, default=1.0, help="wall minutes each run is measured, after the warm-up"
    )
    parser.add_argument(
        "--warmup",
        type=float,
        metavar="MIN",
        help="wall minutes the tables are seated over, not measured (default: a quarter of --minutes)",
    )
    parser.add_argument("--compress", type=float, default=20.0, help="think times divided by this factor")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--find", action="store_true", help="search the largest N that holds both bars")
    parser.add_argument("--steps", type=int, default=3, help="--find: halvings of the gap after doubling")
    parser.add_argument(
        "--rate-limits", action="store_true", help="the local Discord enforces Discord's limits"
    )
    parser.add_argument("--by-route", action="store_true", help="also print requests per step by ruleset")
    parser.add_argument(
        "--known-players",
        action="store_true",
        help="the bot already knows every player's DM channel (a bot in service, not a fresh one)",
    )
    parser.add_argument(
        "--baseline",
        metavar="REV",
        help="also run the bot of git revision REV, alternately (not with --find)",
    )
    parser.add_argument("--repeat", type=int, default=1, help="with --baseline: sittings of both bots")
    args = parser.parse_args()
    logging.basicConfig(level=logging.ERROR)
    if args.baseline:
        asyncio.run(compare(args))
    elif args.find:
        asyncio.run(
            find(
                args.encounters,
                args.minutes,
                args.compress,
                args.seed,
                args.rate_limits,
                args.steps,
                args.warmup,
                args.known_players,
            )
        )
    else:
        asyncio.run(play(*workload(args), warmup=args.warmup, known=args.known_players))


if __name__ == "__main__":
    main()
