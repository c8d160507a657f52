"""Sombrachapas skirmish (RULES.md §2). Importing the package registers the ruleset."""

from __future__ import annotations

from rules.skirmish.ruleset import SkirmishRuleset

__all__ = ["SkirmishRuleset"]
