"""The test API that acts as people: run commands, click, pick, fill modals, DM the bot, read what they see."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from .commands import InvocationError, build_invocation
from .errors import DiscordAPIError
from .interactions import (
    APPLICATION_COMMAND,
    AUTOCOMPLETE,
    AUTOCOMPLETE_RESULT,
    CHANNEL_MESSAGE,
    DEFERRED_CHANNEL_MESSAGE,
    DEFERRED_UPDATE_MESSAGE,
    MESSAGE_COMPONENT,
    MODAL,
    MODAL_SUBMIT,
    UPDATE_MESSAGE,
    Interaction,
)
from .limits import FLAG_LOADING, SELECT_TYPES, STRING_SELECT, TEXT_INPUT
from .state import Channel, Message, User

if TYPE_CHECKING:
    from .server import FakeDiscord


class NoResponse(AssertionError):
    """The bot did not acknowledge within the deadline: the user sees "The application did not respond"."""


class InteractionHandle:
    """One interaction a person started, and what came back from the bot."""

    def __init__(self, fd: FakeDiscord, interaction: Interaction) -> None:
        self._fd = fd
        self.interaction = interaction

    @property
    def response_type(self) -> int | None:
        return self.interaction.response_type

    @property
    def rejected(self) -> list[DiscordAPIError]:
        """Errors the fake returned to the bot for this interaction (e.g. 10062, 40060, 50035)."""
        return list(self.interaction.rejected)

    async def acknowledged(self) -> int:
        """Waits for the first response within Discord's deadline; returns its response type."""
        remaining = self.interaction.created_at + self._fd.response_deadline - self._fd.clock()
        try:
            await asyncio.wait_for(self.interaction.acknowledged.wait(), max(remaining, 0) + 0.05)
        except TimeoutError:
            if self._fd.world.client_failure is not None:
                raise RuntimeError("the discord.py client crashed") from self._fd.world.client_failure
            raise NoResponse(f"the bot did not respond within {self._fd.response_deadline} s") from None
        assert self.interaction.response_type is not None
        return self.interaction.response_type

    async def response(self) -> Message | None:
        """The message shown as the first response (ephemeral or not, possibly still "thinking"),
        the updated message for an update, or None for a modal, autocomplete or deferred update."""
        kind = await self.acknowledged()
        if kind in (CHANNEL_MESSAGE, DEFERRED_CHANNEL_MESSAGE):
            return self.interaction.original
        if kind in (UPDATE_MESSAGE, DEFERRED_UPDATE_MESSAGE):
            return self.interaction.source_message
        return None

    async def final_response(self, *, timeout: float = 5.0) -> Message:
        """The original response once it is no longer a "thinking…" placeholder."""
        await self.acknowledged()

        def done() -> Message | None:
            original = self.interaction.original
            return original if original is not None and not original.flags & FLAG_LOADING else None

        return await self._fd.world.wait_for(
            done, timeout=timeout, what="the deferred response to be filled in", on=(self.interaction.id,)
        )

    async def modal(self) -> dict[str, Any]:
        if await self.acknowledged() != MODAL or self.interaction.modal is None:
            raise AssertionError(f"the bot answered with response type {self.response_type}, not a modal")
        return self.interaction.modal

    async def choices(self) -> list[dict[str, Any]]:
        if await self.acknowledged() != AUTOCOMPLETE_RESULT or self.interaction.choices is None:
            raise AssertionError(f"the bot answered with response type {self.response_type}, not choices")
        return self.interaction.choices

    def followups(self) -> list[Message]:
        return [m for m in self.interaction.followups if not m.deleted]

    async def wait_for_followups(self, count: int = 1, *, timeout: float = 5.0) -> list[Message]:
        def enough() -> list[Message] | None:
            found = self.followups()
            return found if len(found) >= count else None

        return await self._fd.world.wait_for(
            enough, timeout=timeout, what=f"{count} follow-up(s)", on=(self.interaction.id,)
        )

    def replies(self) -> list[Message]:
        """The messages the bot answered with: its response when that is a message of its own (type 4, e.g. a
        private refusal of a click), then its follow-ups. A click may be answered either way (cogs/panel/items.py:
        at once, or deferred), and a test reads what the person reads."""
        first = self.interaction.original if self.interaction.response_type == CHANNEL_MESSAGE else None
        return ([first] if first is not None and not first.deleted else []) + self.followups()

    async def wait_for_replies(self, count: int = 1, *, timeout: float = 5.0) -> list[Message]:
        def enough() -> list[Message] | None:
            found = self.replies()
            return found if len(found) >= count else None

        return await self._fd.world.wait_for(
            enough, timeout=timeout, what=f"{count} repl(y/ies)", on=(self.interaction.id,)
        )

    async def wait_for_rejection(self, code: int, *, timeout: float = 5.0) -> DiscordAPIError:
        def find() -> DiscordAPIError | None:
            return next((e for e in self.interaction.rejected if e.code == code), None)

        return await self._fd.world.wait_for(
            find, timeout=timeout, what=f"error {code} sent to the bot", on=(self.interaction.id,)
        )


