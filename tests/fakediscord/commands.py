"""Registered application commands, and building the `data` of an invocation from their schema.

Invocations are type-checked against what the bot registered: unknown commands or options, missing
required options, wrong types, values outside choices or bounds are refused before anything reaches the bot.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from .ids import SnowflakeFactory
from .state import Channel, Role, User, World

SUB_COMMAND, SUB_COMMAND_GROUP, STRING, INTEGER, BOOLEAN, USER = 1, 2, 3, 4, 5, 6
CHANNEL, ROLE, MENTIONABLE, NUMBER, ATTACHMENT = 7, 8, 9, 10, 11
CHAT_INPUT = 1


class InvocationError(ValueError):
    """What a Discord client would refuse to send: the command or its options do not fit the schema."""


@dataclass
class CommandRegistry:
    ids: SnowflakeFactory
    application_id: int
    global_commands: list[dict[str, Any]] = field(default_factory=lambda: list[dict[str, Any]]())
    guild_commands: dict[int, list[dict[str, Any]]] = field(
        default_factory=lambda: dict[int, list[dict[str, Any]]]()
    )
    sync_count: int = 0

    def list(self, guild_id: int | None) -> list[dict[str, Any]]:
        return self.global_commands if guild_id is None else self.guild_commands.setdefault(guild_id, [])

    def overwrite(self, guild_id: int | None, payloads: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """PUT bulk overwrite: keeps the id of a command with the same name and type."""
        existing = {(c["name"], c.get("type", CHAT_INPUT)): c for c in self.list(guild_id)}
        stored: list[dict[str, Any]] = []
        for payload in payloads:
            key = (payload["name"], payload.get("type", CHAT_INPUT))
            stored.append(self._stored(guild_id, payload, existing.get(key)))
        if guild_id is None:
            self.global_commands = stored
        else:
            self.guild_commands[guild_id] = stored
        self.sync_count += 1
        return stored

    def upsert(self, guild_id: int | None, payload: dict[str, Any]) -> dict[str, Any]:
        commands = self.list(guild_id)
        key = (payload["name"], payload.get("type", CHAT_INPUT))
        old = next((c for c in commands if (c["name"], c.get("type", CHAT_INPUT)) == key), None)
        command = self._stored(guild_id, payload, old)
        if old is not None:
            commands[commands.index(old)] = command
        else:
            commands.append(command)
        return command

    def _stored(
        self, guild_id: int | None, payload: dict[str, Any], old: dict[str, Any] | None
    ) -> dict[str, Any]:
        command = copy.deepcopy(payload)
        command.setdefault("type", CHAT_INPUT)
        command.setdefault("description", "")
        command.setdefault("options", [])
        command.setdefault("default_member_permissions", None)
        command.setdefault("nsfw", False)
        command.setdefault("contexts", None)
        command.setdefault("integration_types", [0])
        command |= {
            "id": old["id"] if old else str(self.ids.next()),
            "application_id": str(self.application_id),
            "version": str(self.ids.next()),
        }
        if guild_id is not None:
            command["guild_id"] = str(guild_id)
            command.pop("contexts", None)
        return command

    def find(self, channel: Channel, name: str) -> dict[str, Any]:
        """The chat-input command a user can run in `channel`: guild commands shadow global ones."""
        candidates: list[dict[str, Any]] = []
        if channel.guild is not None:
            candidates += self.guild_commands.get(channel.guild.id, [])
        candidates += [c for c in self.global_commands if channel.guild is not None or _usable_in_dm(c)]
        for command in candidates:
            if command["name"] == name and command.get("type", CHAT_INPUT) == CHAT_INPUT:
                return command
        where = f"guild {channel.guild.name!r}" if channel.guild else "DMs"
        raise InvocationError(f"no command /{name} is registered for {where}")


def _usable_in_dm(command: dict[str, Any]) -> bool:
    contexts = command.get("contexts")
    if contexts is not None:
        return 1 in contexts
    return command.get("dm_permission", True) is not False


def build_invocation(
    world: World,
    registry: CommandRegistry,
    channel: Channel,
    path: str,
    options: dict[str, Any],
    *,
    focused: str | None = None,
) -> dict[str, Any]:
    names = path.split()
    command = registry.find(channel, names[0])
    schema: list[dict[str, Any]] = command.get("options") or []
    resolved: dict[str, dict[str, Any]] = {}
    top: list[dict[str, Any]] = []
    target = top
    for depth, name in enumerate(names[1:], start=1):
        sub = next(
            (o for o in schema if o["name"] == name and o["type"] in (SUB_COMMAND, SUB_COMMAND_GROUP)), None
        )
        if sub is None:
            raise InvocationError(f"/{' '.join(names[:depth])} has no subcommand {name!r}")
        node: dict[str, Any] = {"name": name, "type": sub["type"], "options": []}
        target.append(node)
        target = node["options"]
        schema = sub.get("options") or []
    if any(o["type"] in (SUB_COMMAND, SUB_COMMAND_GROUP) for o in schema):
        raise InvocationError(f"/{path} needs a subcommand: {[o['name'] for o in schema]}")
    known = {o["name"]: o for o in schema}
    for name in options:
        if name not in known:
            raise InvocationError(f"/{path} has no option {name!r}; it has {sorted(known)}")
    for option in schema:
        name = option["name"]
        if name not in options:
            if option.get("required") and focused is None:
                raise InvocationError(f"/{path} requires option {name!r}")
            continue
        if name == focused:
            target.append(
                {"name": name, "type": option["type"], "value": str(options[name]), "focused": True}
            )
            continue
        target.append(
            {
                "name": name,
                "type": option["type"],
                "value": _value(world, channel, option, options[name], resolved),
            }
        )
    if focused is not None and focused not in known:
        raise InvocationError(f"/{path} has no option {focused!r} to autocomplete")
    data: dict[str, Any] = {"id": command["id"], "name": command["name"], "type": CHAT_INPUT, "options": top}
    if "guild_id" in command:
        data["guild_id"] = command["guild_id"]
    if resolved:
        data["resolved"] = resolved
    return data


def _value(
    world: World, channel: Channel, option: dict[str, Any], value: Any, resolved: dict[str, dict[str, Any]]
) -> Any:
    kind, name = option["type"], option["name"]
    if kind == STRING:
        if not isinstance(value, str):
            raise InvocationError(f"option {name!r} takes a string, got {value!r}")
        if not option.get("min_length", 0) <= len(value) <= option.get("max_length", 6000):
            raise InvocationError(f"option {name!r}: length {len(value)} is out of bounds")
    elif kind == INTEGER:
        if isinstance(value, bool) or not isinstance(value, int):
            raise InvocationError(f"option {name!r} takes an integer, got {value!r}")
    elif kind == NUMBER:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise InvocationError(f"option {name!r} takes a number, got {value!r}")
    elif kind == BOOLEAN:
        if not isinstance(value, bool):
            raise InvocationError(f"option {name!r} takes a boolean, got {value!r}")
    elif kind in (USER, MENTIONABLE) and not isinstance(value, Role):
        return _resolve_user(channel, name, value, resolved)
    elif kind in (ROLE, MENTIONABLE):
        if not isinstance(value, Role):
            raise InvocationError(f"option {name!r} takes a Role, got {value!r}")
        resolved.setdefault("roles", {})[str(value.id)] = value.to_payload()
        return str(value.id)
    elif kind == CHANNEL:
        if not isinstance(value, Channel):
            raise InvocationError(f"option {name!r} takes a Channel, got {value!r}")
        types = option.get("channel_types")
        if types and value.type not in types:
            raise InvocationError(f"option {name!r} accepts channel types {types}, not {value.type}")
        resolved.setdefault("channels", {})[str(value.id)] = value.to_payload() | {
            "permissions": str(world.bot_permissions_in(value))
        }
        return str(value.id)
    elif kind == ATTACHMENT:
        if not (isinstance(value, tuple) and len(value) == 2):  # pyright: ignore[reportUnknownArgumentType]
            raise InvocationError(f"option {name!r} takes a (filename, bytes) pair")
        filename, data = value  # pyright: ignore[reportUnknownVariableType]
        attachment = world.new_attachment(channel.id, str(filename), bytes(data))  # pyright: ignore[reportUnknownArgumentType]
        resolved.setdefault("attachments", {})[str(attachment.id)] = attachment.to_payload() | {
            "ephemeral": True
        }
        return str(attachment.id)
    else:
        raise InvocationError(f"option {name!r} has unsupported type {kind}")
    choices = option.get("choices")
    if choices and value not in [c["value"] for c in choices]:
        raise InvocationError(
            f"option {name!r}: {value!r} is not one of the choices {[c['value'] for c in choices]}"
        )
    if kind in (INTEGER, NUMBER):
        low, high = option.get("min_value"), option.get("max_value")
        if (low is not None and value < low) or (high is not None and value > high):
            raise InvocationError(f"option {name!r}: {value} is outside [{low}, {high}]")
    return value


def _resolve_user(channel: Channel, name: str, value: Any, resolved: dict[str, dict[str, Any]]) -> str:
    user: User | None = getattr(value, "user", value) if not isinstance(value, User) else value
    if not isinstance(user, User):
        raise InvocationError(f"option {name!r} takes a user, got {value!r}")
    resolved.setdefault("users", {})[str(user.id)] = user.to_payload()
    if channel.guild is not None and user.id in channel.guild.members:
        member = channel.guild.members[user.id]
        resolved.setdefault("members", {})[str(user.id)] = member.to_payload(
            with_user=False, with_permissions=True
        )
    return str(user.id)
