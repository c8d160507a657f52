"""The README stays true: it starts with the two set-up commands, and lists every environment variable the code
reads."""

from __future__ import annotations

import re

from tests.paths import ROOT

README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_every_environment_variable_the_code_reads_is_listed() -> None:
    pattern = re.compile(
        r"""(?:environ(?:\.get)?\(|environ\[|env\.get\(|\bgetenv\()\s*["']([A-Z][A-Z0-9_]+)["']"""
    )
    named = re.compile(r"""["']((?:HEXD|DISCORD|DATABASE|SHARD|LOG)_[A-Z0-9_]*|LOG_LEVEL)["']""")
    read: set[str] = set()
    for package in ("bot", "cogs", "render", "rules", "data"):
        for path in (ROOT / package).rglob("*.py"):
            text = path.read_text(encoding="utf-8")
            read |= set(pattern.findall(text)) | set(named.findall(text))
    assert {"DISCORD_TOKEN", "DATABASE_URL"} <= read
    missing = sorted(name for name in read if f"`{name}`" not in README)
    assert not missing, f"README's configuration table lacks {missing}"


def test_the_readme_starts_with_the_two_setup_commands() -> None:
    block = README.split("```", 2)[1].strip().splitlines()
    commands = [line.split("#")[0].strip() for line in block[1:] if line.strip()]
    assert commands == ["make run", "make test"]
