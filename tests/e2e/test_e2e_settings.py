"""``/settings`` end to end (real bot, local Discord): only Manage Server may change them, and each change takes
effect at once — the channel language of the next board post, the director role's powers, and the default
deadline of the phases opened afterwards (driven by the service clock, never wall time)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from bot.results import StatusView
from cogs.announcer import Announcer
from tests.e2e_helpers import (
    BotUnderTest,
    Table,
    encounter_of,
    open_duel,
    phase_seen,
    play_phase,
    start_bot,
    wait_phase_after,
)
from tests.fakediscord import Channel, FakeDiscord, Message, Person
from tests.fakediscord.state import DEFAULT_EVERYONE_PERMISSIONS

pytestmark = pytest.mark.slow

MANAGE_GUILD = 1 << 5  # Discord's permission bit


class Clock:
    """The service's clock, moved by hand."""

    def __init__(self) -> None:
        self.now = datetime(2030, 1, 1, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


@dataclass
class Server:
    table: Table
    admin: Person
    carla: Person

    @property
    def fd(self) -> FakeDiscord:
        return self.table.fd

    @property
    def bot(self) -> BotUnderTest:
        return self.table.bot

    @property
    def channel(self) -> Channel:
        return self.table.channel


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[Server]:
    async with FakeDiscord() as fd:
        guild = fd.create_guild("Wargames", locale="en-US")
        channel = guild.create_text_channel("duel")
        dora, ana, bea, carla = (fd.create_user(n) for n in ("dora", "ana", "bea", "carla"))
        admin = fd.create_user("olga", locale="es-ES")
        for person in (dora, ana, bea, carla):
            guild.add_member(person.user)
        guild.add_member(admin.user, permissions=DEFAULT_EVERYONE_PERMISSIONS | MANAGE_GUILD)
        db = f"sqlite:///{tmp_path / 'settings.sqlite3'}"
        bot = await start_bot(fd, db, guild.id)
        s = Server(Table(fd, bot, channel, dora, ana, bea, db, guild.id), admin, carla)
        try:
            yield s
        finally:
            await s.bot.close()


async def next_order_phase(t: Table, enc: int, after: int) -> StatusView:
    """The status once a phase later than ``after`` waits for orders (phases without orders run on by themselves)."""
    for _ in range(3000):  # polling the database (60 s ceiling for slow machines), not timing anything
        status = await t.bot.service.status(enc)
        if status.phase_no > after and status.missing:
            return status
        await asyncio.sleep(0.02)
    raise AssertionError(f"no phase after {after} waits for orders")


async def answer(
    person: Person, channel: Channel, name: str, options: dict[str, Any] | None = None
) -> Message:
    reply = await (await person.run_command(channel, name, options or {})).response()
    assert reply is not None, name
    return reply


async def test_only_manage_server_changes_settings_and_everyone_may_look(server: Server) -> None:
    s = server
    attempts: list[tuple[str, dict[str, Any]]] = [
        ("settings language", {"language": "es"}),
        ("settings director-role", {}),
        ("settings deadline", {"minutes": 5}),
        ("settings open-limit", {"limit": 9}),
        ("settings imports", {"managers_only": True}),
    ]
    for name, options in attempts:
        refused = await answer(s.table.ana, s.channel, name, options)
        assert refused.ephemeral and "Only members with Manage Server" in refused.content, refused.content
    untouched = await s.bot.service.storage.get_guild_settings(s.table.guild_id)
    assert (untouched.language, untouched.director_role_id, untouched.default_deadline_minutes) == (
        None,
        None,
        None,
    )

    shown = await answer(s.table.ana, s.channel, "settings show")
    assert shown.ephemeral and "auto (the server's language, now English)" in shown.content
    assert "Default deadline: none" in shown.content
    assert "Open encounters per member: 3" in shown.content and "Imports: directors" in shown.content

    # the manager reads Spanish (her own locale); the channel keeps following the server until told otherwise
    done = await answer(s.admin, s.channel, "settings deadline", {"minutes": 45})
    assert done.ephemeral and "45 min" in done.content and "Cada fase nueva" in done.content
    shown = await answer(s.admin, s.channel, "settings show")
    assert "Plazo por defecto: 45 min por fase" in shown.content and "automático" in shown.content
    # how many encounters a member may keep open, and imports kept to Manage Server
    done = await answer(s.admin, s.channel, "settings open-limit", {"limit": 0})
    assert done.ephemeral and "cuantos encuentros abiertos quiera" in done.content
    done = await answer(s.admin, s.channel, "settings imports", {"managers_only": True})
    assert done.ephemeral and "solo Gestionar servidor" in done.content
    kept = await s.bot.service.storage.get_guild_settings(s.table.guild_id)
    assert kept.open_limit is None and kept.import_managers_only

    guild = s.fd.world.guilds[s.table.guild_id]
    commands = {c["name"]: c for c in s.fd.registered_commands(guild)}
    assert commands["settings"]["name_localizations"]["es-ES"] == "ajustes"
    names = {o["name"]: o for o in commands["settings"]["options"]}
    assert names["director-role"]["name_localizations"]["es-ES"] == "rol-director"


async def test_the_channel_language_follows_the_setting_at_once(server: Server) -> None:
    s, t = server, server.table
    enc = await open_duel(t)
    meta = await encounter_of(t)
    announcer = s.bot.announcer
    assert isinstance(announcer, Announcer)
    assert (
        await announcer.channel_lang(meta) == "en"
    )  # an English server: read (and cached) before the change
    await s.fd.wait_for(
        lambda: any("Waiting for orders" in m.content for m in s.channel.messages()),
        what="the English status message",
    )

    done = await answer(s.admin, s.channel, "settings language", {"language": "es"})
    assert done.ephemeral and "español" in done.content
    posts_before = len(s.channel.messages())
    status = await s.bot.service.status(enc)
    await play_phase(t, enc, ana_moves="D", bea_moves="I")
    await wait_phase_after(t, enc, status.phase_no)

    def board_post() -> Message | None:
        return next((m for m in s.channel.messages()[posts_before:] if m.embeds), None)

    post = await s.fd.wait_for(board_post, what="the next board post", timeout=60)
    title = str(post.embeds[0].get("title"))
    assert "Ronda 1 · Fase" in title, title
    account = str(post.embeds[0].get("description"))
    assert account and "round" not in account.lower()
    after = [m for m in s.channel.messages()[posts_before:] if m.embeds]
    assert not any("round" in str(m.embeds[0].get("title")) for m in after), [m.embeds for m in after]

    # auto: back to the server's language (English) with no wait for the settings cache
    await answer(s.admin, s.channel, "settings language", {"language": "auto"})
    assert await announcer.channel_lang(meta) == "en"


async def test_the_director_role_grants_director_powers(server: Server) -> None:
    s, t = server, server.table
    await open_duel(t)
    guild = s.fd.world.guilds[t.guild_id]
    referees = guild.create_role("Árbitros")
    guild.member(s.carla).role_ids.append(referees.id)

    refused = await answer(s.carla, s.channel, "director pause")
    assert refused.ephemeral and "Only the encounter's directors" in refused.content

    done = await answer(s.admin, s.channel, "settings director-role", {"role": referees})
    assert done.ephemeral and f"<@&{referees.id}>" in done.content
    await phase_seen(t)
    paused = await answer(s.carla, s.channel, "director pause")
    assert not paused.ephemeral and "paused" in paused.content
    assert (await encounter_of(t)).status == "paused"
    shown = await answer(s.carla, s.channel, "settings show")
    assert f"Director role: <@&{referees.id}>" in shown.content

    cleared = await answer(s.admin, s.channel, "settings director-role")
    assert "Ya no hay rol de director" in cleared.content
    refused = await answer(s.carla, s.channel, "director resume")
    assert "Only the encounter's directors" in refused.content
    assert (await encounter_of(t)).status == "paused"


async def test_the_default_deadline_applies_to_newly_opened_phases(server: Server) -> None:
    s, t = server, server.table
    clock = Clock()
    s.bot.service.clock = clock  # deadlines are computed from the service clock: no wall time involved
    storage = s.bot.service.storage
    enc = await open_duel(t)
    first = await s.bot.service.status(enc)
    assert await storage.due_deadlines(clock() + timedelta(days=30)) == []  # no default yet

    await answer(s.admin, s.channel, "settings deadline", {"minutes": 10})
    await play_phase(t, enc)
    opened = await next_order_phase(t, enc, first.phase_no)
    assert await storage.due_deadlines(clock() + timedelta(minutes=9)) == []
    due = await storage.due_deadlines(clock() + timedelta(minutes=10))
    assert [(d.encounter_id, d.phase_no) for d in due] == [(enc, opened.phase_no)]

    # when the clock passes it, the deadline loop resolves the phase with whatever came in
    clock.now += timedelta(minutes=11)
    scheduler = s.bot.scheduler
    assert scheduler is not None
    assert await scheduler.tick() == 1
    current = await next_order_phase(t, enc, opened.phase_no)
    assert [d.phase_no for d in await storage.due_deadlines(clock() + timedelta(minutes=10))] == [
        current.phase_no
    ]

    # 0 removes the default: the phases opened from now on wait for orders
    await answer(s.admin, s.channel, "settings deadline", {"minutes": 0})
    await play_phase(t, enc)
    later = await next_order_phase(t, enc, current.phase_no)
    assert [
        d for d in await storage.due_deadlines(clock() + timedelta(days=30)) if d.phase_no >= later.phase_no
    ] == []
