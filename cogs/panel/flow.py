"""What a click on a panel does: the service's guards let it in or refuse it (bot/service/panel_click.py), then the draft
after the click (the plug-in's), and Submit (the service). Returns what to show; the item that was clicked shows
it (:mod:`cogs.panel.items`)."""

from __future__ import annotations

import logging
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import discord

from bot.orders_reply import Pick, picks_for
from bot.panels.draft import Draft, decode_draft
from bot.panels.model import Button, Select
from bot.service import Reading
from bot.service.panel_click import ClickRefused, LoadedPanel, Opened, PanelRequest, open_panel
from cogs.common import actor_of, bot_of, channel_language
from cogs.panel.components import PICK, ControlRef, has_picker
from data.i18n import t
from rules.order_modes import policy_for_mode

if TYPE_CHECKING:
    from bot.process.client import HexBotCore

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Clicked:
    panel: LoadedPanel  # the panel to show now
    acknowledged: str = ""  # after a Submit: the i18n key telling the player what the order did (its mode's)
    footer: str = ""  # after a Submit: the i18n key of the panel's footer, in the same words
    #: the panel's own edit is the whole acknowledgement (a Submit that changes nothing, such as a kept
    #: intention): no private message of its own
    quiet: bool = False
    picks: tuple[Pick, ...] = ()  # a message for several units: the units its picker switches between


async def click(interaction: discord.Interaction, ref: ControlRef, values: tuple[str, ...] | None) -> Clicked:
    """The click on control ``ref`` (``values``: a select's choice); raises a ``GameError`` to refuse it. The
    service's guards decide whether the click may touch the unit (bot/service/panel_click.py)."""
    bot = bot_of(interaction)
    actor = actor_of(interaction)
    request = PanelRequest(
        ref.encounter_id,
        ref.unit_id,
        actor,
        guild_id=interaction.guild_id,
        phase_no=ref.phase_no,
        # a pick shows another unit: the draft the message carries is the one of the unit shown until now
        stored=None if ref.action == PICK else stored_draft(interaction.message),
        click=True,
    )
    opened = await open_panel(bot.service, request, clicks=bot.clicks, membership=bot.membership)
    if isinstance(opened, ClickRefused):
        if opened.member_gone and opened.reading is not None:
            # someone who left the server plays no more there: their units go to the director
            await hand_to_director(bot, opened.reading, interaction.user.id)
        raise opened.error
    picks = await picks_for(bot.service, opened.reading, actor) if has_picker(interaction.message) else ()
    model = opened.panel.model
    control = None if ref.action == PICK else model.control(ref.action)
    if control is None or not control.enabled:  # a pick, or not offered any more: show the panel as it is now
        return Clicked(opened.panel, picks=picks)
    panel = await opened.panel.pressed(ref.action, (values or ()) if isinstance(control, Select) else None)
    if isinstance(control, Button) and control.submits:
        clicked = await submit(interaction, replace(opened, panel=panel), quiet=control.quiet)
        if not picks:
            return clicked
        # the picker ticks the unit whose order just went in
        ticked = tuple(replace(p, submitted=True) if p.unit_id == ref.unit_id else p for p in picks)
        return replace(clicked, picks=ticked)
    return Clicked(panel, picks=picks)


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


async def submit(interaction: discord.Interaction, opened: Opened, *, quiet: bool = False) -> Clicked:
    """Store the panel's order for the phase it was built for (durable when this returns), then start what
    follows: the resolution if it was the last order, else the channel's status. The acknowledgement says what
    the order did in the step's order mode (its policy's words, never a ruleset's)."""
    bot = bot_of(interaction)
    panel, reading = opened.panel, opened.reading
    result = await bot.service.submit_opened(opened, panel.plugin.raw_order(panel.model))
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


def stored_draft(message: discord.Message | None) -> tuple[int, Draft] | None:
    """The draft a panel message carries (its disabled ``hexd:draft:`` button), with the phase it is for."""
    if message is None:
        return None
    for row in message.components:
        for child in getattr(row, "children", ()):
            cid = getattr(child, "custom_id", None)
            found = decode_draft(cid) if isinstance(cid, str) else None
            if found is not None:
                return found
    return None
