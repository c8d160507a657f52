"""States reached by playing the bundled scenarios whose panels search movement (mech, skirmish, night skirmish,
pbw), and a fingerprint of every panel at each: what the movement-search equivalence test compares.

A game is played by its own panels with seeded choices and the scenario's seeded dice (a random pick in some
selects, then Submit), so the states include units that declared before others (MECH-1.1), spent AP (SK-1.2),
moved, fell or burn. The fingerprints are the ``repr`` of each panel model (built cold, then after one pick in
each of its selects): they were recorded from the searches as they were before they were made cheaper
(``tests/golden/panel-fingerprints.json``) and must not change. Regenerate them only for an intended change of
what a panel offers: ``.venv/bin/python -m tests.movement_corpus > tests/golden/panel-fingerprints.json``.
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
from collections.abc import Iterator
from typing import Any

from bot.panels import PanelPlugin, accepted, panel_for, press
from bot.panels.model import SUBMIT, Button, PanelModel, Select
from data import SCENARIO_DIR
from rules.engine import resolve_phase
from rules.registry import ruleset_for
from rules.scenario import load_scenario
from rules.state import EncounterState

#: steps played per scenario: enough for several rounds of declarations (mech), activations (skirmish) and
#: turns (pbw), within a few seconds each
GAMES = {
    "mech-duel": 14,
    "mech-mixed": 14,
    "mech-air": 14,
    "mech-night": 12,
    "skirmish-corridor": 30,
    "skirmish-night": 12,
    "pbw-brawl": 16,
    "pbw-street": 16,
}


def states(game: str) -> Iterator[EncounterState]:
    """Every state of ``game`` played ``GAMES[game]`` steps by its panels (seeded choices and dice)."""
    state = load_scenario((SCENARIO_DIR / f"{game}.toml").read_text(encoding="utf-8")).state
    plugin = panel_for(state.ruleset)
    rng = random.Random(game)
    for _ in range(GAMES[game]):
        if state.over:
            return
        yield state
        ruleset = ruleset_for(state)
        orders: dict[str, Any] = {}
        for unit_id in ruleset.awaiting(state):
            model = plugin.build_panel(
                state, unit_id, draft=plugin.draft_from_raw(state, unit_id, None), owing=True
            )
            order = None if model.waiting else _play(state, plugin, model, rng)
            if order is not None:
                orders[unit_id] = order
                if ruleset.order_mode.name == "ACTIVATION":
                    break
        state = resolve_phase(ruleset, state, orders).state


def _play(state: EncounterState, plugin: PanelPlugin, model: PanelModel, rng: random.Random) -> Any:
    """A random pick in some selects, then Submit; when the rules refuse that, the panel as built, its ender or
    the first option of one select."""
    played = model
    for control in model.controls:
        now = played.control(control.action)
        if isinstance(now, Select) and now.enabled and now.options and rng.random() < 0.7:
            played = press(plugin, state, played, now.action, (rng.choice(now.options).value,))
    enders = [c.action for c in model.controls if isinstance(c, Button) and c.submits and c.action != SUBMIT]
    candidates = [played, model, *(press(plugin, state, model, a) for a in enders)]
    for select in (c for c in model.controls if isinstance(c, Select) and c.enabled and c.options):
        candidates.append(press(plugin, state, model, select.action, (select.options[0].value,)))
    for candidate in candidates:
        order = accepted(state, model.unit_id, plugin.raw_order(candidate))
        if order is not None:
            return order
    return None


def fingerprints(state: EncounterState) -> list[str]:
    """Each unit's panel on a fresh copy of ``state`` (nothing memoized), and for a unit owing an order the
    panel after the first and the last option of each of its selects is picked, as digests of their ``repr``."""
    fresh = state.replace(seed=state.seed)
    plugin = panel_for(state.ruleset)
    awaiting = set(ruleset_for(state).awaiting(state))
    out: list[str] = []
    for unit_id in state.units:
        owing = unit_id in awaiting
        model = plugin.build_panel(
            fresh, unit_id, draft=plugin.draft_from_raw(fresh, unit_id, None), owing=owing
        )
        shown = [repr(model)]
        for control in model.controls if owing else ():
            if isinstance(control, Select) and control.enabled and control.options:
                for option in {control.options[0].value: 0, control.options[-1].value: 0}:
                    shown.append(repr(press(plugin, fresh, model, control.action, (option,))))
        out.append(hashlib.sha256("\n".join(shown).encode()).hexdigest()[:16])
    return out


def record() -> dict[str, list[list[str]]]:
    return {game: [fingerprints(state) for state in states(game)] for game in GAMES}


if __name__ == "__main__":
    json.dump(record(), sys.stdout, indent=0)
    sys.stdout.write("\n")
