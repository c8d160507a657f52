"""What the fake Discord knows: users, guilds, roles, members, channels, threads, messages and attachments.

Records serialise themselves to the JSON shapes of API v10. `World` owns them, hands out ids, pushes
gateway events through `dispatch` and wakes test code waiting for a change.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import mimetypes
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeAlias, TypeVar

from .ids import SnowflakeFactory
from .limits import FLAG_EPHEMERAL

if TYPE_CHECKING:
    from .interactions import Interaction

T = TypeVar("T")
#: what a change names for `World.wait_for` to wake only those concerned: a snowflake (a channel's, an
#: interaction's: ids never collide), or any other hashable name
Key: TypeAlias = int | str

# Permission bits (https://discord.com/developers/docs/topics/permissions).
ADMINISTRATOR = 1 << 3
ADD_REACTIONS = 1 << 6
VIEW_CHANNEL = 1 << 10
SEND_MESSAGES = 1 << 11
MANAGE_MESSAGES = 1 << 13
EMBED_LINKS = 1 << 14
ATTACH_FILES = 1 << 15
READ_MESSAGE_HISTORY = 1 << 16
USE_APPLICATION_COMMANDS = 1 << 31
MANAGE_THREADS = 1 << 34
CREATE_PUBLIC_THREADS = 1 << 35
CREATE_PRIVATE_THREADS = 1 << 36
SEND_MESSAGES_IN_THREADS = 1 << 38
ALL_PERMISSIONS = (1 << 51) - 1
DEFAULT_EVERYONE_PERMISSIONS = (
    ADD_REACTIONS
    | VIEW_CHANNEL
    | SEND_MESSAGES
    | EMBED_LINKS
    | ATTACH_FILES
    | READ_MESSAGE_HISTORY
    | USE_APPLICATION_COMMANDS
    | CREATE_PUBLIC_THREADS
    | SEND_MESSAGES_IN_THREADS
)
DEFAULT_BOT_PERMISSIONS = (
    DEFAULT_EVERYONE_PERMISSIONS | MANAGE_MESSAGES | MANAGE_THREADS | CREATE_PRIVATE_THREADS
)

GUILD_TEXT = 0
DM = 1
PUBLIC_THREAD = 11
PRIVATE_THREAD = 12
THREAD_TYPES = frozenset({PUBLIC_THREAD, PRIVATE_THREAD})


def iso_now() -> str:
    return dt.datetime.now(dt.UTC).isoformat()


@dataclass(eq=False)
class User:
    id: int
    username: str
    bot: bool = False
    locale: str = "en-US"
    global_name: str | None = None
    dms_open: bool = True

    def to_payload(self) -> dict[str, Any]:
        return {
            "id": str(self.id),
            "username": self.username,
            "discriminator": "0",
            "global_name": self.global_name,
            "avatar": None,
            "bot": self.bot,
            "system": False,
            "public_flags": 0,
            "flags": 0,
            "banner": None,
            "accent_color": None,
            "avatar_decoration_data": None,
        }


@dataclass(eq=False)
class Role:
    id: int
    guild_id: int
    name: str
    permissions: int
    position: int = 0
    managed: bool = False

    def to_payload(self) -> dict[str, Any]:
        return {
            "id": str(self.id),
            "name": self.name,
            "color": 0,
            "colors": {"primary_color": 0, "secondary_color": None, "tertiary_color": None},
            "hoist": False,
            "icon": None,
            "unicode_emoji": None,
            "position": self.position,
            "permissions": str(self.permissions),
            "managed": self.managed,
            "mentionable": False,
            "flags": 0,
            "tags": {},
        }


@dataclass(eq=False)
class Member:
    user: User
    guild: Guild
    role_ids: list[int] = field(default_factory=lambda: list[int]())
    nick: str | None = None
    joined_at: str = field(default_factory=iso_now)

    @property
    def permissions(self) -> int:
        """Guild-level permissions: owner and ADMINISTRATOR get everything (channel overwrites are not modelled)."""
        if self.user.id == self.guild.owner_id:
            return ALL_PERMISSIONS
        value = self.guild.everyone_role.permissions
        for role_id in self.role_ids:
            value |= self.guild.roles[role_id].permissions
        return ALL_PERMISSIONS if value & ADMINISTRATOR else value

    def to_payload(self, *, with_user: bool = True, with_permissions: bool = False) -> dict[str, Any]:
        payload: dict[str, Any] = {
            "roles": [str(r) for r in self.role_ids],
            "nick": self.nick,
            "avatar": None,
            "banner": None,
            "joined_at": self.joined_at,
            "premium_since": None,
            "deaf": False,
            "mute": False,
            "flags": 0,
            "pending": False,
            "communication_disabled_until": None,
        }
        if with_user:
            payload["user"] = self.user.to_payload()
        if with_permissions:
            payload["permissions"] = str(self.permissions)
        return payload


@dataclass(eq=False)
class Attachment:
    id: int
    channel_id: int
    filename: str
    data: bytes
    base_url: str
    description: str | None = None
    content_type: str | None = None

    def __post_init__(self) -> None:
        if self.content_type is None:
            self.content_type = mimetypes.guess_type(self.filename)[0] or "application/octet-stream"

    @property
    def size(self) -> int:
        return len(self.data)

    @property
    def url(self) -> str:
        return f"{self.base_url}/attachments/{self.channel_id}/{self.id}/{self.filename}"

    def read(self) -> bytes:
        return self.data

    def to_payload(self) -> dict[str, Any]:
        return {
            "id": str(self.id),
            "filename": self.filename,
            "description": self.description,
            "content_type": self.content_type,
            "size": self.size,
            "url": self.url,
            "proxy_url": self.url,
            "ephemeral": False,
        }


@dataclass(eq=False)
class Message:
    id: int
    channel: Channel
    author: User
    content: str = ""
    embeds: list[dict[str, Any]] = field(default_factory=lambda: list[dict[str, Any]]())
    components: list[dict[str, Any]] = field(default_factory=lambda: list[dict[str, Any]]())
    attachments: list[Attachment] = field(default_factory=lambda: list[Attachment]())
    flags: int = 0
    type: int = 0
    timestamp: str = field(default_factory=iso_now)
    edited_timestamp: str | None = None
    webhook_id: int | None = None
    application_id: int | None = None
    interaction_metadata: dict[str, Any] | None = None
    visible_to: int | None = None  # user id for ephemeral messages
    deleted: bool = False
    tts: bool = False
    message_reference: dict[str, Any] | None = None

    @property
    def ephemeral(self) -> bool:
        return bool(self.flags & FLAG_EPHEMERAL)

    def custom_ids(self) -> dict[str, dict[str, Any]]:
        """Every clickable or selectable component by custom id, at any depth (v1 rows and v2 layouts)."""
        found: dict[str, dict[str, Any]] = {}

        def walk(components: Iterable[dict[str, Any]]) -> None:
            for component in components:
                if component.get("custom_id"):
                    found[component["custom_id"]] = component
                for key in ("components", "items"):
                    children = component.get(key)
                    if isinstance(children, list):
                        walk(children)  # pyright: ignore[reportUnknownArgumentType]
                accessory = component.get("accessory")
                if isinstance(accessory, dict):
                    walk([accessory])  # pyright: ignore[reportUnknownArgumentType]

        walk(self.components)
        return found

    def to_payload(self) -> dict[str, Any]:
        payload: dict[str, Any] = {
            "id": str(self.id),
            "channel_id": str(self.channel.id),
            "author": self.author.to_payload(),
            "content": self.content,
            "timestamp": self.timestamp,
            "edited_timestamp": self.edited_timestamp,
            "tts": self.tts,
            "mention_everyone": False,
            "mentions": [],
            "mention_roles": [],
            "attachments": [a.to_payload() for a in self.attachments],
            "embeds": self.embeds,
            "components": self.components,
            "pinned": False,
            "type": self.type,
            "flags": self.flags,
        }
        if self.channel.guild is not None:
            payload["guild_id"] = str(self.channel.guild.id)
            member = self.channel.guild.members.get(self.author.id)
            if member is not None and self.webhook_id is None:
                payload["member"] = member.to_payload(with_user=False)
        if self.webhook_id is not None:
            payload["webhook_id"] = str(self.webhook_id)
        if self.application_id is not None:
            payload["application_id"] = str(self.application_id)
        if self.interaction_metadata is not None:
            payload["interaction_metadata"] = self.interaction_metadata
        if self.message_reference is not None:
            payload["message_reference"] = self.message_reference
        return payload


@dataclass(eq=False)
class Channel:
    id: int
    type: int
    world: World
    name: str | None = None
    guild: Guild | None = None
    parent_id: int | None = None
    owner_id: int | None = None
    recipient: User | None = None  # the human side of a DM
    position: int = 0
    topic: str | None = None
    archived: bool = False
    history: list[Message] = field(default_factory=lambda: list[Message]())

    @property
    def is_thread(self) -> bool:
        return self.type in THREAD_TYPES

    def to_payload(self) -> dict[str, Any]:
        payload: dict[str, Any] = {
            "id": str(self.id),
            "type": self.type,
            "last_message_id": str(self.history[-1].id) if self.history else None,
            "flags": 0,
        }
        if self.type == DM:
            assert self.recipient is not None
            payload["recipients"] = [self.recipient.to_payload()]
            return payload
        assert self.guild is not None
        payload |= {
            "guild_id": str(self.guild.id),
            "name": self.name,
            "position": self.position,
            "permission_overwrites": [],
            "nsfw": False,
            "parent_id": str(self.parent_id) if self.parent_id else None,
            "rate_limit_per_user": 0,
            "topic": self.topic,
        }
        if self.is_thread:
            payload |= {
                "owner_id": str(self.owner_id),
                "message_count": len(self.history),
                "total_message_sent": len(self.history),
                "member_count": 1,
                "thread_metadata": {
                    "archived": self.archived,
                    "auto_archive_duration": 1440,
                    "archive_timestamp": iso_now(),
                    "locked": False,
                    "invitable": True,
                },
            }
        return payload

    # -- what people see -------------------------------------------------------------------------

    def messages(self) -> list[Message]:
        """Messages everyone in the channel sees, oldest first (ephemeral ones are private: see Person)."""
        return [m for m in self.history if not m.deleted and m.visible_to is None]

    def last_message(self) -> Message | None:
        visible = self.messages()
        return visible[-1] if visible else None

    async def wait_for_message(
        self, predicate: Callable[[Message], bool] = lambda _: True, *, timeout: float = 5.0
    ) -> Message:
        """The first visible message matching `predicate`, waiting for it to be posted or edited."""

        def find() -> Message | None:
            return next((m for m in self.messages() if predicate(m)), None)

        return await self.world.wait_for(
            find, timeout=timeout, what=f"a message in #{self.name or self.id}", on=(self.id,)
        )

    def create_thread(self, name: str, *, owner: User | None = None, private: bool = False) -> Channel:
        assert self.guild is not None, "threads live in guild channels"
        thread = self.world.new_channel(
            PRIVATE_THREAD if private else PUBLIC_THREAD,
            name=name,
            guild=self.guild,
            parent_id=self.id,
            owner_id=(owner or self.world.bot_user).id,
        )
        payload = thread.to_payload() | {"newly_created": True}
        self.world.dispatch("THREAD_CREATE", payload)
        return thread


@dataclass(eq=False)
class Guild:
    id: int
    name: str
    world: World
    owner_id: int
    locale: str = "en-US"
    roles: dict[int, Role] = field(default_factory=lambda: dict[int, Role]())
    members: dict[int, Member] = field(default_factory=lambda: dict[int, Member]())
    channel_ids: list[int] = field(default_factory=lambda: list[int]())

    @property
    def everyone_role(self) -> Role:
        return self.roles[self.id]  # Discord gives @everyone the guild's id

    @property
    def channels(self) -> list[Channel]:
        return [self.world.channels[c] for c in self.channel_ids]

    def create_role(self, name: str, permissions: int = 0) -> Role:
        role = Role(self.world.ids.next(), self.id, name, permissions, position=len(self.roles))
        self.roles[role.id] = role
        self.world.dispatch("GUILD_ROLE_CREATE", {"guild_id": str(self.id), "role": role.to_payload()})
        return role

    def create_text_channel(self, name: str, *, topic: str | None = None) -> Channel:
        channel = self.world.new_channel(GUILD_TEXT, name=name, guild=self, topic=topic)
        channel.position = len([c for c in self.channels if not c.is_thread]) - 1
        self.world.dispatch("CHANNEL_CREATE", channel.to_payload())
        return channel

    def add_member(
        self,
        user: User | Any,
        *,
        roles: Iterable[Role] = (),
        permissions: int | None = None,
        nick: str | None = None,
    ) -> Member:
        """Adds a person (or bare user); `permissions` becomes a personal role so the bot sees the same bits."""
        record: User = getattr(user, "user", user)
        role_ids = [r.id for r in roles]
        if permissions is not None:
            role_ids.append(self.create_role(f"{record.username}-permissions", permissions).id)
        member = Member(record, self, role_ids, nick)
        self.members[record.id] = member
        self.world.dispatch("GUILD_MEMBER_ADD", member.to_payload() | {"guild_id": str(self.id)})
        return member

    def remove_member(self, user: User | Any) -> None:
        """The person leaves (or is kicked): ``GET /guilds/{id}/members/{user}`` answers 404 / 10007 from now on
        and their guild interactions are refused; their DMs with the bot stay open, as on Discord."""
        user_id: int = user if isinstance(user, int) else user.id
        member = self.members.pop(user_id)
        self.world.dispatch(
            "GUILD_MEMBER_REMOVE", {"guild_id": str(self.id), "user": member.user.to_payload()}
        )

    def member(self, user: User | Any) -> Member:
        """The member record of a User, a Person or a user id."""
        user_id: int = user if isinstance(user, int) else user.id
        return self.members[user_id]

    def to_payload(self) -> dict[str, Any]:
        channels = [c for c in self.channels if not c.is_thread]
        threads = [c for c in self.channels if c.is_thread and not c.archived]
        return {
            "id": str(self.id),
            "name": self.name,
            "icon": None,
            "splash": None,
            "discovery_splash": None,
            "banner": None,
            "description": None,
            "owner_id": str(self.owner_id),
            "afk_channel_id": None,
            "afk_timeout": 300,
            "verification_level": 0,
            "default_message_notifications": 0,
            "explicit_content_filter": 0,
            "mfa_level": 0,
            "nsfw_level": 0,
            "premium_tier": 0,
            "premium_subscription_count": 0,
            "preferred_locale": self.locale,
            "features": [],
            "emojis": [],
            "stickers": [],
            "roles": [r.to_payload() for r in self.roles.values()],
            "system_channel_id": None,
            "system_channel_flags": 0,
            "rules_channel_id": None,
            "public_updates_channel_id": None,
            "vanity_url_code": None,
            "max_members": 500000,
            "max_video_channel_users": 25,
            "unavailable": False,
            "large": False,
            "joined_at": iso_now(),
            "member_count": len(self.members),
            "members": [m.to_payload() for m in self.members.values()],
            "channels": [c.to_payload() for c in channels],
            "threads": [t.to_payload() for t in threads],
            "presences": [],
            "voice_states": [],
            "stage_instances": [],
            "guild_scheduled_events": [],
            "soundboard_sounds": [],
        }


class World:
    """All fake-Discord state plus the two hooks the rest of the fake plugs into."""

    def __init__(self) -> None:
        self.ids = SnowflakeFactory()
        self.base_url = "http://127.0.0.1"
        self.users: dict[int, User] = {}
        self.guilds: dict[int, Guild] = {}
        self.channels: dict[int, Channel] = {}
        self.messages: dict[int, Message] = {}
        self.attachments: dict[int, Attachment] = {}
        self.dm_channels: dict[int, Channel] = {}  # by the human user's id
        self.interactions: dict[int, Interaction] = {}
        self.bot_user = self.new_user("hexbot", bot=True)
        self.application_id = self.bot_user.id  # Discord reuses the bot user's id for the application
        self.owner = self.new_user("app-owner")
        self.dispatch: Callable[[str, dict[str, Any]], None] = lambda event, data: None
        #: who waits in `wait_for`: on named keys (see `touch`), or on every change (``None``)
        self._waiters: dict[Key | None, set[asyncio.Future[None]]] = {}
        self._versions: dict[Key, int] = {}
        self.poll_interval = 0.01
        self.client_failure: BaseException | None = None  # a connected client that crashed
        self.fake_failure: BaseException | None = None  # a bug in the fake while serving a request
        #: bot messages (created or edited) whose payload let a name ping: no ``allowed_mentions``, or one that
        #: parses user/role/everyone mentions out of the text (an explicit ``users`` list is a deliberate ping)
        self.loose_mentions: list[tuple[int, str]] = []

    def check_mentions(self, message: Message, payload: dict[str, Any]) -> None:
        """Notes a bot payload that would let a mention inside a name ping someone."""
        if not message.author.bot:
            return
        allowed = payload.get("allowed_mentions")
        if not isinstance(allowed, dict) or allowed.get("parse"):
            self.loose_mentions.append((message.id, str(payload.get("content") or "")[:80]))

    # -- change notification ---------------------------------------------------------------------

    def touch(self, *keys: Key) -> None:
        """Wakes what waits in `wait_for`: with ``keys`` (what the change touched: the channel id of a message
        posted, edited or deleted, the id of the interaction it answers), the waiters on one of those keys and
        the ones waiting on every change; without, everyone. Waking only the concerned waiters keeps a bench
        with thousands of them linear in the changes, not quadratic."""
        if not keys:
            for waiters in self._waiters.values():
                _wake_all(waiters)
            return
        for key in keys:
            self._versions[key] = self._versions.get(key, 0) + 1
            _wake_all(self._waiters.get(key, ()))
        _wake_all(self._waiters.get(None, ()))

    def version(self, key: Key) -> int:
        """How many changes have named ``key`` so far: a reader may keep what it derived from a channel's
        messages until this moves (every change to a message names its channel)."""
        return self._versions.get(key, 0)

    async def wait_for(
        self, find: Callable[[], T | None], *, timeout: float, what: str, on: Iterable[Key] = ()
    ) -> T:
        """``find()`` once it is not None, re-checked after every change; with ``on``, only after the changes
        naming one of those keys (see `touch`) or naming none, and every `poll_interval` seconds."""
        keys: tuple[Key | None, ...] = tuple(on) or (None,)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            if self.client_failure is not None:
                raise RuntimeError("the discord.py client crashed") from self.client_failure
            if self.fake_failure is not None:
                raise RuntimeError("fakediscord failed while serving a request") from self.fake_failure
            found = find()
            if found is not None:
                return found
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise TimeoutError(f"gave up waiting for {what} after {timeout} s")
            # One future and one timer per wait (no task): woken by `touch()`; the short poll covers
            # predicates over the bot's own state.
            woken: asyncio.Future[None] = loop.create_future()
            for key in keys:
                self._waiters.setdefault(key, set()).add(woken)
            timer = loop.call_later(min(remaining, self.poll_interval), _wake, woken)
            try:
                await woken
            finally:
                timer.cancel()
                for key in keys:
                    waiters = self._waiters.get(key)
                    if waiters is not None:
                        waiters.discard(woken)
                        if not waiters:
                            del self._waiters[key]

    # -- factories -------------------------------------------------------------------------------

    def new_user(self, username: str, *, bot: bool = False, locale: str = "en-US") -> User:
        user = User(self.ids.next(), username, bot=bot, locale=locale, global_name=None if bot else username)
        self.users[user.id] = user
        return user

    def new_guild(
        self,
        name: str,
        *,
        locale: str,
        bot_permissions: int,
        everyone_permissions: int,
        shard: tuple[int, int] | None = None,
    ) -> Guild:
        guild_id = self.ids.next() if shard is None else self.ids.next_on_shard(*shard)
        guild = Guild(guild_id, name, self, owner_id=self.owner.id, locale=locale)
        guild.roles[guild.id] = Role(guild.id, guild.id, "@everyone", everyone_permissions)
        bot_role = Role(self.ids.next(), guild.id, self.bot_user.username, bot_permissions, 1, managed=True)
        guild.roles[bot_role.id] = bot_role
        guild.members[self.owner.id] = Member(self.owner, guild)
        guild.members[self.bot_user.id] = Member(self.bot_user, guild, [bot_role.id])
        self.guilds[guild.id] = guild
        return guild

    def new_channel(self, kind: int, **fields: Any) -> Channel:
        channel = Channel(self.ids.next(), kind, self, **fields)
        self.channels[channel.id] = channel
        if channel.guild is not None:
            channel.guild.channel_ids.append(channel.id)
        return channel

    def dm_channel(self, user: User) -> Channel:
        """The DM channel between the bot and `user`, created on first use as Discord does."""
        channel = self.dm_channels.get(user.id)
        if channel is None:
            channel = self.new_channel(DM, recipient=user)
            self.dm_channels[user.id] = channel
        return channel

    def new_attachment(
        self,
        channel_id: int,
        filename: str,
        data: bytes,
        *,
        description: str | None = None,
        content_type: str | None = None,
    ) -> Attachment:
        attachment = Attachment(
            self.ids.next(), channel_id, filename, data, self.base_url, description, content_type
        )
        self.attachments[attachment.id] = attachment
        return attachment

    def post(self, message: Message, *keys: Key) -> Message:
        """Adds ``message`` to its channel; ``keys``: what else the change concerns (its interaction)."""
        self.messages[message.id] = message
        message.channel.history.append(message)
        self.touch(message.channel.id, *keys)
        return message

    def find_channel(self, channel_id: int) -> Channel | None:
        return self.channels.get(channel_id)

    def bot_permissions_in(self, channel: Channel) -> int:
        if channel.guild is None:
            return (
                VIEW_CHANNEL
                | SEND_MESSAGES
                | EMBED_LINKS
                | ATTACH_FILES
                | READ_MESSAGE_HISTORY
                | ADD_REACTIONS
            )
        return channel.guild.members[self.bot_user.id].permissions


def _wake(woken: asyncio.Future[None]) -> None:
    if not woken.done():
        woken.set_result(None)


def _wake_all(waiters: Iterable[asyncio.Future[None]]) -> None:
    for woken in waiters:
        _wake(woken)
