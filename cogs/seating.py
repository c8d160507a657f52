"""The director's private menu of the units nobody plays, sent at ``/encounter start`` (bot/service/seating.py).

One select per unit, each choice one click: a member plays it, the director plays it (the default), or it follows
its stand-in order every time. The menu goes by DM (it may name hidden units: only the director reads it), or as
an ephemeral answer when the director's DMs are closed. Its selects are persistent ``DynamicItem``\\ s, so the
menu keeps working after a restart.
"""

from __future__ import annotations

import logging
import re
from functools import partial
from typing import Any

import discord
from discord import ui

from bot.outbox import player_key
from bot.process.client import HexBotCore, error_text, in_their_words
from bot.service.seating import SEAT_DIRECTOR, SEAT_PLAYER, SEAT_STAND_IN
from bot.storage import Encounter, StorageError
from cogs.common import actor_of, bot_of, clip, lang
from data.i18n import t
from rules.errors import GameError

log = logging.getLogger(__name__)

TEMPLATE = r"hexd:seat:(?P<enc>\d+):(?P<unit>[A-Za-z0-9_-]{1,32})"
UNITS_PER_MESSAGE = 5  # Discord: five action rows, one select each
MAX_MEMBERS = 23  # Discord: 25 options, two of them the director's and the stand-in's


def seat_id(encounter_id: int, unit_id: str) -> str:
    return f"hexd:seat:{encounter_id}:{unit_id}"


async def _name(bot: HexBotCore, user_id: int) -> str:
    user = bot.get_user(user_id)
    if user is None:
        try:
            user = await bot.fetch_user(user_id)
        except discord.HTTPException:
            return str(user_id)
    return user.display_name


async def seating_view(bot: HexBotCore, meta: Encounter, units: list[str], locale: str) -> ui.View:
    """One select per unit (at most :data:`UNITS_PER_MESSAGE`), its current choice as the default."""
    service = bot.service
    reading = await service.read(meta.id)
    members = sorted(
        {p.user_id for p in reading.parts if p.role == "player" and p.user_id != meta.created_by}
    )
    names = {m: await _name(bot, m) for m in members[:MAX_MEMBERS]}
    view = ui.View(timeout=None)
    for uid in units[:UNITS_PER_MESSAGE]:
        unit = reading.state.units.get(uid)
        if unit is None:
            continue
        current = await service.seat_choice(meta.id, uid)
        choices = [
            (SEAT_DIRECTOR, t("seat.director", locale, unit=unit.name)),
            (SEAT_STAND_IN, t("seat.stand_in", locale, unit=unit.name)),
            *(
                (f"{SEAT_PLAYER}{m}", t("seat.player", locale, unit=unit.name, name=n))
                for m, n in names.items()
            ),
        ]
        options = [
            discord.SelectOption(label=clip(label, 100), value=value, default=value == current)
            for value, label in choices
        ]
        view.add_item(ui.Select[ui.View](custom_id=seat_id(meta.id, uid), options=options))
    return view


async def send_seating(bot: HexBotCore, interaction: discord.Interaction, meta: Encounter) -> None:
    """The menu of the units nobody plays, to the director who started the encounter: by DM, else privately in
    the channel. Nothing is sent when every unit has a player."""
    units = [u.id for u in await bot.service.unplayed(meta.id)]
    if not units:
        return
    locale = lang(interaction)
    for first in range(0, len(units), UNITS_PER_MESSAGE):
        chunk = units[first : first + UNITS_PER_MESSAGE]
        text = t("seat.intro", locale, name=meta.name) if first == 0 else t("seat.more", locale)
        view = await seating_view(bot, meta, chunk, locale)
        try:
            await bot.dm_channels.send_to(
                interaction.user.id, partial(_send_menu, text=clip(text), view=view)
            )
        except discord.Forbidden:  # DMs closed: the same menu, seen by the director alone
            await interaction.followup.send(clip(text), view=view, ephemeral=True)


async def _send_menu(dm: discord.PartialMessageable, *, text: str, view: ui.View) -> discord.Message:
    return await dm.send(text, view=view)


async def hand_over(bot: HexBotCore, encounter_id: int, units: list[str]) -> None:
    """Units that changed hands during play (a player took what the director was playing, or the director's
    choice moved one): the open step's panels go to whoever plays them now, once, and the status follows (the
    panel already sent for a unit to its former player is claimed per step, so it is given back first)."""
    announcer = bot.announcer
    if announcer is None:
        return
    reading = await bot.service.read(encounter_id)
    if reading.meta.status != "running":
        return
    owing = set(bot.service.owing(reading.state))
    status = await bot.service.status(encounter_id, reading=reading)
    for unit in units:
        if unit in owing:
            await announcer.release(encounter_id, "panel", f"{reading.phase_no}:{unit}")
    # a player's one message for their units acting now lacks the unit handed to them: it goes out anew with it
    for user_id in {m.user_id for m in status.missing if m.unit in units and m.user_id is not None}:
        await announcer.release(encounter_id, "panel", player_key(reading.phase_no, user_id))
    await announcer.open_phase(encounter_id)


def _units_of(message: discord.Message | None) -> list[str]:
    """The units a menu message offers, in order (from its selects' custom ids)."""
    found: list[str] = []
    for row in message.components if message is not None else []:
        for child in getattr(row, "children", ()):
            match = re.fullmatch(TEMPLATE, str(getattr(child, "custom_id", "")))
            if match is not None:
                found.append(match["unit"])
    return found


class SeatItem(ui.DynamicItem[ui.Item[Any]], template=TEMPLATE):
    """One unit's select in the director's menu; its custom id names the encounter and the unit."""

    def __init__(self, item: ui.Item[Any], encounter_id: int, unit_id: str) -> None:
        super().__init__(item)
        self.encounter_id = encounter_id
        self.unit_id = unit_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: ui.Item[Any], match: re.Match[str], /
    ) -> SeatItem:
        return cls(item, int(match["enc"]), match["unit"])

    async def callback(self, interaction: discord.Interaction) -> None:
        bot = bot_of(interaction)
        locale = lang(interaction)
        values = [str(v) for v in (interaction.data or {}).get("values", [])]  # type: ignore[union-attr]
        try:
            meta = await bot.service.checked(self.encounter_id, interaction.guild_id)
            await bot.service.seat(meta.id, actor_of(interaction), self.unit_id, values[0] if values else "")
            view = await seating_view(bot, meta, _units_of(interaction.message), locale)
        except (GameError, StorageError) as exc:
            await interaction.response.send_message(error_text(in_their_words(exc), locale), ephemeral=True)
            return
        await interaction.response.edit_message(view=view)
        if meta.status == "running":  # a stand-in step goes on; the new player's panel, the status
            await bot.resolve_and_announce(meta.id)
            await hand_over(bot, meta.id, [self.unit_id])
