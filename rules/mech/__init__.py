"""The ``mech`` ruleset (RULES.md §3.1): BattleMechs and vehicles with heat, declarations by initiative.
Importing this package registers it (rules/registry.py)."""

from __future__ import annotations

from rules.mech.damage import apply_damage
from rules.mech.model import Mech, MechWeapon
from rules.mech.orders import MechOrder, parse_order
from rules.mech.queries import (
    cost_of_path,
    declaration_problem,
    end_facings,
    fire_options,
    heat_after,
    mp_by_mode,
    physical_options,
)
from rules.mech.ruleset import MechRuleset

__all__ = [
    "Mech",
    "MechOrder",
    "MechRuleset",
    "MechWeapon",
    "apply_damage",
    "cost_of_path",
    "declaration_problem",
    "end_facings",
    "fire_options",
    "heat_after",
    "mp_by_mode",
    "parse_order",
    "physical_options",
]
