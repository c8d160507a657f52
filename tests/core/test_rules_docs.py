"""The project's rules reference (``docs/rules/<ruleset>.<lang>.md``): one ``## ID — Title`` heading per rule id, so
a bot command can look a rule up by id; every id of RULES.md and every id the engine cites is there, in both
languages. Every ruleset and layer of the registry (rules/registry.py) is checked: a new one is covered by its
registry line."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from rules.registry import PLUGINS
from tests.paths import ROOT

DOCS = ROOT / "docs" / "rules"
RULES_MD = ROOT.parent / "shared" / "RULES.md"
RULE_ID = r"[A-Z]{2,5}-\d+(?:\.\d+)?[a-z]?"
HEADING = re.compile(rf"^## ({RULE_ID}) — (\S.*)$")
LOOKS_LIKE_AN_ID = re.compile(r"^## [A-Z]{2,5}-\d")
IDS = sorted(p.id for p in PLUGINS)


def headings(path: Path) -> list[str]:
    """The rule ids of the file's ``## `` headings, in order; other ``## `` headings (a turn as the bot drives it,
    events…) are prose sections the bot's ``/rule`` skips."""
    ids: list[str] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if LOOKS_LIKE_AN_ID.match(line):
            match = HEADING.match(line)
            assert match, f"{path.name}: heading not formatted '## ID — Title': {line!r}"
            ids.append(match.group(1))
    return ids


def prefix_of(rid: str) -> str:
    """The id prefix of a ruleset's rules (EXO, SK, MECH, NGT …), read off its documentation: one only."""
    prefixes = {i.split("-")[0] for i in headings(DOCS / f"{rid}.en.md")}
    assert len(prefixes) == 1, f"{rid}: its documented ids should share one prefix, not {sorted(prefixes)}"
    return prefixes.pop()


@pytest.mark.parametrize("rid", IDS)
def test_both_languages_have_one_heading_per_rule_id_in_the_same_order(rid: str) -> None:
    en, es = headings(DOCS / f"{rid}.en.md"), headings(DOCS / f"{rid}.es.md")
    assert en, f"docs/rules/{rid}.en.md documents no rule id"
    assert en == es
    assert len(en) == len(set(en)), "one heading per id"


@pytest.mark.parametrize("rid", IDS)
def test_every_rule_id_of_rules_md_and_of_the_engine_is_documented(rid: str) -> None:
    prefix = prefix_of(rid)
    documented = set(headings(DOCS / f"{rid}.en.md"))
    package = ROOT / "rules" / rid
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
