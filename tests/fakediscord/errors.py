"""Discord's error responses: HTTP status plus the JSON error code the real API returns."""

from __future__ import annotations

from typing import Any


class DiscordAPIError(Exception):
    """Raised inside a REST handler; the server turns it into Discord's error JSON."""

    def __init__(self, status: int, code: int, message: str, errors: dict[str, Any] | None = None) -> None:
        super().__init__(f"{status} {code}: {message}")
        self.status = status
        self.code = code
        self.message = message
        self.errors = errors

    def body(self) -> dict[str, Any]:
        body: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.errors:
            body["errors"] = self.errors
        return body


def unauthorized() -> DiscordAPIError:
    return DiscordAPIError(401, 0, "401: Unauthorized")


def not_found() -> DiscordAPIError:
    return DiscordAPIError(404, 0, "404: Not Found")


def unknown_channel() -> DiscordAPIError:
    return DiscordAPIError(404, 10003, "Unknown Channel")


def unknown_guild() -> DiscordAPIError:
    return DiscordAPIError(404, 10004, "Unknown Guild")


def unknown_message() -> DiscordAPIError:
    return DiscordAPIError(404, 10008, "Unknown Message")


def unknown_member() -> DiscordAPIError:
    return DiscordAPIError(404, 10007, "Unknown Member")


def unknown_user() -> DiscordAPIError:
    return DiscordAPIError(404, 10013, "Unknown User")


def unknown_webhook() -> DiscordAPIError:
    return DiscordAPIError(404, 10015, "Unknown Webhook")


def unknown_application_command() -> DiscordAPIError:
    return DiscordAPIError(404, 10063, "Unknown application command")


def unknown_interaction() -> DiscordAPIError:
    # Sent when the first response misses the 3-second window or the id/token are wrong.
    return DiscordAPIError(404, 10062, "Unknown interaction")


def already_acknowledged() -> DiscordAPIError:
    return DiscordAPIError(400, 40060, "Interaction has already been acknowledged.")


def empty_message() -> DiscordAPIError:
    return DiscordAPIError(400, 50006, "Cannot send an empty message")


def cannot_dm_user() -> DiscordAPIError:
    return DiscordAPIError(403, 50007, "Cannot send messages to this user")


def missing_access() -> DiscordAPIError:
    return DiscordAPIError(403, 50001, "Missing Access")


def missing_permissions() -> DiscordAPIError:
    return DiscordAPIError(403, 50013, "Missing Permissions")


def cannot_edit_foreign_message() -> DiscordAPIError:
    return DiscordAPIError(403, 50005, "Cannot edit a message authored by another user")


def invalid_webhook_token() -> DiscordAPIError:
    # Follow-up tokens expire 15 minutes after the interaction was created.
    return DiscordAPIError(401, 50027, "Invalid Webhook Token")


def entity_too_large(limit: int) -> DiscordAPIError:
    return DiscordAPIError(413, 40005, f"Request entity too large (limit {limit} bytes)")


def invalid_form_body(errors: dict[str, Any]) -> DiscordAPIError:
    return DiscordAPIError(400, 50035, "Invalid Form Body", errors)


def field_error(code: str, message: str) -> dict[str, Any]:
    """The leaf of Discord's nested `errors` object."""
    return {"_errors": [{"code": code, "message": message}]}
