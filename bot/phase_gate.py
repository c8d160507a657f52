"""Which phase a director's command was given for: a command that targets "the current phase" (resolve,
deadline, pause, override-roll, review) acts only on a phase its giver could have seen (DESIGN §4).

Discord's ids are snowflakes: the milliseconds since Discord's epoch in the high bits, from one clock for all
Discord creates, interactions and messages alike. The channel message that first showed the current phase (its
status, or the step post the status rides on) is recorded (``Storage.note_announcement``), as its id or, for an
older post edited to show it, the snowflake of the moment of the edit. A command whose interaction id is smaller,
or that arrives while the current phase is shown nowhere yet, was given for an earlier phase: it does nothing.
Both numbers come from Discord's clock, so no clock of ours is ever compared with Discord's.

Nobody reads a new phase and reacts within a few seconds: a command that arrives within
:data:`CONFIRM_WITHIN_MS` of the showing is asked to be confirmed, with a button that names that phase.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Final

from bot.panels.model import Text, phase_text
from bot.results import refuse
from bot.service.base import ServiceBase
from bot.storage import Storage
from rules.state import EncounterState

#: Discord's epoch (2015-01-01 UTC) in Unix milliseconds: the origin of a snowflake's timestamp
DISCORD_EPOCH_MS: Final = 1420070400000
#: a command this soon after its phase was shown is confirmed first (nobody reacts faster to a new phase)
CONFIRM_WITHIN_MS: Final = 3000


@dataclass(frozen=True, slots=True)
class PhaseWords:
    """A phase's name as a refusal's parameter, written in the reader's language when shown."""

    text: Text

    def localized(self, locale: str | None) -> str:
        return self.text.render(locale or "en")

    def __str__(self) -> str:
        return self.text.render("en")


@dataclass(frozen=True, slots=True)
class PhaseCheck:
    """The current phase, as the command may act on it: at once, or once ``confirm`` is answered."""

    phase_no: int
    when: PhaseWords
    confirm: bool


def snowflake_at(moment: datetime) -> int:
    """The smallest snowflake Discord gives at ``moment`` (an edit's time, from Discord's clock)."""
    return (int(moment.timestamp() * 1000) - DISCORD_EPOCH_MS) << 22


def snowflake_ms(snowflake: int) -> int:
    return snowflake >> 22


def words_of(state: EncounterState) -> PhaseWords:
    return PhaseWords(phase_text(state, state.round, state.phase))


async def note_shown(
    storage: Storage, encounter_id: int, phase_no: int, message_id: int, edited: datetime | None
) -> None:
    """The channel shows phase ``phase_no`` on message ``message_id`` (sent, or ``edited`` at that moment)."""
    shown = max(message_id, snowflake_at(edited)) if edited is not None else message_id
    await storage.note_announcement(encounter_id, phase_no, shown)


async def check_phase(service: ServiceBase, encounter_id: int, interaction_id: int) -> PhaseCheck:
    """The phase a command given as interaction ``interaction_id`` may act on; refused when it was given before
    the current phase was shown in the channel."""
    shown = await service.storage.announcement(encounter_id)
    reading = await service.read(encounter_id)
    when = words_of(reading.state)
    if reading.meta.status not in ("running", "paused"):  # no phase in play: the command refuses by itself
        return PhaseCheck(reading.phase_no, when, confirm=False)
    stale = shown.message_id == 0 or interaction_id < shown.message_id
    if stale or reading.phase_no != shown.phase_no:  # moved on between the two reads: not shown yet either
        raise refuse(
            "phase.already_resolved",
            f"That phase was already resolved; the table is now at {when}. Look at it, then give the command "
            "again if you still want to.",
            when=when,
        )
    recent = snowflake_ms(interaction_id) - snowflake_ms(shown.message_id) < CONFIRM_WITHIN_MS
    return PhaseCheck(shown.phase_no, when, confirm=recent)


async def check_confirmed(service: ServiceBase, encounter_id: int, phase_no: int) -> PhaseWords:
    """A confirmation (or a status panel's button) names phase ``phase_no``: refused once it is over."""
    reading = await service.read(encounter_id)
    when = words_of(reading.state)
    if reading.phase_no != phase_no:
        raise refuse(
            "phase.confirm_gone",
            f"That phase is over; the table is now at {when}. Nothing was done.",
            when=when,
        )
    return when
