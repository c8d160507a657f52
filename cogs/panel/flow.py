"""What a click on a panel does: who may click (the unit's holder, in its own server), whether the panel is
still current (the phase it was built for), the draft after the click (the plug-in's), and Submit (the service).
Returns what to show; the item that was clicked shows it (:mod:`cogs.panel.items`)."""

from __future__ import annotations

import logging
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import discord

from bot.panels.model import Button, Select
from bot.results import refuse
from bot.service import Reading
from cogs.common import actor_of, bot_of, channel_language
from cogs.panel.components import ControlRef
from cogs.panel.load import LoadedPanel, load_panel, stored_draft
from data.i18n import t
from rules.order_modes import policy_for_mode

if TYPE_CHECKING:
    from bot.client import HexBotCore

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Clicked:
    panel: LoadedPanel  # the panel to show now
    acknowledged: str = ""  # after a Submit: the i18n key telling the player what the order did (its mode's)
    footer: str = ""  # after a Submit: the i18n key of the panel's footer, in the same words
    #: the panel's own edit is the whole acknowledgement (a Submit that changes nothing, such as a kept
    #: intention): no private message of its own
    quiet: bool = False


async def click(interaction: discord.Interaction, ref: ControlRef, values: tuple[str, ...] | None) -> Clicked:
    """The click on control ``ref`` (``values``: a select's choice); raises a ``GameError`` to refuse it."""
    # more clicks than a person makes on purpose: refused before anything is read or written
    bot_of(interaction).clicks.check((interaction.user.id, ref.encounter_id, ref.unit_id))
    reading = await owns(interaction, ref)
    if ref.phase_no != reading.phase_no:
        log.info(
            "stale panel user=%s encounter=%s phase=%s", interaction.user.id, ref.encounter_id, ref.phase_no
        )
        raise refuse("phase.stale", "That panel belongs to a phase that is over; open /orders again.")
    panel = await load_panel(
        bot_of(interaction),
        reading.meta.id,
        interaction.user.id,
        ref.unit_id,
        stored_draft(interaction.message),
        interaction.guild_id,
        reading=reading,
        actor=actor_of(interaction),
    )
    model = panel.model
    if model.waiting:
        raise refuse("unit.not_awaiting", "This unit takes no orders now.", unit=model.unit_name)
    control = model.control(ref.action)
    if control is None or not control.enabled:  # not offered any more: show the panel as it is now
        return Clicked(panel)
    panel = panel.pressed(ref.action, (values or ()) if isinstance(control, Select) else None)
    if isinstance(control, Button) and control.submits:
        return await submit(interaction, panel, reading, quiet=control.quiet)
    return Clicked(panel)


async def owns(interaction: discord.Interaction, ref: ControlRef) -> Reading:
    """Ownership, checked on every click before anything is read or changed: the clicking user must hold the
    unit in that encounter, and a panel used inside a server must belong to that server (custom ids are forgeable).
    Returns what it read, so the click does not read it again."""
    bot = bot_of(interaction)
    reading = await bot.service.read(ref.encounter_id)
    if interaction.guild_id is not None and reading.meta.guild_id != interaction.guild_id:
        raise refuse("encounter.gone", "That encounter no longer exists, or you no longer play in it.")
    if interaction.guild_id is None:  # a DM carries no server
        user = interaction.user.id
        if not (reading.meta.created_by == user or any(p.user_id == user for p in reading.parts)):
            # an encounter the person has no part in is answered as one that does not exist, so a forged id
            # never tells whether it is in use in some other server
            raise refuse("encounter.gone", "That encounter no longer exists, or you no longer play in it.")
        if not await bot.membership.is_member(reading.meta.guild_id, user):
            # someone who left the server (or was removed) plays no more there
            await hand_to_director(bot, reading, user)
            raise refuse("member.gone", "You are no longer a member of that encounter's server.")
    if not await bot.service.may_use_panel(reading, ref.unit_id, actor_of(interaction)):
        log.info("panel refused user=%s encounter=%s", interaction.user.id, ref.encounter_id)
        raise refuse("unit.not_yours", "That is not one of your units.")
    return reading


async def hand_to_director(bot: HexBotCore, reading: Reading, user_id: int) -> None:
    """Someone no longer in the encounter's server: their units go to the director, as when a player leaves (the
    table is told, and a phase that waited only for them moves on)."""
    meta = reading.meta
    if not await bot.service.leave(meta.id, user_id):
        return
    log.info("player no longer a member: units to the director encounter=%s user=%s", meta.id, user_id)
    text = t("encounter.left_public", await channel_language(bot, meta), user=f"<@{user_id}>")
    channel = bot.get_partial_messageable(meta.channel_id)
    try:
        await channel.send(text, allowed_mentions=discord.AllowedMentions.none())
    except discord.HTTPException:  # the change stands; the status below says who plays what
        log.warning("notice of a player gone refused encounter=%s", meta.id, exc_info=True)
    if meta.status == "running":
        await bot.resolve_and_announce(meta.id, expected_phase_no=reading.phase_no)
        if bot.announcer is not None:
            bot.announcer.status_changed(meta.id)  # queued, retried if refused


async def submit(
    interaction: discord.Interaction, panel: LoadedPanel, reading: Reading, *, quiet: bool = False
) -> Clicked:
    """Store the panel's order for the phase it was built for (durable when this returns), then start what
    follows: the resolution if it was the last order, else the channel's status. The acknowledgement says what
    the order did in the step's order mode (its policy's words, never a ruleset's)."""
    bot = bot_of(interaction)
    result = await bot.service.submit(
        panel.encounter_id,
        interaction.user.id,
        panel.model.unit_id,
        panel.plugin.raw_order(panel.model),
        phase_no=panel.phase_no,
        reading=reading,
        actor=actor_of(interaction),
    )
    if result.all_in:
        bot.spawn(
            bot.resolve_and_announce(
                panel.encounter_id, expected_phase_no=result.phase_no, reading=reading, all_in=True
            ),
            what="resolution",
        )
    elif bot.announcer is not None:  # in turn with the encounter's posts, retried if Discord refuses it
        bot.announcer.status_changed(panel.encounter_id)
    policy = policy_for_mode(result.mode)
    key = policy.acknowledged(amended=result.amended, reviewed=result.reviewed)
    return Clicked(replace(panel, submitted=True), key, policy.submitted_footer, quiet)
