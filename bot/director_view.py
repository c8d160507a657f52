"""The director's own private view (NGT-9: the full board, every unit seen) as one DM per step of play.

A step that resolves (and the opening) sends the director a new view message, which notifies them; an override
the director makes in private while that step is played (a flare, a unit moved by hand) adds its account and the
board after it to that same message, edited in place, instead of sending another board. Each board keeps its own
attachment, so the message reads as the step's history. The newest view message is recorded per director (a
message ref of kind :data:`VIEW`), so a restarted bot edits it too. When the message is full (Discord's limits:
bot/turn_posts.py), gone or cannot be edited, the view goes out as a new message, which becomes the one edited.
While the director's newest click in their DM is fresh, the view goes through that click's webhook, outside
Discord's global limit (bot/click_tokens.py).
"""

from __future__ import annotations

import io
import logging

import discord

from bot.alt_text import Upload
from bot.click_tokens import ClickTokens
from bot.dm_channels import DmChannels
from bot.storage.base import Storage
from bot.turn_posts import fits

log = logging.getLogger(__name__)

#: message refs: the director's newest view DM, keyed by the director's user id
VIEW = "director_view"
BOARD = "board.png"  # the name a view's board is sent under


async def show_view(
    storage: Storage,
    dms: DmChannels,
    clicks: ClickTokens,
    encounter_id: int,
    user_id: int,
    embed: discord.Embed,
    uploads: list[Upload],
    new_step: bool,
) -> discord.Message | None:
    """Show the director ``embed`` (its board and account files in ``uploads``, each with its alt text): added
    to the newest view message unless ``new_step`` (a step resolved, the encounter opened), else sent as a new
    message. None when the DM cannot be sent (closed DMs: nothing is shown, as for any private view)."""
    key = str(user_id)

    async def add_or_send(dm: discord.PartialMessageable) -> discord.Message:
        if not new_step:
            ref = await storage.get_message_ref(encounter_id, VIEW, key)
            if ref is not None and ref.message_id and ref.channel_id == dm.id:
                edited = await _add_to(dm, clicks, user_id, ref.message_id, embed.copy(), _files(uploads))
                if edited is not None:
                    return edited
        fields: dict[str, object] = {"embed": embed, "allowed_mentions": discord.AllowedMentions.none()}
        if (sent := await clicks.send(user_id, {**fields, "files": _files(uploads)})) is not None:
            return sent
        return await dm.send(files=_files(uploads), **fields)  # type: ignore[arg-type]

    try:
        sent = await dms.send_to(user_id, add_or_send)
    except discord.HTTPException:
        log.info("director view not sent user=%s", user_id)
        return None
    await storage.set_message_ref(encounter_id, VIEW, key, sent.channel.id, sent.id)
    return sent


def _files(uploads: list[Upload]) -> list[discord.File]:
    """The files anew for each request (a request spends them)."""
    return [discord.File(io.BytesIO(u.data), filename=u.name, description=u.alt) for u in uploads]


async def _add_to(
    dm: discord.PartialMessageable,
    clicks: ClickTokens,
    user_id: int,
    message_id: int,
    embed: discord.Embed,
    files: list[discord.File],
) -> discord.Message | None:
    """``embed`` added under the view message's own embeds, its board under a name of its own (through the
    director's click when one made that message); None when the message is gone, cannot be edited, or has no
    room left."""
    try:
        message = await dm.fetch_message(message_id)
    except discord.HTTPException:
        return None
    embeds = [*message.embeds, embed]
    if not fits([len(e) for e in embeds], len(message.attachments) + len(files)):
        return None
    name = f"board-{len(message.embeds)}.png"  # the earlier boards stay, each under its own embed
    for f in files:
        if f.filename == BOARD:
            f.filename = name
            embed.set_image(url=f"attachment://{name}")
    changes: dict[str, object] = {
        "embeds": embeds,
        "attachments": [*message.attachments, *files],
        "allowed_mentions": discord.AllowedMentions.none(),
    }
    try:
        if (edited := await clicks.edit(user_id, dm.id, message_id, changes)) is not None:
            return edited
        for f in files:
            f.reset()  # a refused edit read them through
        return await message.edit(**changes)  # type: ignore[arg-type]
    except discord.HTTPException:
        log.info("director view not edited, sending it anew channel=%s", dm.id)
        return None
