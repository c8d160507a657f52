"""What every side sees of a state (FOG-1, NGT-9): ``visibility(ruleset, state, PUBLIC)``, reckoned once per state.

Under the night layer it traces every side's sight over the board, and one step asks it several times of the same
two states: whether each roll may be read by all (bot/dice_seal.py), the channel's account of the step, the status
naming who is awaited, the log's public events. States are immutable and handed out as one object while the
encounter is unchanged, so the answer is kept with the state (bot/panels/memo.py) and the state before a step was
usually reckoned when it was the state after the step before.
"""

from __future__ import annotations

from bot.panels.memo import per_state
from rules.engine import visibility
from rules.ruleset import PUBLIC, Ruleset
from rules.state import EncounterState


@per_state
def public_units(state: EncounterState, ruleset: Ruleset) -> frozenset[str]:
    """The units every side sees in ``state`` as ``ruleset`` (what plays it: its base and layers) judges."""
    return frozenset(visibility(ruleset, state, PUBLIC).units)
