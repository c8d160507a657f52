"""What the channel is shown as steps resolve, and the announcer that sends everything the outbox says is owed
(DESIGN §4 flow).

As steps resolve: each one's public board and account in the channel's language, one message per turn of play
edited as its steps come (bot/turn_posts.py: an embed and board per step, a new message past Discord's limits), a
long account as a file, the winner at the end. The status rides on the newest post (cogs/status_post.py); panels,
private boards, held rolls and reminders go by DM (cogs/direct_messages.py).

:class:`Announcer` is the outbox's :class:`~bot.outbox.Sender`: what must go out, once, in order, retried while
Discord refuses it and resumed after a crash, is decided in bot/outbox; here each thing is only turned into Discord.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Literal

import discord

from bot.alt_text import Upload, board_alt
from bot.dice_seal import reveal_line
from bot.imaging import board_png
from bot.logs import trace_id
from bot.names import shown_name
from bot.orders_reply import Pick
from bot.outbox import ANNOUNCED, ChannelUnavailable, Job, Outbox, Sent, StepPost
from bot.palettes import public_scheme
from bot.panels import panel_for, step_cards
from bot.panels.model import Card
from bot.results import HeldRolls, OverrideDone, Resolution, StatusView, StepReport, UndoDone
from bot.service import Reading
from bot.side_news import undone_unseen
from bot.storage import Deadline, Encounter, MessageRef
from bot.text.account import describe
from bot.text.rules_reference import cited
from bot.turn_posts import MAX_EMBEDS, pack, step_sizes
from cogs.common import ACCOUNT_INLINE_LIMIT, channel_language, clip, png_file
from cogs.direct_messages import DirectMessages
from cogs.status_post import StatusPoster, status_lines_of, status_text
from cogs.turn_post import OpenPost, TurnPosts, partial_message
from data.i18n import t
from render.phase import phase_title
from rules.events import Event
from rules.state import EncounterState

if TYPE_CHECKING:
    from bot.process.client import HexBotCore

log = logging.getLogger(__name__)

#: an account with more events than this is written in a worker thread
LONG_ACCOUNT = 200
#: times the status is shown again when the encounter changed while it was being edited
STATUS_RECHECKS = 2


class Announcer:
    """Turns what the outbox owes into Discord messages; the rest of the bot reaches the outbox through it."""

    def __init__(self, bot: HexBotCore) -> None:
        self.bot = bot
        self.outbox = Outbox(bot, self)
        partial = functools.partial(partial_message, bot)
        self.status = StatusPoster(bot, self.outbox, self.channel, self.channel_lang, partial)
        self.turns = TurnPosts(bot, self.outbox.claims.record, lambda: self.shared, self.status)
        self.dms = DirectMessages(bot, self.channel_lang)

    # --- the outbox, as the rest of the bot calls it --------------------------------------------------------
    @property
    def resumed(self) -> asyncio.Event:
        return self.outbox.resumed

    @property
    def retry_backoff(self) -> tuple[float, ...]:
        return self.outbox.retries.backoff

    @retry_backoff.setter
    def retry_backoff(self, backoff: tuple[float, ...]) -> None:
        self.outbox.retries.backoff = backoff

    def enqueue(self, encounter_id: int, job: Job | StepPost) -> None:
        self.outbox.enqueue(encounter_id, job)

    async def drain(self) -> None:
        await self.outbox.drain()

    async def step_done(self, step: StepReport) -> None:
        await self.outbox.step_done(step)

    async def after_resolution(self, result: Resolution) -> None:
        await self.outbox.after_resolution(result)

    async def resume_all(self) -> int:
        return await self.outbox.resume_all()

    async def open_phase(self, encounter_id: int) -> None:
        await self.outbox.open_phase(encounter_id)

    def status_changed(self, encounter_id: int) -> None:
        self.outbox.status_changed(encounter_id)

    def post_opening_board(self, encounter_id: int, *, reading: Reading | None = None) -> None:
        self.outbox.post_opening_board(encounter_id, reading=reading)

    async def claim(self, encounter_id: int, kind: str, key: str) -> bool:
        return await self.outbox.claims.claim(encounter_id, kind, key)

    async def record(self, encounter_id: int, kind: str, key: str, channel_id: int, message_id: int) -> None:
        await self.outbox.claims.record(encounter_id, kind, key, channel_id, message_id)

    async def release(self, encounter_id: int, kind: str, key: str) -> None:
        await self.outbox.claims.release(encounter_id, kind, key)

    # --- by DM (cogs/direct_messages.py) --------------------------------------------------------------------
    async def user_lang(self, meta: Encounter, user_id: int) -> str:
        return await self.dms.user_lang(meta, user_id)

    async def dm(self, user_id: int, text: str | None, **kwargs: object) -> discord.Message | None:
        return await self.dms.dm(user_id, text, **kwargs)

    async def remind(self, due: Deadline) -> None:
        await self.dms.remind(due)

    def override_done(self, meta: Encounter, done: OverrideDone) -> None:
        """A director's override changed the board: the private boards again, queued with the encounter's other
        posts so each side's DMs keep the order of the steps they show."""
        self.enqueue(meta.id, lambda: self.dms.override_done(meta, done))

    def undone_unseen(self, meta: Encounter, done: UndoDone) -> None:
        """An override the channel never saw, undone: the boards of those who saw it, as for the override."""
        if (news := undone_unseen(meta.id, done)) is not None:
            self.enqueue(
                meta.id, lambda: self.dms.post_private_views(meta, news[0], before=news[1], override=True)
            )

    async def send_held(self, meta: Encounter, held: HeldRolls) -> None:
        await self.dms.send_held(meta, held)

    async def send_panel(
        self, meta: Encounter, reading: Reading, user_id: int, unit_id: str, before: MessageRef | None
    ) -> Sent | None:
        return await self.dms.send_panel(meta, reading, user_id, unit_id, before)

    async def send_panels(
        self,
        meta: Encounter,
        reading: Reading,
        user_id: int,
        picks: tuple[Pick, ...],
        before: MessageRef | None,
    ) -> Sent | Literal["apart"] | None:
        return await self.dms.send_panels(meta, reading, user_id, picks, before)

    # --- the status (cogs/status_post.py) -------------------------------------------------------------------
    def status_text(self, status: StatusView, locale: str, acting: str = "") -> str:
        return status_text(status, locale, acting)

    async def refresh_status(self, encounter_id: int, *, status: StatusView | None = None) -> None:
        """One status message per encounter, edited as orders come in (cogs/status_post.py).

        Two refreshes may race in two bot processes (two orders at once) and the older read's edit land last: so
        with other processes about, after each edit the encounter's ``last_seq`` is checked again, and a change
        made meanwhile in the same phase is shown from a fresh read (a phase that moved on shows its own status
        when it opens)."""
        service = self.bot.service
        async with self.outbox.status_lock(encounter_id):
            if not self.shared:  # one process: its refreshes take turns under this lock
                await self._refresh_status(encounter_id, status)
                return
            for _ in range(STATUS_RECHECKS + 1):
                # from a read made now, never a status computed before the lock was taken
                reading = await service.read(encounter_id)
                status = await service.status(encounter_id, reading=reading)
                await self._refresh_status(encounter_id, status)
                if await service.storage.last_seq(encounter_id) == reading.meta.last_seq:
                    return
                if (await service.read(encounter_id)).phase_no != status.phase_no:
                    return

    async def _refresh_status(self, encounter_id: int, status: StatusView | None) -> None:
        await self.status.show(encounter_id, status)

    # --- the outbox's sender --------------------------------------------------------------------------------
    @property
    def shared(self) -> bool:
        """Whether other bot processes may post for the same encounters (this one runs only some shards)."""
        return self.bot.claimant != 1

    @property
    def refused(self) -> tuple[type[BaseException], ...]:
        return (discord.HTTPException, ChannelUnavailable)

    async def channel_lang(self, meta: Encounter) -> str:
        return await channel_language(self.bot, meta)

    async def channel(self, meta: Encounter) -> discord.abc.Messageable | None:
        chan = self.bot.get_channel(meta.channel_id)
        if chan is None:
            try:
                chan = await self.bot.fetch_channel(meta.channel_id)
            except discord.HTTPException:
                log.warning("channel unavailable encounter=%s", meta.id)
                return None
        return chan if isinstance(chan, discord.abc.Messageable) else None

    async def _reachable(self, meta: Encounter) -> discord.abc.Messageable:
        chan = await self.channel(meta)
        if chan is None:
            raise ChannelUnavailable(meta.channel_id)
        return chan

    async def post_step(self, meta: Encounter, step: StepReport) -> int | None:
        """The step's board and account (added to the resolution's message when it fits) with the status, then
        each side's own view (NGT-9); the id of the message that shows it (None: nothing public to post)."""
        chan = await self._reachable(meta)
        content = await self.step_content(meta, step, await self.channel_lang(meta))
        sent = (
            None
            if content is None
            else await self.turns.send_or_append(chan, meta.id, *content, step.turn, ride=True)
        )
        # NGT-9: each side's own board, where the ruleset says so
        await self.dms.post_private_views(meta, step)
        return sent

    async def post_steps(
        self, meta: Encounter, steps: list[StepReport], shown: Callable[[int], Awaitable[None]]
    ) -> None:
        """Several steps in as few messages as Discord's limits allow, their boards drawn side by side, the last
        message with the status; the newest step in each message is ``shown`` once that message is out, so a
        refusal halfway repeats nothing."""
        chan = await self._reachable(meta)
        locale = await self.channel_lang(meta)
        laid_out = await asyncio.gather(
            *(self.step_content(meta, step, locale) for step in steps), return_exceptions=True
        )
        for failed in (c for c in laid_out if isinstance(c, BaseException)):  # the other steps still go out
            log.error("step not shown trace=%s encounter=%s", trace_id(), meta.id, exc_info=failed)
        pairs = [
            (s, None if isinstance(c, BaseException) else c) for s, c in zip(steps, laid_out, strict=True)
        ]
        packed = pack(pairs, lambda pair: pair[0].turn, step_sizes)  # bot/turn_posts.py
        last = max((i for i, (_, group) in enumerate(packed) if any(c for _, c in group)), default=-1)
        for i, (turn, group) in enumerate(packed):
            embeds = [e for _, content in group if content for e in content[0]]
            uploads = [u for _, content in group if content for u in content[1]]
            if embeds:
                await self.turns.send_or_append(
                    chan, meta.id, embeds, uploads, turn, ride=i == last, leave=i < last
                )
            for step, _ in group:
                await self.dms.post_private_views(meta, step)  # NGT-9: each side's own board
            if seq := max(step.snapshot_seq for step, _ in group):
                await shown(seq)

    async def post_opening(self, reading: Reading, *, private: bool) -> None:
        """The board as the encounter starts (public view), so the table sees the field before any move."""
        meta = await self.outbox.meta(reading.meta.id)
        chan = await self._reachable(meta)
        state = reading.state
        # NGT-9: each side (and the director) also gets its own opening board, where the ruleset says so (once:
        # not again when the public board is retried)
        if private:
            opening = StepReport(meta.id, reading.phase_no, state.round, state.phase, (), state, (), True)
            await self.dms.post_private_views(meta, opening)
        locale = await self.channel_lang(meta)
        header = t("channel.opening", locale, name=shown_name(meta.name))
        drawn = t("channel.opening", locale, name=meta.name)  # an image draws the name's own letters
        scheme = await public_scheme(self.bot.service, meta.guild_id)
        png = await board_png(state, (), viewer="public", locale=locale, title=drawn, scheme=scheme)
        if png is None:
            return
        embed = discord.Embed(title=clip(header, 256), colour=discord.Colour.dark_blue())
        embed.set_image(url="attachment://board.png")
        sent = await chan.send(
            embed=embed,
            file=png_file(png, description=board_alt(state, (), viewer="public", locale=locale)),
            allowed_mentions=discord.AllowedMentions.none(),
        )
        await self.turns.posted(meta.id, sent)

    async def send_end(self, meta: Encounter) -> Sent:
        """The winner (or a draw) in the channel."""
        chan = await self._reachable(meta)
        state = (await self.bot.service.read(meta.id)).state
        locale = await self.channel_lang(meta)
        names = {s.id: shown_name(s.name_in(locale)) for s in state.sides}
        winner = state.winner
        text = (
            t("channel.winner", locale, winner=names.get(winner, winner))
            if winner
            else t("channel.draw", locale)
        )
        sent = await chan.send(f"🏁 **{shown_name(meta.name)}** — {text}")
        return Sent(sent.channel.id, sent.id)

    async def send_dms_closed(self, meta: Encounter, user_id: int) -> Sent | None:
        """The channel is told, mentioning the player only, that their DMs are closed (they use ``/orders``)."""
        chan = await self.channel(meta)
        if chan is None:
            return None
        notice = await chan.send(
            t("channel.dms_closed", await self.channel_lang(meta), user=f"<@{user_id}>"),
            allowed_mentions=discord.AllowedMentions(users=[discord.Object(user_id)]),
        )
        return Sent(notice.channel.id, notice.id)

    # --- a step into a post ---------------------------------------------------------------------------------
    async def step_content(
        self, meta: Encounter, step: StepReport, locale: str
    ) -> tuple[list[discord.Embed], list[Upload]] | None:
        """The step's embeds (its account and board, then its cards) and the files they show (None: nothing
        happened that the channel may see)."""
        if not step.public_events:
            return None  # nothing happened that the channel may see: no image to repeat
        # one number for the phase, as players count it
        when = phase_title(step.state, step.round, step.phase, locale)
        header = t("channel.step", locale, name=shown_name(meta.name), when=when)
        if len(step.public_events) > LONG_ACCOUNT:  # a fleet's account is CPU work: off the event loop
            lines = await asyncio.to_thread(
                lambda: [describe(e, step.state, locale) for e in step.public_events]
            )
        else:
            lines = [describe(e, step.state, locale) for e in step.public_events]
        account = "\n".join(lines) or t("channel.nothing_happened", locale)
        if step.seal is not None and step.seal.public:
            account += "\n" + reveal_line(step.seal, locale)
        png = None
        if step.board_changed:  # a phase that moved nothing gets its account without repeating the picture
            png = await board_png(
                step.state,
                step.public_events,
                viewer="public",
                locale=locale,
                title=meta.name,
                step=(step.round, step.phase),
                scheme=await public_scheme(self.bot.service, meta.guild_id),
            )
        embed = discord.Embed(title=clip(header, 256), colour=discord.Colour.dark_blue())
        # (file name, bytes, alt text), the names unique per step: one message may hold several steps
        uploads: list[Upload] = []
        if len(account) <= ACCOUNT_INLINE_LIMIT:
            embed.description = account
        else:
            embed.description = t("channel.account_in_file", locale, count=len(lines))
            name = f"round{step.round:02d}-phase{step.phase}-step{step.phase_no}.txt"
            uploads.append(Upload(name, account.encode("utf-8")))
        if png is not None:
            name = f"board-{step.phase_no}.png"
            when = (step.round, step.phase)
            uploads.append(
                Upload(
                    name,
                    png,
                    board_alt(step.state, step.public_events, viewer="public", locale=locale, step=when),
                )
            )
            embed.set_image(url=f"attachment://{name}")
        if ids := cited(lines):  # every rule the account cites can be read with /rule
            embed.set_footer(text=clip(t("channel.rules_footer", locale, ids=" · ".join(ids[:12])), 2048))
        cards = [card_embed(c, locale) for c in _cards(step.state, step.public_events)]
        return [embed, *cards[:MAX_CARDS]], uploads

    def close_post(self, encounter_id: int) -> None:
        self.turns.close(encounter_id)


MAX_CARDS = MAX_EMBEDS - 1  # the step's own embed first


def card_embed(card: Card, locale: str) -> discord.Embed:
    """A plug-in's summary (:class:`bot.panels.model.Card`) as an embed in ``locale``."""
    md = {"markdown": True}  # the names and codes in a card read as themselves (bot/names.py)
    embed = discord.Embed(title=clip(card.title.render(locale, **md), 256), colour=discord.Colour.dark_gold())
    if card.description is not None:
        embed.description = clip(card.description.render(locale, **md), 4096)
    for name, value in card.fields[:25]:
        embed.add_field(
            name=clip(name.render(locale, **md), 256), value=clip(value.render(locale, **md), 1024) or "-"
        )
    return embed


def _cards(state: EncounterState, events: tuple[Event, ...]) -> tuple[Card, ...]:
    try:
        plugin = panel_for(state.ruleset)
    except KeyError:
        return ()
    return step_cards(plugin, state, events)


__all__ = ["ANNOUNCED", "Announcer", "ChannelUnavailable", "OpenPost", "card_embed", "status_lines_of"]
