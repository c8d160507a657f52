"""What an encounter costs in Discord requests: per ruleset, the bot's REST requests per round, by route kind.

One table per scenario of bench/pace.py's mix (exo, skirmish, mech, pbw, ocs and the night layer), played one
after the other (so every request of the sitting belongs to the one table playing) by the production bot in its
own process, through the local Discord, the way bench/pace.py plays: on each DM panel the first option of its
first menus and Submit, the director's ``/director resolve`` when no panel is offered. Think times are short
(the figures are counts, not timings). A table plays ``--rounds`` rounds after ``/encounter start`` (read from
the bot's database), then ``/encounter end``.

Route kinds: ``interaction`` (callbacks and follow-ups, which Discord's global limit exempts), ``dm_open``
(``POST /users/@me/channels``), ``dm_post`` and ``dm_edit`` (a player's or the director's DMs), ``post`` (a
message in the encounter's channel), ``status_edit`` (a channel edit of the text alone: the status, or the status
leaving a post), ``edit`` (a channel edit with embeds or files: a resolution's account growing), ``delete``,
``member`` (``GET /guilds/…/members/…``: a DM click's membership), ``user`` (``GET /users/…``), ``channel``
(``GET /channels/…``); ``unchanged`` counts the edits that left the message as people see it (any kind).

Prints one JSON line per ruleset, ``{"figure": "requests_per_round", "ruleset": …, "rounds": R (completed, at
least 1), "steps": …, "per_round": …, "per_step": …,
"by_kind": {kind: per round}, "setup": requests before the start, "total": …, "limited_per_round": …}``
(``limited``: all but the interaction answers, what counts against the global limit), and a ``summary`` line.
With ``--baseline REV`` the same is also run with the bot of git revision REV, alternately, in the same sitting.

Run: ``.venv/bin/python bench/requests.py [--rounds 2] [--only exo] [--baseline REV] [--rate-limits]``.
This is a measurement, not a test.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import random
import re
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.e2e import baseline_tree
from bench.pace import MIX, Run, Table, act_on_panel, command, director_resolves, fresh_panel, sides_of
from bot.storage import open_storage
from rules.serial import from_json
from rules.state import EncounterState
from tests.bot_process import ROOT, spawn_bot
from tests.fakediscord import FakeDiscord
from tests.fakediscord.rest import RequestRecord

#: think times divided by this: a few ms between clicks
COMPRESS = 2000.0
#: steps at most per table (a skirmish round is many activations: it is reported per step played, and per round
#: over the rounds it completed, at least one)
MAX_STEPS = 30
#: the fields of an edit of the text alone (discord.py sends ``tts`` with any content)
TEXT_ONLY = {"content", "allowed_mentions", "tts"}


def kind_of(record: RequestRecord, dm_channels: set[int]) -> str:
    method, path = record.method, record.path
    if path.startswith(("/interactions/", "/webhooks/")):
        return "interaction"
    if method == "POST" and path == "/users/@me/channels":
        return "dm_open"
    if match := re.fullmatch(r"/channels/(\d+)/messages(/\d+)?", path):
        dm = int(match.group(1)) in dm_channels
        if match.group(2) is None:
            return {"POST": "dm_post" if dm else "post"}.get(method, f"{method} messages")
        if method == "PATCH":
            if dm:
                return "dm_edit"
            return "status_edit" if record.fields and set(record.fields) <= TEXT_ONLY else "edit"
        return {"DELETE": "delete", "GET": "fetch"}.get(method, method)
    if re.fullmatch(r"/guilds/\d+/members/\d+", path):
        return "member"
    if re.fullmatch(r"/users/\d+", path):
        return "user"
    if re.fullmatch(r"/channels/\d+", path):
        return "channel"
    return f"{method} {re.sub(r'/[0-9]+', '/:id', path)}"


async def round_of(url: str, channel_id: int) -> tuple[int, bool]:
    """The round the table's encounter is in, and whether it is over (read from the bot's database)."""
    storage = await open_storage(url)
    try:
        for meta in await storage.running_encounters():
            if meta.channel_id == channel_id:
                state = from_json((await storage.load(meta.id)).state)
                assert isinstance(state, EncounterState)
                return state.round, state.over
        return 0, True
    finally:
        await storage.close()


async def play_table(
    run: Run, table: Table, url: str, ruleset: str, scenario: str, rounds: int
) -> tuple[int, int, int]:
    """``/encounter new``, the joins and start; steps until ``rounds`` rounds are done; returns the log index where
    the start began (setup ends there) and the rounds played (fewer when the encounter ended or stalled)."""
    table.ruleset = ruleset
    real = "skirmish" if ruleset == "night" else ruleset
    await command(run, table, table.director, "encounter new", {"ruleset": real, "scenario": scenario})
    for person, side in zip(table.players, sides_of(scenario), strict=False):
        await command(run, table, person, "encounter join", {"side": side})
    started = len(run.fd.requests)
    await command(run, table, table.director, "encounter start", {})
    first, _ = await round_of(url, table.channel.id)
    stuck, now, steps = 0, first, 0
    for steps in range(MAX_STEPS):  # noqa: B007 (how many were played is reported)
        now, over = await round_of(url, table.channel.id)
        if over or now >= first + rounds or stuck >= 3:
            break
        try:
            person, unit, panel, step = await run.fd.wait_for(lambda: fresh_panel(table), timeout=2.0)
        except TimeoutError:
            stuck = 0 if await director_resolves(run, table) else stuck + 1
            continue
        await asyncio.sleep(run.think())
        table.acted[unit] = step
        await act_on_panel(run, table, person, unit, panel)
    await settle(run.fd)
    return started, max(1, now - first), steps


async def settle(fd: FakeDiscord) -> None:
    """Until the bot has made no request for a while (its posts and edits of the last step are out)."""
    seen = -1
    while seen != len(fd.requests):
        seen = len(fd.requests)
        await asyncio.sleep(1.5)


async def sitting(rounds: int, only: str | None, rate_limits: bool, code: Path, label: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        async with FakeDiscord(rate_limits=rate_limits) as fd:
            fd.world.poll_interval = 1.0
            guild = fd.create_guild("Requests")
            url = f"sqlite:///{tmp}/requests.sqlite3"
            mix = [(r, s) for r, s in MIX if only in (None, r)]
            tables: list[Table] = []
            for i, _ in enumerate(mix):
                people = [fd.create_user(f"{role}{i}") for role in ("dir", "ana", "bea")]
                for p in people:
                    guild.add_member(p.user)
                tables.append(Table(guild.create_text_channel(f"table-{i}"), people[0], people[1:], i))
            child = await spawn_bot(fd, url, guild_id=guild.id, code=code)
            run = Run(fd, COMPRESS, time.perf_counter() + 3600, random.Random(1))
            dms = {p.dm_channel.id for t in tables for p in t.people}
            figures: list[dict[str, object]] = []
            try:
                for table, (ruleset, scenario) in zip(tables, mix, strict=True):
                    begin = len(fd.requests)
                    started, played, steps = await play_table(run, table, url, ruleset, scenario, rounds)
                    end = len(fd.requests)
                    await command(run, table, table.director, "encounter end", {})
                    await settle(fd)
                    figures.append(count(fd, ruleset, dms, begin, started, end, played, steps))
            finally:
                await child.stop()
            tag = {"bot": label} if label else {}
            for figure in figures:
                print(json.dumps({**tag, **figure}), flush=True)
            print(
                json.dumps(
                    {
                        **tag,
                        "figure": "summary",
                        "per_round": {str(f["ruleset"]): f["per_round"] for f in figures},
                        "limited_per_round": {str(f["ruleset"]): f["limited_per_round"] for f in figures},
                        "failures": run.failures,
                        "invalid_requests": fd.invalid_requests,
                        **(
                            {"refused_429": dict(fd.rate_limits.refused)}
                            if fd.rate_limits is not None
                            else {}
                        ),
                    }
                ),
                flush=True,
            )


def count(
    fd: FakeDiscord, ruleset: str, dms: set[int], begin: int, started: int, end: int, rounds: int, steps: int
) -> dict[str, object]:
    """The requests of one table: before its start (setup), and from the start through ``rounds`` rounds."""
    log = fd.requests
    unchanged = set(fd.unchanged_edits)
    kinds: dict[str, int] = {}
    for index in range(started, end):
        kind = kind_of(log[index], dms)
        kinds[kind] = kinds.get(kind, 0) + 1
        if index in unchanged:
            kinds["unchanged"] = kinds.get("unchanged", 0) + 1
    played = end - started
    limited = sum(
        1 for i in range(started, end) if kind_of(log[i], dms) != "interaction" and log[i].status != 429
    )
    return {
        "figure": "requests_per_round",
        "ruleset": ruleset,
        "rounds": rounds,
        "steps": steps,
        "per_round": round(played / rounds, 1),
        "per_step": round(played / max(1, steps), 1),
        "limited_per_round": round(limited / rounds, 1),
        "by_kind": {k: round(v / rounds, 2) for k, v in sorted(kinds.items())},
        "setup": started - begin,
        "total": end - begin,
    }


async def main(rounds: int, only: str | None, rate_limits: bool, baseline: str | None, repeat: int) -> None:
    logging.basicConfig(level=logging.ERROR)
    if baseline is None:
        for _ in range(repeat):
            await sitting(rounds, only, rate_limits, ROOT, "")
        return
    with baseline_tree(baseline) as (tree, head):
        for _ in range(repeat):
            await sitting(rounds, only, rate_limits, ROOT, f"work tree ({head})")
            await sitting(rounds, only, rate_limits, tree, baseline)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2, help="rounds each table plays after its start")
    parser.add_argument("--only", choices=[r for r, _ in MIX], help="one ruleset of the mix")
    parser.add_argument(
        "--rate-limits", action="store_true", help="the local Discord enforces Discord's limits"
    )
    parser.add_argument("--baseline", metavar="REV", help="also run the bot of git revision REV, alternately")
    parser.add_argument(
        "--repeat", type=int, default=1, help="sittings (each: this bot, then the baseline's)"
    )
    args = parser.parse_args()
    asyncio.run(main(args.rounds, args.only, args.rate_limits, args.baseline, args.repeat))
