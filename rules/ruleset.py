"""The ruleset protocol and registry (DESIGN §2).

A ruleset is a stateless object: it parses orders (``InvalidOrderError``), checks them against a state
(``IllegalOrderError``), resolves a phase into a new state plus events, and says what a side can see. It also
reads its own part of a scenario file (unit stats, orders in ``[[rounds]]``) and drives offline simulation.
"""

from __future__ import annotations

import dataclasses
import re
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any, ClassVar

from rules.dice import Dice
from rules.errors import IllegalOrderError
from rules.events import CAUSE_FIELDS, Event, Note, ShotResolved, UnitMoved
from rules.hexgrid import Hex
from rules.placement import off_board
from rules.serial import serializable
from rules.state import Board, Decision, EncounterState, Unit, replace_unit

if TYPE_CHECKING:
    from rules.scenario import ScenarioContext


class OrderMode(StrEnum):
    """How orders are collected (DESIGN §2)."""

    SIMULTANEOUS = "simultaneous"  # secret, revealed together
    SEQUENTIAL_OPEN = "sequential_open"  # by initiative, each revealed when locked
    ACTIVATION = "activation"  # chit draw, live actions, reaction prompts
    DIRECTOR = "director"  # procedures the director drives


class FacingKind(StrEnum):
    SIDE = "side"  # faces a hexside (exo, mech)
    VERTEX = "vertex"  # faces a vertex (skirmish)


@dataclass(frozen=True, slots=True)
class PhaseSpec:
    id: str
    takes_orders: bool = False
    secret: bool = False


@dataclass(frozen=True, slots=True)
class PhaseLabel:
    """How players call a phase: its 1-based number in the round (None when it is none of the
    ruleset's phases) and the i18n key of its name, with the key's parameters (unit ids are given as ``unit``
    and shown by name)."""

    number: int | None
    key: str
    params: tuple[tuple[str, str], ...] = ()


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class Order:
    """Base of every order. ``unit`` is the acting unit (or character)."""

    unit: str


@dataclass(frozen=True, slots=True)
class PhaseResult:
    state: EncounterState
    events: tuple[Event, ...]
    pending: Decision | None = None


@dataclass(frozen=True, slots=True)
class Visibility:
    """What one viewer sees (FOG-1, NGT-9): ``units`` fully, ``concealed`` as a '?' counter only."""

    units: frozenset[str]
    concealed: frozenset[str] = frozenset()
    hexes: frozenset[Hex] | None = None  # None: every hex is visible

    def sees(self, unit_id: str) -> bool:
        return unit_id in self.units


@dataclass(frozen=True, slots=True)
class MoveIntent:
    """An order that is about to move a unit (a layer's straying check, NGT-5): the unit, the movement points it
    has for the move, whether it is a motor vehicle, and what is left of the order once its move is taken away
    (None: nothing; a mech's declaration without its path). ``path`` is the hexes the order enters, in order,
    when it names them beforehand (mech, pbw): the layer judges the exemption before each of them; empty when the
    move is judged once, from where the unit stands (a skirmish move action)."""

    unit: str
    points: int
    vehicle: bool = False
    rest: Order | None = None
    path: tuple[Hex, ...] = ()


@dataclass(frozen=True, slots=True)
class MoveSurcharge:
    """Movement costs a layer adds to the base ruleset's (night, NGT-5.1): ``enter`` more points for an
    infantry-scale unit to enter a hex whose terrain is one of ``terrain``, and ``per_turn`` more for each hexside
    a vehicle turns. The base ruleset knows which of its units are infantry-scale and which are vehicles."""

    terrain: frozenset[str] = frozenset()
    enter: int = 0
    per_turn: int = 0

    def entering(self, board: Board, h: Hex) -> int:
        """What an infantry-scale unit pays on top of the base cost to enter ``h``."""
        return self.enter if self.enter and board.terrain_at(h) in self.terrain else 0


NO_SURCHARGE = MoveSurcharge()


def surcharge(state: EncounterState) -> MoveSurcharge:
    """The movement costs the state's layers add (none without layers): every base ruleset counts them wherever
    it counts movement (validation, resolution, the reach its panels offer), so nothing offered is refused."""
    if not state.layers:
        return NO_SURCHARGE
    from rules.registry import ruleset_for

    return ruleset_for(state).move_surcharge(state)


@dataclass(frozen=True, slots=True)
class RoundSpec:
    """One ``[[rounds]]`` entry of a scenario, kept raw: the ruleset reads it when the round is simulated."""

    index: int
    raw: Mapping[str, Any] = field(default_factory=lambda: dict[str, Any]())
    #: the entry's line in the file (0 when it comes from no file), so a refusal mid-play says where to look
    line: int = 0


