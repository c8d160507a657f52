"""Game data: ruleset tables (TOML), bundled scenarios, locales and fonts, with their loaders."""

from __future__ import annotations

from pathlib import Path

DATA_DIR = Path(__file__).resolve().parent
SCENARIO_DIR = DATA_DIR / "scenarios"
FONT_DIR = DATA_DIR / "fonts"
LOCALE_DIR = DATA_DIR / "locales"