class Person:
    """A human Discord user; every action goes through the same payloads the real client produces."""

    def __init__(self, fd: FakeDiscord, user: User) -> None:
        self._fd = fd
        self.user = user

    @property
    def id(self) -> int:
        return self.user.id

    @property
    def name(self) -> str:
        return self.user.username

    @property
    def dm_channel(self) -> Channel:
        return self._fd.world.dm_channel(self.user)

    def __repr__(self) -> str:
        return f"<Person {self.name} id={self.id}>"

    # -- acting ------------------------------------------------------------------------------------

    async def run_command(
        self, channel: Channel, command: str, options: dict[str, Any] | None = None
    ) -> InteractionHandle:
        """Runs `/command [group] [sub]` with options; attachment options take `(filename, bytes)`,
        user options a Person, channel options a Channel, role options a Role."""
        self._check_presence(channel)
        data = build_invocation(self._fd.world, self._fd.commands, channel, command, dict(options or {}))
        return self._start(APPLICATION_COMMAND, channel, data)

    async def autocomplete(
        self,
        channel: Channel,
        command: str,
        focused: str,
        partial: str,
        options: dict[str, Any] | None = None,
    ) -> list[dict[str, Any]]:
        """Types `partial` into option `focused` and returns the choices the bot offers."""
        self._check_presence(channel)
        values = dict(options or {}) | {focused: partial}
        data = build_invocation(self._fd.world, self._fd.commands, channel, command, values, focused=focused)
        return await self._start(AUTOCOMPLETE, channel, data).choices()

    async def click(self, message: Message, custom_id: str) -> InteractionHandle:
        component = self._component(message, custom_id)
        if component.get("type") != 2:
            raise InvocationError(f"{custom_id!r} is not a button")
        return self._start(
            MESSAGE_COMPONENT, message.channel, {"custom_id": custom_id, "component_type": 2}, message
        )

    async def select(self, message: Message, custom_id: str, values: Sequence[str]) -> InteractionHandle:
        component = self._component(message, custom_id)
        if component.get("type") not in SELECT_TYPES:
            raise InvocationError(f"{custom_id!r} is not a select menu")
        _check_picks(component, list(values))
        data = {"custom_id": custom_id, "component_type": component["type"], "values": list(values)}
        return self._start(MESSAGE_COMPONENT, message.channel, data, message)

    async def submit_modal(
        self, shown_by: InteractionHandle, values: dict[str, str | Sequence[str]]
    ) -> InteractionHandle:
        """Fills the modal the bot showed in answer to `shown_by` and submits it."""
        modal = await shown_by.modal()
        source = shown_by.interaction
        components = _modal_answers(modal.get("components") or [], values)
        data = {"custom_id": modal["custom_id"], "components": components}
        return self._start(MODAL_SUBMIT, source.channel, data, source.source_message)

    async def send_message(self, channel: Channel, content: str) -> Message:
        self._check_presence(channel)
        message = self._fd.world.post(Message(self._fd.world.ids.next(), channel, self.user, content=content))
        self._fd.world.dispatch("MESSAGE_CREATE", message.to_payload())
        return message

    async def send_dm(self, content: str) -> Message:
        return await self.send_message(self.dm_channel, content)

    def close_dms(self) -> None:
        """Blocks DMs from server members, as the privacy setting does: the bot then gets 50007."""
        self.user.dms_open = False

    def open_dms(self) -> None:
        self.user.dms_open = True

    # -- seeing ------------------------------------------------------------------------------------

    def dms(self) -> list[Message]:
        channel = self._fd.world.dm_channels.get(self.id)
        return channel.messages() if channel else []

    async def wait_for_dm(
        self, predicate: Callable[[Message], bool] = lambda _: True, *, timeout: float = 5.0
    ) -> Message:
        def find() -> Message | None:
            return next((m for m in self.dms() if m.author.bot and predicate(m)), None)

        return await self._fd.world.wait_for(
            find, timeout=timeout, what=f"a DM to {self.name}", on=(self.dm_channel.id,)
        )

    def ephemeral_messages(self, channel: Channel | None = None) -> list[Message]:
        """Ephemeral messages addressed to this person (nobody else sees them)."""
        return [
            m
            for m in self._fd.world.messages.values()
            if m.visible_to == self.id and not m.deleted and (channel is None or m.channel is channel)
        ]

    def can_see(self, message: Message) -> bool:
        return not message.deleted and message.visible_to in (None, self.id)

    # -- internals ---------------------------------------------------------------------------------

    def _check_presence(self, channel: Channel) -> None:
        if channel.guild is not None and self.id not in channel.guild.members:
            raise InvocationError(f"{self.name} is not a member of {channel.guild.name!r}")
        if channel.recipient is not None and channel.recipient is not self.user:
            raise InvocationError(f"{self.name} cannot use someone else's DM channel")

    def _component(self, message: Message, custom_id: str) -> dict[str, Any]:
        if not self.can_see(message):
            raise InvocationError(f"{self.name} cannot see message {message.id}")
        component = message.custom_ids().get(custom_id)
        if component is None:
            raise InvocationError(
                f"message {message.id} has no component {custom_id!r}: {sorted(message.custom_ids())}"
            )
        if component.get("disabled"):
            raise InvocationError(f"component {custom_id!r} is disabled")
        self._check_presence(message.channel)
        return component

    def _start(
        self, kind: int, channel: Channel, data: dict[str, Any], source: Message | None = None
    ) -> InteractionHandle:
        fd = self._fd
        interaction = fd.rules.create(
            kind, self.user, channel, data, source=source, attachment_size_limit=fd.attachment_size_limit
        )
        fd.world.dispatch("INTERACTION_CREATE", interaction.to_payload(fd.world))
        return InteractionHandle(fd, interaction)


