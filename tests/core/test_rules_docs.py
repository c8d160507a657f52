"""The project's rules reference (``docs/rules/<ruleset>.<lang>.md``): one ``## ID — Title`` heading per rule id, so
a bot command can look a rule up by id; every id of RULES.md and every id the engine cites is there, in both
languages."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.paths import ROOT

DOCS = ROOT / "docs" / "rules"
RULES_MD = ROOT.parent / "shared" / "RULES.md"
HEADING = re.compile(r"^## ((?:EXO|SK)-\d+(?:\.\d+)?[a-z]?) — (\S.*)$")
RULESETS = {"exo": ("EXO", ROOT / "rules" / "exo"), "skirmish": ("SK", ROOT / "rules" / "skirmish")}


def headings(path: Path) -> list[str]:
    ids: list[str] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            match = HEADING.match(line)
            assert match, f"{path.name}: heading not formatted '## ID — Title': {line!r}"
            ids.append(match.group(1))
    return ids


@pytest.mark.parametrize("ruleset", sorted(RULESETS))
def test_both_languages_have_one_heading_per_rule_id_in_the_same_order(ruleset: str) -> None:
    en, es = headings(DOCS / f"{ruleset}.en.md"), headings(DOCS / f"{ruleset}.es.md")
    assert en == es
    assert len(en) == len(set(en)), "one heading per id"


@pytest.mark.parametrize("ruleset", sorted(RULESETS))
def test_every_rule_id_of_rules_md_and_of_the_engine_is_documented(ruleset: str) -> None:
    prefix, package = RULESETS[ruleset]
    documented = set(headings(DOCS / f"{ruleset}.en.md"))
    cited = {
        m.group(1)
        for path in package.glob("*.py")
        for m in re.finditer(rf'"({prefix}-\d+(?:\.\d+)?[a-z]?)', path.read_text(encoding="utf-8"))
    }
    assert cited <= documented, f"cited by the engine but not documented: {sorted(cited - documented)}"
    if not RULES_MD.is_file():
        pytest.skip("../shared/RULES.md is not here")
    listed = set(re.findall(rf"\*\*({prefix}-\d+(?:\.\d+)?[a-z]?)", RULES_MD.read_text(encoding="utf-8")))
    assert listed <= documented, f"in RULES.md but not documented: {sorted(listed - documented)}"
