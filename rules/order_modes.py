"""How orders are collected, one policy per order mode (DESIGN §2), used by the bot's service and announcer.

The bot never asks "which ruleset is this?": it asks the policy of the ruleset's order mode.

- ``simultaneous`` (exo): every awaited unit gives a secret order; the step resolves when all are in.
- ``sequential_open`` (mech, pbw): one declarer at a time, by initiative; each declaration is a step of its own
  and is posted when locked, unless the director made declarations secret (``secret_declarations``).
- ``activation`` (skirmish): one live action per step; reactions are questions to the other side.
- ``director`` (ocs): the director drives a procedure with orders of their own (given as :data:`DIRECTOR`); a
  side's player answers the questions the procedure asks. Nothing resolves by itself unless the ruleset says so.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from rules.ruleset import DIRECTOR, Order, OrderMode, Ruleset
from rules.state import EncounterState

#: the encounter option that turns open declarations into secret ones (sequential_open)
SECRET_DECLARATIONS = "secret_declarations"


@dataclass(frozen=True, slots=True)
class OrderPolicy:
    mode: OrderMode
    #: one accepted order completes the step (no waiting for the others awaited)
    one_order_per_step: bool
    #: the director gives orders of their own, keyed :data:`DIRECTOR`
    director_orders: bool = False
    #: the channel status names the units acting now (rather than the players still missing)
    shows_acting: bool = False
    #: the i18n key (``{unit}``) that tells a player what their Submit did in this mode: a simultaneous order is
    #: stored and may change until the phase resolves; a sequential declaration is locked when given; an
    #: activation's action (or a director-run procedure's order) resolves at once
    acknowledgement: str = "orders.received"
    #: the panel's footer once its order is in, in the same words
    submitted_footer: str = "panel.submitted"

    def acknowledged(self, *, amended: bool, reviewed: bool) -> str:
        """The i18n key acknowledging a stored order: ``amended`` replaced one given before in this step (only a
        simultaneous step may be changed), ``reviewed``: the director reviews rolls before a step resolves, so
        an order that resolves at once waits for that review first."""
        if not self.one_order_per_step:
            return "orders.amended" if amended else self.acknowledgement
        if reviewed and self.mode is not OrderMode.SEQUENTIAL_OPEN:  # a locked declaration is locked anyway
            return "orders.reviewed"
        return self.acknowledgement

    def waits(
        self,
        ruleset: Ruleset,
        state: EncounterState,
        owing: tuple[str, ...],
        *,
        missing: frozenset[str],
        held: frozenset[str],
    ) -> bool:
        """Whether the current step must wait for orders (``missing``: held units that have not answered).
        A step the ruleset says is due (an ocs combat ready to roll) never waits for unrelated answers."""
        if ruleset.auto_resolves(state):
            return False
        if not owing:
            return True
        if self.one_order_per_step:
            # nobody has acted yet (an unheld unit waits for the director)
            return len(missing) == len(held & set(owing))
        return bool(missing) or (not (held & set(owing)) and not ruleset.optional_orders(state))

    def pick(
        self,
        ruleset: Ruleset,
        state: EncounterState,
        orders: Mapping[str, Order],
        *,
        stand_in: bool,
    ) -> dict[str, Order]:
        """The orders one resolution takes. Simultaneous: all of them. One-per-step modes: the first awaited
        unit's order (or the director's, or one a unit gave unprompted: ``Ruleset.may_act``); when the director
        (or a deadline) forces the step and that player gave nothing, the ruleset's stand-in order for the unit
        (SK-1.1: the activation ends; a held question takes its default answer)."""
        if not self.one_order_per_step:
            return dict(orders)
        if self.director_orders and DIRECTOR in orders:
            return {DIRECTOR: orders[DIRECTOR]}
        awaited = ruleset.awaiting(state)
        pending = state.pending.unit if state.pending is not None else None
        for unit in (*awaited, *((pending,) if pending else ())):
            if unit in orders:
                return {unit: orders[unit]}
        for unit in sorted(orders):  # an order given unprompted (ocs: an owner's free move), first id first
            if unit != DIRECTOR and ruleset.may_act(state, unit):
                return {unit: orders[unit]}
        if not stand_in or not awaited:
            return {}
        unit = awaited[0]
        order = ruleset.stand_in(state, unit)
        return {} if order is None else {unit: order}

    def declarations_public(self, state: EncounterState) -> bool:
        """Sequential declarations are posted when locked unless the director made them secret."""
        return self.mode is OrderMode.SEQUENTIAL_OPEN and not state.option(SECRET_DECLARATIONS, False)


_POLICIES: dict[OrderMode, OrderPolicy] = {
    OrderMode.SIMULTANEOUS: OrderPolicy(OrderMode.SIMULTANEOUS, one_order_per_step=False),
    OrderMode.SEQUENTIAL_OPEN: OrderPolicy(
        OrderMode.SEQUENTIAL_OPEN,
        one_order_per_step=True,
        shows_acting=True,
        acknowledgement="orders.locked",
        submitted_footer="panel.locked",
    ),
    OrderMode.ACTIVATION: OrderPolicy(
        OrderMode.ACTIVATION,
        one_order_per_step=True,
        shows_acting=True,
        acknowledgement="orders.resolved",
        submitted_footer="panel.sent",
    ),
    OrderMode.DIRECTOR: OrderPolicy(
        OrderMode.DIRECTOR,
        one_order_per_step=True,
        director_orders=True,
        shows_acting=True,
        acknowledgement="orders.carried_out",
        submitted_footer="panel.sent",
    ),
}


def policy_for(ruleset: Ruleset, state: EncounterState | None = None) -> OrderPolicy:
    """The policy of ``ruleset``'s order mode or, given a state, of how its current step collects orders
    (``Ruleset.step_mode``: a sequential ruleset may gather a step's answers all at once)."""
    return _POLICIES[ruleset.order_mode if state is None else ruleset.step_mode(state)]


def policy_for_mode(mode: OrderMode) -> OrderPolicy:
    return _POLICIES[mode]
