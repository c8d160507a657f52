"""The delayed spectators' DMs (bot/spectators.py): when a round ends, each gets the director's full board and
account of the round that ended the director's delay ago, rebuilt from the log, and never anything newer.

Each round goes to each spectator once, whichever bot process sees the round end: the send is claimed first, as
the outbox claims its posts (bot/outbox/claims.py). A DM that cannot be sent (closed DMs) is not retried: the next
round brings the next view.
"""

from __future__ import annotations

import io
import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING

import discord

from bot.alt_text import board_alt
from bot.imaging import board_png
from bot.names import shown_name
from bot.palettes import private_scheme
from bot.spectators import DELAYED_REF, delay_of, delayed_round, delayed_spectators
from bot.storage import Encounter, Participant
from bot.text.account import describe
from cogs.common import ACCOUNT_INLINE_LIMIT, clip
from data.i18n import t
from rules.ruleset import DIRECTOR

if TYPE_CHECKING:
    from bot.process.client import HexBotCore

log = logging.getLogger(__name__)


async def send_delayed(bot: HexBotCore, meta: Encounter, people: Sequence[Participant], ended: int) -> None:
    """Round ``ended`` just ended: the delayed spectators' view of the round their delay allows, once each."""
    announcer = bot.announcer
    spectators = delayed_spectators(meta.settings, people, meta.created_by)
    shown = delayed_round(ended, delay_of(meta.settings))
    if announcer is None or not spectators or shown is None:
        return
    view = await bot.service.round_view(meta.id, shown)
    if view is None:
        return
    state, events, step = view.state, view.events, view.step
    for user in spectators:
        key = f"{user}:{shown}"
        if not await announcer.claim(meta.id, DELAYED_REF, key):
            continue
        locale = await announcer.user_lang(meta, user)
        scheme = await private_scheme(bot.service.storage, user)
        header = t("spectator.delayed_title", locale, name=shown_name(meta.name), round=shown)
        png = await board_png(
            state, events, viewer=DIRECTOR, locale=locale, title=meta.name, step=step, scheme=scheme
        )
        account = "\n".join(describe(e, state, locale) for e in events)
        embed = discord.Embed(title=clip(header, 256), colour=discord.Colour.dark_grey())
        files: list[discord.File] = []
        if len(account) <= ACCOUNT_INLINE_LIMIT:
            embed.description = account or None
        else:
            embed.description = t("channel.account_in_file", locale, count=len(events))
            files.append(discord.File(io.BytesIO(account.encode("utf-8")), filename=f"round{shown:02d}.txt"))
        if png is not None:
            alt = board_alt(state, events, viewer=DIRECTOR, locale=locale, step=step)
            files.append(discord.File(io.BytesIO(png), filename="board.png", description=alt))
            embed.set_image(url="attachment://board.png")
        sent = await announcer.dm(user, None, embed=embed, files=files)
        if sent is None:
            log.info("delayed view not sent user=%s encounter=%s", user, meta.id)
            await announcer.release(meta.id, DELAYED_REF, key)
            continue
        await announcer.record(meta.id, DELAYED_REF, key, sent.channel.id, sent.id)
