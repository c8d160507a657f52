"""REST API v10 routes the discord.py client uses, answering with Discord's payloads and errors.

JSON responses carry exactly `Content-Type: application/json`: discord.py compares the header verbatim
and treats anything else (even with `; charset=utf-8`) as text, which breaks login.
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, cast

from aiohttp import BodyPartReader, web

from . import errors
from .commands import CommandRegistry
from .errors import DiscordAPIError
from .interactions import InteractionRules
from .limits import DEFAULT_ATTACHMENT_SIZE_LIMIT
from .messages import Upload, apply_edit, build_message
from .ratelimits import InvalidRequests, RateLimits, retry_after_header
from .state import (
    CREATE_PRIVATE_THREADS,
    CREATE_PUBLIC_THREADS,
    DM,
    SEND_MESSAGES,
    SEND_MESSAGES_IN_THREADS,
    VIEW_CHANNEL,
    Channel,
    Message,
    World,
)

API = "/api/v10"
#: the API version a rate-limit proxy in front of the bot asks about the token on its start (nirn.py: the bot user
#: and GET /gateway/bot, to learn the token's global limit): answered as v10
PROXY_API = "/api/v9"
#: set on a request whose edit left the message as people see it
UNCHANGED = web.RequestKey("unchanged", bool)
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def json_response(body: Any, status: int = 200, headers: dict[str, str] | None = None) -> web.Response:
    return web.Response(
        body=json.dumps(body).encode(),
        status=status,
        headers={"Content-Type": "application/json", **(headers or {})},
    )


@dataclass
class Fault:
    """An injected failure for the next request matching `method` and `path` (a regex on the API path)."""

    method: str
    path: re.Pattern[str]
    status: int
    retry_after: float
    is_global: bool
    via: bool = True  # a 429 without ``Via`` comes from Cloudflare, not Discord: discord.py does not retry it

    def matches(self, method: str, path: str) -> bool:
        return self.method in ("*", method) and self.path.search(path) is not None

    def response(self) -> web.Response:
        if self.status == 429:
            # discord.py only retries a 429 that has a `Via` header and a JSON `retry_after`.
            body = {
                "message": "You are being rate limited.",
                "retry_after": self.retry_after,
                "global": self.is_global,
                "code": 0,
            }
            headers = {
                **({"Via": "1.1 google"} if self.via else {}),
                "Retry-After": str(max(1, round(self.retry_after))),
                "X-RateLimit-Scope": "global" if self.is_global else "user",
            }
            return json_response(body, 429, headers)
        return json_response({"message": f"{self.status}: Server Error", "code": 0}, self.status)


def _rate_limited(retry_after: float, is_global: bool, headers: dict[str, str]) -> web.Response:
    """Discord's 429: ``Via`` (discord.py retries only a 429 that has it, and the JSON ``retry_after``)."""
    body = {
        "message": "You are being rate limited.",
        "retry_after": round(retry_after, 3),
        "global": is_global,
    }
    return json_response(
        body, 429, {"via": "1.1 google", "retry-after": retry_after_header(retry_after), **headers}
    )


@dataclass(frozen=True)
class RequestRecord:
    method: str
    path: str
    status: int
    #: the top-level fields of a JSON edit's body (a bench tells a text-only edit from one with embeds or files)
    fields: tuple[str, ...] = ()


_DISPOSITION_PARAM = re.compile(r';\s*(name|filename)="((?:[^"\\]|\\.)*)"')


def _disposition(part: BodyPartReader) -> dict[str, str]:
    """`name` and `filename` of a part. aiohttp's own parser (RFC 2231, email.headerregistry) costs ~0.2 ms a
    part, which the benchmark would charge to the bot; discord.py only ever sends the plain quoted form."""
    header = part.headers.get("Content-Disposition", "")
    return {key: value.replace('\\"', '"') for key, value in _DISPOSITION_PARAM.findall(header)}