@dataclass(frozen=True, slots=True)
class SimStep:
    """One resolved step of an offline simulation."""

    round: int
    phase: str
    state: EncounterState
    events: tuple[Event, ...]


DIRECTOR = "director"
PUBLIC = "public"

Change = tuple[EncounterState, tuple[Event, ...]]


@dataclass(frozen=True, slots=True)
class Ruling:
    """A ruling the rules leave to the director (exo: collision, docking, boarding), offered by ``/director
    ruling``: ``apply(state, words)`` reads the director's words (``usage`` is the i18n key that explains them)
    and returns the new state and its events, the ruling's own event first; bad words raise a ``GameError``."""

    id: str
    rule: str
    usage: str
    apply: Callable[[EncounterState, tuple[str, ...]], Change]


@dataclass(frozen=True, slots=True)
class RangeBand:
    """One range band of a weapon for ``/unit arcs`` (exo short/medium/long, EXO-3.4): its name (the catalogs'
    ``arc.band.<name>``) and its first and last distance in hexes from the unit."""

    name: str
    first: int
    last: int


class Ruleset(ABC):
    id: ClassVar[str]
    facing: ClassVar[FacingKind]
    order_mode: ClassVar[OrderMode]
    phases: ClassVar[tuple[PhaseSpec, ...]]
    #: keys a unit may carry in a scenario file besides the common ones (id, side, at, facing, name, label)
    unit_keys: ClassVar[frozenset[str]] = frozenset()
    #: keys a ``[[rounds]]`` entry may carry
    round_keys: ClassVar[frozenset[str]] = frozenset({"orders"})
    #: keys of ``[options]``
    option_keys: ClassVar[frozenset[str]] = frozenset()
    #: keys of ``[board]`` besides width, height, unbounded and terrain (``elevation``, ``hedgehog``)
    board_keys: ClassVar[frozenset[str]] = frozenset()
    #: top-level tables besides the common ones (a layer's ``[night]``)
    top_keys: ClassVar[frozenset[str]] = frozenset()
    #: unit fields a director may not set by hand with ``/director set`` (besides id, side, at and kind)
    fixed_stats: ClassVar[frozenset[str]] = frozenset()
    #: whether an omitted [board] means an unbounded board
    unbounded_by_default: ClassVar[bool] = False

    @property
    def layers(self) -> tuple[str, ...]:
        """The layers wrapped around the base ruleset, innermost first (none for a base ruleset)."""
        return ()

    def innermost(self) -> Ruleset:
        """The base ruleset under any layers."""
        return self

    # --- orders ------------------------------------------------------------------------------------------
    @abstractmethod
    def parse_order(self, state: EncounterState, unit_id: str, raw: Any) -> Order:
        """Syntax → an Order, or ``InvalidOrderError``."""

    @abstractmethod
    def validate_order(self, state: EncounterState, actor: str, order: Order) -> None:
        """Rules check → ``IllegalOrderError`` with a message that names the unit and the rule id."""

    @abstractmethod
    def resolve(self, state: EncounterState, orders: Mapping[str, Order], dice: Dice) -> PhaseResult:
        """Resolve the current phase (or, in activation mode, one action) into a new state and events."""

    def awaiting(self, state: EncounterState) -> tuple[str, ...]:
        """Units that owe orders in the current phase (empty when the phase needs none)."""
        return ()

    def stand_in_order(self, state: EncounterState, unit_id: str) -> Any | None:
        """The raw order given for an awaited unit whose player gave none when the director (or a deadline)
        forces a one-order-per-step mode on: the pending question's default answer by default; None: wait."""
        pending = state.pending
        if pending is not None and pending.unit == unit_id and pending.default:
            return pending.default
        return None

    def stand_in(self, state: EncounterState, unit_id: str) -> Order | None:
        """The order made for an awaited unit whose player gave none when the director (or a deadline) forces the
        step: :meth:`stand_in_order` read as an order by default. A ruleset returns an order of its own kind that
        its account words as forced ("Griffin stands still (forced by the director)"), never as the player's
        choice."""
        raw = self.stand_in_order(state, unit_id)
        return None if raw is None else self.parse_order(state, unit_id, raw)

    def may_act(self, state: EncounterState, unit_id: str) -> bool:
        """True when ``unit_id`` may give an order now though it is not awaited (ocs: its owner moves it freely or
        changes its mode, and opens a combat when the director allows players to). Default: only awaited units."""
        return False

    def idle(self, state: EncounterState, orders: Mapping[str, Order]) -> bool:
        """True when resolving now with ``orders`` would change nothing and roll nothing, so the director's
        resolve is refused with what to do instead rather than shown as an empty step. Default: never (a forced
        step stands in for whoever owes orders)."""
        return False

    def auto_resolves(self, state: EncounterState) -> bool:
        """True when the current step resolves by itself now (the bot chains it without waiting for anyone).
        Default: a step that awaits no orders. A director-run procedure (ocs) says False while it simply waits
        for the director, so an idle encounter never loops."""
        return not self.awaiting(state)

    def step_mode(self, state: EncounterState) -> OrderMode:
        """How the current step collects its orders: the ruleset's ``order_mode`` by default. A ruleset whose
        steps differ says so per step (pbw: declarations one at a time, then before each segment every character's
        change of intention at once, PBW-1/PBW-2)."""
        return self.order_mode

    def turn_of_play(self, before: EncounterState, events: tuple[Event, ...]) -> str | None:
        """The turn of play a step resolved from ``before`` (with ``events``) belongs to: the channel shows each
        turn of play as one post, edited as its steps resolve, and a new turn starts a new post. A key names the
        turn (unique in the encounter: steps with the same key share a post, across resolutions); None: the step
        goes with the post open before it (an automatic step such as a draw); "" (the default): the steps of one
        resolution share a post, the next resolution starts another."""
        return ""

    def optional_orders(self, state: EncounterState) -> bool:
        """True when the current phase's orders may be left out (no answer = nothing done): a phase that only
        awaits units nobody plays then resolves at once instead of waiting for the director."""
        return False

    # --- the director's hand (DESIGN §4: directors can override anything) ---------------------------------
    def check_placement(self, state: EncounterState, unit: Unit, to: Hex) -> None:
        """Whether ``unit`` may be put on ``to`` by hand (``/director move``, ``add-unit``): overriding the rules
        never breaks the board. Raises ``IllegalOrderError`` with the reason and the rule (rules/placement.py).
        By default a hex of the board (HEX-1); a ruleset adds what its own rules forbid there (terrain no unit
        may enter, a hex another unit holds where one unit is all a hex takes)."""
        if not state.board.contains(to):
            raise off_board(to)

    def place(self, state: EncounterState, unit: Unit, to: Hex, facing: int | None) -> Unit:
        """``unit`` put on ``to`` by hand (``/director move``, ``add-unit``); rulesets keep what must follow it."""
        changes: dict[str, Any] = {"at": to}
        if facing is not None:
            changes["facing"] = facing % 6
        return replace_unit(unit, **changes)

    def damage_by_hand(
        self, state: EncounterState, unit_id: str, amount: str
    ) -> tuple[EncounterState, tuple[Event, ...]]:
        """``/director damage``: ``amount`` as the director typed it (a number, or a ruleset's own form such as a
        location and a number). Raises ``IllegalOrderError`` with a message that says what to type."""
        unit = state.unit(unit_id)
        raise IllegalOrderError(
            f"{unit.name} has no stats that take damage.", code="director.no_damage", params={"unit": unit_id}
        )

    def damage_locations(self, state: EncounterState, unit_id: str) -> tuple[str, ...]:
        """Where ``/director damage`` may put damage on the unit (mech: head, ct, lt …); none by default, when
        damage has no location. The cog offers them and writes the chosen one before the amount."""
        return ()

    def director_switches(self) -> tuple[str, ...]:
        """Encounter options (``[options]`` keys, true or false) the director may turn on or off during play with
        ``/director option`` (mech: ``secret_declarations``, MECH-1.1); each named by the i18n key
        ``option.<name>``. None by default."""
        return ()

    # --- what a unit can do, for pictures (``/unit arcs``) ------------------------------------------------
    def firing_arcs(self, state: EncounterState, unit_id: str) -> Mapping[str, frozenset[Hex]]:
        """The unit's firing sections by name (exo: bow, port, starboard, stern), each the hexes it covers
        within reach; empty for a ruleset without arcs."""
        return {}

    def arc_weapons(self, state: EncounterState, unit_id: str) -> Mapping[str, str]:
        """The weapons ``/unit arcs`` may draw one at a time, by key (what :meth:`weapon_reach` takes) with a label
        in the ruleset's notation (exo ``"L#1"``; the cog shows ``arc.weapon.<key>`` instead when the catalogs
        have it). None by default."""
        return {}

    def arc_weapon(self, state: EncounterState, unit_id: str, typed: str) -> str | None:
        """The key of :meth:`arc_weapons` that ``typed`` names, or None: the key itself, its label, or the weapon
        as a scenario writes it (the label without its place: ``medium_laser`` for ``"#2 medium_laser"``), with
        case, spaces, ``_`` and ``-`` ignored. Of two weapons written alike, the first."""
        weapons = self.arc_weapons(state, unit_id)
        if typed in weapons:
            return typed
        want = weapon_words(typed)
        for key, label in weapons.items():
            if want in (weapon_words(label), weapon_words(re.sub(r"#\d+", "", label))):
                return key
        return None

    def weapon_reach(
        self, state: EncounterState, unit_id: str, weapon: str | None
    ) -> tuple[Mapping[str, frozenset[Hex]], tuple[RangeBand, ...]]:
        """What ``/unit arcs`` draws: the firing sections (as :meth:`firing_arcs`, in order; a hex on a boundary
        lies in two) that ``weapon`` (a key of :meth:`arc_weapons`, or None for the whole unit) covers, out to its
        reach, and its range bands nearest first (none when no weapon is picked). By default the unit's arcs."""
        return self.firing_arcs(state, unit_id), ()

    def reachable(self, state: EncounterState, unit_id: str) -> frozenset[Hex]:
        """Hexes the unit can end its next move on (empty when the ruleset does not say)."""
        return frozenset()

    def rulings(self) -> Mapping[str, Ruling]:
        """The rulings this ruleset leaves to the director, by id (none by default)."""
        return {}

    # --- what a layer asks of the base (night: gunflashes, straying) -------------------------------------
    def attackers(self, events: tuple[Event, ...]) -> frozenset[str]:
        """Units that attacked in these events (NGT-4 gunflashes): shooters of every ``ShotResolved`` that
        fired. Rulesets with their own attack events say so."""
        return frozenset(e.shooter for e in events if isinstance(e, ShotResolved) and not e.spent)

    def sees_hex(self, state: EncounterState, unit_id: str, target: Hex) -> bool:
        """The base ruleset's own sight (facing arcs, blocking terrain) from a unit to a hex, which a layer's
        sight rules (night, NGT-2) apply on top of; True by default (no sight rules of its own)."""
        return True

    def order_targets(self, state: EncounterState, order: Order) -> tuple[str, ...]:
        """Units ``order`` attacks (a layer checks that its side can see them, NGT-2); none by default."""
        return ()

    def move_intent(self, state: EncounterState, order: Order) -> MoveIntent | None:
        """The move ``order`` is about to make, or None when it moves nothing (NGT-5). None by default: a
        ruleset that says nothing is never checked for straying."""
        return None

    def move_surcharge(self, state: EncounterState) -> MoveSurcharge:
        """Movement costs the layers add (NGT-5.1); a base ruleset adds none (read them through
        :func:`surcharge`)."""
        return NO_SURCHARGE

    def enter_cost(self, state: EncounterState, unit_id: str, frm: Hex, to: Hex) -> int | None:
        """Movement points for ``unit_id`` to step from ``frm`` into the adjacent ``to``; None when it cannot
        (off the board, impassable, occupied). Default: 1 point on the board, None off it."""
        return 1 if state.board.contains(to) and not state.units_at(to) else None

    def stray_move(
        self, state: EncounterState, unit_id: str, path: tuple[Hex, ...], spent: int
    ) -> tuple[EncounterState, tuple[Event, ...]]:
        """Carry out a move the rules chose for the unit (a night stray, NGT-5): along ``path`` (hexes entered,
        in order), paying ``spent`` points. Default: the unit is put on the last hex."""
        unit = state.unit(unit_id)
        if not path or unit.at is None:
            return state, ()
        moved = replace_unit(unit, at=path[-1])
        event = UnitMoved(
            rule="NGT-5",
            unit=unit_id,
            frm=unit.at,
            to=path[-1],
            facing_from=unit.facing,
            facing_to=unit.facing,
            path=(unit.at, *path),
        )
        return state.with_units([moved]), (event,)

    def private_views(self, state: EncounterState) -> tuple[str, ...]:
        """Sides that get their own board privately after every step (NGT-9); none by default: the channel's
        board is everyone's."""
        return ()

    def public_event(self, event: Event, seen: frozenset[str], known: frozenset[str]) -> Event | None:
        """``event`` as the public may read it (FOG-1), given the units it has ``seen`` of those ``known``:
        unchanged when it names no unit the public cannot see; a shot at a seen target from an unseen shooter
        becomes "a shot from the dark" (NGT-9); anything else naming an unseen unit is dropped (None)."""
        hidden = [u for u in event.involved() if u in known and u not in seen]
        if not hidden:
            return _without_hidden_cause(event, seen, known)
        if isinstance(event, ShotResolved) and hidden == [event.shooter] and not event.spent:
            return Note(
                rule=event.rule,
                key="shot_from_dark",
                unit=event.target,
                args=(("hit", event.hit), ("damage", event.damage)),
            )
        return None

    # --- visibility (FOG-1) ------------------------------------------------------------------------------
    def visible_to(self, state: EncounterState, side: str) -> Visibility:
        """Default: every unit on the board that is not hidden from this side."""
        seen = frozenset(
            u.id for u in state.units.values() if not u.hidden or u.side == side or side == DIRECTOR
        )
        return Visibility(units=seen)

    # --- scenario files ----------------------------------------------------------------------------------
    @abstractmethod
    def build_unit(
        self, raw: Mapping[str, Any], common: Unit, path: str, ctx: ScenarioContext
    ) -> Unit | None:
        """Turn a ``[[units]]`` table into this ruleset's unit; report problems to ``ctx``."""

    def check_state(self, state: EncounterState, ctx: ScenarioContext) -> None:  # noqa: B027
        """Whole-scenario checks once every unit is built (unit groups, stacking, terrain kinds); none by default."""

    def check_round(self, spec: RoundSpec, state: EncounterState, path: str, ctx: ScenarioContext) -> None:  # noqa: B027
        """Static checks of a ``[[rounds]]`` entry (unknown units and the like); none by default."""

    def read_board(self, raw: Mapping[str, Any], board: Board, ctx: ScenarioContext) -> Board:
        """Read this ruleset's own ``[board]`` keys (``board_keys``) into ``board.features``."""
        return board

    def read_top(self, raw: Mapping[str, Any], state: EncounterState, ctx: ScenarioContext) -> EncounterState:
        """Read this ruleset's own top-level tables (``top_keys``) into the state."""
        return state

    def setup(self, state: EncounterState) -> EncounterState:
        """Called once on a freshly built state (cruise vectors, first chit draw...)."""
        return state

    @abstractmethod
    def simulate_round(
        self, state: EncounterState, spec: RoundSpec, dice_for: DiceFactory
    ) -> Iterator[SimStep]:
        """Play one scenario round offline; raise ``GameError`` (with unit, round, rule) on an illegal order."""

    def board_summary(self, state: EncounterState) -> dict[str, Any]:
        """Board-level fields ``sim --json`` adds to each ``phase_end`` (markers and the like); none by default."""
        return {}

    def phase_label(self, state: EncounterState, phase: str) -> PhaseLabel:
        """The number and name players use for ``phase`` (an id of :attr:`phases`, or a step label such as the
        ``sim`` one): by default its place in :attr:`phases` and the key ``phase.<ruleset>.<phase id>``."""
        ids = [p.id for p in self.phases]
        number = ids.index(phase) + 1 if phase in ids else None
        return PhaseLabel(number, f"phase.{self.innermost().id}.{phase}")

    def unit_summary(self, unit: Unit) -> dict[str, Any]:
        """What ``sim --json`` prints per unit after every phase."""
        return {
            "at": unit.at.label if unit.at else None,
            "facing": unit.facing,
            "destroyed": unit.destroyed,
        }


class DiceFactory:
    """Builds the dice for one phase from the state: per-phase seed plus the remaining scripted dice."""

    def __init__(self, overrides: Mapping[int, tuple[int, ...]] | None = None) -> None:
        self.overrides = dict(overrides or {})

    def __call__(self, state: EncounterState) -> Dice:
        from rules.dice import phase_seed

        return Dice(
            phase_seed(state.seed, state.round, f"{state.phase}#{state.step}"),
            state.dice_script,
            overrides=self.overrides,
        )


def weapon_words(text: str) -> str:
    """A weapon's name as :meth:`Ruleset.arc_weapon` compares it: lower case, without spaces, ``_`` or ``-``."""
    return re.sub(r"[\s_-]+", "", text).lower()


def _without_hidden_cause(event: Event, seen: frozenset[str], known: frozenset[str]) -> Event:
    """``event`` with its cause (:data:`CAUSE_FIELDS`) blanked when that unit is one the reader cannot see: the
    damage a seen unit took is read, who dealt it is not (FOG-1)."""
    hidden = {
        name: ""
        for name in CAUSE_FIELDS
        if isinstance(cause := getattr(event, name, None), str) and cause in known and cause not in seen
    }
    return dataclasses.replace(event, **hidden) if hidden else event
