"""DESIGN §1: imports flow one way. rules/ is pure (standard library, rules, data tables); render/ never talks
to Discord or storage; cogs are the only Discord adapters besides bot/."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
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
