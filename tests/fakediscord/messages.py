"""Turning create/edit payloads (plus uploaded files) into validated `Message` records."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .errors import field_error, invalid_form_body
from .limits import check_file_sizes, check_message_fields, check_not_empty
from .state import Attachment, Channel, Key, Message, User, World


@dataclass(frozen=True)
class Upload:
    """One `files[n]` part of a multipart request."""

    index: int
    filename: str
    data: bytes
    content_type: str | None = None


def _new_attachments(
    world: World, channel: Channel, payload: dict[str, Any], uploads: list[Upload]
) -> list[Attachment]:
    """Uploads become attachments; `attachments[].id` refers to the upload index, as discord.py sends it."""
    described = {str(a.get("id")): a for a in payload.get("attachments") or []}
    result: list[Attachment] = []
    for upload in uploads:
        meta = described.get(str(upload.index), {})
        result.append(
            world.new_attachment(
                channel.id,
                meta.get("filename") or upload.filename,
                upload.data,
                description=meta.get("description"),
                content_type=upload.content_type
                if upload.content_type != "application/octet-stream"
                else None,
            )
        )
    return result


def _payload_view(message: Message) -> dict[str, Any]:
    return {
        "content": message.content,
        "embeds": message.embeds,
        "components": message.components,
        "attachments": message.attachments,
    }


def build_message(
    world: World,
    channel: Channel,
    author: User,
    payload: dict[str, Any],
    uploads: list[Upload],
    *,
    size_limit: int,
    **extra: Any,
) -> Message:
    """Validates a create payload and returns the (not yet posted) message."""
    check_message_fields(payload)
    check_file_sizes([u.data.__len__() for u in uploads], size_limit)
    if payload.get("sticker_ids") or payload.get("poll"):
        # Stickers and polls are outside what the fake models; refuse rather than drop them silently.
        raise invalid_form_body(
            {"poll": field_error("UNSUPPORTED", "fakediscord does not model polls or stickers")}
        )
    message = Message(
        world.ids.next(),
        channel,
        author,
        content=payload.get("content") or "",
        embeds=list(payload.get("embeds") or []),
        components=list(payload.get("components") or []),
        attachments=_new_attachments(world, channel, payload, uploads),
        flags=int(payload.get("flags") or 0),
        tts=bool(payload.get("tts")),
        message_reference=payload.get("message_reference"),
        **extra,
    )
    check_not_empty(_payload_view(message))
    world.check_mentions(message, payload)
    return message


def apply_edit(
    world: World,
    message: Message,
    payload: dict[str, Any],
    uploads: list[Upload],
    *,
    size_limit: int,
    keys: tuple[Key, ...] = (),
) -> None:
    """Validates an edit and applies it; fields absent from the payload keep their value. The change names the
    message's channel and ``keys`` (its interaction) for `World.wait_for`."""
    check_message_fields(payload | {"flags": payload.get("flags", message.flags)})
    check_file_sizes([len(u.data) for u in uploads], size_limit)
    attachments = message.attachments
    if "attachments" in payload:
        kept_ids = {str(a.get("id")) for a in payload.get("attachments") or []}
        attachments = [a for a in message.attachments if str(a.id) in kept_ids]
        attachments += _new_attachments(world, message.channel, payload, uploads)
    elif uploads:
        attachments = [*attachments, *_new_attachments(world, message.channel, payload, uploads)]
    updated: dict[str, Any] = {
        "content": payload["content"] if payload.get("content") is not None else message.content,
        "embeds": payload["embeds"] if payload.get("embeds") is not None else message.embeds,
        "components": payload["components"] if payload.get("components") is not None else message.components,
        "attachments": attachments,
    }
    if "content" in payload and payload["content"] is None:
        updated["content"] = ""
    check_not_empty(updated)
    world.check_mentions(message, payload)
    message.content = updated["content"]
    message.embeds = list(updated["embeds"])
    message.components = list(updated["components"])
    message.attachments = attachments
    if "flags" in payload and payload["flags"] is not None:
        # Only SUPPRESS_EMBEDS and the v2 flag may change after creation; ephemeral/loading are kept.
        message.flags = (message.flags & ~((1 << 2) | (1 << 15))) | (
            int(payload["flags"]) & ((1 << 2) | (1 << 15))
        )
    message.edited_timestamp = world.ids.now_iso()  # Discord's clock, as the ids'
    world.touch(message.channel.id, *keys)
