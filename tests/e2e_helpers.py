"""Shared pieces of the bot's end-to-end tests: start a real ``HexBot`` against tests/fakediscord and act as
players on their order panels (DM or ephemeral), the way a person would: clicks and selects only."""

from __future__ import annotations

import asyncio
import json
import os
import re
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bot.panels.draft import Draft, decode_draft
from bot.phase_gate import CONFIRM_WITHIN_MS
from bot.process.client import EXTENSIONS, HexBotCore
from bot.process.config import Config
from bot.storage import Encounter
from rules.registry import ruleset_for
from tests.fakediscord import Channel, FakeDiscord, InteractionHandle, Message, Person
from tests.storage_fixtures import database_url

#: the databases the race, crash-resume and leak-matrix tests run the bot on: SQLite always, PostgreSQL too where a
#: throwaway server is given (CI starts one, .ci/postgres.sh); the other end-to-end tests keep to SQLite, for time
E2E_BACKENDS = ["sqlite", *(["postgresql"] if os.environ.get("HEXDIRECTOR_TEST_POSTGRES_URL") else [])]


class PersonPace:
    """The click limiter's clock for a test that plays as people do (bot/click_limit.py): each click is a quarter
    of a second after the one before, however fast the test sends them, so no test meets "Too fast" by accident
    and none waits on the wall clock. A test of the limit itself sets its own clock."""

    def __init__(self, step: float = 0.25) -> None:
        self.step = step
        self.now = 0.0

    def __call__(self) -> float:
        self.now += self.step
        return self.now


class BotUnderTest(HexBotCore):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.clicks.clock = PersonPace()

    async def before_identify_hook(self, shard_id: int | None, *, initial: bool = False) -> None:
        """discord.py's hook sleeps 5 s before every re-IDENTIFY; nothing to rate-limit against the fake."""


async def start_bot(
    fd: FakeDiscord,
    database_url: str,
    guild_id: int,
    *,
    deadline_interval: float = 3600,
    extensions: tuple[str, ...] = EXTENSIONS,
    seal_dice: bool = False,
) -> BotUnderTest:
    """The bot on the fake Discord; ``seal_dice`` off unless asked, so a scenario's seed draws the dice tests
    expect (DICE-1)."""
    config = Config(
        token=fd.bot_token,
        database_url=database_url,
        dev_guild=guild_id,
        log_level="WARNING",
        seal_dice=seal_dice,
    )
    bot = BotUnderTest(
        config, deadline_interval=deadline_interval, guild_ready_timeout=0.05, extensions=extensions
    )
    await fd.start_client(bot)
    return bot


def panel_ids(message: Message) -> dict[str, dict[str, Any]]:
    return {cid: c for cid, c in message.custom_ids().items() if cid.startswith("hexd:")}


def panels_for(messages: list[Message], unit: str) -> list[Message]:
    return [m for m in messages if any(f":unit:{unit}:" in cid for cid in m.custom_ids()) and not m.deleted]


async def panel_for_phase(fd: FakeDiscord, person: Person, unit: str, phase_no: int) -> Message:
    """The newest DM panel of ``unit`` drafted for phase ``phase_no`` (waits on the local Discord's state)."""

    def find() -> Message | None:
        for m in reversed(panels_for(person.dms(), unit)):
            found = draft_in(m)
            if found is not None and found[0] == phase_no:
                return m
        return None

    found = await fd.wait_for(find, what=f"{person.name}'s {unit} panel for phase {phase_no}", timeout=60)
    return await showing(fd, person, found, unit)


def shows(message: Message, unit: str) -> bool:
    """Whether the panel message shows ``unit``'s controls (not only its button in a unit picker)."""
    return any(f":unit:{unit}:" in cid and not cid.endswith(":pick") for cid in message.custom_ids())


async def showing(fd: FakeDiscord, person: Person, message: Message, unit: str) -> Message:
    """``message`` showing ``unit``: one message for several units acting at once shows one of them, and its
    unit picker's button switches it to another (edited in place)."""
    pick = next((cid for cid in message.custom_ids() if cid.endswith(f":unit:{unit}:pick")), None)
    if pick is None or shows(message, unit):
        return message
    await (await person.click(message, pick)).acknowledged()
    await fd.wait_for(lambda: shows(message, unit), what=f"the message to show {unit}", timeout=60)
    return message


