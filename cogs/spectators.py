"""``/encounter watch|unwatch`` and ``/director spectator-delay`` (bot/spectators.py says what each view shows).

Every answer is private: the channel is told nothing. A spectator adds nothing the table must act on, and a public
line naming the side they watch would tell the other side who reads its opponents' boards. A side's players hear
of a request in the one place they answer it: a DM with Approve and Refuse buttons. The buttons and the
spectator's choice are persistent ``DynamicItem``\\ s: they keep working after a restart, and the ids they carry
are checked again on every click (only an approver the request names may answer it).
"""

from __future__ import annotations

import logging
import re
from typing import Any

import discord
from discord import app_commands, ui
from discord.ext import commands

from bot.names import shown_name
from bot.process.client import HexBotCore, error_text, in_their_words
from bot.results import refuse
from bot.service.spectators import WatchOffer
from bot.spectators import DELAYED, MAX_DELAY, Watch
from bot.storage import Encounter, StorageError
from bot.translator import tr
from cogs.common import actor_of, bot_of, clip, encounter_here, lang
from data.i18n import t
from rules.errors import GameError

log = logging.getLogger(__name__)

_ID = r"[A-Za-z0-9_-]{1,32}"
PICK_TEMPLATE = r"hexd:watchpick:(?P<enc>\d+)"
ANSWER_TEMPLATE = rf"hexd:watch:(?P<enc>\d+):(?P<user>\d+):(?P<side>{_ID}):(?P<yes>yes|no)"
SIDE = "side:"  # a pick's value: the side id follows


def side_name(offer: WatchOffer, side: str, locale: str) -> str:
    return shown_name(offer.state.side(side).name_in(locale))


def pick_view(offer: WatchOffer, locale: str) -> ui.View:
    """The spectator's choice: each side's view, and the director's view late when the director allows it."""
    options = [
        discord.SelectOption(
            label=clip(t("spectator.pick_side", locale, side=side_name(offer, s, locale)), 100),
            value=SIDE + s,
        )
        for s in offer.sides[:24]
    ]
    if offer.delay >= 1:
        options.append(
            discord.SelectOption(
                label=clip(t("spectator.pick_delayed", locale, rounds=offer.delay), 100), value=DELAYED
            )
        )
    view = ui.View(timeout=None)
    view.add_item(ui.Select[ui.View](custom_id=f"hexd:watchpick:{offer.encounter_id}", options=options))
    return view


def answer_view(watch: Watch, encounter_id: int, locale: str) -> ui.View:
    view = ui.View(timeout=None)
    base = f"hexd:watch:{encounter_id}:{watch.user_id}:{watch.side}"
    view.add_item(
        ui.Button[ui.View](
            label=t("spectator.approve", locale), style=discord.ButtonStyle.success, custom_id=f"{base}:yes"
        )
    )
    view.add_item(
        ui.Button[ui.View](
            label=t("spectator.refuse", locale), style=discord.ButtonStyle.danger, custom_id=f"{base}:no"
        )
    )
    return view


async def ask_approvers(bot: HexBotCore, meta: Encounter, watch: Watch, offer: WatchOffer) -> int:
    """One DM to each approver of ``watch``; how many could be reached."""
    announcer = bot.announcer
    if announcer is None or watch.side is None:
        return 0
    reached = 0
    for approver in watch.approvers:
        locale = await announcer.user_lang(meta, approver)
        text = t(
            "spectator.ask",
            locale,
            who=f"<@{watch.user_id}>",
            name=shown_name(meta.name),
            side=side_name(offer, watch.side, locale),
        )
        sent = await announcer.dm(
            approver,
            clip(text),
            view=answer_view(watch, meta.id, locale),
            allowed_mentions=discord.AllowedMentions.none(),
        )
        reached += sent is not None
    return reached


class Watching(commands.Cog):
    """``/encounter watch|unwatch``: commands of the ``/encounter`` group (cogs/encounter.py takes them in)."""

    bot: HexBotCore

    @app_commands.command(
        name=tr("watch", "cmd.encounter.watch.name"),
        description=tr("Watch this encounter without playing", "cmd.encounter.watch.desc"),
    )
    @app_commands.guild_only()
    async def watch(self, interaction: discord.Interaction) -> None:
        meta = await encounter_here(interaction)
        offer = await self.bot.service.offer_watch(meta.id, interaction.user.id)
        locale = lang(interaction)
        if not offer.sides:
            await interaction.response.send_message(t("spectator.open", locale), ephemeral=True)
            return
        key = "spectator.choose" if offer.delay >= 1 else "spectator.choose_side"
        await interaction.response.send_message(t(key, locale), view=pick_view(offer, locale), ephemeral=True)

    @app_commands.command(
        name=tr("unwatch", "cmd.encounter.unwatch.name"),
        description=tr("Stop watching this encounter", "cmd.encounter.unwatch.desc"),
    )
    @app_commands.guild_only()
    async def unwatch(self, interaction: discord.Interaction) -> None:
        meta = await encounter_here(interaction)
        await self.bot.service.unwatch(meta.id, interaction.user.id)
        await interaction.response.send_message(t("spectator.unwatched", lang(interaction)), ephemeral=True)


