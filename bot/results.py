"""Plain result objects the application layer returns to the Discord layer (no discord import).

Text is always a translation key plus parameters, so the cog can show it in the reader's language; images are
PNG bytes rendered off the event loop.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from bot.dice_seal import Seal
from bot.panels.model import Text
from data.i18n import problem_text, t
from rules.errors import GameError, Problem
from rules.events import Event
from rules.ruleset import OrderMode
from rules.state import EncounterState, Side


class Refused(GameError):
    """The bot refuses a request (not a rule of the game): no encounter here, not your unit, not a director...

    ``code`` is an i18n key under ``errors.``; the English ``message`` is the fallback.
    """


def refuse(code: str, message: str, **params: Any) -> Refused:
    return Refused(message, code=code, params=params)


@dataclass(frozen=True, slots=True)
class ProblemLines:
    """A scenario's problems as a refusal's ``{problems}``: written in the reader's language when shown
    (``localized``), one a line, cut to ``budget`` characters with a closing "… and N more" line so the whole
    refusal fits one Discord message. ``str()`` is the English text (logs, tests)."""

    problems: tuple[Problem, ...]
    budget: int = 1800

    def localized(self, locale: str | None) -> str:
        lines: list[str] = []
        used = 0
        for i, problem in enumerate(self.problems):
            line = problem_text(problem, locale)
            if used + len(line) + 1 > self.budget and lines:
                lines.append(t("problem.more", locale, count=len(self.problems) - i))
                break
            lines.append(line)
            used += len(line) + 1
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.localized("en")


@dataclass(frozen=True, slots=True)
class Msg:
    key: str
    params: Mapping[str, Any] = field(default_factory=lambda: dict[str, Any]())

    def text(self, locale: str | None) -> str:
        return t(self.key, locale, **self.params)


@dataclass(frozen=True, slots=True)
class Created:
    encounter_id: int
    name: str
    ruleset: str
    units: tuple[tuple[str, str, str], ...]  # (unit id, name, side id) of units players can take
    sides: tuple[Side, ...] = ()

    def side_in(self, side_id: str, locale: str | None) -> str:
        """A side's name for a reader of ``locale`` (its id when unknown)."""
        return next((s.name_in(locale) for s in self.sides if s.id == side_id), side_id)


@dataclass(frozen=True, slots=True)
class Joined:
    encounter_id: int
    user_id: int
    unit: str
    unit_name: str
    side: str
    side_name: str = ""
    side_names: tuple[tuple[str, str], ...] = ()  # the name per language, when the scenario gives them

    def side_in(self, locale: str | None) -> str:
        """The side's name for a reader of ``locale``."""
        return Side(self.side, self.side_name or self.side, names=self.side_names).name_in(locale)


@dataclass(frozen=True, slots=True)
class Seated:
    """What one ``/encounter join`` took, all of one side: each unit as (id, name, whether the channel may name
    it: a unit hidden from the other sides never appears in public, FOG-1)."""

    encounter_id: int
    user_id: int
    side: str
    side_name: str
    units: tuple[tuple[str, str, bool], ...]
    side_names: tuple[tuple[str, str], ...] = ()  # the name per language, when the scenario gives them

    def side_in(self, locale: str | None) -> str:
        """The side's name for a reader of ``locale``."""
        return Side(self.side, self.side_name or self.side, names=self.side_names).name_in(locale)

    @property
    def public_names(self) -> tuple[str, ...]:
        return tuple(name for _, name, shown in self.units if shown)

    @property
    def hidden_names(self) -> tuple[str, ...]:
        return tuple(name for _, name, shown in self.units if not shown)


@dataclass(frozen=True, slots=True)
class Missing:
    """Who still owes orders: names only, never what anyone ordered."""

    user_id: int | None
    unit: str
    unit_name: str
    #: nobody plays the unit: the director (``user_id``) gives its orders
    director: bool = False


