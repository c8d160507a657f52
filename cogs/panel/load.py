"""A unit's panel for a user, from storage: the plug-in of the encounter's ruleset builds it, with the draft the
panel message carries (same phase) or the order the player already gave (reopened panel)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime
from typing import TYPE_CHECKING, Any

import discord

from bot.orders_reply import acts_now
from bot.palettes import STANDARD, private_scheme
from bot.panels import PanelPlugin, build, panel_for, press
from bot.panels.draft import Draft, decode_draft
from bot.panels.model import PanelModel
from bot.permissions import Actor
from bot.results import refuse
from bot.service import Reading
from rules.state import EncounterState

if TYPE_CHECKING:
    from bot.client import HexBotCore


@dataclass(frozen=True, slots=True)
class LoadedPanel:
    """A panel as shown to its player: the model, the phase it was built for, and what it was built from."""

    encounter_id: int
    phase_no: int
    model: PanelModel
    submitted: bool
    state: EncounterState
    plugin: PanelPlugin
    deadline: datetime | None = None  # when the phase resolves by itself (shown on a panel that owes orders)
    scheme: str = STANDARD  # the player's colour scheme for the preview (bot/palettes.py)

    def pressed(self, action: str, values: tuple[str, ...] | None) -> LoadedPanel:
        return replace(self, model=press(self.plugin, self.state, self.model, action, values))


async def load_panel(
    bot: HexBotCore,
    encounter_id: int,
    user_id: int,
    unit_id: str,
    stored: tuple[int, Draft] | None,
    guild_id: int | None,
    *,
    reading: Reading | None = None,
    actor: Actor | None = None,
) -> LoadedPanel:
    """The panel of ``unit_id`` for ``user_id``, from storage; refuses a unit that is not theirs (the director's
    pseudo-unit of a director-run mode is a director's: ``actor`` carries what Discord knows of the member)."""
    service = bot.service
    reading = reading or await service.read(encounter_id)
    meta, state, phase_no = reading.meta, reading.state, reading.phase_no
    if guild_id is not None and meta.guild_id != guild_id:
        raise refuse("encounter.gone", "That encounter no longer exists, or you no longer play in it.")
    if not await service.may_use_panel(reading, unit_id, actor or Actor(user_id)):
        raise refuse("unit.not_yours", "That is not one of your units.")
    plugin = panel_for(state.ruleset)
    owing = acts_now(service, reading, unit_id)
    if stored is not None and stored[0] == phase_no:
        draft, submitted = stored[1], False
    else:
        raw: Any = None
        if owing:
            for pending in await service.storage.orders_of(encounter_id, phase_no, user_id):
                if pending.unit_id == unit_id:
                    raw = pending.order.get("raw")
        draft, submitted = plugin.draft_from_raw(state, unit_id, raw), raw is not None
    model = build(plugin, state, unit_id, draft=draft, owing=owing)
    deadline = await service.deadline_of(encounter_id, phase_no) if owing else None
    scheme = await private_scheme(service.storage, user_id)
    return LoadedPanel(encounter_id, phase_no, model, submitted, state, plugin, deadline, scheme)


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
