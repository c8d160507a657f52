"""Skirmish data: the character card (SK-7), the activation state (SK-1.1) and the orders (SK-2..6).

Class names carry an ``Sk`` prefix where a generic name could clash with another ruleset's serializable class.
"""

from __future__ import annotations

from dataclasses import dataclass

from rules.hexgrid import Hex
from rules.ruleset import Order
from rules.serial import serializable
from rules.state import RulesetState, Unit


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class Character(Unit):
    """One sombrachapa. ``facing`` is a vertex 0-5 (SK-2.1); ``unit_group`` is its chit ("ficha directora")."""

    unit_group: str = ""
    ap: int = 6  # SK-7: 1-10
    ap_left: int = 6
    ranged: int = 0  # SK-7: 0 = no ranged skill
    melee: int = 1
    melee_bonus: int = 0  # SK-3.3: the bracketed value after C/C, added to melee damage
    action: int = 1
    resistance: int = 1
    wounds: int = 0  # wounds taken
    max_wounds: int = 1  # wound boxes
    alive: bool = True
    overwatch: str | None = None  # SK-4.1 policy while in overwatch: ask | always | never
    overwatch_shots_left: int = 0  # SK-4.1: floor(AP / 2) per round
    # SK-2.1: the run of turns in place since the last other action of this activation counts as one turn:
    # the facing it started from (None: no run) and the AP its turns have paid so far.
    turn_from: int | None = None
    turn_paid: int = 0
    # SK-2.5 (option half_hexes): astride two half hexes, ``at`` and this adjacent hex (None: in ``at`` whole)
    astride: Hex | None = None

    @property
    def acting(self) -> bool:
        return self.alive and self.at is not None


# --- orders (the action language of SK-2..6) -------------------------------------------------------------


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class SkTurn(Order):
    """``turn <vertex>`` (SK-2.1)."""

    to: int


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class SkMove(Order):
    """``move <hex> [facing <vertex>]`` (SK-2.2) or ``back ...`` (SK-2.3). With half hexes (SK-2.5): ``move
    <hex>/<hex> ...`` ends astride ``to`` and ``astride``; ``move <hex> via <half hex> ...`` passes a half hex.
    ``move <hex> <hex> … [facing <vertex>]`` is a path: ``path`` the hexes entered before ``to``, each step a move
    action of its own (rules/skirmish/paths.py)."""

    to: Hex
    facing: int | None = None
    backward: bool = False
    astride: Hex | None = None
    via: Hex | None = None
    path: tuple[Hex, ...] = ()


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class SkShoot(Order):
    """``shoot <character>`` (SK-3.1)."""

    target: str


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class SkMelee(Order):
    """``melee <character>`` (SK-5.1)."""

    target: str


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class SkGrenade(Order):
    """``grenade <character>`` or ``grenade <hex>`` (SK-6.2: "personaje u objeto objetivo"; an object is a hex).

    Exactly one of ``target`` (a character id) and ``at`` (a hex) is given."""

    target: str = ""
    at: Hex | None = None


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class SkOverwatch(Order):
    """``overwatch [ask|always|never]`` (SK-4.1)."""

    policy: str


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class SkAct(Order):
    """``act <description>`` (SK-6.1): search, use, open a door..."""

    description: str


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class SkEnd(Order):
    """``end`` / ``done``: the character ends its activation (SK-1.1)."""


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class SkForcedEnd(SkEnd):
    """SK-1.1: the activation of a character whose player gave no order, ended when the director (or a
    deadline) forces the step; never read from what a player types."""


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class SkReaction(Order):
    """The answer to an overwatch question (SK-4.1): ``fire`` or ``hold``. ``unit`` is the watcher."""

    answer: str


_KINDS: dict[type[Order], str] = {
    SkTurn: "turn",
    SkShoot: "shoot",
    SkMelee: "melee",
    SkGrenade: "grenade",
    SkOverwatch: "overwatch",
    SkAct: "act",
}


def action_kind(order: Order) -> str:
    """The name used by the tables (``data/skirmish/overwatch.toml``) for an action."""
    if isinstance(order, SkMove):
        return "back" if order.backward else "move"
    return _KINDS.get(type(order), "end")


# --- activation state ------------------------------------------------------------------------------------


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class SkTrigger:
    """An action held while overwatch shots are resolved first (SK-4.1).

    ``queue`` has one entry per possible shot, watcher ids in the order they are asked. A path's later steps wait
    in ``rest``; ``interrupted`` records that a shot was fired at this step, which ends the path after it.
    """

    actor: str
    order: Order
    cost: int
    queue: tuple[str, ...] = ()
    rest: tuple[Order, ...] = ()
    interrupted: bool = False


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class SkirmishState(RulesetState):
    """Chit bag and activation bookkeeping (SK-1.1)."""

    bag: tuple[str, ...] = ()  # chits (unit groups) not drawn yet this round
    draw_plan: tuple[str, ...] = ()  # a fixed draw order (scenario ``draw``), consumed first
    chit: str | None = None  # the unit group being activated
    active: str | None = None  # the character spending AP now
    done: tuple[str, ...] = ()  # characters whose activation ended this round
    trigger: SkTrigger | None = None
