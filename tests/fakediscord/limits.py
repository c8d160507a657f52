"""Discord's message, embed, component, modal and autocomplete limits, checked the way the API checks them.

Every check adds an entry to Discord's nested `errors` object so a failing request gets the same
`{"code": 50035, "message": "Invalid Form Body", "errors": {...}}` body the real API returns.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

from .errors import empty_message, entity_too_large, field_error, invalid_form_body

CONTENT_MAX = 2000
EMBEDS_MAX = 10
EMBED_TOTAL_MAX = 6000
EMBED_TITLE_MAX = 256
EMBED_DESCRIPTION_MAX = 4096
EMBED_FIELDS_MAX = 25
EMBED_FIELD_NAME_MAX = 256
EMBED_FIELD_VALUE_MAX = 1024
EMBED_FOOTER_MAX = 2048
EMBED_AUTHOR_MAX = 256
ACTION_ROWS_MAX = 5
BUTTONS_PER_ROW_MAX = 5
SELECT_OPTIONS_MAX = 25
CUSTOM_ID_MAX = 100
LABEL_MAX = 80
SELECT_OPTION_TEXT_MAX = 100
V2_COMPONENTS_MAX = 40
MODAL_TITLE_MAX = 45
MODAL_COMPONENTS_MAX = 5
AUTOCOMPLETE_CHOICES_MAX = 25
CHOICE_NAME_MAX = 100
ATTACHMENT_DESCRIPTION_MAX = 1024  # an attachment's alt text
DEFAULT_ATTACHMENT_SIZE_LIMIT = 10 * 1024 * 1024  # 10 MiB, what an unboosted guild allows

FLAG_EPHEMERAL = 1 << 6
FLAG_LOADING = 1 << 7
FLAG_IS_COMPONENTS_V2 = 1 << 15

BUTTON = 2
STRING_SELECT = 3
TEXT_INPUT = 4
SELECT_TYPES = frozenset({3, 5, 6, 7, 8})
LINK_STYLE = 5
PREMIUM_STYLE = 6


class _Errors:
    """Collects errors under their JSON path, nested the way Discord nests them."""

    def __init__(self) -> None:
        self.tree: dict[str, Any] = {}

    def add(self, path: Sequence[str | int], code: str, message: str) -> None:
        node = self.tree
        for key in path:
            node = node.setdefault(str(key), {})
        node.setdefault("_errors", []).extend(field_error(code, message)["_errors"])

    def too_long(self, path: Sequence[str | int], value: object, limit: int) -> None:
        if isinstance(value, str) and len(value) > limit:
            self.add(path, "BASE_TYPE_MAX_LENGTH", f"Must be {limit} or fewer in length.")

    def raise_if_any(self) -> None:
        if self.tree:
            raise invalid_form_body(self.tree)


def _embed_length(embed: dict[str, Any]) -> int:
    total = len(embed.get("title") or "") + len(embed.get("description") or "")
    total += len((embed.get("footer") or {}).get("text") or "")
    total += len((embed.get("author") or {}).get("name") or "")
    for field in embed.get("fields") or []:
        total += len(field.get("name") or "") + len(field.get("value") or "")
    return total


def _check_embeds(errors: _Errors, embeds: list[dict[str, Any]]) -> None:
    if len(embeds) > EMBEDS_MAX:
        errors.add(["embeds"], "BASE_TYPE_MAX_LENGTH", f"Must be {EMBEDS_MAX} or fewer in length.")
    for index, embed in enumerate(embeds):
        base: list[str | int] = ["embeds", index]
        errors.too_long([*base, "title"], embed.get("title"), EMBED_TITLE_MAX)
        errors.too_long([*base, "description"], embed.get("description"), EMBED_DESCRIPTION_MAX)
        errors.too_long([*base, "footer", "text"], (embed.get("footer") or {}).get("text"), EMBED_FOOTER_MAX)
        errors.too_long([*base, "author", "name"], (embed.get("author") or {}).get("name"), EMBED_AUTHOR_MAX)
        fields = embed.get("fields") or []
        if len(fields) > EMBED_FIELDS_MAX:
            errors.add(
                [*base, "fields"], "BASE_TYPE_MAX_LENGTH", f"Must be {EMBED_FIELDS_MAX} or fewer in length."
            )
        for f_index, field in enumerate(fields):
            for key, limit in (("name", EMBED_FIELD_NAME_MAX), ("value", EMBED_FIELD_VALUE_MAX)):
                value = field.get(key)
                if not value:
                    errors.add(
                        [*base, "fields", f_index, key], "BASE_TYPE_REQUIRED", "This field is required"
                    )
                errors.too_long([*base, "fields", f_index, key], value, limit)
    if sum(_embed_length(e) for e in embeds) > EMBED_TOTAL_MAX:
        errors.add(
            ["embeds"], "MAX_EMBED_SIZE_EXCEEDED", f"Embed size exceeds maximum size of {EMBED_TOTAL_MAX}"
        )


def _check_interactive(
    errors: _Errors, path: list[str | int], component: dict[str, Any], seen: set[str]
) -> None:
    """Checks one button or select wherever it sits in the tree."""
    kind = component.get("type")
    custom_id = component.get("custom_id")
    needs_id = kind in SELECT_TYPES or (
        kind == BUTTON and component.get("style") not in (LINK_STYLE, PREMIUM_STYLE)
    )
    if needs_id and not custom_id:
        errors.add([*path, "custom_id"], "BASE_TYPE_REQUIRED", "This field is required")
    if isinstance(custom_id, str):
        errors.too_long([*path, "custom_id"], custom_id, CUSTOM_ID_MAX)
        if custom_id in seen:
            errors.add(
                [*path, "custom_id"],
                "COMPONENT_CUSTOM_ID_DUPLICATED",
                "Component custom id cannot be duplicated",
            )
        seen.add(custom_id)
    if kind == BUTTON:
        errors.too_long([*path, "label"], component.get("label"), LABEL_MAX)
    if kind == STRING_SELECT:
        options = component.get("options") or []
        if not options or len(options) > SELECT_OPTIONS_MAX:
            errors.add(
                [*path, "options"],
                "BASE_TYPE_BAD_LENGTH",
                f"Must be between 1 and {SELECT_OPTIONS_MAX} in length.",
            )
        for o_index, option in enumerate(options):
            errors.too_long([*path, "options", o_index, "label"], option.get("label"), SELECT_OPTION_TEXT_MAX)
            errors.too_long([*path, "options", o_index, "value"], option.get("value"), SELECT_OPTION_TEXT_MAX)
    if kind in SELECT_TYPES:
        errors.too_long([*path, "placeholder"], component.get("placeholder"), 150)


def _walk_v2(errors: _Errors, path: list[str | int], components: list[dict[str, Any]], seen: set[str]) -> int:
    count = 0
    for index, component in enumerate(components):
        here: list[str | int] = [*path, index]
        count += 1
        _check_interactive(errors, here, component, seen)
        for key in ("components", "items"):
            children = component.get(key)
            if isinstance(children, list):
                count += _walk_v2(errors, [*here, key], children, seen)  # pyright: ignore[reportUnknownArgumentType]
        accessory = component.get("accessory")
        if isinstance(accessory, dict):
            count += _walk_v2(errors, [*here, "accessory"], [accessory], seen)  # pyright: ignore[reportUnknownArgumentType]
    return count


def _check_components(errors: _Errors, components: list[dict[str, Any]], flags: int) -> None:
    seen: set[str] = set()
    if flags & FLAG_IS_COMPONENTS_V2:
        if _walk_v2(errors, ["components"], components, seen) > V2_COMPONENTS_MAX:
            errors.add(
                ["components"], "BASE_TYPE_MAX_LENGTH", f"Must be {V2_COMPONENTS_MAX} or fewer in length."
            )
        return
    if len(components) > ACTION_ROWS_MAX:
        errors.add(["components"], "BASE_TYPE_MAX_LENGTH", f"Must be {ACTION_ROWS_MAX} or fewer in length.")
    for r_index, row in enumerate(components):
        path: list[str | int] = ["components", r_index]
        if row.get("type") != 1:
            errors.add(
                [*path, "type"], "COMPONENT_LAYOUT_WIDTH_EXCEEDED", "Top-level components must be action rows"
            )
            continue
        children: list[dict[str, Any]] = row.get("components") or []
        selects = sum(1 for c in children if c.get("type") in SELECT_TYPES)
        if not children or len(children) > BUTTONS_PER_ROW_MAX or (selects and len(children) > 1):
            errors.add(
                [*path, "components"],
                "COMPONENT_LAYOUT_WIDTH_EXCEEDED",
                "The specified component exceeds the maximum width",
            )
        for c_index, child in enumerate(children):
            _check_interactive(errors, [*path, "components", c_index], child, seen)


def _descriptions(attachments: object) -> list[object]:
    """Each attachment's description (alt text) in a create or edit payload, None where it has none."""
    if not isinstance(attachments, list):
        return []
    return [
        cast(dict[str, Any], a).get("description") if isinstance(a, dict) else None
        for a in cast(list[object], attachments)
    ]


