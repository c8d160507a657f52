"""``/orders``: the caller's private order panels, ephemeral in the channel (the fallback when DMs are closed).

This extension also registers the panel's ``DynamicItem``\\ s (so panels sent before a restart keep working).
"""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands

from bot.catchup import note_shown, panel_news
from bot.orders_reply import picks_for, split_units, waiting_line
from bot.process.client import HexBotCore
from bot.results import refuse
from bot.translator import tr
from cogs.common import actor_of, encounter_here, lang, remember_locale
from cogs.panel.items import PanelItem, fits_picker, panel_message
from cogs.panel.load import load_panel
from data.i18n import t

#: panels one ``/orders`` shows at most (a director's unplayed units acting at once beyond it wait for the next)
MAX_PANELS = 5


class OrdersCog(commands.Cog):
    def __init__(self, bot: HexBotCore) -> None:
        self.bot = bot

    @app_commands.command(
        name=tr("orders", "cmd.orders.name"), description=tr("Your private order panel", "cmd.orders.desc")
    )
    @app_commands.guild_only()
    async def orders(self, interaction: discord.Interaction) -> None:
        meta = await encounter_here(interaction)
        units = await self.bot.service.panel_units(meta.id, actor_of(interaction))
        if not units:
            raise refuse("encounter.not_playing", "You have no unit in this encounter; use /encounter join.")
        await interaction.response.defer(ephemeral=True, thinking=True)
        await remember_locale(interaction, meta.id)
        locale = lang(interaction)
        reading = await self.bot.service.read(meta.id)
        reply = split_units(self.bot.service, reading, units)
        line = waiting_line(reading, reply, locale)
        if not reply.acting:
            await interaction.followup.send(line or t("panel.step.wait", locale), ephemeral=True)
            return
        panels = [
            await load_panel(
                self.bot,
                meta.id,
                interaction.user.id,
                unit,
                None,
                interaction.guild_id,
                reading=reading,
                actor=actor_of(interaction),
            )
            for unit in reply.acting[:MAX_PANELS]
        ]
        picks = await picks_for(self.bot.service, reading, actor_of(interaction))
        # the first message opens with what changed since this player last acted, when they were away
        news = await panel_news(
            self.bot.service, meta.id, interaction.user.id, panels[0].model.unit_id, locale, panels[0].scheme
        )
        if picks and all(fits_picker(p, picks, locale) for p in panels):
            # one message for the units acting now: a picker on its first row switches which one it shows,
            # the first whose order is not in yet
            given = {p.unit_id for p in picks if p.submitted}
            first = next((p for p in panels if p.model.unit_id not in given), panels[0])
            kwargs = await panel_message(first, locale, picks=picks, news=news)
            if line:
                kwargs["content"] = line
            await interaction.followup.send(ephemeral=True, **kwargs)
            if news is not None:
                await note_shown(self.bot.service, meta.id, interaction.user.id)
            return
        # a panel whose controls take every row keeps a message of its own, as does each of more units than a
        # picker holds (a director's unplayed units): each click edits its own message
        for n, panel in enumerate(panels):
            kwargs = await panel_message(panel, locale, news=news if n == 0 else None)
            if n == 0 and line:
                kwargs["content"] = line
            await interaction.followup.send(ephemeral=True, **kwargs)
            if n == 0 and news is not None:
                await note_shown(self.bot.service, meta.id, interaction.user.id)


async def setup(bot: HexBotCore) -> None:
    bot.add_dynamic_items(PanelItem)
    await bot.add_cog(OrdersCog(bot))


async def teardown(bot: HexBotCore) -> None:
    bot.remove_dynamic_items(PanelItem)
