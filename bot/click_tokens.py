"""Each person's newest click in their own DM with the bot, so the bot's next DMs to them go through that click's
interaction webhook instead of the DM channel's route.

Discord's global limit (about 50 requests a second per bot token: bot/request_plan.py) does not count the
interaction endpoints. A follow-up of a click made in a person's DM lands in that same DM, with a notification,
and costs none of the budget the channel posts and boards share; so does an edit of a message that click made, or
of the message it was made on. A player who clicked Submit on their DM panel gets the next panel seconds later,
when that click's token is still good for it.

A click is used only once its first answer is given (Discord refuses a follow-up before it), when that answer is
one a follow-up may come after (not a modal), and while its token is fresh. Discord's tokens last 15 minutes from
the interaction's creation; an expired one is answered 401, an invalid request that counts towards a ban. So a
click is used for :data:`FRESH_FOR` after the time its own id carries (not when this process saw it). A refused
follow-up or edit (nothing created or changed) goes by the channel's route, once, and a refusal of the token
itself drops the click.

Only clicks in the person's own DM with the bot are kept, under the clicking person's id: a follow-up goes where
the click was made, and a click in a server channel would make it public there. A click lives in the process that
received it (or was handed it: bot/handoff.py); any other process, and this one after a restart, sends by the
channel's route until the person's next click.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

import discord

from bot.bounded import Bounded
from bot.dm_channels import in_bot_dm

log = logging.getLogger(__name__)

#: how long after its creation a click's token is used: Discord's last 15 minutes, and a DM may still wait its
#: turn behind the outbox and a 429 after it was chosen to go by the click; no token is used near its end
FRESH_FOR: Final = dt.timedelta(minutes=10)
#: people whose newest DM click is kept: every player of a thousand busy tables
CLICKS_SIZE: Final = 16_384
#: messages sent as follow-ups whose click is kept for editing them: a few per player of those tables
MADE_SIZE: Final = 32_768
#: the answers a follow-up may come after: a modal's or an autocomplete's leaves the token nothing to follow
FOLLOWABLE: Final = frozenset(
    {
        discord.InteractionResponseType.channel_message,
        discord.InteractionResponseType.deferred_channel_message,
        discord.InteractionResponseType.message_update,
        discord.InteractionResponseType.deferred_message_update,
    }
)
#: the answers after which the click's original response is the message it was made on
UPDATES: Final = frozenset(
    {discord.InteractionResponseType.message_update, discord.InteractionResponseType.deferred_message_update}
)
#: Discord's error codes for a token it no longer takes: Unknown Webhook, Invalid Webhook Token
TOKEN_GONE: Final = frozenset({10015, 50027})
#: Discord's error code for a message it does not know (deleted): the click's token may still be good
UNKNOWN_MESSAGE: Final = 10008


@dataclass(frozen=True, slots=True)
class Made:
    """A follow-up a click sent: what editing it needs, the click's webhook (not the click, which holds the whole
    message it was made on: tens of KB a person)."""

    webhook: discord.Webhook
    user_id: int
    channel_id: int
    created_at: dt.datetime


class ClickTokens:
    """The newest DM clicks of each person this process received (the one before the newest too: the newest may
    not be answered yet when a DM it caused goes out, such as the panel after the Submit that resolved the
    phase), and which click made which message. ``clock``
    gives the time (aware, UTC) a click's age is measured at."""

    def __init__(
        self,
        *,
        clock: Callable[[], dt.datetime] = discord.utils.utcnow,
        size: int = CLICKS_SIZE,
        made_size: int = MADE_SIZE,
    ) -> None:
        self.clock = clock
        self._clicks: Bounded[int, tuple[discord.Interaction, ...]] = Bounded(size)  # newest first
        self._made: Bounded[int, Made] = Bounded(made_size)
        #: DMs sent and edits made through a click's webhook, and the refusals that sent one the channel's way
        self.sent = 0
        self.edited = 0
        self.refused = 0

    def __len__(self) -> int:
        """The people whose click is kept."""
        return len(self._clicks)

    def seen(self, interaction: discord.Interaction) -> None:
        """Keep ``interaction`` as its person's newest click, when it was made in their own DM with the bot."""
        if interaction.channel_id is None or not in_bot_dm(interaction):
            return
        user_id = interaction.user.id
        # a handed click may arrive after a newer one: the two newest by their ids
        kept = sorted((*self._clicks.get(user_id, ()), interaction), key=lambda c: c.id, reverse=True)
        self._clicks[user_id] = tuple(kept[:2])
        self._prune()

    def click_of(self, user_id: int) -> discord.Interaction | None:
        """The person's newest DM click a follow-up may go through now (the one before it is let go once the newest
        is usable: a click holds the whole message it was made on)."""
        kept = self._clicks.get(user_id, ())
        click = next((c for c in kept if self._usable(c)), None)
        if click is not None and click is kept[0] and len(kept) > 1:
            self._clicks[user_id] = (click,)
        return click

    async def send(self, user_id: int, kwargs: dict[str, Any]) -> discord.WebhookMessage | None:
        """``kwargs`` (a channel send's) as a follow-up of the person's click, in their DM; None when they have no
        usable click or its webhook refused the message (nothing was created: the caller sends it by the
        channel). Any other failure is the caller's, as a channel send's would be: the message may have gone."""
        click = self.click_of(user_id)
        if click is None:
            return None
        try:
            message = await click.followup.send(wait=True, **kwargs)
        except discord.HTTPException as error:
            if not self._refused(user_id, click.token, error):
                raise
            return None
        self._made[message.id] = Made(click.followup, user_id, message.channel.id, click.created_at)
        self._prune()
        self.sent += 1
        return message

    async def edit(
        self, user_id: int, channel_id: int, message_id: int, kwargs: dict[str, Any]
    ) -> discord.Message | None:
        """Edit the person's DM message ``message_id`` (a channel edit's ``kwargs``) through a click: the click
        made on it when that click was answered by updating it, else the click whose follow-up made it; the
        message as edited. None when neither is usable, or its webhook refused the edit (nothing changed: the
        caller edits it by the channel). Any other failure is the caller's."""
        click = self._made_on(user_id, channel_id, message_id)
        made = self._made.get(message_id)
        token = ""
        try:
            if click is not None:
                token = click.token
                edited: discord.Message = await click.edit_original_response(**kwargs)
            elif (
                made is not None
                and (made.user_id, made.channel_id) == (user_id, channel_id)
                and self.clock() - made.created_at < FRESH_FOR
            ):
                token = made.webhook.token or ""
                edited = await made.webhook.edit_message(message_id, **kwargs)
            else:
                return None
        except discord.HTTPException as error:
            if not self._refused(user_id, token, error):
                raise
            return None
        self.edited += 1
        return edited

    def _made_on(self, user_id: int, channel_id: int, message_id: int) -> discord.Interaction | None:
        """The person's usable click made on ``message_id`` and answered by updating it: its original response is
        that message."""
        return next(
            (
                c
                for c in self._clicks.get(user_id, ())
                if c.channel_id == channel_id
                and c.message is not None
                and c.message.id == message_id
                and c.response.type in UPDATES
                and self._usable(c)
            ),
            None,
        )

    def _prune(self) -> None:
        """Drop the clicks past their freshness, oldest first: a kept click holds its message and data, so
        memory follows the people who clicked in the last minutes, not everyone since the start."""
        now = self.clock()
        while self._clicks:
            oldest = next(iter(self._clicks))
            if now - self._clicks[oldest][0].created_at < FRESH_FOR:
                break
            del self._clicks[oldest]
        while self._made:
            oldest = next(iter(self._made))
            if now - self._made[oldest].created_at < FRESH_FOR:
                break
            del self._made[oldest]

    def _usable(self, click: discord.Interaction) -> bool:
        return click.response.type in FOLLOWABLE and self.clock() - click.created_at < FRESH_FOR

    def _refused(self, user_id: int, token: str, error: discord.HTTPException) -> bool:
        """Whether ``error`` is a refusal (a 4xx: nothing was created or changed); a refusal of the token itself
        drops the click. A server error or a dropped connection may have let the request through."""
        if not 400 <= error.status < 500:
            return False
        self.refused += 1
        log.info("click webhook refused status=%s code=%s", error.status, error.code)
        if (
            error.status == 401
            or error.code in TOKEN_GONE
            or (error.status == 404 and error.code != UNKNOWN_MESSAGE)
        ):
            self._drop(user_id, token)
        return True

    def _drop(self, user_id: int, token: str) -> None:
        """The click of ``token`` is no longer used, nor what it made."""
        kept = tuple(c for c in self._clicks.get(user_id, ()) if c.token != token)
        if kept:
            self._clicks[user_id] = kept
        else:
            self._clicks.pop(user_id, None)
        for message_id in [m for m, made in self._made.items() if made.webhook.token == token]:
            del self._made[message_id]