def check_message_fields(payload: dict[str, Any]) -> None:
    """Validates the size-limited fields present in a create or edit payload."""
    errors = _Errors()
    errors.too_long(["content"], payload.get("content"), CONTENT_MAX)
    embeds = payload.get("embeds")
    if isinstance(embeds, list):
        _check_embeds(errors, embeds)  # pyright: ignore[reportUnknownArgumentType]
    components = payload.get("components")
    if isinstance(components, list):
        _check_components(errors, components, int(payload.get("flags") or 0))  # pyright: ignore[reportUnknownArgumentType]
    for index, description in enumerate(_descriptions(payload.get("attachments"))):
        errors.too_long(["attachments", index, "description"], description, ATTACHMENT_DESCRIPTION_MAX)
    errors.raise_if_any()


def check_not_empty(message: dict[str, Any]) -> None:
    """Discord refuses a message with nothing to show (50006)."""
    if not (
        message.get("content")
        or message.get("embeds")
        or message.get("attachments")
        or message.get("components")
        or message.get("sticker_ids")
        or message.get("poll")
    ):
        raise empty_message()


def check_file_sizes(sizes: Sequence[int], limit: int) -> None:
    if any(size > limit for size in sizes) or sum(sizes) > limit:
        raise entity_too_large(limit)


