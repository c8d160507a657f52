"""Shared pieces of the exo tests: a scenario from a few ships, a round played offline, event filters."""

from __future__ import annotations

import dataclasses
from typing import Any

from rules.events import Event
from rules.exo.model import Ship
from rules.registry import get_ruleset
from rules.ruleset import DiceFactory, RoundSpec, SimStep
from rules.scenario import load_scenario
from rules.state import EncounterState

EXO = get_ruleset("exo")


HEADER = """
ruleset = "exo"
name = "test"
seed = 11
[[sides]]
id = "red"
[[sides]]
id = "blue"
"""


def ship_toml(uid: str, side: str, at: str, *, facing: str = "N", extra: str = "") -> str:
    base = {
        "maneuverability": 2,
        "engines": 2,
        "armor": 5,
        "structure": 3,
        "cabin": 2,
        "cargo": 1,
    }
    lines = [f'[[units]]\nid = "{uid}"\nside = "{side}"\nat = "{at}"\nfacing = "{facing}"']
    overridden = {line.split("=")[0].strip() for line in extra.strip().splitlines() if "=" in line}
    for key, value in base.items():
        if key not in overridden:
            lines.append(f"{key} = {value}")
    if "weapons" not in overridden:
        lines.append('weapons = ["Lx2"]')
    lines.append(extra.strip())
    return "\n".join(lines) + "\n"


def load(*ships: str, dice: tuple[int, ...] = ()) -> EncounterState:
    return load_scenario(HEADER + "".join(ships), dice=dice).state


def play(state: EncounterState, orders: dict[str, Any]) -> list[SimStep]:
    return list(EXO.simulate_round(state, RoundSpec(1, {"orders": orders}), DiceFactory()))


def volley(*shots: tuple[str, int, str], ship_id: str = "a") -> dict[str, Any]:
    """Round orders in which one ship only fires: each shot is (by, weapon, target) (EXO-2.4)."""
    return {
        ship_id: {"fire": [{"by": by, "weapon": weapon, "target": target} for by, weapon, target in shots]}
    }


def events_of(steps: list[SimStep], phase: str | None = None) -> list[Event]:
    return [e for s in steps if phase is None or s.phase == phase for e in s.events]


def of_type(events: list[Event], cls: type[Any]) -> list[Any]:
    return [e for e in events if isinstance(e, cls)]


def ship(state: EncounterState, uid: str) -> Ship:
    return state.unit_as(uid, Ship)


def damaged(dice: tuple[int, ...]) -> EncounterState:
    crew = """
cabin = 3
crew = [
  { name = "Pilar", station = "pilot", skills = { piloting = 14 } },
  { name = "Tito", station = "technician", skills = { drives = 16, weapons_tech = 15 } },
  { name = "Doc", station = "medic", skills = { first_aid = 15 } },
]
"""
    state = load(
        ship_toml("a", "red", "0810", extra=crew + 'weapons = ["Lx2"]'),
        ship_toml("b", "blue", "1505", extra="engines = 0"),
        dice=dice,
    )
    a = ship(state, "a")
    return state.with_units(
        [
            dataclasses.replace(
                a, engines=1, weapons=(dataclasses.replace(a.weapons[0], disabled=True), a.weapons[1])
            )
        ]
    )


def at_phase_5(state: EncounterState, orders: dict[str, Any]) -> EncounterState:
    """The state after phase 4 of a round played offline: the crews now know this round's damage."""
    steps = play(state, orders)
    after_damage = next(step.state for step in steps if step.phase == "4")
    assert after_damage.phase == "5"
    return after_damage
