"""End-to-end tests of tests/fakediscord: a stock discord.py bot, only its two URLs redirected."""

from __future__ import annotations

import asyncio
import io
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import aiohttp
import discord
import pytest
import pytest_asyncio
from discord import app_commands
from discord.ext import commands
from discord.webhook.async_ import async_context, interaction_response_params

from tests.fakediscord import FakeDiscord, InvocationError, NoResponse, Person
from tests.fakediscord.errors import DiscordAPIError
from tests.fakediscord.limits import check_message_fields
from tests.fakediscord.state import Channel, Guild

pytestmark = pytest.mark.asyncio(loop_scope="module")

UNITS = ["archer", "artillery", "cavalry", "infantry", "scout"]


# -- the stock bot under test ---------------------------------------------------------------------


class NameModal(discord.ui.Modal, title="Name your unit"):
    unit_name: discord.ui.TextInput[NameModal] = discord.ui.TextInput(
        label="Name", custom_id="unit-name", max_length=20
    )

    def __init__(self, unit: int) -> None:
        super().__init__()
        self.unit = unit

    async def on_submit(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message(f"unit {self.unit} named {self.unit_name.value}")


class OpenButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=r"panel:open:(?P<unit>\d+)"):
    def __init__(self, unit: int) -> None:
        super().__init__(discord.ui.Button(label="Rename", custom_id=f"panel:open:{unit}"))
        self.unit = unit

    @classmethod
    async def from_custom_id(  # type: ignore[override]
        cls, interaction: discord.Interaction, item: discord.ui.Button[Any], match: Any
    ) -> OpenButton:
        return cls(int(match["unit"]))

    async def callback(self, interaction: discord.Interaction) -> None:  # type: ignore[override]
        await interaction.response.send_modal(NameModal(self.unit))


class PanelView(discord.ui.View):
    def __init__(self) -> None:
        super().__init__(timeout=60)  # not persistent: discord.py then routes by response_message_id
        self.add_item(OpenButton(7))

    @discord.ui.select(
        custom_id="panel:pick", options=[discord.SelectOption(label=u, value=u) for u in UNITS], max_values=2
    )
    async def pick(self, interaction: discord.Interaction, select: discord.ui.Select[PanelView]) -> None:
        await interaction.response.edit_message(content=f"picked {', '.join(select.values)}")

    @discord.ui.button(label="Later", custom_id="panel:later")
    async def later(self, interaction: discord.Interaction, button: discord.ui.Button[PanelView]) -> None:
        # Discord: after a deferred update, the "original response" is the message the component is on
        await interaction.response.defer()
        await interaction.edit_original_response(content="edited after a deferred update")


@dataclass
class Record:
    """What the bot observed, for assertions."""

    errors: list[BaseException] = field(default_factory=lambda: list[BaseException]())
    codes: list[int] = field(default_factory=lambda: list[int]())
    dms: list[str] = field(default_factory=lambda: list[str]())
    ready_count: int = 0
    resumed_count: int = 0
    slow_delay: float = 0.0


class TableBot(commands.Bot):
    async def before_identify_hook(self, shard_id: int | None, *, initial: bool = False) -> None:
        """discord.py's documented hook; its default sleeps 5 s before every re-IDENTIFY."""