def _check_picks(component: dict[str, Any], values: list[str]) -> None:
    low, high = component.get("min_values", 1), component.get("max_values", 1)
    if not low <= len(values) <= high:
        raise InvocationError(
            f"select {component.get('custom_id')!r} takes {low}..{high} values, got {len(values)}"
        )
    if component.get("type") == STRING_SELECT:
        allowed = {o["value"] for o in component.get("options") or []}
        unknown = [v for v in values if v not in allowed]
        if unknown:
            raise InvocationError(f"select {component.get('custom_id')!r} has no options {unknown}")


def _modal_answers(
    components: list[dict[str, Any]], values: dict[str, str | Sequence[str]]
) -> list[dict[str, Any]]:
    """Mirrors the modal's layout (action rows or labels) with the values typed in."""
    remaining = dict(values)

    def answer(item: dict[str, Any]) -> dict[str, Any]:
        custom_id = item.get("custom_id", "")
        if item.get("type") == TEXT_INPUT:
            value = remaining.pop(custom_id, item.get("value") or "")
            if not isinstance(value, str):
                raise InvocationError(f"text input {custom_id!r} takes a string")
            if item.get("required", True) and not value:
                raise InvocationError(f"text input {custom_id!r} is required")
            if len(value) > item.get("max_length", 4000) or len(value) < item.get("min_length", 0):
                raise InvocationError(f"text input {custom_id!r}: length {len(value)} is out of bounds")
            return {"type": TEXT_INPUT, "id": item.get("id", 0), "custom_id": custom_id, "value": value}
        picked = remaining.pop(custom_id, [])
        picks = [picked] if isinstance(picked, str) else list(picked)
        _check_picks(item, picks)
        return {"type": item.get("type"), "id": item.get("id", 0), "custom_id": custom_id, "values": picks}

    result: list[dict[str, Any]] = []
    for component in components:
        if component.get("type") == 1:
            result.append(
                {
                    "type": 1,
                    "id": component.get("id", 0),
                    "components": [answer(c) for c in component.get("components") or []],
                }
            )
        elif component.get("type") == 18:
            result.append(
                {"type": 18, "id": component.get("id", 0), "component": answer(component["component"])}
            )
    if remaining:
        raise InvocationError(f"the modal has no inputs {sorted(remaining)}")
    return result
