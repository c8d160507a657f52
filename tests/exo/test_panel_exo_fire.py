"""The exo order panel's fire options (EXO-1.3, EXO-1.5, EXO-2.4, EXO-5.2, EXO-6.2): exactly the (shooter,
weapon, target) triples the rules accept. The pilot fires what no gunner mans: unmanned turrets (as bow weapons)
and non-turret weapons; a turret whose own gunner is down or repairing stays silent for everyone."""

from __future__ import annotations

import dataclasses

from bot.panels import exo as exo_panel
from bot.panels.draft import Draft
from bot.panels.model import PanelModel
from rules.errors import GameError
from rules.exo import legal_targets
from rules.exo.state import ORDERS_STEP, ExoState
from rules.registry import get_ruleset
from rules.state import EncounterState
from tests.exo_fixtures import load, ship, ship_toml

# Ana (the only gunner) mans turret 1; turret 2 has no gunner; weapon 3 is a bow laser. b is dead ahead of a.
ONE_GUNNER = """
cabin = 4
weapons = ["APtx2", "L"]
crew = [
  { name = "Pilar", station = "pilot", skills = { piloting = 15, gunnery = 10 } },
  { name = "Ana", station = "gunner", skills = { gunnery = 15 } },
  { name = "Tito", station = "technician", skills = { weapons_tech = 15 } },
]
"""
TWO_GUNNERS = ONE_GUNNER.replace(
    '{ name = "Tito"', '{ name = "Bea", station = "gunner", skills = { gunnery = 12 } },\n  { name = "Tito"'
).replace("cabin = 4", "cabin = 5")


def orders_step(state: EncounterState) -> EncounterState:
    """Phase 1 after the crew rolls: secret orders are open."""
    assert isinstance(state.ext, ExoState)
    return state.replace(ext=dataclasses.replace(state.ext, step=ORDERS_STEP))


def panel(state: EncounterState) -> PanelModel:
    model = exo_panel.build_panel(state, "a", draft=Draft(), owing=True)
    assert model.step == "orders"
    return model


def values(state: EncounterState) -> set[str]:
    return {o.value for o in panel(state).options("fire")}


def accepted(state: EncounterState, value: str) -> bool:
    by, weapon, target = value.split(".")
    ruleset = get_ruleset("exo")
    raw = {"move": "-", "fire": [{"by": by, "weapon": int(weapon), "target": target}]}
    try:
        ruleset.validate_order(state, "a", ruleset.parse_order(state, "a", raw))
    except GameError:
        return False
    return True


def every_legal(state: EncounterState) -> set[str]:
    """Brute force over every crew reference, weapon and ship: in arc and range, and accepted by the rules."""
    a = ship(state, "a")
    refs = ["pilot", *(f"gunner{i}" for i in range(1, len(a.crew) + 1))]
    out: set[str] = set()
    for ref in refs:
        for weapon in range(1, len(a.weapons) + 1):
            for target in state.units:
                value = f"{ref}.{weapon}.{target}"
                if target in legal_targets(state, "a", weapon) and accepted(state, value):
                    out.add(value)
    return out


def test_pilot_fires_the_unmanned_turret_and_the_bow_weapon_alongside_a_gunner() -> None:
    state = orders_step(load(ship_toml("a", "red", "0805", extra=ONE_GUNNER), ship_toml("b", "blue", "0802")))
    offered = values(state)
    assert "gunner1.1.b" in offered, "Ana fires her own turret"
    assert "pilot.2.b" in offered, "the unmanned turret fires as bow, by the pilot (EXO-1.3)"
    assert "pilot.3.b" in offered, "the bow laser is the pilot's while the only gunner mans a turret"
    assert "pilot.1.b" not in offered and "gunner1.3.b" not in offered, "a turret is its gunner's alone"
    assert offered == every_legal(state)
    labels = {o.value: o.text.render("es") for o in panel(state).options("fire")}
    assert labels["pilot.2.b"].endswith("(piloto) · APt#2 → b"), labels["pilot.2.b"]
    assert "gunner" not in " ".join(labels.values()), "shooters by name and station, in Spanish"


def test_a_fallen_gunners_turret_is_offered_to_nobody() -> None:
    base = load(ship_toml("a", "red", "0805", extra=TWO_GUNNERS), ship_toml("b", "blue", "0802"))
    a = ship(base, "a")
    crew = tuple(dataclasses.replace(c, status="wounded") if c.name == "Ana" else c for c in a.crew)
    state = orders_step(base.with_units([dataclasses.replace(a, crew=crew)]))
    offered = values(state)
    assert not any(v.split(".")[1] == "1" for v in offered), "Ana's turret stays silent (EXO-5.2)"
    assert "gunner1.2.b" in offered, "Bea (now gunner 1 by rank) still fires her own turret"
    assert "pilot.3.b" in offered
    assert offered == every_legal(state)


def test_a_repairing_gunners_turret_is_silent_and_the_pilot_keeps_the_bow() -> None:
    base = load(ship_toml("a", "red", "0805", extra=TWO_GUNNERS), ship_toml("b", "blue", "0802"))
    a = ship(base, "a")
    crew = tuple(dataclasses.replace(c, repaired_round=base.round) if c.name == "Bea" else c for c in a.crew)
    state = orders_step(base.with_units([dataclasses.replace(a, crew=crew)]).replace(round=base.round + 1))
    offered = values(state)
    assert "gunner1.1.b" in offered and not any(v.split(".")[1] == "2" for v in offered), "EXO-6.2"
    assert "pilot.3.b" in offered
    assert offered == every_legal(state)


def test_every_offered_triple_passes_submission() -> None:
    state = orders_step(load(ship_toml("a", "red", "0805", extra=ONE_GUNNER), ship_toml("b", "blue", "0802")))
    model = panel(state)
    ruleset = get_ruleset("exo")
    for option in model.options("fire"):
        chosen = exo_panel.build_panel(state, "a", draft=Draft(fire=[option.value]), owing=True)
        raw = exo_panel.raw_order(chosen)
        assert [f"{f['by']}.{f['weapon']}.{f['target']}" for f in raw["fire"]] == [option.value]
        assert exo_panel.draft_from_raw(state, "a", raw) == chosen.draft, "a reopened panel shows it again"
        ruleset.validate_order(state, "a", ruleset.parse_order(state, "a", raw))
