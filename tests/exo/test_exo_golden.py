"""Golden scenario (STYLE: reference files checked in): ten exo rounds, scripted dice then the seed.

Regenerate after an intended rules change with
``.venv/bin/python -m bot.process.cli sim tests/golden/exo-golden.toml --json > tests/golden/exo-golden.jsonl``
and review the diff.
"""

from __future__ import annotations

import contextlib
import difflib
import io
import json

from bot.process.cli import main as cli_main
from tests.paths import GOLDEN


def test_exo_golden_ten_rounds_json_log_matches_exactly() -> None:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = cli_main(["sim", str(GOLDEN / "exo-golden.toml"), "--json"])
    assert code == 0
    got = out.getvalue().splitlines()
    expected = (GOLDEN / "exo-golden.jsonl").read_text(encoding="utf-8").splitlines()
    if got != expected:
        diff = "\n".join(difflib.unified_diff(expected, got, "expected", "got", lineterm="", n=1))
        raise AssertionError(f"exo golden log changed:\n{diff[:6000]}")
    ends = [json.loads(line) for line in got if '"phase_end"' in line]
    assert ends[-1]["round"] == 10 and ends[-1]["phase"] == "5"
    assert sum(1 for line in got if '"source": "script"' in line) >= 4, "the scripted dice are used first"
