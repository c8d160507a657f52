"""Comments say why, git log says when: no source, locale, docs or build file cites the project's tracker.

A reference to a tracker entry means nothing to a reader without the tracker and stops being true as entries are
closed or renumbered; the reason it stood for belongs in the sentence itself, and the history in commit messages.
"""

from __future__ import annotations

import re
from pathlib import Path

from tests.paths import ROOT

#: every folder holding code, data, docs or tooling the project ships or runs; git history is not read
FOLDERS = ("bot", "cogs", "render", "rules", "data", "docs", "tests", "bench", ".ci")
#: files at the top of the repository
TOP_FILES = ("README.md", "Makefile", "pyproject.toml")
#: text files by suffix (fonts, images and golden JSON logs are data, not prose); .ci/run has none
TEXT_SUFFIXES = frozenset({".py", ".toml", ".md", ".txt", ".sh", ".cfg", ".ini", ".yml", ".yaml", ""})

#: the word followed by a number ("#" optional), or a parenthesis opening on the word; this file names the forms
#: to test the pattern, so the scan skips it
TRACKER = re.compile(r"\bissues?\s+#?\d|[(]issue\b", re.IGNORECASE)


def _text_files() -> list[Path]:
    files = [ROOT / name for name in TOP_FILES]
    for folder in FOLDERS:
        for path in sorted((ROOT / folder).rglob("*")):
            if (
                path.is_file()
                and path.suffix in TEXT_SUFFIXES
                and "__pycache__" not in path.parts
                and path != Path(__file__).resolve()
            ):
                files.append(path)
    return files


def test_the_scan_covers_code_locales_docs_and_build_files() -> None:
    """The scan would be vacuous if a folder were missed: each kind of file the rule is about is in it."""
    names = {path.relative_to(ROOT).as_posix() for path in _text_files()}
    for expected in (
        "Makefile",
        "README.md",
        "bot/process/client.py",
        "data/locales/es/problems.toml",
        "data/locales/en/problems.toml",
        "docs/scenarios.md",
        "tests/conftest.py",
        ".ci/run",
    ):
        assert expected in names, expected
    assert any(name.startswith("bench/") for name in names)


def test_no_file_cites_the_tracker() -> None:
    bad: list[str] = []
    for path in _text_files():
        text = path.read_text(encoding="utf-8")
        for lineno, line in enumerate(text.splitlines(), start=1):
            if TRACKER.search(line):
                bad.append(f"{path.relative_to(ROOT)}:{lineno}: {line.strip()}")
    assert not bad, "say the reason instead of citing the tracker:\n" + "\n".join(bad)


def test_the_pattern_catches_each_form_of_reference() -> None:
    """The forms the scan looks for, and words it must let through (a rule id, "issued", a plain "the issue")."""
    for cited in ("see issue 20", "Issue 15 item 3:", "issues 13 and 15", "issue #4", "Target (issue):"):
        assert TRACKER.search(cited), cited
    for plain in ("SK-6.2 grenades", "orders issued 20 s ago", "the issue here is the loop", "issue20x"):
        assert not TRACKER.search(plain), plain
