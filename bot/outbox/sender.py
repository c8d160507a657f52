"""What the outbox asks of Discord: the announcements cog implements it, a test fakes it."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, Protocol

from bot.results import HeldRolls, StatusView, StepReport
from bot.service import Reading
from bot.storage import Encounter, MessageRef

if TYPE_CHECKING:
    from bot.orders_reply import Pick

#: what :meth:`Sender.send_panels` answers when a unit's controls leave its message no row for the unit picker:
#: the units then get a panel message each
APART: Literal["apart"] = "apart"


class ChannelUnavailable(Exception):
    """The encounter's channel cannot be reached now (deleted, no access, Discord down): posts wait."""


@dataclass(frozen=True, slots=True)
class Sent:
    """Where a message went: what is recorded once it is out."""

    channel_id: int
    message_id: int


class Sender(Protocol):
    """Each method turns one thing into Discord and raises one of :attr:`refused` when Discord refuses it (the
    outbox then retries from storage); what must go out once is claimed and recorded by the outbox, not here."""

    @property
    def shared(self) -> bool:
        """Whether other bot processes may post for the same encounters (this one runs only some shards)."""
        ...

    @property
    def refused(self) -> tuple[type[BaseException], ...]:
        """The errors that mean "Discord refused it, or the channel is out of reach, for now"."""
        ...

    async def post_step(self, meta: Encounter, step: StepReport) -> int | None:
        """The step's board and account in the channel, the encounter's status in the same request, and each
        side's own view where the ruleset says so; the id of the channel message that shows it (None: nothing
        public to post)."""
        ...

    async def post_steps(
        self, meta: Encounter, steps: list[StepReport], shown: Callable[[int], Awaitable[None]]
    ) -> None:
        """Several steps in as few messages as Discord allows, the last with the encounter's status; ``shown`` is
        told the newest step of each message once that message is out, so a refusal halfway repeats nothing that
        went out."""
        ...

    async def post_opening(self, reading: Reading, *, private: bool) -> None:
        """The board as the encounter starts (and each side's own, when ``private``)."""
        ...

    async def send_end(self, meta: Encounter) -> Sent:
        """The winner (or a draw) in the channel."""
        ...

    async def refresh_status(self, encounter_id: int, *, status: StatusView | None = None) -> None:
        """The encounter's one status text, sent or edited where the status refs say."""
        ...

    async def send_held(self, meta: Encounter, held: HeldRolls) -> None:
        """Held rolls to the director, by DM."""
        ...

    async def send_panel(
        self, meta: Encounter, reading: Reading, user_id: int, unit_id: str, before: MessageRef | None
    ) -> Sent | None:
        """The unit's panel by DM, edited into ``before`` (the player's panel message of the step just before)
        when that is in the same DM; None when the player's DMs are closed."""
        ...

    async def send_panels(
        self,
        meta: Encounter,
        reading: Reading,
        user_id: int,
        picks: tuple[Pick, ...],
        before: MessageRef | None,
    ) -> Sent | Literal["apart"] | None:
        """One panel message by DM for the player's units of ``picks`` (a unit picker switches which one it
        shows), edited into ``before`` when that is in the same DM; None when the DMs are closed, :data:`APART`
        when a unit's panel leaves no room for the picker."""
        ...

    async def send_dms_closed(self, meta: Encounter, user_id: int) -> Sent | None:
        """The channel notice that a player's DMs are closed (None: the channel is out of reach)."""
        ...

    def close_post(self, encounter_id: int) -> None:
        """The resolution is over: a post whose turn lasts one resolution takes no further step."""
        ...
