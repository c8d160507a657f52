"""Discord's error responses: HTTP status plus the JSON error code the real API returns."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field
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


@dataclass(frozen=True)
class FaultKind:
    """A refusal Discord may answer any request with: a 429 (``retry_after`` seconds, ``is_global``, ``via``: a 429
    without ``Via`` comes from Cloudflare and discord.py does not retry it) or a 5xx."""

    name: str
    status: int
    is_global: bool = False
    via: bool = True


#: every refusal ``FakeDiscord.fail_randomly`` draws from by default
FAULT_KINDS: tuple[FaultKind, ...] = (
    FaultKind("429", 429),
    FaultKind("429-global", 429, is_global=True),
    FaultKind("429-no-via", 429, via=False),
    FaultKind("500", 500),
    FaultKind("502", 502),
    FaultKind("503", 503),
    FaultKind("504", 504),
)


@dataclass
class RandomFaults:
    """Each API request fails with probability ``rate``, with a kind drawn from ``kinds``; the draws come from a
    ``random.Random(seed)`` (the n-th request's fate is the same for the same seed). ``served`` counts them."""

    rate: float
    seed: int | str
    kinds: tuple[FaultKind, ...] = FAULT_KINDS
    retry_after: tuple[float, float] = (0.05, 0.5)
    served: Counter[str] = field(default_factory=lambda: Counter[str]())

    def __post_init__(self) -> None:
        self._rng = random.Random(self.seed)

    def draw(self) -> tuple[FaultKind, float] | None:
        """The refusal for the next request, with its ``retry_after``, or None to serve it."""
        fails = self._rng.random() < self.rate
        kind = self._rng.choice(self.kinds)
        retry_after = round(self._rng.uniform(*self.retry_after), 2)
        if not fails:
            return None
        self.served[kind.name] += 1
        return kind, retry_after
