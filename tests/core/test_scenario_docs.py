"""DESIGN §7: the scenario contract lives in the repository. Every registered ruleset and layer has its page,
docs/scenarios/<id>.md, whose "Scenario keys" table lists exactly the keys the plug-in reads beyond the shared
ones (its ``top_keys``, ``board_keys``, ``unit_keys``, ``round_keys`` and ``option_keys``); the README and the
package description name every ruleset."""

from __future__ import annotations

import re
import tomllib
from typing import cast

import pytest

from data import SCENARIO_DIR
from rules.registry import PLUGINS, get_layer, get_ruleset, public_ruleset_ids, ruleset_for
from rules.scenario import load_scenario
from tests.paths import ROOT

DOCS = ROOT / "docs" / "scenarios"

#: the first column of a "Scenario keys" row, and the plug-in attribute that declares the keys of that place
WHERE = {
    "top level": "top_keys",
    "`[board]`": "board_keys",
    "`[[units]]`": "unit_keys",
    "`[[rounds]]`": "round_keys",
    "`[options]`": "option_keys",
}
_ROW = re.compile(r"^\|\s*(?P<where>[^|]+?)\s*\|\s*`(?P<key>[a-z_]+)`\s*\|")


def documented_keys(text: str) -> dict[str, set[str]]:
    """The keys of a page's "Scenario keys" table, by declaring attribute."""
    section = text.partition("\n## Scenario keys\n")[2].partition("\n## ")[0]
    found: dict[str, set[str]] = {attr: set() for attr in WHERE.values()}
    for line in section.splitlines():
        m = _ROW.match(line)
        if m is None:
            continue
        assert m["where"] in WHERE, f"unknown place {m['where']!r} in: {line}"
        found[WHERE[m["where"]]].add(m["key"])
    return found


def declared_keys(pid: str) -> dict[str, set[str]]:
    p = next(p for p in PLUGINS if p.id == pid)
    plugin: object = get_ruleset(pid) if p.kind == "ruleset" else get_layer(pid)
    return {attr: set(getattr(plugin, attr, frozenset[str]())) for attr in WHERE.values()}


def shipped() -> list[str]:
    return [p.id for p in PLUGINS]


@pytest.mark.parametrize("pid", shipped())
def test_every_scenario_key_a_plugin_reads_is_documented_and_every_documented_key_is_read(pid: str) -> None:
    page = DOCS / f"{pid}.md"
    assert page.is_file(), f"{pid} has no docs/scenarios/{pid}.md"
    text = page.read_text(encoding="utf-8")
    documented = documented_keys(text)
    declared = declared_keys(pid)
    for attr in WHERE.values():
        missing = declared[attr] - documented[attr]
        extra = documented[attr] - declared[attr]
        assert not missing, f"docs/scenarios/{pid}.md does not document its {attr}: {sorted(missing)}"
        assert not extra, (
            f"docs/scenarios/{pid}.md documents {attr} that {pid} does not read: {sorted(extra)}"
        )
    assert "## `sim --json`" in text, f"docs/scenarios/{pid}.md has no `sim --json` section"


def test_a_page_without_a_key_is_caught() -> None:
    page = (DOCS / "ocs.md").read_text(encoding="utf-8")
    cut = "\n".join(line for line in page.splitlines() if "`hedgehog`" not in line)
    assert documented_keys(cut)["board_keys"] != declared_keys("ocs")["board_keys"]


def sim_section(pid: str) -> str:
    text = (DOCS / f"{pid}.md").read_text(encoding="utf-8")
    return text.partition("\n## `sim --json`\n")[2].partition("\n## ")[0]


@pytest.mark.parametrize("pid", shipped())
def test_every_phase_end_field_sim_prints_is_documented(pid: str) -> None:
    """The ``phase_end`` fields ``sim --json`` prints for each bundled scenario of the plug-in (a unit's
    ``unit_summary``, the board's ``board_summary``; the night layer's own record) are named in its page."""
    layer = next(p for p in PLUGINS if p.id == pid).kind == "layer"
    files = [
        path
        for path in sorted(SCENARIO_DIR.glob("*.toml"))
        if (pid in tomllib.loads(path.read_text(encoding="utf-8")).get("layers", []))
        or (not layer and path.stem.startswith(f"{pid}-"))
    ]
    assert files, f"no bundled scenario plays {pid}"
    named = set(re.findall(r'`"?([a-z_]+)"?`|"([a-z_]+)"', sim_section(pid)))
    words = {a or b for a, b in named}
    for path in files:
        scenario = load_scenario(path)
        ruleset = ruleset_for(scenario.state)
        fields: set[str] = set()
        if layer:
            for value in ruleset.board_summary(scenario.state).values():
                fields.update(cast(dict[str, object], value) if isinstance(value, dict) else ())
        else:
            fields.update(k for k in ruleset.board_summary(scenario.state) if k not in {"night"})
            for unit in scenario.state.units.values():
                fields.update(ruleset.unit_summary(unit))
        missing = fields - words
        assert not missing, f"docs/scenarios/{pid}.md does not name the sim --json fields {sorted(missing)}"


def test_the_readme_and_the_package_description_name_every_ruleset() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    description = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"][
        "description"
    ]
    for rid in public_ruleset_ids():
        assert re.search(rf"\|\s*`?{rid}`?\s*\|", readme), f"the README's ruleset table has no {rid} row"
        assert rid in description, f"pyproject.toml's description does not name {rid}"
    for pid in shipped():
        assert f"docs/scenarios/{pid}.md" in readme, f"the README does not link docs/scenarios/{pid}.md"