def ticked(message: Message, unit: str) -> bool:
    """Whether a unit picker's button for ``unit`` says its order is in (✅)."""
    pick = message.custom_ids().get(
        next((c for c in message.custom_ids() if c.endswith(f":unit:{unit}:pick")), "")
    )
    return pick is not None and str(pick.get("label", "")).endswith("✅")


async def submitted(fd: FakeDiscord, panel: Message, unit: str, handle: InteractionHandle) -> Message:
    """The answer to a Submit of ``unit`` on ``panel``: a private reply (a refusal, or the acknowledgement of a
    panel for one unit), or, on a message for several units (a unit picker), the message itself once its text
    says the order is in and its picker ticks the unit."""
    if not any(c.endswith(":pick") for c in panel.custom_ids()):
        return (await handle.wait_for_replies(1, timeout=60))[0]
    before = panel.content if ticked(panel, unit) else None

    def answered() -> Message | None:
        if replies := handle.replies():
            return replies[0]
        return panel if ticked(panel, unit) and panel.content and panel.content != before else None

    return await fd.wait_for(answered, what=f"the Submit of {unit} to be answered", timeout=60)


def draft_in(message: Message) -> tuple[int, Draft] | None:
    for row in message.components:
        for comp in row.get("components", []):
            found = decode_draft(str(comp.get("custom_id", "")))
            if found is not None:
                return found
    return None


def newest_panel_phase(*seats: tuple[Person, str]) -> int:
    """The newest phase any of these (player, unit) seats has a DM panel for (0: none yet)."""
    phases = [
        found[0]
        for person, unit in seats
        for m in panels_for(person.dms(), unit)
        if (found := draft_in(m)) is not None
    ]
    return max(phases, default=0)


def picked_in(message: Message, action: str) -> tuple[str, ...]:
    """What a panel's select ``action`` shows picked (its default options), as the player sees it."""
    for cid, comp in message.custom_ids().items():
        if cid.endswith(f":{action}"):
            return tuple(str(o["value"]) for o in comp.get("options", []) if o.get("default"))
    return ()


def step_of(message: Message) -> str:
    ids = message.custom_ids()
    if any(cid.endswith(":decide") for cid in ids):
        return "decision"
    if any(cid.endswith(":crew") for cid in ids):
        return "crew"
    if any(cid.endswith(":repairs") for cid in ids):  # phase 5 (the orders panel has a stations menu too)
        return "repairs"
    if any(cid.endswith(":submit") for cid in ids):
        return "orders"
    return "wait"


def button_id(message: Message, unit: str, action: str) -> str:
    for cid in message.custom_ids():
        if cid.endswith(f":unit:{unit}:{action}"):
            return cid
    raise AssertionError(f"no {action} button for {unit} in {sorted(message.custom_ids())}: {message.embeds}")


def retargeted(custom_id: str, unit: str) -> str:
    """A panel control's custom id edited to name another unit (what a modified client could send)."""
    return re.sub(r":unit:[^:]+:", f":unit:{unit}:", custom_id, count=1)


def forge(message: Message, custom_id: str, forged: str) -> str:
    """A modified client: the control ``custom_id`` of ``message`` sends ``forged`` instead (returned)."""
    for row in message.components:
        for comp in row["components"]:
            if comp.get("custom_id") == custom_id:
                comp["custom_id"] = forged
    return forged


