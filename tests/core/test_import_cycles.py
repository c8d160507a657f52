"""DESIGN §1 and §4: imports flow one way, inside a floor too. The import graph of the code (every ``import``
statement, at the top of a module, inside a function or under ``TYPE_CHECKING``: a circle a reader has to
walk is a circle whether or not Python runs it at import time) is built from the source with ``ast``, and a
circle in it fails the test unless it is one of the few listed below, each with the reason it stays."""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from pathlib import Path

from tests.paths import ROOT

PACKAGES = ("bot", "cogs", "render", "rules", "data")

#: circles kept on purpose, each with why: a circle listed here that no longer exists fails the test too, so
#: the list only shrinks
ALLOWED: Mapping[frozenset[str], str] = {
    frozenset({"rules.layer", "rules.registry", "rules.ruleset", "rules.scenario"}): (
        "the registry imports a plug-in's engine by name on first use, and a ruleset looks its base up there "
        "only inside a function; the scenario context is named by the hooks' signatures only (TYPE_CHECKING)"
    ),
    frozenset({"render.rulesets", "render.scene"}): (
        "a scene names the overlay that draws it in a type only (TYPE_CHECKING); the overlays draw scenes"
    ),
}


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules_under(root: Path, packages: Iterable[str]) -> dict[str, Path]:
    return {module_name(p, root): p for package in packages for p in sorted((root / package).rglob("*.py"))}


def imported_modules(name: str, path: Path, known: Mapping[str, Path]) -> set[str]:
    """The modules of ``known`` that ``name`` imports: ``from pkg import sub`` names ``pkg.sub`` when that is a
    module, else ``pkg``; relative imports are resolved against the module's package."""
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name in known)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - (node.level - 1)]
                source = ".".join([*base, *([node.module] if node.module else [])])
            else:
                source = node.module or ""
            for alias in node.names:
                inner = f"{source}.{alias.name}"
                if inner in known:
                    found.add(inner)
                elif source in known:
                    found.add(source)
    found.discard(name)
    return found


def import_graph(root: Path, packages: Iterable[str]) -> dict[str, set[str]]:
    known = modules_under(root, packages)
    return {name: imported_modules(name, path, known) for name, path in known.items()}


def circles(graph: Mapping[str, set[str]]) -> list[frozenset[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[frozenset[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work: list[tuple[str, list[str]]] = [(start, sorted(graph[start]))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, todo = work[-1]
            if todo:
                nxt = todo.pop()
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, sorted(graph.get(nxt, ()))))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                group: set[str] = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.add(member)
                    if member == node:
                        break
                if len(group) > 1:
                    found.append(frozenset(group))
    return found


def describe(group: frozenset[str], graph: Mapping[str, set[str]]) -> str:
    return "\n".join(f"  {m} -> {', '.join(sorted(graph[m] & group))}" for m in sorted(group))


def test_no_import_circle_but_the_listed_ones() -> None:
    graph = import_graph(ROOT, PACKAGES)
    found = circles(graph)
    unexpected = [g for g in found if g not in ALLOWED]
    assert not unexpected, "import circles:\n" + "\n\n".join(describe(g, graph) for g in unexpected)
    gone = [sorted(g) for g in ALLOWED if g not in found]
    assert not gone, f"these circles are gone: remove them from ALLOWED: {gone}"


def test_storage_has_no_circle_and_its_interface_imports_no_backend() -> None:
    graph = import_graph(ROOT, PACKAGES)
    assert not [g for g in circles(graph) if any(m.startswith("bot.storage") for m in g)]
    assert not {m for m in graph["bot.storage.base"] if m.startswith("bot.storage.sql")}
    assert not {m for m in graph["bot.storage.model"] if m.startswith("bot.storage")}


def test_only_storage_imports_its_sql_backend() -> None:
    graph = import_graph(ROOT, PACKAGES)
    outside = sorted(
        m
        for m, targets in graph.items()
        if not m.startswith("bot.storage") and any(t.startswith("bot.storage.sql") for t in targets)
    )
    assert not outside, f"these modules reach past the Storage interface: {outside}"


def test_the_checker_finds_a_circle_through_a_function_level_and_a_relative_import(tmp_path: Path) -> None:
    pkg = tmp_path / "bot" / "store"
    pkg.mkdir(parents=True)
    (tmp_path / "bot" / "__init__.py").write_text("", encoding="utf-8")
    (pkg / "__init__.py").write_text("", encoding="utf-8")
    (pkg / "base.py").write_text("def load() -> None:\n    from .sql import rows\n", encoding="utf-8")
    (pkg / "sql.py").write_text("from bot.store.base import load\nrows = load\n", encoding="utf-8")
    (pkg / "leaf.py").write_text("from . import base\n", encoding="utf-8")
    assert circles(import_graph(tmp_path, ["bot"])) == [frozenset({"bot.store.base", "bot.store.sql"})]
