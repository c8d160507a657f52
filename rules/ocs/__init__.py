"""OCS combat odds (RULES.md §4). Importing the package registers the ruleset."""

from __future__ import annotations

from rules.ocs.ruleset import OcsRuleset

__all__ = ["OcsRuleset"]