async def fill_and_submit(
    fd: FakeDiscord,
    person: Person,
    panel: Message,
    unit: str,
    moves: str = "",
    fire: int = 1,
    *,
    repair: bool = False,
) -> Message:
    """Press the move buttons, pick up to ``fire`` fire declarations (or, in phase 5, the first repair when
    ``repair``), Submit; returns the acknowledgement."""
    step = step_of(panel)
    if step == "decision":
        cid = button_id(panel, unit, "decide")
        options = panel.custom_ids()[cid]["options"]
        handle = await person.select(panel, cid, [options[0]["value"]])
        await handle.acknowledged()
        await fd.wait_for(
            lambda: (d := draft_in(panel)) is not None and d[1].text("choice") == options[0]["value"]
        )
    elif step == "repairs":  # phase 5: the first repair offered (EXO-6.1), or none
        repair_id = next((cid for cid in panel.custom_ids() if cid.endswith(f":unit:{unit}:repairs")), None)
        if repair_id is not None and repair:
            value = panel.custom_ids()[repair_id]["options"][0]["value"]
            handle = await person.select(panel, repair_id, [value])
            await handle.acknowledged()
            await fd.wait_for(lambda: value in picked_in(panel, "repairs"))
    elif step == "orders":
        for letter in moves:
            before = draft_in(panel)
            handle = await person.click(panel, button_id(panel, unit, letter))
            await handle.acknowledged()
            await fd.wait_for(lambda b=before: draft_in(panel) != b, what="the panel to show the new draft")
        fire_id = next((cid for cid in panel.custom_ids() if cid.endswith(f":unit:{unit}:fire")), None)
        if fire_id is not None and fire:
            values = [o["value"] for o in panel.custom_ids()[fire_id]["options"]][:fire]
            handle = await person.select(panel, fire_id, values)
            await handle.acknowledged()

            # the panel keeps what the rules take together (EXO-3.3: one ship per weapon): the first, at least
            def taken() -> bool:
                picked = picked_in(panel, "fire")
                return values[0] in picked and set(picked) <= set(values)

            await fd.wait_for(taken, what="the panel to show the fire picked")
    handle = await person.click(panel, button_id(panel, unit, "submit"))
    return await submitted(fd, panel, unit, handle)


@dataclass
class Table:
    fd: FakeDiscord
    bot: BotUnderTest
    channel: Channel
    director: Person
    ana: Person
    bea: Person
    db: str
    guild_id: int
    lang: str = "en"  # the table's language when every member shares one (the ruleset e2e tests run both)


@asynccontextmanager
async def room(
    tmp_path: Path,
    *,
    lang: str = "en",
    guild_name: str = "Wargames",
    channel_name: str = "table",
    locales: tuple[str, str, str] | None = None,
    backend: str = "sqlite",
    seal_dice: bool = False,
) -> AsyncIterator[Table]:
    """A guild and a channel in ``lang``, a director (Dora), Ana and Bea (each in ``locales`` when given, else
    ``lang``), and the bot connected to a fresh database of ``backend`` (:data:`E2E_BACKENDS`)."""
    locale = "es-ES" if lang == "es" else "en-US"
    async with FakeDiscord() as fd, database_url(backend, tmp_path) as db:
        guild = fd.create_guild(guild_name, locale=locale)
        channel = guild.create_text_channel(channel_name)
        director, ana, bea = (
            fd.create_user(name, locale=who)
            for name, who in zip(("dora", "ana", "bea"), locales or (locale,) * 3, strict=True)
        )
        for person in (director, ana, bea):
            guild.add_member(person.user)
        bot = await start_bot(fd, db, guild.id, seal_dice=seal_dice)
        t = Table(fd, bot, channel, director, ana, bea, db, guild.id, lang)
        try:
            yield t
        finally:
            await t.bot.close()


def duel_table(tmp_path: Path, backend: str = "sqlite") -> AbstractAsyncContextManager[Table]:
    """The exo duel's table: English guild, Dora and Ana in English, Bea in Spanish."""
    return room(tmp_path, channel_name="duel", locales=("en-US", "en-US", "es-ES"), backend=backend)


def everything_public(channel: Channel) -> str:
    """All a channel member can read: contents, embeds, component labels and custom ids."""
    return json.dumps(
        [
            {"c": m.content, "e": m.embeds, "k": m.components, "a": [a.filename for a in m.attachments]}
            for m in channel.messages()
        ],
        ensure_ascii=False,
    )


async def encounter_of(t: Table) -> Encounter:
    meta = await t.bot.service.storage.active_encounter_in_channel(t.guild_id, t.channel.id)
    assert meta is not None
    return meta


