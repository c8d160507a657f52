"""The director's commands that act on "the current phase" (resolve, deadline, pause, override-roll, review):
each acts only on a phase the director could have seen (:mod:`bot.phase_gate`). A command given before the
phase was shown is refused privately; one given within seconds of it is confirmed first, with a button that
carries that phase's number, as does the "Resolve now" button of the director's private status.

The button only decodes its custom id and hands it to the same code the commands use: no game rule lives here.
"""

from __future__ import annotations

import logging
import re
from typing import Any, Final, Literal, cast

import discord
from discord import ui

from bot.phase_gate import PhaseWords, check_confirmed, check_phase
from bot.results import refuse
from bot.storage import Encounter
from cogs.common import actor_of, bot_of, channel_language, lang, reply
from data.i18n import t
from rules.errors import GameError

log = logging.getLogger(__name__)

Action = Literal["resolve", "deadline", "pause", "review", "roll"]
#: ``hexd:dphase:{encounter}:{phase}:{action}[:{argument}]``: the phase the director confirms acting on
TEMPLATE: Final = (
    r"hexd:dphase:(?P<enc>\d{1,18}):(?P<phase>\d{1,9}):(?P<action>resolve|deadline|pause|review|roll)"
    r"(?::(?P<arg>[0-9a-z.,_]{1,50}))?"
)
CUSTOM_ID_LIMIT: Final = 100


def phase_custom_id(encounter_id: int, phase_no: int, action: Action, arg: str = "") -> str:
    cid = f"hexd:dphase:{encounter_id}:{phase_no}:{action}" + (f":{arg}" if arg else "")
    if len(cid) > CUSTOM_ID_LIMIT or not re.fullmatch(TEMPLATE, cid):
        # what a confirmation carries did not fit: the director gives the command again in a moment
        raise refuse("phase.changed", "The game moved on while I applied that; give it again.")
    return cid


def resolve_now_button(encounter_id: int, phase_no: int, locale: str) -> ui.View:
    """The director's private status: resolve the phase it shows (its number in the custom id)."""
    view = ui.View(timeout=None)
    view.add_item(
        ui.Button(
            label=t("director.resolve_now", locale),
            style=discord.ButtonStyle.danger,
            custom_id=phase_custom_id(encounter_id, phase_no, "resolve"),
        )
    )
    view.stop()  # dispatched by its custom id (PhaseButton), whatever the message
    return view


async def gated(
    interaction: discord.Interaction, meta: Encounter, action: Action, arg: str = ""
) -> int | None:
    """The phase a director's command may act on now, or None when it was answered with a confirmation (the
    phase was shown just before the command); refuses a command given before the current phase was shown."""
    bot = bot_of(interaction)
    try:
        check = await check_phase(bot.service, meta.id, interaction.id)
    except GameError:
        if bot.announcer is not None:  # the phase is shown again (and so recorded) if it never was
            bot.announcer.status_changed(meta.id)
        raise
    if not check.confirm:
        return check.phase_no
    locale = lang(interaction)
    view = ui.View(timeout=None)
    label = t("director.resolve_now" if action == "resolve" else "director.confirm_button", locale)
    custom_id = phase_custom_id(meta.id, check.phase_no, action, arg)
    view.add_item(ui.Button(label=label, style=discord.ButtonStyle.danger, custom_id=custom_id))
    view.stop()
    text = t("director.confirm_phase", locale, when=check.when.localized(locale))
    await interaction.response.send_message(text, view=view, ephemeral=True)
    return None


async def act(
    interaction: discord.Interaction, meta: Encounter, phase_no: int, action: Action, arg: str = ""
) -> None:
    """Do ``action`` to phase ``phase_no`` and answer; a later phase is left alone (refused)."""
    bot = bot_of(interaction)
    service = bot.service
    actor = actor_of(interaction)
    if action == "resolve":
        await service.require_director(meta, actor)
        await interaction.response.defer(ephemeral=True, thinking=True)
        result = await bot.resolve_and_announce(
            meta.id, forced=True, approved=True, expected_phase_no=phase_no, refuse_idle=True
        )
        key = "director.already_resolved" if result.already else "director.resolved"
        await interaction.followup.send(t(key, lang(interaction), steps=len(result.steps)), ephemeral=True)
        return
    if action == "deadline":
        minutes = float(arg or 0)
        when = await service.director_deadline(meta.id, actor, minutes or None, expected_phase_no=phase_no)
        locale = await channel_language(bot, meta)  # a public reply speaks the channel's language
        if when is None:
            await interaction.response.send_message(t("director.deadline_cleared", locale))
        else:
            formatted = discord.utils.format_dt(when, "R")
            await interaction.response.send_message(t("director.deadline_set", locale, when=formatted))
        if bot.announcer is not None:  # the status message shows the deadline (or no longer does)
            bot.announcer.status_changed(meta.id)  # queued, retried if refused
        return
    if action == "pause":
        await service.set_status(meta.id, actor, "paused", expected_phase_no=phase_no)
        await interaction.response.send_message(t("director.paused", lang(interaction)))
        return
    if action == "review":
        on = arg == "on"
        await service.set_review_rolls(meta.id, actor, on, expected_phase_no=phase_no)
        await reply(interaction, t("director.review_on" if on else "director.review_off", lang(interaction)))
        return
    index, _, dice_text = arg.partition("_")
    dice = tuple(int(d) for d in dice_text.split(",") if d)
    await service.override_roll(meta.id, actor, int(index), dice, expected_phase_no=phase_no)
    text = t("director.roll_overridden", lang(interaction), index=index, dice=", ".join(map(str, dice)))
    await reply(interaction, text)


async def run(interaction: discord.Interaction, meta: Encounter, action: Action, arg: str = "") -> None:
    """A director's command on the current phase: checked against what the director could have seen first."""
    phase_no = await gated(interaction, meta, action, arg)
    if phase_no is not None:
        await act(interaction, meta, phase_no, action, arg)


class PhaseButton(ui.DynamicItem[ui.Item[Any]], template=TEMPLATE):
    """A confirmation (or the private status's "Resolve now"): acts on the phase its custom id names, only."""

    def __init__(self, encounter_id: int, phase_no: int, action: Action, arg: str) -> None:
        super().__init__(ui.Button(custom_id=phase_custom_id(encounter_id, phase_no, action, arg)))
        self.encounter_id, self.phase_no, self.arg = encounter_id, phase_no, arg
        self.action: Action = action

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: ui.Item[Any], match: re.Match[str], /
    ) -> PhaseButton:
        action = cast(Action, match["action"])  # one of the template's words
        return cls(int(match["enc"]), int(match["phase"]), action, match["arg"] or "")

    async def callback(self, interaction: discord.Interaction) -> None:  # type: ignore[override]
        bot = bot_of(interaction)
        try:
            meta = await bot.service.checked(self.encounter_id, interaction.guild_id)
            if interaction.guild_id is None:  # a director's control lives in the encounter's server only
                raise refuse("encounter.guild_only", "Use this in the encounter's channel.")
            await bot.service.require_director(meta, actor_of(interaction))
            await check_confirmed(bot.service, meta.id, self.phase_no)
            await act(interaction, meta, self.phase_no, self.action, self.arg)
        except GameError as exc:
            await bot.reply_error(interaction, exc)


__all__ = ["PhaseButton", "PhaseWords", "act", "gated", "phase_custom_id", "resolve_now_button", "run"]
