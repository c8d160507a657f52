"""Running a ruleset: one entry point for the bot and the CLI.

``resolve_phase`` is where DICE-1 is enforced for every ruleset: the dice come from the per-phase seed and the
remaining scripted dice, every roll ends up as a ``RollMade`` event, the unused script is carried forward, and the
step counter advances, so the same state + orders + seed give the same result bit for bit.
"""

from __future__ import annotations

from collections.abc import Mapping

from rules.dice import Dice
from rules.events import Event, RollMade
from rules.hexgrid import Hex
from rules.ruleset import DIRECTOR, PUBLIC, DiceFactory, Order, PhaseResult, Ruleset, Visibility
from rules.state import EncounterState


def resolve_phase(
    ruleset: Ruleset,
    state: EncounterState,
    orders: Mapping[str, Order],
    *,
    dice_for: DiceFactory | None = None,
) -> PhaseResult:
    """Validate nothing, resolve the current phase and return the new state with its full event list."""
    dice = (dice_for or DiceFactory())(state)
    result = ruleset.resolve(state, orders, dice)
    return finish(state, result, dice)


def finish(before: EncounterState, result: PhaseResult, dice: Dice) -> PhaseResult:
    """Carry the dice script forward, bump the step, and add any roll the ruleset did not report (DICE-1)."""
    reported = {e.index for e in result.events if isinstance(e, RollMade)}
    missing: list[Event] = [RollMade.of(r) for r in dice.rolls if r.index not in reported]
    state = result.state.replace(dice_script=dice.script_left, step=before.step + 1)
    return PhaseResult(state, (*result.events, *missing), result.pending)


def visibility(ruleset: Ruleset, state: EncounterState, viewer: str) -> Visibility:
    """What ``viewer`` sees: a side id, ``"director"`` (everything) or ``"public"`` (what every side sees)."""
    if viewer == DIRECTOR:
        return ruleset.visible_to(state, DIRECTOR)
    if viewer == PUBLIC:
        views = [ruleset.visible_to(state, s.id) for s in state.sides]
        if not views:
            return ruleset.visible_to(state, PUBLIC)
        units: frozenset[str] = views[0].units
        concealed: frozenset[str] = frozenset()
        for v in views:
            units &= v.units
            concealed |= v.concealed
        hexes: frozenset[Hex] | None = None
        # the ruleset's own word on what is public whoever looks (night: lit hexes only, NGT-9), so the channel's
        # picture never outlines where some side's (hidden) units are looking from
        for v in (*views, ruleset.visible_to(state, PUBLIC)):
            if v.hexes is not None:
                hexes = v.hexes if hexes is None else hexes & v.hexes
        concealed -= units
        return Visibility(units=units, concealed=concealed, hexes=hexes)
    return ruleset.visible_to(state, viewer)
