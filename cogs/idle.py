"""The director's reminder of a phase that waits without a deadline (bot/idle.py), with its one button: resolve
now with default orders (what ``/director resolve`` does). Players still missing get a reminder DM of their own.
The button is a persistent ``DynamicItem``: it works after a restart, for a director of the encounter only, and
only on the phase it was sent for.
"""

from __future__ import annotations

import re
from typing import Any

import discord
from discord import ui

from bot.idle import IDLE_REMINDER, idle_hours
from bot.process.client import HexBotCore, error_text, in_their_words
from bot.service.base import MUTED
from bot.status_names import named
from bot.storage import Encounter, StorageError
from cogs.common import actor_of, bot_of, clip, lang
from data.i18n import t
from rules.errors import GameError

TEMPLATE = r"hexd:idle:(?P<enc>\d+):(?P<phase>\d+)"


async def notify_idle(bot: HexBotCore, meta: Encounter) -> None:
    """Once per phase (claimed): the director's private reminder with the button, and each player still
    missing (not muted) a reminder DM naming their own unit."""
    announcer = bot.announcer
    if announcer is None or not await announcer.claim(meta.id, IDLE_REMINDER, str(meta.phase_no)):
        return
    service = bot.service
    try:
        meta = await service.storage.get_encounter(meta.id)  # the languages and muted list as stored now
        status = await service.status(meta.id)
        hours = await idle_hours(service, meta.guild_id)
        channel = f"<#{meta.channel_id}>"
        locale = await announcer.user_lang(meta, meta.created_by)
        who = named(status.missing, locale) or t("status.the_director", locale)
        button = ui.Button[ui.View](
            label=t("idle.resolve", locale),
            style=discord.ButtonStyle.primary,
            custom_id=f"hexd:idle:{meta.id}:{meta.phase_no}",
        )
        view = ui.View(timeout=None)
        view.add_item(button)
        text = t("idle.director", locale, name=meta.name, hours=hours, who=who, channel=channel)
        sent = await announcer.dm(meta.created_by, clip(text), view=view)
        muted = {int(u) for u in meta.settings.get(MUTED, [])}
        for missing in status.missing:
            if missing.director or missing.user_id is None or missing.user_id in muted:
                continue
            unit = (await service.read(meta.id)).state.units.get(missing.unit)
            their = await announcer.user_lang(meta, missing.user_id)
            note = t(
                "idle.player",
                their,
                name=meta.name,
                unit=unit.name if unit is not None else missing.unit,
                channel=channel,
            )
            await announcer.dm(missing.user_id, clip(note))
    except Exception:
        await announcer.release(meta.id, IDLE_REMINDER, str(meta.phase_no))
        raise
    await announcer.record(
        meta.id,
        IDLE_REMINDER,
        str(meta.phase_no),
        sent.channel.id if sent is not None else 0,
        sent.id if sent is not None else 1,
    )


class IdleResolveItem(ui.DynamicItem[ui.Item[Any]], template=TEMPLATE):
    """ "Resolve with default orders" on the director's idle reminder."""

    def __init__(self, item: ui.Item[Any], encounter_id: int, phase_no: int) -> None:
        super().__init__(item)
        self.encounter_id = encounter_id
        self.phase_no = phase_no

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: ui.Item[Any], match: re.Match[str], /
    ) -> IdleResolveItem:
        return cls(item, int(match["enc"]), int(match["phase"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        bot = bot_of(interaction)
        locale = lang(interaction)
        try:
            meta = await bot.service.checked(self.encounter_id, interaction.guild_id)
            await bot.service.require_director(meta, actor_of(interaction))
        except (GameError, StorageError) as exc:
            await interaction.response.send_message(error_text(in_their_words(exc), locale), ephemeral=True)
            return
        await interaction.response.defer(ephemeral=True, thinking=True)
        result = await bot.resolve_and_announce(meta.id, expected_phase_no=self.phase_no, forced=True)
        key = "idle.already" if result.already else "idle.resolved"
        await interaction.followup.send(t(key, locale, name=meta.name), ephemeral=True)
