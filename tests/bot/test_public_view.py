"""What every side sees of a state, reckoned once per state (bot/public_view.py): a step asks it of the same two
states for its rolls (bot/dice_seal.py), its account and the status; the night layer traces every side's sight to
answer, so the answer is kept with the state and goes with it."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from bot.public_view import public_units
from rules.engine import visibility
from rules.registry import ruleset_for
from rules.ruleset import PUBLIC, Ruleset, Visibility
from rules.state import EncounterState
from tests.exo_fixtures import load, ship_toml


class Counting:
    """A ruleset that counts the sight it is asked for (everything else is the real one's)."""

    def __init__(self, real: Ruleset) -> None:
        self.real, self.asked = real, 0

    def visible_to(self, state: EncounterState, viewer: str) -> Visibility:
        self.asked += 1
        return self.real.visible_to(state, viewer)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.real, name)


def test_a_state_s_public_units_are_reckoned_once_and_are_visibility_s_own() -> None:
    state = load(ship_toml("a", "red", "0805"), ship_toml("b", "blue", "0802"))
    ruleset = Counting(ruleset_for(state))
    first = public_units(state, ruleset)  # type: ignore[arg-type]
    asked = ruleset.asked
    assert asked > 0
    assert public_units(state, ruleset) is first and ruleset.asked == asked  # type: ignore[arg-type]
    assert first == frozenset(visibility(ruleset_for(state), state, PUBLIC).units)
    newer = replace(state, round=state.round + 1)
    public_units(newer, ruleset)  # type: ignore[arg-type]
    assert ruleset.asked == 2 * asked, "another state is reckoned anew"
