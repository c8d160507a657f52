"""Where things are, for tests in any folder: the repository root, the tests folder and the golden logs."""

from __future__ import annotations

from pathlib import Path

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
GOLDEN = TESTS / "golden"
