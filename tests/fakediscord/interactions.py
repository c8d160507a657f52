"""Interactions: the payload delivered over the gateway and the rules for answering it.

Enforced: the first response within `response_deadline` (10062 after it), one acknowledgement (40060),
response types that fit the interaction type, follow-up tokens valid for `token_lifetime` (50027),
follow-ups only after acknowledgement (10015), and the per-interaction attachment size limit.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .errors import (
    DiscordAPIError,
    already_acknowledged,
    field_error,
    invalid_form_body,
    invalid_webhook_token,
    unknown_interaction,
    unknown_message,
    unknown_webhook,
)
from .ids import new_token
from .limits import FLAG_EPHEMERAL, FLAG_LOADING, check_autocomplete, check_modal
from .messages import Upload, apply_edit, build_message
from .state import Channel, Guild, Key, Message, User, World

PING = 1
APPLICATION_COMMAND = 2
MESSAGE_COMPONENT = 3
AUTOCOMPLETE = 4
MODAL_SUBMIT = 5

PONG = 1
CHANNEL_MESSAGE = 4
DEFERRED_CHANNEL_MESSAGE = 5
DEFERRED_UPDATE_MESSAGE = 6
UPDATE_MESSAGE = 7
AUTOCOMPLETE_RESULT = 8
MODAL = 9

# Which response types Discord accepts for each interaction type.
_ALLOWED_RESPONSES: dict[int, frozenset[int]] = {
    APPLICATION_COMMAND: frozenset({CHANNEL_MESSAGE, DEFERRED_CHANNEL_MESSAGE, MODAL}),
    MESSAGE_COMPONENT: frozenset(
        {CHANNEL_MESSAGE, DEFERRED_CHANNEL_MESSAGE, DEFERRED_UPDATE_MESSAGE, UPDATE_MESSAGE, MODAL}
    ),
    AUTOCOMPLETE: frozenset({AUTOCOMPLETE_RESULT}),
    MODAL_SUBMIT: frozenset(
        {CHANNEL_MESSAGE, DEFERRED_CHANNEL_MESSAGE, DEFERRED_UPDATE_MESSAGE, UPDATE_MESSAGE}
    ),
}


@dataclass(eq=False)
class Interaction:
    id: int
    token: str
    type: int
    user: User
    channel: Channel
    data: dict[str, Any]
    created_at: float
    attachment_size_limit: int
    source_message: Message | None = None  # the message a component lives on
    response_type: int | None = None
    original: Message | None = None
    followups: list[Message] = field(default_factory=lambda: list[Message]())
    modal: dict[str, Any] | None = None
    choices: list[dict[str, Any]] | None = None
    rejected: list[DiscordAPIError] = field(default_factory=lambda: list[DiscordAPIError]())
    acknowledged: asyncio.Event = field(default_factory=asyncio.Event)

    @property
    def guild(self) -> Guild | None:
        return self.channel.guild

    def to_payload(self, world: World) -> dict[str, Any]:
        guild = self.guild
        payload: dict[str, Any] = {
            "id": str(self.id),
            "application_id": str(world.application_id),
            "type": self.type,
            "data": self.data,
            "channel": self.channel.to_payload(),
            "channel_id": str(self.channel.id),
            "token": self.token,
            "version": 1,
            "app_permissions": str(world.bot_permissions_in(self.channel)),
            "locale": self.user.locale,
            "entitlements": [],
            "entitlement_sku_ids": [],
            "attachment_size_limit": self.attachment_size_limit,
        }
        if guild is not None:
            member = guild.members[self.user.id]
            payload |= {
                "guild_id": str(guild.id),
                "guild": {"id": str(guild.id), "locale": guild.locale, "features": []},
                "guild_locale": guild.locale,
                "member": member.to_payload(with_permissions=True),
                "context": 0,
                "authorizing_integration_owners": {"0": str(guild.id)},
            }
        else:
            payload |= {
                "user": self.user.to_payload(),
                "context": 1,
                "authorizing_integration_owners": {"0": "0"},
            }
        if self.source_message is not None:
            payload["message"] = self.source_message.to_payload()
        return payload

    def metadata(self) -> dict[str, Any]:
        """`interaction_metadata` attached to messages created in response."""
        metadata: dict[str, Any] = {
            "id": str(self.id),
            "type": self.type,
            "user": self.user.to_payload(),
            "authorizing_integration_owners": {"0": str(self.guild.id) if self.guild else "0"},
        }
        if self.original is not None:
            # Only follow-ups carry it; discord.py reads it as an int whenever the key is present.
            metadata["original_response_message_id"] = str(self.original.id)
        return metadata


class InteractionRules:
    """Answers callbacks and webhook calls for interactions the world has delivered."""

    def __init__(self, world: World, clock: Callable[[], float]) -> None:
        self.world = world
        self.clock = clock
        self.response_deadline = 3.0  # Discord's first-response window
        self.token_lifetime = 15 * 60.0  # follow-up tokens live 15 minutes
        self._by_token: dict[str, Interaction] = {}  # every webhook call looks its interaction up by token

    def create(
        self,
        kind: int,
        user: User,
        channel: Channel,
        data: dict[str, Any],
        *,
        source: Message | None = None,
        attachment_size_limit: int,
    ) -> Interaction:
        interaction = Interaction(
            self.world.ids.next(),
            new_token("aW50ZXJhY3Rpb24"),
            kind,
            user,
            channel,
            data,
            self.clock(),
            attachment_size_limit,
            source_message=source,
        )
        self.world.interactions[interaction.id] = interaction
        self._by_token[interaction.token] = interaction
        return interaction

    def expired(self, interaction: Interaction) -> bool:
        return self.clock() > interaction.created_at + self.response_deadline

    # -- POST /interactions/{id}/{token}/callback ------------------------------------------------

    def callback(
        self, interaction_id: int, token: str, body: dict[str, Any], uploads: list[Upload]
    ) -> dict[str, Any]:
        interaction = self.world.interactions.get(interaction_id)
        if interaction is None or interaction.token != token:
            raise unknown_interaction()
        try:
            return self._callback(interaction, body, uploads)
        except DiscordAPIError as error:
            interaction.rejected.append(error)
            self.world.touch(interaction.id)
            raise

    def _callback(
        self, interaction: Interaction, body: dict[str, Any], uploads: list[Upload]
    ) -> dict[str, Any]:
        if interaction.response_type is not None:
            raise already_acknowledged()
        if self.expired(interaction):
            raise unknown_interaction()
        kind = int(body.get("type", 0))
        if kind not in _ALLOWED_RESPONSES.get(interaction.type, frozenset()):
            raise invalid_form_body(
                {
                    "type": field_error(
                        "INTERACTION_RESPONSE_TYPE_INVALID", "Invalid interaction response type"
                    )
                }
            )
        data: dict[str, Any] = body.get("data") or {}
        message: Message | None = None
        if kind == CHANNEL_MESSAGE:
            message = self._new_response_message(interaction, data, uploads, loading=False)
        elif kind == DEFERRED_CHANNEL_MESSAGE:
            message = self._new_response_message(interaction, data, [], loading=True)
        elif kind == UPDATE_MESSAGE:
            message = self._source(interaction)
            apply_edit(
                self.world,
                message,
                data,
                uploads,
                size_limit=interaction.attachment_size_limit,
                keys=(interaction.id,),
            )
            self._dispatch_update(message)
        elif kind == DEFERRED_UPDATE_MESSAGE:
            message = self._source(interaction)
        elif kind == MODAL:
            check_modal(data)
            interaction.modal = data
        elif kind == AUTOCOMPLETE_RESULT:
            check_autocomplete(data)
            interaction.choices = list(data.get("choices") or [])
        interaction.response_type = kind
        if kind in (CHANNEL_MESSAGE, DEFERRED_CHANNEL_MESSAGE, UPDATE_MESSAGE, DEFERRED_UPDATE_MESSAGE):
            # for a component's (deferred) update, Discord's "original response" is the message it sits on
            interaction.original = message
        interaction.acknowledged.set()
        self.world.touch(interaction.id, interaction.channel.id)
        return self._callback_body(interaction, kind, message)

    def _callback_body(self, interaction: Interaction, kind: int, message: Message | None) -> dict[str, Any]:
        # discord.py stores views under `response_message_id`; without it component callbacks never fire.
        summary: dict[str, Any] = {
            "id": str(interaction.id),
            "type": interaction.type,
            "activity_instance_id": None,
            "response_message_id": str(message.id) if message else None,
            "response_message_loading": bool(message and message.flags & FLAG_LOADING),
            "response_message_ephemeral": bool(message and message.flags & FLAG_EPHEMERAL),
        }
        resource: dict[str, Any] = {"type": kind}
        if message is not None and kind != DEFERRED_UPDATE_MESSAGE:
            resource["message"] = message.to_payload()
        return {"interaction": summary, "resource": resource}

    def _source(self, interaction: Interaction) -> Message:
        if interaction.source_message is None:
            raise invalid_form_body(
                {"type": field_error("INTERACTION_RESPONSE_TYPE_INVALID", "No message to update")}
            )
        return interaction.source_message

    def _new_response_message(
        self, interaction: Interaction, data: dict[str, Any], uploads: list[Upload], *, loading: bool
    ) -> Message:
        flags = int(data.get("flags") or 0)
        extra: dict[str, Any] = {
            "type": 20 if interaction.type == APPLICATION_COMMAND else 19,
            "webhook_id": self.world.application_id,
            "application_id": self.world.application_id,
            "interaction_metadata": interaction.metadata(),
            "visible_to": interaction.user.id if flags & FLAG_EPHEMERAL else None,
        }
        if loading:
            # A deferred response is a visible "thinking…" message until it is edited.
            message = Message(
                self.world.ids.next(),
                interaction.channel,
                self.world.bot_user,
                flags=(flags & FLAG_EPHEMERAL) | FLAG_LOADING,
                **extra,
            )
        else:
            message = build_message(
                self.world,
                interaction.channel,
                self.world.bot_user,
                data,
                uploads,
                size_limit=interaction.attachment_size_limit,
                **extra,
            )
        self.world.post(message, interaction.id)
        if not message.ephemeral:
            self.world.dispatch("MESSAGE_CREATE", message.to_payload())
        return message

    def _dispatch_update(self, message: Message) -> None:
        if not message.ephemeral:
            self.world.dispatch("MESSAGE_UPDATE", message.to_payload())

    # -- /webhooks/{application_id}/{token}/... --------------------------------------------------

    def by_token(self, application_id: int, token: str) -> Interaction:
        if application_id != self.world.application_id:
            raise unknown_webhook()
        interaction = self._by_token.get(token)
        if interaction is None:
            raise unknown_webhook()
        if self.clock() > interaction.created_at + self.token_lifetime:
            raise invalid_webhook_token()
        return interaction

    def message_of(self, interaction: Interaction, message_id: str) -> Message:
        if message_id == "@original":
            if interaction.original is None:
                raise unknown_message()
            return interaction.original
        for message in interaction.followups:
            if str(message.id) == message_id:
                return message
        if interaction.source_message is not None and str(interaction.source_message.id) == message_id:
            return interaction.source_message
        raise unknown_message()

    def followup(self, interaction: Interaction, body: dict[str, Any], uploads: list[Upload]) -> Message:
        if interaction.response_type is None:
            raise unknown_webhook()  # nothing to follow up yet
        original = interaction.original
        if original is not None and original.flags & FLAG_LOADING and not original.deleted:
            # Discord: the first follow-up after a deferred response edits the loading message (once that is
            # deleted, a follow-up is a message of its own, with its own flags).
            self.edit(interaction, original, body, uploads)
            return original
        flags = int(body.get("flags") or 0)
        message = build_message(
            self.world,
            interaction.channel,
            self.world.bot_user,
            body,
            uploads,
            size_limit=interaction.attachment_size_limit,
            type=19 if interaction.type != APPLICATION_COMMAND else 20,
            webhook_id=self.world.application_id,
            application_id=self.world.application_id,
            interaction_metadata=interaction.metadata(),
            visible_to=interaction.user.id if flags & FLAG_EPHEMERAL else None,
        )
        interaction.followups.append(message)
        self.world.post(message, interaction.id)
        if not message.ephemeral:
            self.world.dispatch("MESSAGE_CREATE", message.to_payload())
        return message

    def edit(
        self, interaction: Interaction, message: Message, body: dict[str, Any], uploads: list[Upload]
    ) -> Message:
        was_loading = bool(message.flags & FLAG_LOADING)
        if was_loading:
            message.flags &= ~FLAG_LOADING
        try:
            apply_edit(
                self.world,
                message,
                body,
                uploads,
                size_limit=interaction.attachment_size_limit,
                keys=(interaction.id,),
            )
        except DiscordAPIError:
            if was_loading:
                message.flags |= FLAG_LOADING
            raise
        self._dispatch_update(message)
        return message

    def delete(self, message: Message, *keys: Key) -> None:
        """``keys``: what else the change concerns (the interaction whose message it was)."""
        message.deleted = True
        self.world.touch(message.channel.id, *keys)
        if not message.ephemeral:
            payload: dict[str, Any] = {"id": str(message.id), "channel_id": str(message.channel.id)}
            if message.channel.guild is not None:
                payload["guild_id"] = str(message.channel.guild.id)
            self.world.dispatch("MESSAGE_DELETE", payload)
