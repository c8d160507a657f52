"""The gateway: HELLO, heartbeats, IDENTIFY → READY → GUILD_CREATE, RESUME replay, RECONNECT, INVALID_SESSION.

Each IDENTIFY opens a session that numbers its dispatches; events sent while the bot is disconnected stay
in the session's history and are replayed on RESUME, as Discord does. An IDENTIFY with ``shard: [id, count]``
opens that shard's session: it gets the events of the guilds with ``(guild_id >> 22) % count == id`` only, and
the events outside any guild (DMs) only on shard 0, as Discord routes them.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
import zlib
from dataclasses import dataclass, field
from typing import Any

from aiohttp import WSMsgType, web

from .state import World

DISPATCH, HEARTBEAT, IDENTIFY, PRESENCE, RESUME, RECONNECT = 0, 1, 2, 3, 6, 7
REQUEST_MEMBERS, INVALID_SESSION, HELLO, HEARTBEAT_ACK = 8, 9, 10, 11

INTENT_GUILDS = 1 << 0
INTENT_GUILD_MEMBERS = 1 << 1
INTENT_GUILD_MESSAGES = 1 << 9
INTENT_DIRECT_MESSAGES = 1 << 12
INTENT_MESSAGE_CONTENT = 1 << 15

_GUILD_EVENTS = frozenset({"GUILD_CREATE", "CHANNEL_CREATE", "THREAD_CREATE", "GUILD_ROLE_CREATE"})
_MESSAGE_EVENTS = frozenset({"MESSAGE_CREATE", "MESSAGE_UPDATE", "MESSAGE_DELETE"})

CLOSE_AUTHENTICATION_FAILED = 4004
CLOSE_UNKNOWN_OPCODE = 4001


class Connection:
    """One websocket; frames go through a queue so sends keep their order, compressed per connection."""

    def __init__(self, ws: web.WebSocketResponse, compress: str | None) -> None:
        self.ws = ws
        # zlib-stream: one compressor for the connection's life, each frame ends with a sync flush.
        self._zlib = zlib.compressobj() if compress == "zlib-stream" else None
        self._queue: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()
        self._writer = asyncio.create_task(self._write())

    def send(self, payload: dict[str, Any]) -> None:
        self._queue.put_nowait(payload)

    async def _write(self) -> None:
        while (payload := await self._queue.get()) is not None:
            text = json.dumps(payload)
            try:
                if self._zlib is None:
                    await self.ws.send_str(text)
                else:
                    data = self._zlib.compress(text.encode()) + self._zlib.flush(zlib.Z_SYNC_FLUSH)
                    await self.ws.send_bytes(data)
            except (ConnectionError, RuntimeError):
                return

    async def close(self, code: int = 1000) -> None:
        self._queue.put_nowait(None)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self._writer, 1.0)
        await self.ws.close(code=code)


@dataclass(eq=False)
class Session:
    id: str
    intents: int
    shard: tuple[int, int] = (0, 1)  # IDENTIFY's [shard_id, shard_count]
    seq: int = 0
    history: list[dict[str, Any]] = field(default_factory=lambda: list[dict[str, Any]]())
    connection: Connection | None = None

    def push(self, event: str, data: dict[str, Any]) -> None:
        self.seq += 1
        frame = {"op": DISPATCH, "t": event, "s": self.seq, "d": data}
        self.history.append(frame)
        if self.connection is not None:
            self.connection.send(frame)

    def serves(self, guild_id: int | None) -> bool:
        """Whether this session's shard gets an event of ``guild_id`` (None: outside guilds, shard 0's)."""
        shard_id, count = self.shard
        if guild_id is None:
            return shard_id == 0
        return shard_of_guild(guild_id, count) == shard_id


def shard_of_guild(guild_id: int, shard_count: int) -> int:
    """Discord's shard formula."""
    return (guild_id >> 22) % shard_count


def guild_of_event(event: str, data: dict[str, Any]) -> int | None:
    """The guild an event belongs to (routes it to a shard), None for DMs and other events outside guilds."""
    if event == "GUILD_CREATE":
        return int(data["id"])
    guild_id = data.get("guild_id")
    return int(guild_id) if guild_id else None