async def read_body(request: web.Request) -> tuple[dict[str, Any], list[Upload]]:
    """JSON body, or multipart `payload_json` plus `files[n]` parts."""
    # the raw header, not `request.content_type` (a slow general parser; see `_disposition`)
    if request.headers.get("Content-Type", "").startswith("multipart/form-data"):
        payload: dict[str, Any] = {}
        uploads: list[Upload] = []
        reader = await request.multipart()
        async for part in reader:
            if not isinstance(part, BodyPartReader):
                continue
            params = _disposition(part)
            name = params.get("name", "")
            if name == "payload_json":
                payload = json.loads(await part.text())
            elif match := re.fullmatch(r"files\[(\d+)\]", name):
                content_type = part.headers.get("Content-Type")
                uploads.append(
                    Upload(
                        int(match.group(1)),
                        params.get("filename") or "file",
                        bytes(await part.read()),
                        content_type,
                    )
                )
        return payload, uploads
    if request.can_read_body:
        raw = await request.read()
        return (json.loads(raw) if raw else {}), []
    return {}, []


class RestApi:
    def __init__(self, world: World, registry: CommandRegistry, rules: InteractionRules, token: str) -> None:
        self.world = world
        self.registry = registry
        self.rules = rules
        self.token = token
        self.faults: list[Fault] = []
        self.random_faults: errors.RandomFaults | None = None
        self.log: list[RequestRecord] = []
        self.message_size_limit = DEFAULT_ATTACHMENT_SIZE_LIMIT
        self.gateway_url = ""
        self.shard_count = 1  # GET /gateway/bot's recommended shard count (FakeDiscord(shards=...))
        self.rate_limits: RateLimits | None = None  # FakeDiscord(rate_limits=True)
        self.invalid = InvalidRequests(lambda: 0.0)  # its clock is set by FakeDiscord
        self.unchanged_edits: list[int] = []  # indices in ``log`` of edits that changed nothing people see

    # -- plumbing ---------------------------------------------------------------------------------

    @web.middleware
    async def middleware(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        in_api = request.path.startswith((API + "/", PROXY_API + "/"))
        path = request.path.removeprefix(API).removeprefix(PROXY_API)
        verdict = None
        if self.rate_limits is not None and in_api:
            verdict = self.rate_limits.check(request.method, path, request.headers.get("Authorization", ""))
        if verdict is not None and verdict.refused:
            response = _rate_limited(verdict.retry_after, verdict.is_global, verdict.headers)
        else:
            response = await self._respond(request, handler, path)
            if verdict is not None:
                response.headers.update(verdict.headers)
        self.invalid.record(response.status, response.headers.get("X-RateLimit-Scope"))
        if request.get(UNCHANGED):
            self.unchanged_edits.append(len(self.log))
        fields: tuple[str, ...] = ()
        if request.method == "PATCH" and request.content_type == "application/json" and request.body_exists:
            body: object = await request.json()  # read once already by the handler: aiohttp keeps it
            fields = (
                tuple(sorted(str(k) for k in cast(dict[object, object], body)))
                if isinstance(body, dict)
                else ()
            )
        self.log.append(RequestRecord(request.method, path, response.status, fields))
        return response

    async def _respond(self, request: web.Request, handler: Handler, path: str) -> web.StreamResponse:
        if request.path.startswith((API + "/", PROXY_API + "/")):
            for fault in self.faults:
                if fault.matches(request.method, path):
                    self.faults.remove(fault)
                    return fault.response()
            if self.random_faults is not None and (drawn := self.random_faults.draw()) is not None:
                kind, retry_after = drawn
                return Fault(
                    "*", re.compile(""), kind.status, retry_after, kind.is_global, kind.via
                ).response()
            if not self._public(path) and request.headers.get("Authorization") != f"Bot {self.token}":
                return json_response(errors.unauthorized().body(), 401)
        try:
            return await handler(request)
        except DiscordAPIError as error:
            return json_response(error.body(), error.status)
        except web.HTTPNotFound:
            return json_response(errors.not_found().body(), 404)
        except web.HTTPMethodNotAllowed:
            return json_response({"message": "405: Method Not Allowed", "code": 0}, 405)
        except Exception as error:
            # A bug in the fake: a 400 makes discord.py fail fast (a 5xx would be retried for seconds),
            # and waiting tests are failed with the original exception.
            self.world.fake_failure = error
            self.world.touch()
            return json_response({"message": f"fakediscord internal error: {error!r}", "code": 0}, 400)

    @staticmethod
    def _public(path: str) -> bool:
        # Interaction callbacks and webhook calls authenticate with the token in the URL.
        return path.startswith(("/interactions/", "/webhooks/", "/gateway"))

    def routes(self) -> list[web.RouteDef]:
        r = web
        return [
            r.get(API + "/users/@me", self.get_me),
            r.get(API + "/users/{user_id}", self.get_user),
            r.post(API + "/users/@me/channels", self.create_dm),
            r.get(API + "/oauth2/applications/@me", self.get_application),
            r.get(API + "/applications/@me", self.get_application),
            r.get(API + "/gateway", self.get_gateway),
            r.get(API + "/gateway/bot", self.get_gateway),
            r.get(PROXY_API + "/users/@me", self.get_me),
            r.get(PROXY_API + "/gateway/bot", self.get_gateway),
            r.get(API + "/applications/{app}/commands", self.get_commands),
            r.put(API + "/applications/{app}/commands", self.put_commands),
            r.post(API + "/applications/{app}/commands", self.post_command),
            r.get(API + "/applications/{app}/guilds/{guild_id}/commands", self.get_commands),
            r.put(API + "/applications/{app}/guilds/{guild_id}/commands", self.put_commands),
            r.post(API + "/applications/{app}/guilds/{guild_id}/commands", self.post_command),
            r.get(API + "/guilds/{guild_id}", self.get_guild),
            r.get(API + "/guilds/{guild_id}/channels", self.get_guild_channels),
            r.get(API + "/guilds/{guild_id}/roles", self.get_roles),
            r.get(API + "/guilds/{guild_id}/members/{user_id}", self.get_member),
            r.get(API + "/channels/{channel_id}", self.get_channel),
            r.post(API + "/channels/{channel_id}/typing", self.typing),
            r.get(API + "/channels/{channel_id}/messages", self.list_messages),
            r.post(API + "/channels/{channel_id}/messages", self.create_message),
            r.get(API + "/channels/{channel_id}/messages/{message_id}", self.get_message),
            r.patch(API + "/channels/{channel_id}/messages/{message_id}", self.edit_message),
            r.delete(API + "/channels/{channel_id}/messages/{message_id}", self.delete_message),
            r.post(API + "/channels/{channel_id}/threads", self.create_thread),
            r.post(API + "/channels/{channel_id}/messages/{message_id}/threads", self.create_thread),
            r.post(API + "/interactions/{interaction_id}/{token}/callback", self.interaction_callback),
            r.post(API + "/webhooks/{app}/{token}", self.webhook_execute),
            r.get(API + "/webhooks/{app}/{token}/messages/{message_id}", self.webhook_get),
            r.patch(API + "/webhooks/{app}/{token}/messages/{message_id}", self.webhook_edit),
            r.delete(API + "/webhooks/{app}/{token}/messages/{message_id}", self.webhook_delete),
            r.get("/attachments/{channel_id}/{attachment_id}/{filename}", self.download),
        ]

    def _note_unchanged(self, request: web.Request, before: object, message: Message) -> None:
        """An edit that left the message as people see it (text, embeds, components, files) carried nothing."""
        if _seen(message) == before:
            request[UNCHANGED] = True

    # -- lookups ---------------------------------------------------------------------------------

    def _channel(self, request: web.Request) -> Channel:
        channel = self.world.channels.get(_int(request.match_info["channel_id"]))
        if channel is None:
            raise errors.unknown_channel()
        return channel

    def _message(self, request: web.Request, channel: Channel) -> Message:
        message = self.world.messages.get(_int(request.match_info["message_id"]))
        if (
            message is None
            or message.channel is not channel
            or message.deleted
            or message.visible_to is not None
        ):
            raise errors.unknown_message()
        return message

    def _guild_id(self, request: web.Request) -> int | None:
        if "guild_id" not in request.match_info:
            return None
        guild_id = _int(request.match_info["guild_id"])
        if guild_id not in self.world.guilds:
            raise errors.missing_access()
        return guild_id

    def _check_app(self, request: web.Request) -> None:
        if request.match_info["app"] != str(self.world.application_id):
            raise errors.missing_access()

    # -- users, application, gateway -------------------------------------------------------------

    async def get_me(self, request: web.Request) -> web.Response:
        return json_response(self.world.bot_user.to_payload() | {"verified": True, "mfa_enabled": False})

    async def get_user(self, request: web.Request) -> web.Response:
        user = self.world.users.get(_int(request.match_info["user_id"]))
        if user is None:
            raise errors.unknown_user()
        return json_response(user.to_payload())

    async def get_application(self, request: web.Request) -> web.Response:
        bot = self.world.bot_user
        return json_response(
            {
                "id": str(self.world.application_id),
                "name": bot.username,
                "icon": None,
                "description": "fakediscord application",
                "rpc_origins": [],
                "bot_public": True,
                "bot_require_code_grant": False,
                "bot": bot.to_payload(),
                "owner": self.world.owner.to_payload(),
                "team": None,
                "verify_key": "0" * 64,
                "flags": 0,
                "tags": [],
                "approximate_guild_count": len(self.world.guilds),
                "integration_types_config": {"0": {}},
            }
        )

    async def get_gateway(self, request: web.Request) -> web.Response:
        url = self.gateway_url
        limit = {"total": 1000, "remaining": 1000, "reset_after": 0, "max_concurrency": 1}
        return json_response({"url": url, "shards": self.shard_count, "session_start_limit": limit})

    async def create_dm(self, request: web.Request) -> web.Response:
        body, _ = await read_body(request)
        user = self.world.users.get(_int(str(body.get("recipient_id"))))
        if user is None or user.bot:
            raise errors.unknown_user()
        return json_response(self.world.dm_channel(user).to_payload())

    # -- application commands --------------------------------------------------------------------

    async def get_commands(self, request: web.Request) -> web.Response:
        self._check_app(request)
        return json_response(self.registry.list(self._guild_id(request)))

    async def put_commands(self, request: web.Request) -> web.Response:
        self._check_app(request)
        guild_id = self._guild_id(request)
        body, _ = await read_body(request)
        payloads: list[dict[str, Any]] = body if isinstance(body, list) else []  # pyright: ignore[reportUnnecessaryIsInstance]
        _check_command_payloads(payloads)
        stored = self.registry.overwrite(guild_id, payloads)
        self.world.touch()
        return json_response(stored)

    async def post_command(self, request: web.Request) -> web.Response:
        self._check_app(request)
        guild_id = self._guild_id(request)
        body, _ = await read_body(request)
        _check_command_payloads([body])
        stored = self.registry.upsert(guild_id, body)
        self.world.touch()
        return json_response(stored, 201)

    # -- guilds ----------------------------------------------------------------------------------

    async def get_guild(self, request: web.Request) -> web.Response:
        guild = self.world.guilds.get(_int(request.match_info["guild_id"]))
        if guild is None:
            raise errors.unknown_guild()
        payload = guild.to_payload()
        for key in ("members", "channels", "threads", "presences", "voice_states", "joined_at", "large"):
            payload.pop(key, None)
        return json_response(payload)

    async def get_guild_channels(self, request: web.Request) -> web.Response:
        guild = self.world.guilds.get(_int(request.match_info["guild_id"]))
        if guild is None:
            raise errors.unknown_guild()
        return json_response([c.to_payload() for c in guild.channels if not c.is_thread])

    async def get_roles(self, request: web.Request) -> web.Response:
        guild = self.world.guilds.get(_int(request.match_info["guild_id"]))
        if guild is None:
            raise errors.unknown_guild()
        return json_response([r.to_payload() for r in guild.roles.values()])

    async def get_member(self, request: web.Request) -> web.Response:
        guild = self.world.guilds.get(_int(request.match_info["guild_id"]))
        if guild is None:
            raise errors.unknown_guild()
        member = guild.members.get(_int(request.match_info["user_id"]))
        if member is None:
            raise errors.unknown_member()
        return json_response(member.to_payload())

    # -- channels and messages -------------------------------------------------------------------

    async def get_channel(self, request: web.Request) -> web.Response:
        return json_response(self._channel(request).to_payload())

    async def typing(self, request: web.Request) -> web.Response:
        self._channel(request)
        return web.Response(status=204)

    async def list_messages(self, request: web.Request) -> web.Response:
        channel = self._channel(request)
        visible = [m for m in channel.history if not m.deleted and m.visible_to is None]
        limit = min(int(request.query.get("limit", "50")), 100)
        if "before" in request.query:
            visible = [m for m in visible if m.id < int(request.query["before"])]
        if "after" in request.query:
            visible = [m for m in visible if m.id > int(request.query["after"])][:limit]
        newest_first = list(reversed(visible))[:limit]
        return json_response([m.to_payload() for m in sorted(newest_first, key=lambda m: -m.id)])

    async def get_message(self, request: web.Request) -> web.Response:
        channel = self._channel(request)
        return json_response(self._message(request, channel).to_payload())

    def _check_can_send(self, channel: Channel) -> None:
        if channel.type == DM:
            assert channel.recipient is not None
            if not channel.recipient.dms_open:
                raise errors.cannot_dm_user()
            return
        needed = VIEW_CHANNEL | (SEND_MESSAGES_IN_THREADS if channel.is_thread else SEND_MESSAGES)
        if self.world.bot_permissions_in(channel) & needed != needed:
            raise errors.missing_permissions()

    async def create_message(self, request: web.Request) -> web.Response:
        channel = self._channel(request)
        self._check_can_send(channel)
        body, uploads = await read_body(request)
        message = build_message(
            self.world,
            channel,
            self.world.bot_user,
            body,
            uploads,
            size_limit=self.message_size_limit,
            type=19 if body.get("message_reference") else 0,
        )
        self.world.post(message)
        self.world.dispatch("MESSAGE_CREATE", message.to_payload())
        return json_response(message.to_payload())

    async def edit_message(self, request: web.Request) -> web.Response:
        channel = self._channel(request)
        message = self._message(request, channel)
        if message.author is not self.world.bot_user or message.webhook_id is not None:
            raise errors.cannot_edit_foreign_message()
        body, uploads = await read_body(request)
        before = _seen(message)
        apply_edit(self.world, message, body, uploads, size_limit=self.message_size_limit)
        self._note_unchanged(request, before, message)
        self.world.dispatch("MESSAGE_UPDATE", message.to_payload())
        return json_response(message.to_payload())

    async def delete_message(self, request: web.Request) -> web.Response:
        channel = self._channel(request)
        message = self._message(request, channel)
        self.rules.delete(message)
        return web.Response(status=204)

    async def create_thread(self, request: web.Request) -> web.Response:
        channel = self._channel(request)
        if channel.guild is None or channel.is_thread:
            raise errors.invalid_form_body(
                {"channel_id": errors.field_error("INVALID_CHANNEL", "Cannot create a thread here")}
            )
        body, _ = await read_body(request)
        private = "message_id" not in request.match_info and body.get("type", 12) == 12
        needed = VIEW_CHANNEL | (CREATE_PRIVATE_THREADS if private else CREATE_PUBLIC_THREADS)
        if self.world.bot_permissions_in(channel) & needed != needed:
            raise errors.missing_permissions()
        thread = channel.create_thread(str(body.get("name") or "thread"), private=private)
        return json_response(thread.to_payload(), 201)

    # -- interactions and their webhooks ---------------------------------------------------------

    async def interaction_callback(self, request: web.Request) -> web.Response:
        body, uploads = await read_body(request)
        result = self.rules.callback(
            _int(request.match_info["interaction_id"]), request.match_info["token"], body, uploads
        )
        if request.query.get("with_response") in ("1", "true", "True"):
            return json_response(result)
        return web.Response(status=204)

    async def webhook_execute(self, request: web.Request) -> web.Response:
        interaction = self.rules.by_token(_int(request.match_info["app"]), request.match_info["token"])
        body, uploads = await read_body(request)
        message = self.rules.followup(interaction, body, uploads)
        if request.query.get("wait") in ("1", "true", "True"):
            return json_response(message.to_payload())
        return web.Response(status=204)

    async def webhook_get(self, request: web.Request) -> web.Response:
        interaction = self.rules.by_token(_int(request.match_info["app"]), request.match_info["token"])
        return json_response(
            self.rules.message_of(interaction, request.match_info["message_id"]).to_payload()
        )

    async def webhook_edit(self, request: web.Request) -> web.Response:
        interaction = self.rules.by_token(_int(request.match_info["app"]), request.match_info["token"])
        message = self.rules.message_of(interaction, request.match_info["message_id"])
        body, uploads = await read_body(request)
        before = _seen(message)
        edited = self.rules.edit(interaction, message, body, uploads)
        self._note_unchanged(request, before, edited)
        return json_response(edited.to_payload())

    async def webhook_delete(self, request: web.Request) -> web.Response:
        interaction = self.rules.by_token(_int(request.match_info["app"]), request.match_info["token"])
        self.rules.delete(
            self.rules.message_of(interaction, request.match_info["message_id"]), interaction.id
        )
        return web.Response(status=204)

    async def download(self, request: web.Request) -> web.Response:
        attachment = self.world.attachments.get(_int(request.match_info["attachment_id"]))
        if attachment is None or attachment.filename != request.match_info["filename"]:
            raise errors.not_found()
        return web.Response(
            body=attachment.data,
            headers={"Content-Type": attachment.content_type or "application/octet-stream"},
        )


def _seen(message: Message) -> object:
    """What people see of a message: an edit that leaves this equal changed nothing for them."""
    files = [(a.filename, a.data) for a in message.attachments]
    return (message.content, json.dumps([message.embeds, message.components], sort_keys=True), files)


def _int(value: str) -> int:
    try:
        return int(value)
    except ValueError:
        raise errors.not_found() from None


def _check_command_payloads(payloads: list[dict[str, Any]]) -> None:
    problems: dict[str, Any] = {}
    keys = [(p.get("name"), p.get("type", 1)) for p in payloads]
    for index, payload in enumerate(payloads):
        name, kind = payload.get("name"), payload.get("type", 1)
        # Slash command names are lower-case words; context-menu names may hold spaces and capitals.
        pattern = r"[-_\w]{1,32}" if kind == 1 else r".{1,32}"
        if (
            not isinstance(name, str)
            or not re.fullmatch(pattern, name)
            or (kind == 1 and name != name.lower())
        ):
            problems[str(index)] = {
                "name": errors.field_error("APPLICATION_COMMAND_INVALID_NAME", "Command name is invalid")
            }
        elif keys.count((name, kind)) > 1:
            problems[str(index)] = {
                "name": errors.field_error(
                    "APPLICATION_COMMANDS_DUPLICATE_NAME", "Application command names must be unique"
                )
            }
    if problems:
        raise errors.invalid_form_body(problems)