async def create_from_file(
    director: Person, channel: Channel, ruleset: str, name: str, text: str
) -> tuple[Message, Message]:
    """``/encounter new`` with a scenario file: the director's private "checked" reply (a file is checked in
    private, so its problems never reach the channel) and the public announcement with the units to join."""
    handle = await director.run_command(
        channel, "encounter new", {"ruleset": ruleset, "file": (name, text.encode())}
    )
    checked = await handle.final_response(timeout=30)
    assert checked.ephemeral, checked.content
    announced = (await handle.wait_for_followups(1, timeout=30))[0]
    assert not announced.ephemeral
    return checked, announced


async def duel_ready_to_start(t: Table) -> None:
    """An exo duel in the channel that Ana and Bea have joined, not started yet."""
    await (
        await t.director.run_command(t.channel, "encounter new", {"ruleset": "exo", "scenario": "exo-duel"})
    ).final_response()
    for person in (t.ana, t.bea):
        await (await person.run_command(t.channel, "encounter join")).final_response()


def duel_name(lang: str) -> str:
    """The exo duel's name in a channel of ``lang`` (data/scenarios/exo-duel.toml names it in both)."""
    return "Duelo en el cinturón de Kessel" if lang == "es" else "Duel in the Kessel belt"


async def open_duel(t: Table) -> int:
    handle = await t.director.run_command(
        t.channel, "encounter new", {"ruleset": "exo", "scenario": "exo-duel"}
    )
    created = await handle.final_response()
    assert duel_name(t.lang) in created.content
    joined = await (await t.ana.run_command(t.channel, "encounter join")).final_response()
    assert "Halcón" in joined.content
    t.bea.close_dms()
    joined = await (await t.bea.run_command(t.channel, "encounter join")).final_response()
    assert "Pirata" in joined.content
    started = await (await t.director.run_command(t.channel, "encounter start")).final_response()
    assert "starts" in started.content
    return (await encounter_of(t)).id


async def phase_seen(t: Table) -> None:
    """The director has had the current phase in front of them for longer than anyone reacts to a new one
    (bot/phase_gate.py): what the bot had to show is shown and recorded, and Discord's clock moves on past the
    confirmation window (no wait: the local Discord's clock is the test's)."""
    await t.bot.settle()
    meta = await t.bot.service.storage.active_encounter_in_channel(t.guild_id, t.channel.id)
    for _ in range(3000):  # a command's handler may still be queueing the phase's posts: poll, not timing
        if meta is None or meta.status != "running":
            break
        shown = await t.bot.service.storage.announcement(meta.id)
        if shown.message_id and shown.phase_no == (await t.bot.service.read(meta.id)).phase_no:
            break
        await asyncio.sleep(0.02)
    else:
        raise AssertionError("the current phase was never shown in the channel")
    await t.bot.settle()
    t.fd.advance_clock(CONFIRM_WITHIN_MS + 1)


async def current_panel_dm(t: Table, person: Person, unit: str, phase_no: int) -> Message:
    return await panel_for_phase(t.fd, person, unit, phase_no)


async def orders_panel(t: Table, person: Person) -> Message:
    handle = await person.run_command(t.channel, "orders")
    panel = await handle.final_response(timeout=60)
    assert panel.ephemeral
    return panel


async def play_phase(
    t: Table, enc: int, *, ana_moves: str = "", bea_moves: str = "", repair: bool = False
) -> None:
    """Whoever is missing gives orders: Ana on her DM panel, Bea (DMs closed) on /orders."""
    status = await t.bot.service.status(enc)
    for missing in status.missing:
        if missing.user_id == t.ana.id:
            panel = await current_panel_dm(t, t.ana, "halcon", status.phase_no)
            moves = ana_moves if step_of(panel) == "orders" else ""
            await fill_and_submit(t.fd, t.ana, panel, "halcon", moves=moves, fire=2, repair=repair)
        elif missing.user_id == t.bea.id:
            panel = await orders_panel(t, t.bea)
            moves = bea_moves if step_of(panel) == "orders" else ""
            await fill_and_submit(t.fd, t.bea, panel, "pirata", moves=moves, fire=2, repair=repair)


async def wait_phase_after(t: Table, enc: int, phase_no: int) -> None:
    async def moved() -> bool:
        # the game may end with that phase: its last commit and the status change are two transactions
        seen = await t.bot.service.read(enc)
        return seen.phase_no > phase_no or seen.state.over

    for _ in range(3000):  # polling the database (60 s ceiling for slow machines), not timing anything
        if await moved():
            return
        await asyncio.sleep(0.02)
    raise AssertionError(f"phase {phase_no} did not resolve")