class SpectatorDelay(commands.Cog):
    """``/director spectator-delay``: a command of the ``/director`` group (cogs/director.py takes it in)."""

    bot: HexBotCore

    @app_commands.command(
        name=tr("spectator-delay", "cmd.director.spectator_delay.name"),
        description=tr(
            "Spectators may watch your full view this many rounds late (0: never)",
            "cmd.director.spectator_delay.desc",
        ),
    )
    @app_commands.describe(rounds=tr("Rounds late (0 forbids it)", "cmd.director.spectator_delay.rounds"))
    @app_commands.guild_only()
    async def spectator_delay(
        self, interaction: discord.Interaction, rounds: app_commands.Range[int, 0, MAX_DELAY]
    ) -> None:
        meta = await encounter_here(interaction)
        await self.bot.service.set_spectator_delay(meta.id, actor_of(interaction), rounds)
        locale = lang(interaction)
        text = t("spectator.delay_set", locale, rounds=rounds) if rounds else t("spectator.delay_off", locale)
        await interaction.response.send_message(text, ephemeral=True)


class WatchPickItem(ui.DynamicItem[ui.Item[Any]], template=PICK_TEMPLATE):
    """The spectator's choice of view, in the ephemeral ``/encounter watch`` answer."""

    def __init__(self, item: ui.Item[Any], encounter_id: int) -> None:
        super().__init__(item)
        self.encounter_id = encounter_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: ui.Item[Any], match: re.Match[str], /
    ) -> WatchPickItem:
        return cls(item, int(match["enc"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        bot = bot_of(interaction)
        locale = lang(interaction)
        values = [str(v) for v in (interaction.data or {}).get("values", [])]  # type: ignore[union-attr]
        choice = values[0] if values else ""
        service = bot.service
        try:
            meta = await service.checked(self.encounter_id, interaction.guild_id)
            if choice == DELAYED:
                delay = await service.watch_delayed(meta.id, interaction.user.id)
                await interaction.response.edit_message(
                    content=t("spectator.delayed_on", locale, rounds=delay), view=None
                )
                return
            if not choice.startswith(SIDE):
                raise refuse("spectator.no_side", "There is no side view to watch by that name.")
            side = choice.removeprefix(SIDE)
            watch = await service.ask_side(meta.id, interaction.user.id, side)
            offer = await service.offer_watch_sides(meta.id)
        except (GameError, StorageError) as exc:
            await interaction.response.send_message(error_text(in_their_words(exc), locale), ephemeral=True)
            return
        name = side_name(offer, side, locale)
        await interaction.response.edit_message(content=t("spectator.asking", locale, side=name), view=None)
        reached = await ask_approvers(bot, meta, watch, offer)
        key = "spectator.asked" if reached else "spectator.asked_unreached"
        try:
            await interaction.edit_original_response(content=t(key, locale, side=name))
        except discord.HTTPException:
            log.info("watch answer not edited encounter=%s", meta.id)


class WatchAnswerItem(ui.DynamicItem[ui.Item[Any]], template=ANSWER_TEMPLATE):
    """An approver's Approve or Refuse, in the DM that asked them; the custom id names the request."""

    def __init__(self, item: ui.Item[Any], encounter_id: int, spectator: int, side: str, yes: bool) -> None:
        super().__init__(item)
        self.encounter_id, self.spectator, self.side, self.yes = encounter_id, spectator, side, yes

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: ui.Item[Any], match: re.Match[str], /
    ) -> WatchAnswerItem:
        return cls(item, int(match["enc"]), int(match["user"]), match["side"], match["yes"] == "yes")

    async def callback(self, interaction: discord.Interaction) -> None:
        bot = bot_of(interaction)
        locale = lang(interaction)
        try:
            meta = await bot.service.checked(self.encounter_id, interaction.guild_id)
            done = await bot.service.answer_watch(
                meta.id, interaction.user.id, self.spectator, self.side, self.yes
            )
            offer = await bot.service.offer_watch_sides(meta.id)
        except (GameError, StorageError) as exc:
            await interaction.response.send_message(error_text(in_their_words(exc), locale), ephemeral=True)
            return
        said = "spectator.you_approved" if self.yes else "spectator.you_refused"
        await interaction.response.edit_message(
            content=t(said, locale, who=f"<@{self.spectator}>"), view=None
        )
        announcer = bot.announcer
        if not done.decided or announcer is None:
            return
        theirs = await announcer.user_lang(meta, self.spectator)
        told = "spectator.approved" if done.standing == "approved" else "spectator.refused"
        text = t(told, theirs, name=shown_name(meta.name), side=side_name(offer, self.side, theirs))
        await announcer.dm(self.spectator, clip(text))


ITEMS = (WatchPickItem, WatchAnswerItem)
