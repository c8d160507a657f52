"""PBW character-scale tactics (RULES.md §3.2). Importing the package registers the ruleset."""

from __future__ import annotations

from rules.pbw.ruleset import PbwRuleset

__all__ = ["PbwRuleset"]
