"""The ``night`` layer (RULES.md §5): night visibility, illumination, straying and each side's own board."""

from rules.night.layer import NightLayer

__all__ = ["NightLayer"]
