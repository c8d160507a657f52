"""What goes to a player or the director by DM: the unit's order panel, each side's own board (NGT-9), held rolls
for review, deadline reminders. Each function turns one thing into a DM; whether it must go out (and only once) is
the outbox's call (bot/outbox)."""

from __future__ import annotations

import io
import logging
from collections.abc import Mapping
from typing import TYPE_CHECKING, Literal, cast

import discord

from bot.alt_text import Upload, board_alt
from bot.catchup import note_shown, panel_news
from bot.director_view import show_view
from bot.imaging import previews_late
from bot.names import shown_name
from bot.orders_reply import Pick
from bot.outbox import APART, Sent
from bot.palettes import private_scheme
from bot.results import HeldRolls, OverrideDone, StepReport
from bot.seating import and_list
from bot.service import Reading
from bot.service.base import MUTED
from bot.service.panel_click import LoadedPanel
from bot.side_news import news_for, private_title
from bot.spectators import side_spectators
from bot.storage import Deadline, Encounter, MessageRef
from bot.text.account import describe, roll_purpose
from cogs.common import ACCOUNT_INLINE_LIMIT, clip
from cogs.panel.items import fits_picker, panel_message
from cogs.panel.load import load_panel
from cogs.spectator_views import send_delayed
from data.i18n import language_of, t
from rules.events import RollMade
from rules.registry import ruleset_for
from rules.ruleset import DIRECTOR
from rules.state import EncounterState

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

    from bot.process.client import HexBotCore

log = logging.getLogger(__name__)


