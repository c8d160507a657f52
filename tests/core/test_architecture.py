"""DESIGN §1: imports flow one way. rules/ is pure (standard library, rules, data tables); render/ never talks
to Discord or storage; cogs are the only Discord adapters besides bot/. Within render/, only a ruleset's own
overlay (render/rulesets/<id>.py) knows that ruleset."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

from tests.paths import ROOT

STDLIB = set(sys.stdlib_module_names)


def imports_of(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.lineno, node.module))
    return found


def offenders(package: str, allowed_roots: set[str], banned: set[str]) -> list[str]:
    bad: list[str] = []
    for path in sorted((ROOT / package).rglob("*.py")):
        for lineno, name in imports_of(path):
            root = name.split(".")[0]
            if root in banned or (root not in STDLIB and root not in allowed_roots):
                bad.append(f"{path.relative_to(ROOT)}:{lineno}: import {name}")
    return bad


def test_rules_is_pure() -> None:
    bad = offenders(
        "rules",
        {"rules", "data"},
        {"discord", "aiosqlite", "asyncpg", "asyncio", "PIL", "bot", "cogs", "render"},
    )
    assert not bad, "rules/ must stay pure:\n" + "\n".join(bad)


def test_render_never_imports_discord_or_storage() -> None:
    bad = offenders(
        "render", {"render", "rules", "data", "PIL"}, {"discord", "aiosqlite", "asyncpg", "bot", "cogs"}
    )
    assert not bad, "render/ imports what it must not:\n" + "\n".join(bad)


def plugin_ids() -> set[str]:
    """Every ruleset and layer id: registered, with an engine package in rules/, or with an overlay module."""
    from rules.registry import PLUGINS

    packages = {p.name for p in (ROOT / "rules").iterdir() if (p / "__init__.py").is_file()}
    overlays = {p.stem for p in (ROOT / "render" / "rulesets").glob("*.py") if p.stem != "__init__"}
    return {p.id for p in PLUGINS} | packages | overlays


def modules_named(path: Path) -> list[tuple[int, str]]:
    """Like ``imports_of``, plus ``from rules import exo`` as ``rules.exo``."""
    found = imports_of(path)
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.extend((node.lineno, f"{node.module}.{alias.name}") for alias in node.names)
    return found


def overlay_of(path: Path) -> str | None:
    """The id whose overlay ``path`` is (``render/rulesets/<id>.py``), or None for any other render module."""
    rel = path.relative_to(ROOT / "render")
    inside = rel.parts[0] == "rulesets" and len(rel.parts) == 2 and path.stem != "__init__"
    return path.stem if inside else None


GUESSES = {"getattr", "hasattr"}  # getattr(unit, "vector"): how the renderer used to guess the ruleset


def ruleset_knowledge(path: Path, own: str | None, ids: set[str]) -> list[str]:
    """Imports of another ruleset's ``rules.<id>`` and, outside an overlay, string constants naming an id."""
    imported = {
        (lineno, parts[1])
        for lineno, name in modules_named(path)
        if (parts := name.split("."))[0] == "rules" and len(parts) > 1 and parts[1] in ids and parts[1] != own
    }
    bad = [f"{lineno}: import rules.{rid}" for lineno, rid in sorted(imported)]
    if own is None:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in ids:
                bad.append(f"{node.lineno}: names the ruleset or layer {node.value!r}")
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in GUESSES:
                bad.append(f"{node.lineno}: {node.func.id}() guesses a field by name")
    return bad


def test_render_knows_a_ruleset_only_in_its_own_overlay() -> None:
    """No render module imports ``rules.<id>`` or names a ruleset or layer id, except ``render/rulesets/<id>.py``
    (which imports its own ``rules.<id>`` and no other's)."""
    ids = plugin_ids()
    assert {"exo", "skirmish", "night"} <= ids
    bad = [
        f"{path.relative_to(ROOT)}:{line}"
        for path in sorted((ROOT / "render").rglob("*.py"))
        for line in ruleset_knowledge(path, overlay_of(path), ids)
    ]
    assert not bad, "render/ outside render/rulesets/<id>.py must not know a ruleset:\n" + "\n".join(bad)


def test_data_loaders_use_only_the_standard_library() -> None:
    bad = offenders("data", {"data"}, {"discord", "PIL", "rules", "render", "bot", "cogs"})
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("package", ["rules", "render", "data", "bot", "cogs"])
def test_package_exists(package: str) -> None:
    assert (ROOT / package / "__init__.py").is_file()


def test_checker_catches_a_forbidden_import(tmp_path: Path) -> None:
    bad_file = tmp_path / "x.py"
    bad_file.write_text("import asyncio\nfrom discord import ui\n", encoding="utf-8")
    names = [n for _, n in imports_of(bad_file)]
    assert names == ["asyncio", "discord"]
    bad_file.write_text(
        "from rules import exo\nfrom rules.exo.model import Ship\nif state.ruleset == 'skirmish':\n    getattr(u, 'vector')\n",
        encoding="utf-8",
    )
    ids = {"exo", "skirmish"}
    assert ruleset_knowledge(bad_file, None, ids) == [
        "1: import rules.exo",
        "2: import rules.exo",
        "3: names the ruleset or layer 'skirmish'",
        "4: getattr() guesses a field by name",
    ]
    assert ruleset_knowledge(bad_file, "skirmish", ids) == ["1: import rules.exo", "2: import rules.exo"]
    assert ruleset_knowledge(bad_file, "exo", ids) == []


def test_no_test_module_imports_another() -> None:
    """Shared helpers live in helper modules (``tests/*_fixtures.py``, ``tests/e2e_helpers.py``,
    ``tests/paths.py``) or in a ``conftest.py``; a test module never imports another test module."""
    bad: list[str] = []
    for path in sorted((ROOT / "tests").rglob("*.py")):
        for lineno, name in imports_of(path):
            if name.startswith("tests.") and name.rsplit(".", 1)[-1].startswith("test_"):
                bad.append(f"{path.relative_to(ROOT)}:{lineno}: import {name}")
    assert not bad, "\n".join(bad)


def test_tests_are_grouped_by_layer_and_ruleset() -> None:
    """No test module at the top of tests/; each sits in its folder (core, bot, e2e, render, storage,
    or the ruleset's or layer's own id)."""
    loose = sorted(p.name for p in (ROOT / "tests").glob("test_*.py"))
    assert not loose, f"move these into a folder of tests/: {loose}"