def build_bot(guild_id: int, record: Record) -> commands.Bot:
    intents = discord.Intents.none()
    intents.guilds = True
    intents.guild_messages = True
    intents.dm_messages = True
    intents.message_content = True
    bot = TableBot(
        command_prefix=commands.when_mentioned,
        intents=intents,
        help_command=None,
        chunk_guilds_at_startup=False,
        guild_ready_timeout=0.05,  # public option; Discord-like 2 s default would slow every start
    )
    tree = bot.tree
    guild = discord.Object(id=guild_id)

    async def setup_hook() -> None:
        bot.add_dynamic_items(OpenButton)
        await tree.sync()
        await tree.sync(guild=guild)

    bot.setup_hook = setup_hook  # type: ignore[method-assign]

    @bot.event
    async def on_ready() -> None:
        record.ready_count += 1

    @bot.event
    async def on_resumed() -> None:
        record.resumed_count += 1

    @bot.event
    async def on_message(message: discord.Message) -> None:
        if message.author.bot:
            return
        record.dms.append(message.content)
        if message.guild is None:
            await message.channel.send(f"echo: {message.content}")

    @tree.error
    async def on_error(interaction: discord.Interaction, error: app_commands.AppCommandError) -> None:
        record.errors.append(getattr(error, "original", error))

    @tree.command(description="Answer pong")
    async def ping(interaction: discord.Interaction) -> None:
        await interaction.response.send_message("pong")

    dice = app_commands.Group(name="dice", description="Dice", guild_only=True)
    tree.add_command(dice, guild=guild)

    @dice.command(name="roll", description="Roll one die")
    @app_commands.describe(sides="faces")
    async def roll(
        interaction: discord.Interaction, sides: app_commands.Range[int, 2, 100], label: str = "d"
    ) -> None:
        await interaction.response.send_message(f"{label}{sides}: rolled {sides // 2}")

    unit = app_commands.Group(name="unit", description="Units")
    tree.add_command(unit)

    @unit.command(name="info", description="Unit info")
    async def unit_info(interaction: discord.Interaction, name: str) -> None:
        await interaction.response.send_message(f"unit: {name}", ephemeral=True)

    @unit_info.autocomplete("name")
    async def unit_names(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
        return [app_commands.Choice(name=u, value=u) for u in UNITS if u.startswith(current)]

    @tree.command(description="Deferred report with a file")
    async def report(interaction: discord.Interaction) -> None:
        await interaction.response.defer(thinking=True)
        await interaction.followup.send(
            "report ready", file=discord.File(io.BytesIO(b"hex report"), filename="report.txt")
        )
        await interaction.followup.send("details for you", ephemeral=True)

    @tree.command(description="Echo a file reversed")
    async def echo(interaction: discord.Interaction, file: discord.Attachment) -> None:
        data = await file.read()
        reply = discord.File(io.BytesIO(data[::-1]), filename="reversed.bin")
        await interaction.response.send_message(f"got {file.filename} {len(data)} bytes", file=reply)

    @tree.command(description="DM someone")
    async def dm(interaction: discord.Interaction, target: discord.User) -> None:
        try:
            await target.send("you have been summoned")
        except discord.Forbidden as error:
            await interaction.response.send_message(f"DMs closed ({error.code})", ephemeral=True)
        else:
            await interaction.response.send_message("sent", ephemeral=True)

    @tree.command(description="A panel with a button and a select")
    async def panel(interaction: discord.Interaction) -> None:
        await interaction.response.send_message("panel", view=PanelView())

    @tree.command(description="Answer too late")
    async def slow(interaction: discord.Interaction) -> None:
        await asyncio.sleep(record.slow_delay)
        await interaction.response.send_message("finally")

    @tree.command(description="Acknowledge twice, as a second bot instance would")
    async def twice(interaction: discord.Interaction) -> None:
        await interaction.response.send_message("first")
        params = interaction_response_params(4, {"content": "second"})
        async with aiohttp.ClientSession() as session:
            try:
                await async_context.get().create_interaction_response(
                    interaction.id, interaction.token, session=session, params=params
                )
            except discord.HTTPException as error:
                record.codes.append(error.code)

    @tree.command(description="Try payloads Discord refuses")
    async def limits(interaction: discord.Interaction) -> None:
        attempts: list[dict[str, Any]] = [
            {"content": "x" * 2001},
            {"embed": discord.Embed(title="t" * 257)},
            {
                "embed": discord.Embed(description="d" * 4000)
                .add_field(name="n", value="v" * 1024)
                .add_field(name="m", value="v" * 1024)
            },
            {},
            {"file": discord.File(io.BytesIO(b"z" * 2048), filename="big.bin")},
        ]
        for kwargs in attempts:
            try:
                await interaction.response.send_message(**kwargs)
            except discord.HTTPException as error:
                record.codes.append(error.code)
        await interaction.response.send_message("codes " + ",".join(map(str, record.codes)))

    @tree.command(description="Post in the channel outside the interaction")
    async def announce(interaction: discord.Interaction) -> None:
        await interaction.response.defer(ephemeral=True)
        assert isinstance(interaction.channel, discord.TextChannel)
        await interaction.channel.send("announcement")
        thread = await interaction.channel.create_thread(
            name="battle", type=discord.ChannelType.public_thread
        )
        await thread.send("in the thread")
        await interaction.followup.send("done")

    return bot


# -- fixtures -------------------------------------------------------------------------------------


@dataclass
class World:
    fd: FakeDiscord
    bot: commands.Bot
    record: Record
    guild: Guild
    channel: Channel
    alice: Person
    bob: Person


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def world() -> AsyncIterator[World]:
    async with FakeDiscord() as fd:
        guild = fd.create_guild("Wargames", locale="es-ES")
        channel = guild.create_text_channel("table")
        alice = fd.create_user("alice", locale="en-GB")
        bob = fd.create_user("bob")
        guild.add_member(alice)
        guild.add_member(bob)
        record = Record()
        bot = build_bot(guild.id, record)
        await fd.start_client(bot)
        yield World(fd, bot, record, guild, channel, alice, bob)
        await bot.close()


@pytest.fixture(autouse=True)
def reset_record(world: World) -> None:
    world.record.codes.clear()
    world.record.errors.clear()


# -- login, sync, commands ------------------------------------------------------------------------


async def test_login_identifies_and_syncs_commands(world: World) -> None:
    fd, bot = world.fd, world.bot
    assert bot.user is not None and bot.user.id == fd.bot_user_id
    assert bot.application_id == fd.application_id
    assert [g.id for g in bot.guilds] == [world.guild.id]
    assert bot.get_channel(world.channel.id) is not None
    assert {c["name"] for c in fd.registered_commands()} == {
        "ping",
        "unit",
        "report",
        "echo",
        "dm",
        "panel",
        "slow",
        "twice",
        "limits",
        "announce",
    }
    assert [c["name"] for c in fd.registered_commands(world.guild)] == ["dice"]
    assert any(r.method == "PUT" and r.path.endswith("/commands") and r.status == 200 for r in fd.requests)


async def test_slash_command_reply_is_public(world: World) -> None:
    handle = await world.alice.run_command(world.channel, "ping")
    message = await handle.response()
    assert message is not None and message.content == "pong" and not message.ephemeral
    assert world.channel.last_message() is message
    payload = handle.interaction.to_payload(world.fd.world)
    assert payload["member"]["user"]["id"] == str(world.alice.id)
    assert payload["locale"] == "en-GB" and payload["guild_locale"] == "es-ES"


async def test_subcommand_options_are_type_checked(world: World) -> None:
    handle = await world.alice.run_command(world.channel, "dice roll", {"sides": 20, "label": "D"})
    message = await handle.response()
    assert message is not None and message.content == "D20: rolled 10"
    with pytest.raises(InvocationError):
        await world.alice.run_command(world.channel, "dice roll", {"sides": "twenty"})
    with pytest.raises(InvocationError):
        await world.alice.run_command(world.channel, "dice roll", {"sides": 101})
    with pytest.raises(InvocationError):
        await world.alice.run_command(world.channel, "dice roll", {})
    with pytest.raises(InvocationError):
        await world.alice.run_command(world.channel, "nosuch")


async def test_autocomplete_and_ephemeral_visibility(world: World) -> None:
    choices = await world.alice.autocomplete(world.channel, "unit info", "name", "ar")
    assert [c["value"] for c in choices] == ["archer", "artillery"]
    handle = await world.alice.run_command(world.channel, "unit info", {"name": "archer"})
    message = await handle.response()
    assert message is not None and message.ephemeral and message.content == "unit: archer"
    assert message in world.alice.ephemeral_messages(world.channel)
    assert message not in world.bob.ephemeral_messages()
    assert message not in world.channel.messages()


async def test_defer_then_followup_with_file(world: World) -> None:
    handle = await world.alice.run_command(world.channel, "report")
    first = await handle.response()
    assert first is not None
    final = await handle.final_response()
    assert final is first and final.content == "report ready"
    assert [a.filename for a in final.attachments] == ["report.txt"]
    assert final.attachments[0].read() == b"hex report"
    async with aiohttp.ClientSession() as session, session.get(final.attachments[0].url) as resp:
        assert await resp.read() == b"hex report"
    [details] = await handle.wait_for_followups(1)
    assert details.ephemeral and world.alice.can_see(details) and not world.bob.can_see(details)


async def test_attachment_option_round_trip(world: World) -> None:
    handle = await world.alice.run_command(world.channel, "echo", {"file": ("map.bin", b"\x00\x01\x02hex")})
    message = await handle.response()
    assert message is not None and message.content == "got map.bin 6 bytes"
    assert message.attachments[0].read() == b"xeh\x02\x01\x00"


async def test_dm_to_user_and_closed_dms(world: World) -> None:
    handle = await world.alice.run_command(world.channel, "dm", {"target": world.bob})
    assert (await handle.response()).content == "sent"  # type: ignore[union-attr]
    assert [m.content for m in world.bob.dms()] == ["you have been summoned"]
    world.bob.close_dms()
    try:
        handle = await world.alice.run_command(world.channel, "dm", {"target": world.bob})
        assert (await handle.response()).content == "DMs closed (50007)"  # type: ignore[union-attr]
    finally:
        world.bob.open_dms()
    assert len(world.bob.dms()) == 1


async def test_user_sends_dm_and_bot_answers(world: World) -> None:
    await world.alice.send_dm("hello bot")
    reply = await world.alice.wait_for_dm(lambda m: m.content.startswith("echo"))
    assert reply.content == "echo: hello bot"
    assert "hello bot" in world.record.dms


async def test_global_command_in_dm_uses_user_object(world: World) -> None:
    handle = await world.alice.run_command(world.alice.dm_channel, "ping")
    assert (await handle.response()).content == "pong"  # type: ignore[union-attr]
    payload = handle.interaction.to_payload(world.fd.world)
    assert "member" not in payload and payload["user"]["id"] == str(world.alice.id)
    with pytest.raises(InvocationError):
        await world.alice.run_command(world.alice.dm_channel, "dice roll", {"sides": 6})


async def test_button_opens_modal_and_submit_replies(world: World) -> None:
    panel = await (await world.alice.run_command(world.channel, "panel")).response()
    assert panel is not None
    click = await world.alice.click(panel, "panel:open:7")
    modal = await click.modal()
    assert modal["title"] == "Name your unit"
    submitted = await world.alice.submit_modal(click, {"unit-name": "Iron Guard"})
    reply = await submitted.response()
    assert reply is not None and reply.content == "unit 7 named Iron Guard"
    with pytest.raises(InvocationError):
        await world.alice.click(panel, "panel:nope")


async def test_select_edits_the_message(world: World) -> None:
    panel = await (await world.alice.run_command(world.channel, "panel")).response()
    assert panel is not None
    picked = await world.bob.select(panel, "panel:pick", ["scout", "cavalry"])
    updated = await picked.response()
    assert updated is panel and panel.content == "picked scout, cavalry" and panel.edited_timestamp
    with pytest.raises(InvocationError):
        await world.bob.select(panel, "panel:pick", ["dragon"])


async def test_a_deferred_component_update_edits_its_message_as_the_original_response(world: World) -> None:
    panel = await (await world.alice.run_command(world.channel, "panel")).response()
    assert panel is not None
    click = await world.bob.click(panel, "panel:later")
    await click.acknowledged()
    await world.fd.wait_for(lambda: panel.content == "edited after a deferred update", what="the edit")
    assert world.record.errors == []


async def test_missing_the_deadline_gives_unknown_interaction(world: World) -> None:
    fd = world.fd
    assert fd.response_deadline == 3.0
    fd.response_deadline, world.record.slow_delay = 0.2, 0.4
    try:
        handle = await world.alice.run_command(world.channel, "slow")
        with pytest.raises(NoResponse):
            await handle.response()
        error = await handle.wait_for_rejection(10062)
        assert error.status == 404
        await fd.wait_for(lambda: world.record.errors, what="the bot's error handler")
    finally:
        fd.response_deadline, world.record.slow_delay = 3.0, 0.0
    [bot_error] = world.record.errors
    assert isinstance(bot_error, discord.NotFound) and bot_error.code == 10062


async def test_second_acknowledgement_is_refused(world: World) -> None:
    handle = await world.alice.run_command(world.channel, "twice")
    assert (await handle.response()).content == "first"  # type: ignore[union-attr]
    await handle.wait_for_rejection(40060)
    await world.fd.wait_for(lambda: world.record.codes)
    assert world.record.codes == [40060]
    assert [m.content for m in world.channel.messages()].count("second") == 0


async def test_limits_empty_messages_and_attachment_size(world: World) -> None:
    world.fd.attachment_size_limit = 1024
    try:
        handle = await world.alice.run_command(world.channel, "limits")
        message = await handle.response()
    finally:
        world.fd.attachment_size_limit = 10 * 1024 * 1024
    assert message is not None and message.content == "codes 50035,50035,50035,50006,40005"
    errors = {e.code: e for e in handle.rejected}
    assert set(errors) == {50035, 50006, 40005}
    assert handle.interaction.to_payload(world.fd.world)["attachment_size_limit"] == 1024


async def test_component_limits_use_discord_error_shape() -> None:
    button = {"type": 2, "style": 1, "label": "go", "custom_id": "a"}
    cases = [
        [{"type": 1, "components": [button | {"custom_id": f"b{i}"}]} for i in range(6)],
        [{"type": 1, "components": [button | {"custom_id": f"b{i}"} for i in range(6)]}],
        [{"type": 1, "components": [button | {"custom_id": "c" * 101}]}],
        [{"type": 1, "components": [button | {"label": "l" * 81}]}],
        [
            {
                "type": 1,
                "components": [
                    {
                        "type": 3,
                        "custom_id": "s",
                        "options": [{"label": str(i), "value": str(i)} for i in range(26)],
                    }
                ],
            }
        ],
        [{"type": 1, "components": [button, button]}],
    ]
    for components in cases:
        with pytest.raises(DiscordAPIError) as caught:
            check_message_fields({"components": components})
        assert caught.value.code == 50035 and "components" in caught.value.body()["errors"]
    check_message_fields({"components": [{"type": 1, "components": [button]}]})


async def test_followup_token_expires(world: World) -> None:
    handle = await world.alice.run_command(world.channel, "ping")
    await handle.response()
    world.fd.token_lifetime = 0.0
    try:
        async with aiohttp.ClientSession() as session:
            webhook = discord.Webhook.partial(
                world.fd.application_id, handle.interaction.token, session=session
            )
            with pytest.raises(discord.HTTPException) as caught:
                await webhook.send("too late", wait=True)
    finally:
        world.fd.token_lifetime = 15 * 60.0
    assert caught.value.status == 401 and caught.value.code == 50027


async def test_rate_limit_and_server_error_are_retried(world: World) -> None:
    fd = world.fd
    fd.fail_next("POST", r"^/channels/\d+/messages$", status=429, retry_after=0.05)
    fd.fail_next("POST", r"^/channels/\d+/threads$", status=500)
    fd.fail_next("POST", r"^/interactions/\d+/[^/]+/callback$", status=429, retry_after=0.05)
    before = len(fd.requests)
    handle = await world.alice.run_command(world.channel, "announce")
    final = await handle.final_response(timeout=10)
    assert final.content == "done" and final.ephemeral
    statuses = [(r.path.split("/")[-1], r.status) for r in fd.requests[before:] if r.method == "POST"]
    assert ("callback", 429) in statuses and ("messages", 429) in statuses and ("threads", 500) in statuses
    assert statuses.count(("messages", 200)) == 2 and ("threads", 201) in statuses
    assert world.channel.messages()[-1].content == "announcement"
    [thread] = [c for c in world.guild.channels if c.is_thread]
    assert thread.name == "battle" and [m.content for m in thread.messages()] == ["in the thread"]


async def test_reconnect_resumes_and_replays_missed_events(world: World) -> None:
    fd, record = world.fd, world.record
    resumes = fd.gateway.resume_count
    fd.force_reconnect()
    await world.alice.send_message(world.channel, "sent during the reconnect")
    await fd.wait_for(lambda: fd.gateway.resume_count > resumes, what="RESUME")
    await fd.wait_for(lambda: record.resumed_count > 0 and "sent during the reconnect" in record.dms)
    assert record.dms.count("sent during the reconnect") == 1
    handle = await world.alice.run_command(world.channel, "ping")
    assert (await handle.response()).content == "pong"  # type: ignore[union-attr]


async def test_invalid_session_forces_a_new_identify(world: World) -> None:
    fd, record = world.fd, world.record
    identifies, readies = fd.gateway.identify_count, record.ready_count
    fd.invalidate_session()
    await fd.wait_for(lambda: fd.gateway.identify_count > identifies, what="a new IDENTIFY")
    await fd.wait_for(lambda: record.ready_count > readies, what="on_ready again")
    handle = await world.alice.run_command(world.channel, "ping")
    assert (await handle.response()).content == "pong"  # type: ignore[union-attr]