class Gateway:
    def __init__(self, world: World, token: str, *, shard_count: int = 1) -> None:
        self.world = world
        self.token = token
        self.shard_count = shard_count  # what GET /gateway/bot recommends
        self.url = "ws://127.0.0.1/gateway"
        self.heartbeat_interval_ms = 41250
        #: a heartbeat's ACK leaves this long after the heartbeat, as over a network. discord.py's heartbeat
        #: thread records when it sent a heartbeat only once the send returns to it; an ACK answered in the same
        #: instant can be read first, and the latency then measured from the heartbeat before (one whole
        #: interval: "Can't keep up, … 41.3s behind" with no loop held at all)
        self.ack_delay_s = 0.02
        self.sessions: dict[str, Session] = {}
        self.connections: set[Connection] = set()
        self.identify_count = 0
        self.resume_count = 0
        self.heartbeats = 0
        world.dispatch = self.dispatch

    # -- events from the world ------------------------------------------------------------------

    def dispatch(self, event: str, data: dict[str, Any]) -> None:
        guild_id = guild_of_event(event, data)
        for session in self.sessions.values():
            if not session.serves(guild_id):
                continue
            payload = self._filtered(session.intents, event, data)
            if payload is not None:
                session.push(event, payload)

    def _filtered(self, intents: int, event: str, data: dict[str, Any]) -> dict[str, Any] | None:
        if event in _GUILD_EVENTS and not intents & INTENT_GUILDS:
            return None
        if event in ("GUILD_MEMBER_ADD", "GUILD_MEMBER_REMOVE") and not intents & INTENT_GUILD_MEMBERS:
            return None
        if event in _MESSAGE_EVENTS:
            in_guild = "guild_id" in data
            if not intents & (INTENT_GUILD_MESSAGES if in_guild else INTENT_DIRECT_MESSAGES):
                return None
            author = (data.get("author") or {}).get("id")
            if in_guild and not intents & INTENT_MESSAGE_CONTENT and author != str(self.world.bot_user.id):
                # Without MESSAGE_CONTENT the bot gets other people's guild messages hollowed out.
                data = data | {"content": "", "embeds": [], "attachments": [], "components": []}
        return data

    # -- control from tests ---------------------------------------------------------------------

    def send_control(self, op: int, d: Any) -> None:
        for connection in list(self.connections):
            connection.send({"op": op, "d": d})

    # -- the websocket endpoint -----------------------------------------------------------------

    async def handle(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse(max_msg_size=0)
        await ws.prepare(request)
        connection = Connection(ws, request.query.get("compress"))
        self.connections.add(connection)
        session: Session | None = None
        connection.send(
            {"op": HELLO, "d": {"heartbeat_interval": self.heartbeat_interval_ms, "_trace": ["fakediscord"]}}
        )
        try:
            async for message in ws:
                if message.type != WSMsgType.TEXT:
                    continue
                frame: dict[str, Any] = json.loads(message.data)
                op = frame.get("op")
                if op == HEARTBEAT:
                    self.heartbeats += 1
                    ack = {"op": HEARTBEAT_ACK, "d": None}
                    asyncio.get_running_loop().call_later(self.ack_delay_s, connection.send, ack)
                elif op == IDENTIFY:
                    session = await self._identify(connection, frame.get("d") or {})
                elif op == RESUME:
                    session = await self._resume(connection, frame.get("d") or {})
                elif op == REQUEST_MEMBERS:
                    self._chunk_members(connection, session, frame.get("d") or {})
                elif op == PRESENCE:
                    continue
                else:
                    await connection.close(CLOSE_UNKNOWN_OPCODE)
        finally:
            self.connections.discard(connection)
            if session is not None and session.connection is connection:
                session.connection = None
            await connection.close()
            self.world.touch()
        return ws

    async def _identify(self, connection: Connection, d: dict[str, Any]) -> Session | None:
        if d.get("token") not in (self.token, f"Bot {self.token}"):
            await connection.close(CLOSE_AUTHENTICATION_FAILED)
            return None
        shard = _shard_of(d)
        session = Session(
            secrets.token_hex(16), int(d.get("intents") or 0), (shard[0], shard[1]), connection=connection
        )
        guilds = [g for g in self.world.guilds.values() if session.serves(g.id)]
        self.sessions[session.id] = session
        self.identify_count += 1
        bot = self.world.bot_user.to_payload() | {"verified": True, "mfa_enabled": False, "email": None}
        session.push(
            "READY",
            {
                "v": 10,
                "user": bot,
                "guilds": [{"id": str(g.id), "unavailable": True} for g in guilds],
                "session_id": session.id,
                "session_type": "normal",
                "resume_gateway_url": self.url,
                "private_channels": [],
                "relationships": [],
                "presences": [],
                "application": {"id": str(self.world.application_id), "flags": 0},
                # AutoShardedBot reads READY's shard to know which shard is up: echo IDENTIFY's [id, count]
                "shard": shard,
                "_trace": ["fakediscord"],
            },
        )
        for guild in guilds:
            if session.intents & INTENT_GUILDS:
                session.push("GUILD_CREATE", guild.to_payload())
        self.world.touch()
        return session

    async def _resume(self, connection: Connection, d: dict[str, Any]) -> Session | None:
        session = self.sessions.get(str(d.get("session_id")))
        if session is None or d.get("token") not in (self.token, f"Bot {self.token}"):
            connection.send({"op": INVALID_SESSION, "d": False})
            return None
        if session.connection is not None and session.connection is not connection:
            await session.connection.close(4000)
        session.connection = connection
        last_seen = int(d.get("seq") or 0)
        for frame in session.history:
            if frame["s"] > last_seen:
                connection.send(frame)
        session.push("RESUMED", {"_trace": ["fakediscord"]})
        self.resume_count += 1
        self.world.touch()
        return session

    def _chunk_members(self, connection: Connection, session: Session | None, d: dict[str, Any]) -> None:
        guild = self.world.guilds.get(int(d.get("guild_id") or 0))
        if session is None or guild is None:
            return
        query = str(d.get("query") or "").lower()
        wanted = {str(u) for u in d.get("user_ids") or []}
        members = [
            m.to_payload()
            for m in guild.members.values()
            if (not wanted or str(m.user.id) in wanted) and m.user.username.lower().startswith(query)
        ]
        chunk: dict[str, Any] = {
            "guild_id": str(guild.id),
            "members": members,
            "chunk_index": 0,
            "chunk_count": 1,
            "not_found": [],
        }
        if d.get("nonce"):
            chunk["nonce"] = d["nonce"]
        session.push("GUILD_MEMBERS_CHUNK", chunk)


def _shard_of(identify: dict[str, Any]) -> list[int]:
    """IDENTIFY's ``shard`` ([shard_id, shard_count]) when well formed, else the unsharded [0, 1]."""
    shard = identify.get("shard")
    if (
        isinstance(shard, list | tuple)
        and len(shard) == 2  # pyright: ignore[reportUnknownArgumentType]
        and all(isinstance(n, int) for n in shard)  # pyright: ignore[reportUnknownVariableType]
        and 0 <= shard[0] < shard[1]
    ):
        return [int(shard[0]), int(shard[1])]  # pyright: ignore[reportUnknownArgumentType]
    return [0, 1]