async def wait_turn_after(t: Table, enc: int, phase_no: int) -> None:
    """Until a step after ``phase_no`` waits for someone (or the game is over). Steps that run by themselves (a
    chit draw) are committed one by one, so a step after ``phase_no`` may be one the bot is still resolving."""
    for _ in range(3000):  # polling the database (60 s ceiling for slow machines), not timing anything
        seen = await t.bot.service.read(enc)
        if seen.state.over or (seen.phase_no > phase_no and ruleset_for(seen.state).awaiting(seen.state)):
            return
        await asyncio.sleep(0.02)
    raise AssertionError(f"step {phase_no} did not resolve")


async def public_board(t: Table) -> bytes:
    """The public board image, as Bea (a player of the other side) can ask for it."""
    reply = await (await t.bea.run_command(t.channel, "encounter board", {"view": "public"})).final_response()
    return reply.attachments[0].read()


async def skirmish_moves(fd: FakeDiscord, person: Person, panel: Message, unit: str) -> list[str]:
    """The hexes a skirmish panel's Move menu offers (action texts). When it lists directions first (more hexes in
    reach than a menu holds), the first direction is picked and its hexes are read once the panel shows them."""
    cid, comp = next(
        ((c, comp) for c, comp in panel.custom_ids().items() if c.endswith(f":unit:{unit}:move")), ("", {})
    )
    values = [str(o["value"]) for o in comp.get("options", [])]
    if not values or not values[0].startswith("way "):
        return values
    way = values[0].removeprefix("way ")
    await (await person.select(panel, cid, [values[0]])).acknowledged()
    await fd.wait_for(
        lambda: (d := draft_in(panel)) is not None and d[1].text("way") == way, what="the direction's hexes"
    )
    menu = next((c for k, c in panel.custom_ids().items() if k.endswith(f":unit:{unit}:move")), {})
    return [str(o["value"]) for o in menu.get("options", []) if not str(o["value"]).startswith("way ")]


async def act_on_panel(t: Table, person: Person, panel: Message, unit: str) -> None:
    """What a person does who just wants the game to go on: end the activation where that is offered (SK-1.1);
    else Submit as drafted (an empty declaration stands still, an empty exo order does nothing), first taking
    the first option of each menu when the panel needs a choice before Submit (an ocs loss, OCS-6)."""
    panel = await showing(t.fd, person, panel, unit)
    ids = panel.custom_ids()
    end = next((c for c in ids if c.endswith(f":unit:{unit}:end") and not ids[c].get("disabled")), None)
    submit = next(c for c in ids if c.endswith(f":unit:{unit}:submit"))
    if end is None and ids[submit].get("disabled"):
        for cid, comp in list(ids.items()):
            if f":unit:{unit}:" in cid and comp.get("options"):
                before = json.dumps(panel.components)
                await (await person.select(panel, cid, [comp["options"][0]["value"]])).acknowledged()
                await t.fd.wait_for(
                    lambda b=before: json.dumps(panel.components) != b, what="the choice taken"
                )
    await submitted(t.fd, panel, unit, await person.click(panel, end or submit))


async def open_a_combat(t: Table, enc: int) -> None:
    """OCS-2: the director-run procedure's panel (the director's own, by DM): open a combat on the first hex
    offered with the first attacker offered, and Submit."""
    phase_no = (await t.bot.service.read(enc)).phase_no
    panel = await panel_for_phase(t.fd, t.director, "director", phase_no)
    for action in ("task", "at", "att"):
        cid, comp = next(
            (c, v) for c, v in panel.custom_ids().items() if c.endswith(f":unit:director:{action}")
        )
        values = [o["value"] for o in comp["options"]]
        value = "open" if action == "task" else values[0]
        before = json.dumps(panel.components)
        await (await t.director.select(panel, cid, [value])).acknowledged()
        await t.fd.wait_for(lambda b=before: json.dumps(panel.components) != b, what=f"{action} taken")
    await act_on_panel(t, t.director, panel, "director")
    await wait_turn_after(t, enc, phase_no)
