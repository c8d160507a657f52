"""The night layer's rules reference (``docs/rules/night.<lang>.md``): one ``## NGT-n — Title`` heading per rule id,
the same ids in both languages, every id of RULES.md §5 and every id the engine cites documented."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.paths import ROOT

DOCS = ROOT / "docs" / "rules"
RULES_MD = ROOT.parent / "shared" / "RULES.md"
HEADING = re.compile(r"^## (NGT-\d+(?:\.\d+)?) — (\S.*)$")


def headings(path: Path) -> list[str]:
    ids: list[str] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            match = HEADING.match(line)
            assert match, f"{path.name}: heading not formatted '## NGT-n — Title': {line!r}"
            ids.append(match.group(1))
    return ids


def test_both_languages_document_every_night_rule_id_in_the_same_order() -> None:
    en, es = headings(DOCS / "night.en.md"), headings(DOCS / "night.es.md")
    assert en == es == [*(f"NGT-{i}" for i in range(1, 6)), "NGT-5.1", *(f"NGT-{i}" for i in range(6, 10))]
    cited = {
        m.group(1)
        for path in (ROOT / "rules" / "night").glob("*.py")
        for m in re.finditer(r'"(NGT-\d+(?:\.\d+)?)', path.read_text(encoding="utf-8"))
    }
    assert cited <= set(en)
    if not RULES_MD.is_file():
        pytest.skip("../shared/RULES.md is not here")
    listed = set(re.findall(r"\*\*(NGT-\d+(?:\.\d+)?)", RULES_MD.read_text(encoding="utf-8")))
    assert listed <= set(en)