@dataclass(frozen=True, slots=True)
class StatusView:
    encounter_id: int
    name: str
    ruleset: str
    status: str
    round: int
    phase: str
    phase_no: int
    missing: tuple[Missing, ...]
    players: tuple[tuple[int, str, str], ...]  # (user id, unit id, unit name)
    directors: tuple[int, ...]
    over: bool
    winner: str | None
    deadline: str | None = None
    #: the units awaited now, each with who acts for it, answered or not (one-at-a-time modes name them)
    acting: tuple[Missing, ...] = ()
    #: "Ronda 4 · Fase 3 · Combate" (one phase number); None: only the round and the phase id are known
    when: Text | None = None
    #: the open step's dice commitment (DICE-1), "" when nothing is open
    dice: str = ""

    def when_text(self, locale: str) -> str:
        if self.when is not None:
            return self.when.render(locale)
        return t("render.round_phase", locale, round=self.round, phase=self.phase)


@dataclass(frozen=True, slots=True)
class SubmitResult:
    encounter_id: int
    phase_no: int
    unit: str
    amended: bool
    all_in: bool
    #: how the step took the order (what the player is told it did: stored, locked, resolved)
    mode: OrderMode = OrderMode.SIMULTANEOUS
    #: the director reviews rolls before a step resolves (the encounter's ``review_rolls``)
    reviewed: bool = False


@dataclass(frozen=True, slots=True)
class StepReport:
    """One resolved step: what the channel is shown (public events only) and the state after it."""

    encounter_id: int
    phase_no: int  # the storage phase that was resolved
    round: int
    phase: str
    events: tuple[Event, ...]
    state: EncounterState
    public_events: tuple[Event, ...]
    board_changed: bool = True  # pieces moved, were hit or destroyed: worth a new board image
    snapshot_seq: int = 0  # the snapshot the step committed (what the announcer records as posted)
    #: the turn of play the step belongs to (``Ruleset.turn_of_play``): steps of one turn share a channel post
    turn: str | None = ""
    #: the step's sealed dice (DICE-1): revealed in its account when every roll of it was public
    seal: Seal | None = None


@dataclass(frozen=True, slots=True)
class HeldRolls:
    """``director reviews rolls``: the rolls a resolution would make, shown to the director before it is applied."""

    encounter_id: int
    phase_no: int
    rolls: tuple[tuple[int, str, str, tuple[int, ...]], ...]  # (index, rule, purpose, dice)
    #: the roll events themselves and the state they were rolled in, so the director reads each roll's purpose
    #: in their own language; empty for results built without them
    events: tuple[Event, ...] = ()
    state: EncounterState | None = None


@dataclass(frozen=True, slots=True)
class Resolution:
    """What a resolution pass did: zero or more steps, possibly stopping at a held review or a decision."""

    encounter_id: int
    steps: tuple[StepReport, ...] = ()
    held: HeldRolls | None = None
    decision_unit: str | None = None  # a pending decision (pilot critical) waits for this unit's holder
    decision_user: int | None = None
    opened_phase_no: int | None = None  # the phase now waiting for orders, if any
    over: bool = False
    winner: str | None = None
    already: bool = False  # someone else resolved it first


@dataclass(frozen=True, slots=True)
class OverrideDone:
    encounter_id: int
    action: str
    unit: str
    event: Event
    state: EncounterState
    #: the channel may hear of it: no unit is touched that the public cannot see before or after (FOG-1)
    public: bool = True
    #: the state it was applied to and every event it made (the first is ``event``): what each side saw change
    before: EncounterState | None = None
    events: tuple[Event, ...] = ()


@dataclass(frozen=True, slots=True)
class UndoDone:
    """What ``/director undo`` did: the state it went back to and, when the step undone was a director's override,
    that override (``before``: the state it had made, where the units it names still are)."""

    phase_no: int
    state: EncounterState
    override: Event | None = None
    before: EncounterState | None = None
    #: the channel may hear which override was undone: every unit it touched is public before and after (FOG-1)
    public: bool = True
    #: the channel was told of the step undone: else its undoing is told only to those who saw it (FOG-1)
    seen: bool = True
    #: a resolution undone: what the public had read of the steps taken back (FOG-1), and the state they made
    undone_events: tuple[Event, ...] = ()
    undone_state: EncounterState | None = None
