"""The message refs that say where the encounter's status is shown and which post is its newest.

The status is one per encounter, keyed ``"<own|post>:<message id>:<phase_no>"``: one key per message, so a status
written for a new phase on an old post is never overwritten by the same phase's on the next post (which would
leave the old post's text behind); the key's phase tells a restart whether the open phase's status went out.
"""

from __future__ import annotations

from bot.storage import MessageRef, Storage

STATUS = "status"
STATUS_OWN = "own"
STATUS_ON_POST = "post"
#: the newest post (an account, the opening board): the status rides on it as its text
POST = "post"
LAST_POST = "last"


def status_kind(ref: MessageRef) -> str:
    """Where a status ref shows the status: its own message, or a post's text (refs written before the status
    rode on posts were all messages of their own, keyed by phase number alone)."""
    kind = ref.key.split(":", 1)[0]
    return kind if kind == STATUS_ON_POST else STATUS_OWN


def status_phase(ref: MessageRef) -> int | None:
    """The phase a status ref was written for."""
    tail = ref.key.rsplit(":", 1)[-1]
    return int(tail) if tail.isdigit() else None


async def status_ref(storage: Storage, encounter_id: int) -> MessageRef | None:
    """The message showing the status now (None: none yet)."""
    refs = await storage.message_refs(encounter_id, STATUS)
    return max(refs, key=lambda r: r.message_id) if refs else None