def check_modal(data: dict[str, Any]) -> None:
    errors = _Errors()
    errors.too_long(["data", "title"], data.get("title"), MODAL_TITLE_MAX)
    errors.too_long(["data", "custom_id"], data.get("custom_id"), CUSTOM_ID_MAX)
    if not data.get("title"):
        errors.add(["data", "title"], "BASE_TYPE_REQUIRED", "This field is required")
    components = data.get("components") or []
    if not components or len(components) > MODAL_COMPONENTS_MAX:
        errors.add(
            ["data", "components"],
            "BASE_TYPE_BAD_LENGTH",
            f"Must be between 1 and {MODAL_COMPONENTS_MAX} in length.",
        )
    errors.raise_if_any()


def check_autocomplete(data: dict[str, Any]) -> None:
    errors = _Errors()
    choices = data.get("choices") or []
    if len(choices) > AUTOCOMPLETE_CHOICES_MAX:
        errors.add(
            ["data", "choices"],
            "BASE_TYPE_MAX_LENGTH",
            f"Must be {AUTOCOMPLETE_CHOICES_MAX} or fewer in length.",
        )
    for index, choice in enumerate(choices):
        errors.too_long(["data", "choices", index, "name"], choice.get("name"), CHOICE_NAME_MAX)
        errors.too_long(["data", "choices", index, "value"], choice.get("value"), CHOICE_NAME_MAX)
    errors.raise_if_any()