class DirectMessages:
    """The DMs of the encounters' players and directors, each sent straight to the person's DM channel."""

    def __init__(self, bot: HexBotCore, channel_lang: Callable[[Encounter], Awaitable[str]]) -> None:
        self.bot = bot
        self._channel_lang = channel_lang

    async def user_lang(self, meta: Encounter, user_id: int) -> str:
        saved = meta.settings.get(f"locale_{user_id}")
        return language_of(saved) if isinstance(saved, str) else await self._channel_lang(meta)

    async def dm_channel(self, user_id: int) -> discord.PartialMessageable:
        """The DM channel with a player, opened once whichever process asks (bot/dm_channels.py)."""
        return await self.bot.dm_channels.channel(user_id)

    async def dm(self, user_id: int, text: str | None, **kwargs: object) -> discord.Message | None:
        """``text`` and ``kwargs`` (a channel send's) to the person's DM: through their fresh click when they have
        one (bot/click_tokens.py), else by the channel. None when it could not be sent (closed DMs)."""
        fields: dict[str, object] = kwargs if text is None else {"content": text, **kwargs}
        try:
            return await self._send(user_id, fields)
        except discord.Forbidden:
            return None
        except discord.HTTPException:
            log.warning("DM failed user=%s", user_id)
            return None

    async def _send(self, user_id: int, kwargs: dict[str, object]) -> discord.Message:
        """A new DM: a follow-up of the person's fresh click, else (no click, or its webhook refused the message,
        so nothing was created) by the DM channel's route."""
        sent = await self.bot.click_tokens.send(user_id, kwargs)
        if sent is not None:
            return sent

        async def send(channel: discord.PartialMessageable) -> discord.Message:
            # a refused follow-up, or a first try in an unknown channel, read the files through
            _rewind(kwargs)
            return await channel.send(**kwargs)  # type: ignore[arg-type]

        return await self.bot.dm_channels.send_to(user_id, send)

    async def send_panel(
        self, meta: Encounter, reading: Reading, user_id: int, unit_id: str, before: MessageRef | None
    ) -> Sent | None:
        """The unit's panel by DM, edited into ``before`` when that is in this DM (None: the DMs are closed). A
        panel that cannot be edited (deleted) is sent anew."""
        locale = await self.user_lang(reading.meta, user_id)
        panel = await load_panel(self.bot, meta.id, user_id, unit_id, None, None, reading=reading)
        return await self._deliver(meta, user_id, panel, locale, before)

    async def send_panels(
        self,
        meta: Encounter,
        reading: Reading,
        user_id: int,
        picks: tuple[Pick, ...],
        before: MessageRef | None,
    ) -> Sent | Literal["apart"] | None:
        """One panel message for the player's units of ``picks``, showing the first whose order is not in, under
        the unit picker (as ``/orders`` answers); edited into ``before`` when that is in this DM (None: the DMs
        are closed; :data:`APART`: a panel leaves the picker no row, so each unit gets its own)."""
        locale = await self.user_lang(reading.meta, user_id)
        panels = [
            await load_panel(self.bot, meta.id, user_id, p.unit_id, None, None, reading=reading)
            for p in picks
        ]
        if not all(fits_picker(panel, picks, locale) for panel in panels):
            return APART
        given = {p.unit_id for p in picks if p.submitted}
        first = next((p for p in panels if p.model.unit_id not in given), panels[0])
        return await self._deliver(meta, user_id, first, locale, before, picks)

    async def _deliver(
        self,
        meta: Encounter,
        user_id: int,
        panel: LoadedPanel,
        locale: str,
        before: MessageRef | None,
        picks: tuple[Pick, ...] = (),
    ) -> Sent | None:
        """``panel`` (under the picker of ``picks``) in the player's DM, opening with their catch-up when they
        were away: edited into ``before`` when that can be, else sent; None when the DMs are closed. While the
        drawings queue is far behind, the panel goes without its preview rather than wait behind the queue (the
        channels' boards come first there): the player's first click brings the preview."""
        news = await panel_news(self.bot.service, meta.id, user_id, panel.model.unit_id, locale, panel.scheme)
        kwargs = await panel_message(panel, locale, picks=picks, news=news, preview=not previews_late())

        try:
            if (
                before is not None
                and before.message_id
                and await self.bot.dm_channels.send_to(
                    user_id, lambda dm: self._edit_panel(user_id, dm, before, kwargs)
                )
            ):
                sent = Sent(before.channel_id, before.message_id)
            else:
                _rewind(kwargs)  # a refused edit read the files through
                message = await self._send(user_id, kwargs)
                sent = Sent(message.channel.id, message.id)
        except discord.Forbidden:
            return None
        if news is not None:
            await note_shown(self.bot.service, meta.id, user_id)
        return sent

    async def _edit_panel(
        self, user_id: int, dm: discord.PartialMessageable, before: MessageRef, kwargs: dict[str, object]
    ) -> bool:
        """Edit the panel DM ``before`` into the one ``kwargs`` lays out, through the person's click when one can
        (the Submit made on that very panel), else by the channel; False when it is not in this DM (the unit
        changed hands) or cannot be edited (deleted, DMs closed since)."""
        if dm.id != before.channel_id:
            return False
        try:
            edit = dict(kwargs)
            edit["attachments"] = edit.pop("files", [])
            edit.setdefault("content", None)  # a unit picker's message says its last Submit in its text
            edit["allowed_mentions"] = discord.AllowedMentions.none()
            if await self.bot.click_tokens.edit(user_id, dm.id, before.message_id, edit) is not None:
                return True
            _rewind(kwargs)  # a refused edit read the files through
            await dm.get_partial_message(before.message_id).edit(**edit)  # type: ignore[arg-type]
        except discord.HTTPException:
            log.info("panel message gone, sending a new one channel=%s", dm.id)
            return False
        return True

    async def override_done(self, meta: Encounter, done: OverrideDone) -> None:
        """A director's override changed the board (a flare, a unit moved by hand): the private boards again."""
        events = done.events or (done.event,)
        step = StepReport(meta.id, meta.phase_no, done.state.round, done.state.phase, events, done.state, ())
        await self.post_private_views(meta, step, before=done.before, override=True)

    async def post_private_views(
        self,
        meta: Encounter,
        step: StepReport,
        *,
        before: EncounterState | None = None,
        override: bool = False,
    ) -> None:
        """NGT-9 (any ruleset or layer whose ``private_views`` names sides): each of those sides' players gets
        the board as their side sees it and the account their side may read, by DM, when it can see something
        changed (``bot.side_news``; closed DMs: nothing); the director and co-directors get the full board. A side's
        approved spectators read what its players read; at a round's end the delayed spectators get theirs."""
        state = step.state
        try:
            sides = ruleset_for(state).private_views(state)
        except KeyError:
            return
        if not sides:
            return
        people = await self.bot.service.storage.participants(meta.id)
        # each player's language as last recorded (maybe by another bot process): not the cached row's
        meta = await self.bot.service.storage.get_encounter(meta.id)
        directors = {meta.created_by} | {p.user_id for p in people if p.role in ("director", "codirector")}
        viewers: list[tuple[int, str]] = [(user, DIRECTOR) for user in sorted(directors)]
        for side in sides:
            users = sorted(
                {
                    p.user_id
                    for p in people
                    if p.role == "player"
                    and p.user_id not in directors
                    and _side_of(p.side, p.unit, state) == side
                }
                | side_spectators(meta.settings, people, meta.created_by, side)  # never a pending one
            )
            viewers.extend((user, side) for user in users)
        for user, viewer in viewers:
            locale = await self.user_lang(meta, user)
            scheme = await private_scheme(self.bot.service.storage, user)
            if (news := await news_for(viewer, step, before, locale, meta.name, scheme)) is None:
                continue  # nothing this viewer can see changed: even an unchanged board would say something did
            events, png = news
            header = private_title(state, viewer, (step.round, step.phase), shown_name(meta.name), locale)
            account = "\n".join(describe(e, state, locale) for e in events)
            uploads: list[Upload] = []
            embed = discord.Embed(title=clip(header, 256), colour=discord.Colour.dark_purple())
            if len(account) <= ACCOUNT_INLINE_LIMIT:
                embed.description = account or None
            else:
                embed.description = t("channel.account_in_file", locale, count=len(events))
                uploads.append(
                    Upload(f"round{step.round:02d}-phase{step.phase}.txt", account.encode("utf-8"))
                )
            if png is not None:
                when = (step.round, step.phase)
                uploads.append(
                    Upload(
                        "board.png", png, board_alt(state, events, viewer=viewer, locale=locale, step=when)
                    )
                )
                embed.set_image(url="attachment://board.png")
            if viewer == DIRECTOR:  # one message per step, an override added to it (bot/director_view.py)
                await show_view(
                    self.bot.service.storage,
                    self.bot.dm_channels,
                    self.bot.click_tokens,
                    meta.id,
                    user,
                    embed,
                    uploads,
                    not override,
                )
            else:
                await self.dm(user, None, embed=embed, files=_files(uploads))
        if not override and before is None and state.round > step.round:  # a round ended
            await send_delayed(self.bot, meta, people, step.round)

    async def send_held(self, meta: Encounter, held: HeldRolls) -> None:
        """'Director reviews rolls': the director sees the rolls before they are applied (never the channel)."""
        meta = await self.bot.service.storage.get_encounter(
            meta.id
        )  # the director's language as last recorded
        locale = await self.user_lang(meta, meta.created_by)
        purposes = {
            e.index: roll_purpose(e, held.state, locale) for e in held.events if isinstance(e, RollMade)
        }
        lines = [
            t(
                "director.held_roll",
                locale,
                index=i,
                rule=rule,
                purpose=purposes.get(i, purpose),
                dice=", ".join(map(str, dice)),
            )
            for i, rule, purpose, dice in held.rolls
        ]
        text = t("director.held", locale, name=shown_name(meta.name)) + "\n" + "\n".join(lines)
        await self.dm(meta.created_by, clip(text))

    async def remind(self, due: Deadline) -> None:
        """The deadline of ``due``'s phase is near: each player still missing gets one DM, unless they muted
        reminders for this encounter, however many of their units are missing. The DM names their own units (they
        may see them even when hidden)."""
        service = self.bot.service
        meta = await service.storage.get_encounter(due.encounter_id)  # fresh: the muted list may have changed
        reading = await service.read(due.encounter_id)
        if reading.phase_no != due.phase_no:
            return
        status = await service.status(due.encounter_id, reading=reading)
        when = discord.utils.format_dt(due.due_at, "R")
        muted = {int(u) for u in meta.settings.get(MUTED, [])}
        names: dict[int, list[str]] = {}  # each player still missing: their missing units' names
        for missing in status.missing:
            if missing.user_id is None or missing.user_id in muted:
                continue
            unit = reading.state.units.get(missing.unit)
            names.setdefault(missing.user_id, []).append(
                shown_name(unit.name) if unit is not None else missing.unit
            )
        for user_id, units in names.items():
            locale = await self.user_lang(meta, user_id)
            text = t(
                "channel.reminder",
                locale,
                name=shown_name(meta.name),
                unit=and_list(units, locale),
                when=when,
                channel=f"<#{meta.channel_id}>",
            )
            await self.dm(user_id, clip(text))


def _side_of(side: str | None, unit: str | None, state: EncounterState) -> str | None:
    """A player's side: as joined, else its unit's."""
    if side:
        return side
    found = state.units.get(unit or "")
    return found.side if found is not None else None


def _rewind(kwargs: Mapping[str, object]) -> None:
    """The files of a message's ``kwargs`` back at their start: a request reads them through, and discord.py
    rewinds them only between tries of one request."""
    files = kwargs.get("files")
    for file in [*(cast("list[object]", files) if isinstance(files, list) else []), kwargs.get("file")]:
        if isinstance(file, discord.File):
            file.reset()


def _files(uploads: list[Upload]) -> list[discord.File]:
    return [discord.File(io.BytesIO(u.data), filename=u.name, description=u.alt) for u in uploads]
