"""Helpers shared by several test modules (a test module never imports another)."""

from __future__ import annotations

from tests import toy_ruleset  # noqa: F401  # pyright: ignore[reportUnusedImport]  (registers toy-sim)

TOY = """
ruleset = "toy-sim"
name = "Toy duel"
seed = 3

[board]
width = 10
height = 10

[[sides]]
id = "red"
name = "Red"

[[sides]]
id = "blue"
name = "Blue"

[[units]]
id = "a"
side = "red"
name = "Alfa"
at = "0202"

[[units]]
id = "b"
side = "blue"
name = "Bravo"
at = "0505"
"""


GUILD, CHANNEL = 10, 20


DIRECTOR, ANA, BEA, EVE = 1, 2, 3, 4
