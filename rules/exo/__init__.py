"""The ``exo`` ruleset: EXO starship combat (RULES.md §1). Importing this package registers it."""

from __future__ import annotations

from rules.exo.model import Ship, SpaceObject
from rules.exo.preview import arcs, legal_targets, manta, project_orders
from rules.exo.ruleset import ExoRuleset
from rules.exo.weapons import Weapon, parse_weapon

__all__ = [
    "ExoRuleset",
    "Ship",
    "SpaceObject",
    "Weapon",
    "arcs",
    "legal_targets",
    "manta",
    "parse_weapon",
    "project_orders",
]
